import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kubernetesService } from '../../../../src/api/core/more-kinds.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, status, type Cluster } from './more-helpers.js';

const svc = (name: string, spec: Record<string, unknown>): KObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
const web = (name: string, extra: Record<string, unknown> = {}) => svc(name, { selector: { app: name }, ports: [{ port: 80 }], ...extra });

describe('Service through the registry and the allocator', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster();
  });
  after(() => c.store.close());
  const services = () => c.client.resource('v1', 'services');

  it('gives the kubernetes service the first address', async () => {
    const k = await services().create('default', kubernetesService());
    const spec = k.spec as Record<string, unknown>;
    assert.equal(spec.clusterIP, '10.43.0.1');
    assert.deepEqual(spec.ipFamilies, ['IPv4']);
    assert.equal(spec.ipFamilyPolicy, 'SingleStack');
    assert.deepEqual(spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }]);
  });

  it('allocates cluster IPs, defaults and keeps them across resubmits', async () => {
    const a = await services().create('default', web('a'));
    assert.deepEqual(a.spec, {
      selector: { app: 'a' },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
      clusterIPs: ['10.43.1.1'],
      clusterIP: '10.43.1.1',
    });
    assert.deepEqual(a.status, { loadBalancer: {} });
    assert.equal(a.metadata.generation, undefined);
    const b = await services().create('default', web('b'));
    assert.equal((b.spec as { clusterIP: string }).clusterIP, '10.43.1.2');
    // The same manifest again (no clusterIP) keeps the address; a different one is refused.
    const again = await services().update('default', { ...web('a'), metadata: { name: 'a' } });
    assert.equal((again.spec as { clusterIP: string }).clusterIP, '10.43.1.1');
    await assert.rejects(
      services().update('default', web('a', { clusterIP: '10.43.7.7' })),
      status(422, 'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.43.7.7"}: may not change once set'),
    );
  });

  it('refuses addresses that are taken or out of range', async () => {
    await assert.rejects(
      services().create('default', web('dup', { clusterIP: '10.43.1.1' })),
      status(422, 'Service "dup" is invalid: spec.clusterIPs: Invalid value: []string{"10.43.1.1"}: failed to allocate IP 10.43.1.1: provided IP is already allocated'),
    );
    await assert.rejects(
      services().create('default', web('far', { clusterIP: '10.99.0.1' })),
      status(422, 'Service "far" is invalid: spec.clusterIPs: Invalid value: []string{"10.99.0.1"}: failed to allocate IP 10.99.0.1: the provided network does not match the current range'),
    );
    const chosen = await services().create('default', web('chosen', { clusterIP: '10.43.0.5' }));
    assert.deepEqual((chosen.spec as { clusterIPs: string[] }).clusterIPs, ['10.43.0.5']);
  });

  it('allocates node ports without collisions and frees them on a type change', async () => {
    const np = await services().create('default', web('np', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080, name: 'a' }, { port: 81, name: 'b' }] }));
    const ports = (np.spec as { ports: { nodePort: number }[] }).ports;
    assert.deepEqual(ports.map((p) => p.nodePort), [30080, 30086]);
    assert.equal((np.spec as { externalTrafficPolicy: string }).externalTrafficPolicy, 'Cluster');
    await assert.rejects(
      services().create('default', web('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })),
      status(422, 'Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated'),
    );
    const back = await services().update('default', { ...np, spec: { ...(np.spec as object), type: 'ClusterIP' } });
    assert.deepEqual((back.spec as { ports: Record<string, unknown>[] }).ports.map((p) => p.nodePort), [undefined, undefined]);
    const np2 = await services().create('default', web('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
    assert.equal((np2.spec as { ports: { nodePort: number }[] }).ports[0].nodePort, 30080);
  });

  it('handles headless, ExternalName and Local load balancer services', async () => {
    const headless = await services().create('default', svc('hl', { clusterIP: 'None' }));
    assert.equal((headless.spec as { clusterIP: string }).clusterIP, 'None');
    assert.deepEqual((headless.spec as { ipFamilies: string[] }).ipFamilies, ['IPv4', 'IPv6']);
    assert.equal((headless.spec as { ipFamilyPolicy: string }).ipFamilyPolicy, 'RequireDualStack');
    const ext = await services().create('default', svc('ext', { type: 'ExternalName', externalName: 'db.example.com' }));
    assert.deepEqual(ext.spec, { type: 'ExternalName', externalName: 'db.example.com', sessionAffinity: 'None' });
    const lb = await services().create('default', web('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }));
    const spec = lb.spec as { healthCheckNodePort: number; ports: { nodePort: number }[]; allocateLoadBalancerNodePorts: boolean };
    assert.ok(spec.healthCheckNodePort >= 30000 && spec.healthCheckNodePort <= 32767);
    assert.notEqual(spec.healthCheckNodePort, spec.ports[0].nodePort);
    assert.equal(spec.allocateLoadBalancerNodePorts, true);
    // The status subresource sets the ingress; IP ingress points default to ipMode VIP.
    const st = await services().update('default', { ...lb, status: { loadBalancer: { ingress: [{ ip: '203.0.113.9' }] } } }, { subresource: 'status' });
    assert.deepEqual(st.status, { loadBalancer: { ingress: [{ ip: '203.0.113.9', ipMode: 'VIP' }] } });
    assert.deepEqual((st.spec as { healthCheckNodePort: number }).healthCheckNodePort, spec.healthCheckNodePort);
  });

  it('does not reserve on dry-run and never hands out an address twice under concurrency', async () => {
    const dry = await services().create('default', web('dry'), { dryRun: true });
    const real = await services().create('default', web('real'));
    assert.equal((dry.spec as { clusterIP: string }).clusterIP, (real.spec as { clusterIP: string }).clusterIP);
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => services().create('default', web(`c${i}`, { type: 'NodePort' }))));
    const ips = many.map((s) => (s.spec as { clusterIP: string }).clusterIP);
    const nodePorts = many.map((s) => (s.spec as { ports: { nodePort: number }[] }).ports[0].nodePort);
    assert.equal(new Set(ips).size, 20);
    assert.equal(new Set(nodePorts).size, 20);
  });

  it('allocates when leaving ExternalName and releases when entering it', async () => {
    const ext = await services().get('default', 'ext');
    const moved = await services().update('default', { ...ext, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } });
    const ip = (moved.spec as { clusterIP: string }).clusterIP;
    assert.match(ip, /^10\.43\.\d+\.\d+$/);
    assert.equal((moved.spec as { ipFamilyPolicy: string }).ipFamilyPolicy, 'SingleStack');
    const back = await services().update('default', { ...moved, spec: { ...(moved.spec as object), type: 'ExternalName', externalName: 'db.example.com' } });
    assert.deepEqual(back.spec, { type: 'ExternalName', externalName: 'db.example.com', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None' });
    const taker = await services().create('default', web('taker', { clusterIP: ip }));
    assert.equal((taker.spec as { clusterIP: string }).clusterIP, ip);
  });

  it('serves the table and selects by type', async () => {
    const list = await services().list('default', { fieldSelector: 'spec.type=ExternalName' });
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['ext']);
  });
});
