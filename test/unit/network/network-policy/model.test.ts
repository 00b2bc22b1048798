import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import type { KObject } from '../../../../src/api/types.js';
import type { NetworkPolicy, NetworkPolicySpec } from '../../../../src/api/networking/networkpolicy/validation.js';
import { compileNetworkPolicies, effectivePolicyTypes, type PodPolicy } from '../../../../src/network/network-policy/model.js';

const NODE = 'node-a';

function pod(ns: string, name: string, labels: Record<string, string>, ip: string | undefined, extra: { node?: string; ports?: Array<{ name: string; containerPort: number; protocol?: string }>; hostNetwork?: boolean; phase?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: ns, name, uid: `uid-${ns}-${name}`, labels },
    spec: { nodeName: extra.node ?? NODE, hostNetwork: extra.hostNetwork, containers: [{ name: 'c', image: 'x', ports: extra.ports }] },
    status: { phase: extra.phase ?? 'Running', podIP: ip, podIPs: ip ? [{ ip }] : [] },
  } as Pod;
}

function policy(ns: string, name: string, spec: NetworkPolicySpec): NetworkPolicy {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace: ns, name }, spec };
}

function namespace(name: string, labels: Record<string, string> = {}): KObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

const NAMESPACES = [namespace('default'), namespace('prod', { team: 'a', env: 'prod' }), namespace('dev', { team: 'a', env: 'dev' }), namespace('other', { team: 'b' })];

const PODS = [
  pod('default', 'web', { app: 'web' }, '10.1.0.2', { ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] }),
  pod('default', 'client', { role: 'client' }, '10.1.0.3'),
  pod('default', 'other', { role: 'other' }, '10.1.0.4'),
  pod('prod', 'api', { app: 'api', role: 'client' }, '10.1.0.5', { ports: [{ name: 'http', containerPort: 9090 }] }),
  pod('dev', 'tool', { role: 'client' }, '10.1.0.6'),
  pod('other', 'x', { role: 'client' }, '10.1.1.7', { node: 'node-b' }),
];

function compile(policies: NetworkPolicy[], pods: Pod[] = PODS): Map<string, PodPolicy> {
  const out = compileNetworkPolicies({ policies, pods, namespaces: NAMESPACES, nodeName: NODE });
  return new Map(out.map((p) => [`${p.namespace}/${p.name}`, p]));
}

test('policyTypes default to Ingress, plus Egress only when egress rules exist', () => {
  assert.deepEqual(effectivePolicyTypes({}), { ingress: true, egress: false });
  assert.deepEqual(effectivePolicyTypes({ egress: [] }), { ingress: true, egress: false });
  assert.deepEqual(effectivePolicyTypes({ egress: [{}] }), { ingress: true, egress: true });
  assert.deepEqual(effectivePolicyTypes({ policyTypes: ['Egress'] }), { ingress: false, egress: true });
  assert.deepEqual(effectivePolicyTypes({ policyTypes: ['Ingress'], egress: [{}] }), { ingress: true, egress: false });
});

test('pods no policy selects are not isolated; a selecting policy isolates only the directions of its types', () => {
  const r = compile([policy('default', 'deny', { podSelector: { matchLabels: { app: 'web' } } })]);
  assert.deepEqual([...r.keys()], ['default/web']);
  const web = r.get('default/web')!;
  assert.deepEqual(web.ingress, [], 'empty ingress list: deny all ingress');
  assert.equal(web.egress, undefined, 'not isolated for egress');
  assert.deepEqual(web.policies, ['default/deny']);
  assert.equal(web.ip, '10.1.0.2');
});

test('an empty podSelector selects every pod of the policy namespace only', () => {
  const r = compile([policy('default', 'deny-all', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] })]);
  assert.deepEqual([...r.keys()].sort(), ['default/client', 'default/other', 'default/web']);
  for (const p of r.values()) {
    assert.deepEqual(p.ingress, []);
    assert.deepEqual(p.egress, []);
  }
});

test('egress-only policy leaves ingress open', () => {
  const r = compile([policy('default', 'e', { podSelector: {}, policyTypes: ['Egress'] })]);
  assert.equal(r.get('default/web')!.ingress, undefined);
  assert.deepEqual(r.get('default/web')!.egress, []);
});

