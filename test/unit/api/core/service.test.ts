import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultService, dropTypeDependentFields, normalizeClusterIPs, patchAllocatedValues, serviceResource, serviceWarnings, type Service,
} from '../../../../src/api/core/service/resource.js';
import { allocateCreate, allocateUpdate, initIPFamilyFields } from '../../../../src/api/core/service/alloc.js';
import { parseCIDR } from '../../../../src/api/core/service/net.js';
import { validateService, validateServiceStatus, validateServiceUpdate } from '../../../../src/api/core/service/validation.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { invalidMessage, NOW, seq, strings, ts } from './more-helpers.js';

const svc = (spec: Service['spec'], name = 'web'): Service => ({ metadata: { name, namespace: 'default' }, spec });
const defaulted = (spec: Service['spec'], name = 'web'): Service => {
  const s = svc(spec, name);
  defaultService(s);
  normalizeClusterIPs(s);
  return s;
};
const cfg = () => ({ cidr: parseCIDR('10.43.0.0/16')!, nodePorts: [30000, 32767] as [number, number], random: seq(0) });
const empty = () => ({ ips: new Set<string>(), ports: new Set<number>() });

describe('Service defaults', () => {
  it('fills type, affinity, protocols, target ports and traffic policies', () => {
    const s = defaulted({ ports: [{ port: 80 }, { port: 443, targetPort: 'https', name: 'b' }], selector: { app: 'web' } });
    assert.deepEqual(s.spec, {
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }, { port: 443, targetPort: 'https', name: 'b', protocol: 'TCP' }],
      selector: { app: 'web' },
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
    });
    assert.deepEqual(s.status, { loadBalancer: {} });
  });

  it('defaults externalTrafficPolicy for NodePort, node ports for LoadBalancer and the ClientIP timeout', () => {
    assert.equal(defaulted({ type: 'NodePort', ports: [{ port: 80 }] }).spec?.externalTrafficPolicy, 'Cluster');
    const lb = defaulted({ type: 'LoadBalancer', ports: [{ port: 80 }] });
    assert.equal(lb.spec?.allocateLoadBalancerNodePorts, true);
    assert.equal(lb.spec?.externalTrafficPolicy, 'Cluster');
    const ext = defaulted({ type: 'ExternalName', externalName: 'example.com' });
    assert.equal(ext.spec?.internalTrafficPolicy, undefined);
    const sticky = defaulted({ sessionAffinity: 'ClientIP', ports: [{ port: 80 }] });
    assert.deepEqual(sticky.spec?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
  });

  it('keeps clusterIP and clusterIPs in step', () => {
    assert.deepEqual(defaulted({ clusterIP: '10.43.0.7', ports: [{ port: 80 }] }).spec?.clusterIPs, ['10.43.0.7']);
    const old = defaulted({ clusterIP: '10.43.0.7', ports: [{ port: 80 }] });
    const resubmitted = svc({ ports: [{ port: 80 }] });
    defaultService(resubmitted);
    patchAllocatedValues(resubmitted, old);
    normalizeClusterIPs(resubmitted, old);
    assert.equal(resubmitted.spec?.clusterIP, '10.43.0.7');
    assert.deepEqual(resubmitted.spec?.clusterIPs, ['10.43.0.7']);
  });

  it('wipes type-dependent fields on a type change', () => {
    const old = defaulted({ type: 'NodePort', clusterIP: '10.43.0.7', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ port: 80, nodePort: 30080 }] });
    const next = structuredClone(old);
    next.spec!.type = 'ExternalName';
    next.spec!.externalName = 'example.com';
    dropTypeDependentFields(next, old);
    assert.equal(next.spec?.clusterIP, undefined);
    assert.equal(next.spec?.clusterIPs, undefined);
    assert.equal(next.spec?.ipFamilies, undefined);
    assert.equal(next.spec?.ipFamilyPolicy, undefined);
    assert.equal(next.spec?.ports?.[0].nodePort, undefined);
    assert.equal(next.spec?.externalTrafficPolicy, undefined);
  });
});

