import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EndpointSlice } from '../../../../src/api/discovery/endpointslice/validation.js';
import type { KObject } from '../../../../src/api/types.js';
import { endpointSliceMirroringController } from '../../../../src/controllers/endpointslice/controller.js';
import { controllerCluster, type ControllerCluster } from '../harness.js';
import { NS, service } from '../endpoints/fixtures.js';

describe('endpointslice mirroring controller', () => {
  let c: ControllerCluster;
  const eps = () => c.client.resource('v1', 'endpoints');
  const slicesOf = async (svc: string) =>
    (await c.client.resource('discovery.k8s.io/v1', 'endpointslices').list(NS, { labelSelector: `kubernetes.io/service-name=${svc}` })).items as EndpointSlice[];
  const endpoints = (name: string, subsets: unknown[], labels?: Record<string, string>): KObject =>
    ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace: NS, ...(labels ? { labels } : {}) }, subsets }) as KObject;

  before(async () => {
    c = await controllerCluster([endpointSliceMirroringController()]);
  });
  after(async () => c.close());

  it('mirrors a selector-less Service\'s Endpoints into a slice per address type, follows changes and deletion', async () => {
    await c.client.resource('v1', 'services').create(NS, service('ext', { ports: [{ name: 'db', port: 5432 }] }));
    const ep = await eps().create(
      NS,
      endpoints('ext', [{ addresses: [{ ip: '192.168.0.1', hostname: 'one' }, { ip: 'fd00::1' }], notReadyAddresses: [{ ip: '192.168.0.2' }], ports: [{ name: 'db', port: 5432, protocol: 'TCP' }] }], { env: 'prod' }),
    );
    const slices = await c.waitFor('two mirrored slices', async () => {
      const s = await slicesOf('ext');
      return s.length === 2 && s;
    });
    const v4 = slices.find((s) => s.addressType === 'IPv4')!;
    const v6 = slices.find((s) => s.addressType === 'IPv6')!;
    assert.deepEqual(v4.metadata.labels, { env: 'prod', 'kubernetes.io/service-name': 'ext', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' });
    assert.deepEqual(v4.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Endpoints', name: 'ext', uid: ep.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(v4.ports, [{ name: 'db', port: 5432, protocol: 'TCP' }]);
    const byIp = new Map((v4.endpoints ?? []).map((e) => [e.addresses![0], e]));
    assert.deepEqual(byIp.get('192.168.0.1')!.conditions, { ready: true });
    assert.equal(byIp.get('192.168.0.1')!.hostname, 'one');
    assert.deepEqual(byIp.get('192.168.0.2')!.conditions, { ready: false });
    assert.deepEqual(v6.endpoints!.map((e) => e.addresses), [['fd00::1']]);

    // the IPv6 address goes: its slice goes; the IPv4 slice is updated in place
    await eps().update(NS, { ...(await eps().get(NS, 'ext')), subsets: [{ addresses: [{ ip: '192.168.0.1' }, { ip: '192.168.0.3' }], ports: [{ name: 'db', port: 5432, protocol: 'TCP' }] }] } as KObject);
    const updated = await c.waitFor('IPv4 only, two ready addresses', async () => {
      const s = await slicesOf('ext');
      return s.length === 1 && (s[0].endpoints ?? []).length === 2 && s[0];
    });
    assert.equal(updated.metadata.name, v4.metadata.name);
    assert.deepEqual(updated.endpoints!.map((e) => e.addresses![0]).sort(), ['192.168.0.1', '192.168.0.3']);

    await eps().delete(NS, 'ext');
    await c.waitFor('mirrored slices removed', async () => (await slicesOf('ext')).length === 0);
  });

  it('does not mirror Services with a selector or Endpoints labelled skip-mirror', async () => {
    await c.client.resource('v1', 'services').create(NS, service('sel', { selector: { app: 'x' }, ports: [{ port: 80 }] }));
    await eps().create(NS, endpoints('sel', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }]));
    await c.client.resource('v1', 'services').create(NS, service('skip', { ports: [{ port: 80 }] }));
    await eps().create(NS, endpoints('skip', [{ addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 80 }] }], { 'endpointslice.kubernetes.io/skip-mirror': 'true' }));
    await c.client.resource('v1', 'services').create(NS, service('control', { ports: [{ port: 80 }] }));
    await eps().create(NS, endpoints('control', [{ addresses: [{ ip: '10.0.0.3' }], ports: [{ port: 80 }] }]));
    await c.waitFor('control mirrored', async () => (await slicesOf('control')).length === 1);
    assert.equal((await slicesOf('sel')).length, 0);
    assert.equal((await slicesOf('skip')).length, 0);
  });
});