test('an empty rule {} allows all traffic in its direction', () => {
  const r = compile([policy('default', 'all', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{}], egress: [{}] })]);
  assert.deepEqual(r.get('default/web')!.ingress, [{ ports: undefined }]);
  assert.deepEqual(r.get('default/web')!.egress, [{ ports: undefined }]);
});

test('podSelector peer: pods with the labels in the policy namespace only', () => {
  const r = compile([policy('default', 'p', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }] }] })]);
  // prod/api and dev/tool carry role=client too, but live in other namespaces
  assert.deepEqual(r.get('default/web')!.ingress, [{ cidrs: ['10.1.0.3/32'], ports: undefined }]);
});

test('namespaceSelector peer: every pod of the matching namespaces (any node)', () => {
  const r = compile([policy('default', 'ns', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }] })]);
  assert.deepEqual(r.get('default/web')!.ingress, [{ cidrs: ['10.1.0.5/32', '10.1.0.6/32'], ports: undefined }]);
  const all = compile([policy('default', 'ns', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: {} }] }] })]);
  assert.deepEqual(all.get('default/web')!.ingress![0]!.cidrs!.length, 6, 'empty namespaceSelector: all pods of all namespaces');
});

test('namespaceSelector matches the automatic kubernetes.io/metadata.name label', () => {
  const r = compile([policy('default', 'ns', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'other' } } }] }] })]);
  assert.deepEqual(r.get('default/web')!.ingress, [{ cidrs: ['10.1.1.7/32'], ports: undefined }]);
});

test('namespaceSelector and podSelector in one peer: both must match (AND); in two peers: either (OR)', () => {
  const and = compile([
    policy('default', 'and', {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { env: 'prod' } }, podSelector: { matchLabels: { role: 'client' } } }] }],
    }),
  ]);
  assert.deepEqual(and.get('default/web')!.ingress, [{ cidrs: ['10.1.0.5/32'], ports: undefined }]);
  const or = compile([
    policy('default', 'or', {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { env: 'prod' } } }, { podSelector: { matchLabels: { role: 'client' } } }] }],
    }),
  ]);
  assert.deepEqual(or.get('default/web')!.ingress, [{ cidrs: ['10.1.0.5/32', '10.1.0.3/32'], ports: undefined }]);
});

test('matchExpressions in selectors', () => {
  const r = compile([
    policy('default', 'x', {
      podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'db'] }] },
      ingress: [{ from: [{ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['b'] }] }, podSelector: { matchExpressions: [{ key: 'role', operator: 'Exists' }] } }] }],
    }),
  ]);
  assert.deepEqual(r.get('default/web')!.ingress, [{ cidrs: ['10.1.0.3/32', '10.1.0.4/32', '10.1.0.5/32', '10.1.0.6/32'], ports: undefined }]);
});

test('a peer selecting no pods allows nothing (the pod stays isolated)', () => {
  const r = compile([policy('default', 'none', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'nobody' } } }] }] })]);
  assert.deepEqual(r.get('default/web')!.ingress, []);
});

test('ipBlock with except becomes disjoint CIDRs', () => {
  const r = compile([
    policy('default', 'ip', {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ from: [{ ipBlock: { cidr: '172.17.0.0/16', except: ['172.17.1.0/24'] } }] }],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16', '10.2.3.4/32'] } }] }],
    }),
  ]);
  assert.deepEqual(r.get('default/web')!.ingress, [
    { cidrs: ['172.17.0.0/24', '172.17.2.0/23', '172.17.4.0/22', '172.17.8.0/21', '172.17.16.0/20', '172.17.32.0/19', '172.17.64.0/18', '172.17.128.0/17'], ports: undefined },
  ]);
  const egress = r.get('default/web')!.egress![0]!.cidrs!;
  assert.ok(!egress.includes('10.1.0.0/16') && egress.includes('10.0.0.0/16') && egress.includes('10.2.3.5/32') && egress.includes('10.2.3.0/30') && egress.includes('10.2.3.6/31'));
});

test('numeric ports, endPort ranges, protocols (TCP default, UDP, SCTP) and port-less protocol entries', () => {
  const r = compile([
    policy('default', 'ports', {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ ports: [{ port: 80 }, { protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 30000, endPort: 30100 }, { protocol: 'SCTP', port: 9000 }, { protocol: 'UDP' }] }],
    }),
  ]);
  assert.deepEqual(r.get('default/web')!.ingress, [
    {
      ports: [
        { protocol: 'TCP', port: 80 },
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 30000, endPort: 30100 },
        { protocol: 'SCTP', port: 9000 },
        { protocol: 'UDP' },
      ],
    },
  ]);
});