describe('Service validation', () => {
  it('requires names for several ports and reports duplicates as Kubernetes does', () => {
    const s = defaulted({ selector: { app: 'web' }, ports: [{ port: 80 }, { port: 80 }] });
    assert.deepEqual(strings(validateService(s)), [
      'spec.ports[0].name: Required value',
      'spec.ports[1].name: Required value',
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]);
    const dup = defaulted({ ports: [{ name: 'a', port: 80 }, { name: 'a', port: 81, protocol: 'HTTP' }] });
    assert.deepEqual(strings(validateService(dup)), [
      'spec.ports[1].name: Duplicate value: "a"',
      'spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ]);
  });

  it('checks ports, cluster IPs and the type', () => {
    const s = defaulted({ ports: [{ port: 0 }], clusterIP: '1.2.3' });
    assert.equal(
      invalidMessage('Service', 'web', validateService(s)),
      'Service "web" is invalid: [spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive, spec.clusterIPs[0]: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)]',
    );
    assert.deepEqual(strings(validateService(defaulted({}))), ['spec.ports: Required value']);
    assert.deepEqual(strings(validateService(defaulted({ clusterIP: 'None' }))), []);
    assert.deepEqual(strings(validateService(defaulted({ type: 'Magic', ports: [{ port: 1 }] }))).slice(-1), [
      'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]);
    assert.deepEqual(strings(validateService(defaulted({ ports: [{ port: 80, nodePort: 30001 }] }))), [
      "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    ]);
  });

  it('applies the ExternalName and headless rules', () => {
    assert.deepEqual(strings(validateService(defaulted({ type: 'ExternalName', clusterIP: '10.43.0.5' }))), [
      'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
      'spec.externalName: Required value',
    ]);
    assert.deepEqual(strings(validateService(defaulted({ type: 'ExternalName', externalName: 'db.example.com.' }))), []);
    assert.deepEqual(strings(validateService(defaulted({ type: 'LoadBalancer', clusterIP: 'None', ports: [{ port: 80 }] }))), [
      "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for LoadBalancer services",
    ]);
    assert.deepEqual(strings(validateService(defaulted({ externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }))), [
      'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    ]);
  });

  it('checks affinity, source ranges and external IPs', () => {
    const s = defaulted({
      ports: [{ port: 80 }],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 90000 } },
      loadBalancerSourceRanges: ['10.0.0.0/33'],
      externalIPs: ['127.0.0.1'],
    });
    assert.deepEqual(strings(validateService(s)), [
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 90000: must be greater than 0 and less than 86400',
      'spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
      'spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
  });

  it('keeps cluster IPs, load balancer class and health-check port on updates', () => {
    const old = defaulted({ clusterIP: '10.43.0.5', ports: [{ port: 80 }] });
    const next = defaulted({ clusterIP: '10.43.0.9', ports: [{ port: 80 }] });
    assert.equal(
      invalidMessage('Service', 'web', validateServiceUpdate(next, old)),
      'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.43.0.9"}: may not change once set',
    );
    const lbOld = defaulted({ type: 'LoadBalancer', loadBalancerClass: 'a.io/x', externalTrafficPolicy: 'Local', healthCheckNodePort: 30100, ports: [{ port: 80 }] });
    const lbNew = structuredClone(lbOld);
    lbNew.spec!.loadBalancerClass = 'b.io/y';
    lbNew.spec!.healthCheckNodePort = 30101;
    assert.deepEqual(strings(validateServiceUpdate(lbNew, lbOld)), [
      'spec.loadBalancerClass: Invalid value: "b.io/y": may not change once set',
      'spec.healthCheckNodePort: Forbidden: field is immutable',
    ]);
  });

  it('validates the load balancer status', () => {
    const s = defaulted({ type: 'ClusterIP', ports: [{ port: 80 }] });
    s.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
    assert.deepEqual(strings(validateServiceStatus(s)), ["status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"]);
    const lb = defaulted({ type: 'LoadBalancer', ports: [{ port: 80 }] });
    lb.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: '1.2.3.5' }] } };
    assert.deepEqual(strings(validateServiceStatus(lb)), [
      'status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set',
      'status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.5": must be a DNS name, not an IP address',
    ]);
  });

  it('warns about ignored fields', () => {
    assert.deepEqual(serviceWarnings(defaulted({ externalName: 'x.example.com', ports: [{ port: 80 }] })), [
      'spec.externalName is ignored when spec.type is not "ExternalName"',
    ]);
    assert.deepEqual(serviceWarnings(defaulted({ clusterIP: 'None', sessionAffinity: 'ClientIP' })), ['spec.SessionAffinity is ignored for headless services']);
    assert.deepEqual(serviceWarnings(defaulted({ clusterIP: '010.43.0.5', ports: [{ port: 80 }] })), [
      'spec.clusterIPs[0]: non-standard IP address "010.43.0.5" will be considered invalid in a future Kubernetes release: use "10.43.0.5"',
    ]);
  });
});

describe('Service allocation (pure)', () => {
  it('defaults IP families as a single-stack cluster does', () => {
    const s = defaulted({ ports: [{ port: 80 }] });
    initIPFamilyFields(s, undefined, 'IPv4');
    assert.equal(s.spec?.ipFamilyPolicy, 'SingleStack');
    assert.deepEqual(s.spec?.ipFamilies, ['IPv4']);
    const headless = defaulted({ clusterIP: 'None' });
    initIPFamilyFields(headless, undefined, 'IPv4');
    assert.equal(headless.spec?.ipFamilyPolicy, 'RequireDualStack');
    assert.deepEqual(headless.spec?.ipFamilies, ['IPv4', 'IPv6']);
    const dual = defaulted({ ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] });
    assert.throws(
      () => initIPFamilyFields(dual, undefined, 'IPv4'),
      (e: unknown) => e instanceof StatusError && e.message === 'Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    );
    const v6 = defaulted({ clusterIP: 'fd00::5', ports: [{ port: 80 }] });
    assert.throws(
      () => initIPFamilyFields(v6, undefined, 'IPv4'),
      (e: unknown) => e instanceof StatusError && e.message === 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::5"}: IPv6 is not configured on this cluster',
    );
  });

  it('allocates from the upper part of the ranges, skipping what is taken', () => {
    const s = defaulted({ type: 'NodePort', ports: [{ port: 80 }, { port: 80, protocol: 'UDP', name: 'u' }] });
    const taken = empty();
    taken.ports.add(30086);
    const got = allocateCreate(s, cfg(), taken);
    assert.equal(s.spec?.clusterIP, '10.43.1.1');
    assert.deepEqual(s.spec?.clusterIPs, ['10.43.1.1']);
    // Ports sharing a number share one node port.
    assert.deepEqual(s.spec?.ports?.map((p) => p.nodePort), [30087, 30087]);
    assert.deepEqual(got, { ips: [(0x0a2b0101).toString()], ports: [30087] });
  });

  it('rejects chosen addresses and ports that are out of range or taken', () => {
    const taken = empty();
    taken.ips.add((0x0a2b0005).toString());
    const msg = (spec: Service['spec']) => {
      try {
        allocateCreate(defaulted(spec), cfg(), taken);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    assert.equal(msg({ clusterIP: '10.43.0.5', ports: [{ port: 80 }] }), 'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.43.0.5"}: failed to allocate IP 10.43.0.5: provided IP is already allocated');
    assert.equal(msg({ clusterIP: '10.99.0.5', ports: [{ port: 80 }] }), 'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.99.0.5"}: failed to allocate IP 10.99.0.5: the provided network does not match the current range');
    assert.equal(
      msg({ clusterIP: '10.43.255.255', ports: [{ port: 80 }] }),
      'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.43.255.255"}: failed to allocate IP 10.43.255.255: the provided IP (10.43.255.255) is not in the valid range. The range of valid IPs is 10.43.0.0/16',
    );
    assert.equal(msg({ type: 'NodePort', ports: [{ port: 80, nodePort: 40000 }] }), 'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. The range of valid ports is 30000-32767');
  });

  it('allocates a health-check port for Local load balancers and node ports on a type change', () => {
    const lb = defaulted({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 443 }] });
    allocateCreate(lb, cfg(), empty());
    assert.equal(lb.spec?.ports?.[0].nodePort, 30086);
    assert.equal(lb.spec?.healthCheckNodePort, 30087);
    const old = defaulted({ ports: [{ port: 80 }], clusterIP: '10.43.0.9' });
    old.spec!.ipFamilies = ['IPv4'];
    old.spec!.ipFamilyPolicy = 'SingleStack';
    const next = structuredClone(old);
    next.spec!.type = 'NodePort';
    defaultService(next);
    const got = allocateUpdate(next, old, cfg(), empty());
    assert.equal(next.spec?.clusterIP, '10.43.0.9');
    assert.equal(next.spec?.ports?.[0].nodePort, 30086);
    assert.deepEqual(got, { ips: [], ports: [30086] });
  });
});

describe('Service table', () => {
  const row = (s: Service) => serviceResource.columns.map((c) => c.cell(ts(s) as Service, { now: NOW }));

  it('prints addresses, ports and the selector', () => {
    const s = defaulted({ type: 'NodePort', clusterIP: '10.43.0.10', selector: { app: 'web', tier: 'fe' }, ports: [{ port: 80, nodePort: 30080 }, { port: 53, protocol: 'UDP', name: 'dns' }] });
    assert.deepEqual(row(s), ['web', 'NodePort', '10.43.0.10', '<none>', '80:30080/TCP,53/UDP', '5m', 'app=web,tier=fe']);
    const ext = defaulted({ type: 'ExternalName', externalName: 'db.example.com' });
    assert.deepEqual(row(ext), ['web', 'ExternalName', '<none>', 'db.example.com', '<none>', '5m', '<none>']);
    const lb = defaulted({ type: 'LoadBalancer', ports: [{ port: 80 }], externalIPs: ['9.9.9.9'] });
    assert.equal(row(lb)[3], '9.9.9.9');
    lb.status = { loadBalancer: { ingress: [{ ip: '5.6.7.8' }, { hostname: 'lb.example.com' }] } };
    assert.equal(row(lb)[3], '5.6.7.8,lb.example.com,9.9.9.9');
    assert.equal(row(defaulted({ type: 'LoadBalancer', ports: [{ port: 80 }] }))[3], '<pending>');
  });

  it('has the kube names, short name, category and selectable fields', () => {
    assert.deepEqual(serviceResource.shortNames, ['svc']);
    assert.deepEqual(serviceResource.categories, ['all']);
    assert.deepEqual(serviceResource.columns.map((c) => [c.name, c.priority ?? 0]), [
      ['Name', 0], ['Type', 0], ['Cluster-IP', 0], ['External-IP', 0], ['Port(s)', 0], ['Age', 0], ['Selector', 1],
    ]);
    assert.deepEqual(Object.keys(serviceResource.selectableFields ?? {}), ['spec.clusterIP', 'spec.type']);
    assert.equal(serviceResource.hasGeneration, undefined);
  });
});