test('ingress named ports resolve on the protected pod; unknown names match nothing', () => {
  const r = compile([
    policy('default', 'named', {
      podSelector: {},
      ingress: [{ ports: [{ port: 'http' }, { port: 'dns', protocol: 'UDP' }, { port: 'dns' /* TCP: no such container port */ }] }],
    }),
  ]);
  assert.deepEqual(r.get('default/web')!.ingress, [{ ports: [{ protocol: 'TCP', port: 8080 }, { protocol: 'UDP', port: 53 }] }]);
  // client has no named ports at all: the rule allows nothing there
  assert.deepEqual(r.get('default/client')!.ingress, []);
});

test('egress named ports resolve on each destination pod', () => {
  const r = compile([
    policy('default', 'named-out', {
      podSelector: { matchLabels: { role: 'client' } },
      policyTypes: ['Egress'],
      egress: [{ to: [{ namespaceSelector: {} }], ports: [{ port: 'http' }, { port: 443 }] }],
    }),
  ]);
  const egress = r.get('default/client')!.egress!;
  assert.deepEqual(egress[0], { cidrs: ['10.1.0.2/32', '10.1.0.3/32', '10.1.0.4/32', '10.1.0.5/32', '10.1.0.6/32', '10.1.1.7/32'], ports: [{ protocol: 'TCP', port: 443 }] });
  assert.deepEqual(egress.slice(1), [
    { cidrs: ['10.1.0.2/32'], ports: [{ protocol: 'TCP', port: 8080 }] },
    { cidrs: ['10.1.0.5/32'], ports: [{ protocol: 'TCP', port: 9090 }] },
  ]);
  // named port without `to`: every pod defining the name
  const any = compile([policy('default', 'n', { podSelector: { matchLabels: { role: 'client' } }, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'http' }] }] })]);
  assert.deepEqual(any.get('default/client')!.egress, [
    { cidrs: ['10.1.0.2/32'], ports: [{ protocol: 'TCP', port: 8080 }] },
    { cidrs: ['10.1.0.5/32'], ports: [{ protocol: 'TCP', port: 9090 }] },
  ]);
});

test('egress to DNS: a port-53 rule without peers', () => {
  const r = compile([
    policy('default', 'dns', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }] }),
  ]);
  assert.deepEqual(r.get('default/web')!.egress, [{ ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }]);
});

test('several policies add up (union of their rules)', () => {
  const r = compile([
    policy('default', 'deny', { podSelector: {} }),
    policy('default', 'allow-client', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }], ports: [{ port: 8080 }] }] }),
    policy('default', 'allow-prod', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { env: 'prod' } } }] }] }),
  ]);
  const web = r.get('default/web')!;
  assert.deepEqual(web.policies, ['default/allow-client', 'default/allow-prod', 'default/deny']);
  assert.deepEqual(web.ingress, [
    { cidrs: ['10.1.0.3/32'], ports: [{ protocol: 'TCP', port: 8080 }] },
    { cidrs: ['10.1.0.5/32'], ports: undefined },
  ]);
  assert.deepEqual(r.get('default/client')!.ingress, []);
});

test('only pods of this node with a pod-network IP get rules; finished and hostNetwork pods are no peers', () => {
  const pods = [
    ...PODS,
    pod('default', 'pending', { app: 'web' }, undefined),
    pod('default', 'hostnet', { app: 'web', role: 'client' }, '192.168.1.1', { hostNetwork: true }),
    pod('default', 'done', { role: 'client' }, '10.1.0.9', { phase: 'Succeeded' }),
    pod('default', 'remote', { app: 'web' }, '10.1.1.2', { node: 'node-b' }),
  ];
  const r = compile([policy('default', 'p', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { role: 'client' } } }] }] })], pods);
  assert.deepEqual([...r.keys()], ['default/web']);
  assert.deepEqual(r.get('default/web')!.ingress, [{ cidrs: ['10.1.0.3/32'], ports: undefined }]);
});

test('a policy in another namespace does not select pods here', () => {
  const r = compile([policy('prod', 'deny', { podSelector: {} })]);
  assert.deepEqual([...r.keys()], ['prod/api']);
});
