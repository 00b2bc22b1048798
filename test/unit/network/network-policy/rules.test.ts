import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodPolicy } from '../../../../src/network/network-policy/model.js';
import { buildPolicyChains, podChains, policyChainPrefix, restorePlan } from '../../../../src/network/network-policy/rules.js';

const web: PodPolicy = {
  uid: 'u-web',
  namespace: 'default',
  name: 'web',
  ip: '10.1.0.2',
  policies: ['default/p'],
  ingress: [
    { cidrs: ['10.1.0.3/32', '10.1.0.4/32'], ports: [{ protocol: 'TCP', port: 80 }, { protocol: 'UDP', port: 53 }] },
    { cidrs: ['10.1.0.3/32'], ports: [{ protocol: 'TCP', port: 80 }] },
    { ports: [{ protocol: 'SCTP', port: 9000, endPort: 9010 }, { protocol: 'UDP' }] },
  ],
};
const client: PodPolicy = { uid: 'u-client', namespace: 'default', name: 'client', ip: '10.1.0.3', policies: ['default/q'], egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }, { cidrs: ['10.1.0.2/32'] }] };
const denied: PodPolicy = { uid: 'u-d', namespace: 'default', name: 'd', ip: '10.1.0.9', policies: ['default/deny'], ingress: [], egress: [] };

test('chain prefixes: one per pod network, names within iptables 28 characters', () => {
  assert.equal(policyChainPrefix(), 'K1NP');
  assert.equal(policyChainPrefix('cni0'), 'K1NP');
  assert.match(policyChainPrefix('k1snp0'), /^K1NP[A-Z2-7]{4}$/);
  assert.notEqual(policyChainPrefix('k1snp0'), policyChainPrefix('k1spods0'));
  const names = podChains(policyChainPrefix('k1snp0'), 'some-uid');
  assert.ok(names.ingress.length <= 28 && names.egress.length <= 28);
  assert.notEqual(names.ingress, names.egress);
});

test('top chains: replies first, then egress jumps (FORWARD and INPUT) and ingress jumps (FORWARD) by bridge and IP', () => {
  const chains = buildPolicyChains([web, client], { prefix: 'KNP', bridge: 'br9' });
  const w = podChains('KNP', 'u-web');
  const c = podChains('KNP', 'u-client');
  assert.deepEqual(chains.get('KNP-FORWARD'), [
    '-A KNP-FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN',
    `-A KNP-FORWARD -i br9 -s 10.1.0.3/32 -m comment --comment "default/client" -j ${c.egress}`,
    `-A KNP-FORWARD -o br9 -d 10.1.0.2/32 -m comment --comment "default/web" -j ${w.ingress}`,
  ]);
  assert.deepEqual(chains.get('KNP-INPUT'), [
    '-A KNP-INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN',
    `-A KNP-INPUT -i br9 -s 10.1.0.3/32 -m comment --comment "default/client" -j ${c.egress}`,
  ]);
  assert.equal(chains.has(w.egress), false, 'web is not isolated for egress');
  assert.equal(chains.has(c.ingress), false, 'client is not isolated for ingress');
});

test('pod chains: self allowed, peers × ports RETURN (deduplicated), everything else DROPped', () => {
  const chains = buildPolicyChains([web, client, denied], { prefix: 'KNP', bridge: 'br9' });
  const w = podChains('KNP', 'u-web').ingress;
  assert.deepEqual(chains.get(w), [
    `-A ${w} -s 10.1.0.2/32 -j RETURN`,
    `-A ${w} -s 10.1.0.3/32 -p tcp -m tcp --dport 80 -j RETURN`,
    `-A ${w} -s 10.1.0.3/32 -p udp -m udp --dport 53 -j RETURN`,
    `-A ${w} -s 10.1.0.4/32 -p tcp -m tcp --dport 80 -j RETURN`,
    `-A ${w} -s 10.1.0.4/32 -p udp -m udp --dport 53 -j RETURN`,
    `-A ${w} -p sctp -m sctp --dport 9000:9010 -j RETURN`,
    `-A ${w} -p udp -j RETURN`,
    `-A ${w} -j DROP`,
  ]);
  const c = podChains('KNP', 'u-client').egress;
  assert.deepEqual(chains.get(c), [`-A ${c} -d 10.1.0.3/32 -j RETURN`, `-A ${c} -p udp -m udp --dport 53 -j RETURN`, `-A ${c} -d 10.1.0.2/32 -j RETURN`, `-A ${c} -j DROP`]);
  const d = podChains('KNP', 'u-d');
  assert.deepEqual(chains.get(d.ingress), [`-A ${d.ingress} -s 10.1.0.9/32 -j RETURN`, `-A ${d.ingress} -j DROP`]);
  assert.deepEqual(chains.get(d.egress), [`-A ${d.egress} -d 10.1.0.9/32 -j RETURN`, `-A ${d.egress} -j DROP`]);
});

test('nothing isolated: only the two top chains', () => {
  const chains = buildPolicyChains([], { prefix: 'KNP', bridge: 'br9' });
  assert.deepEqual([...chains.keys()], ['KNP-FORWARD', 'KNP-INPUT']);
});

test('restore plan: first sync writes everything and the missing jumps; later syncs only what changed', () => {
  const first = buildPolicyChains([web], { prefix: 'KNP', bridge: 'br9' });
  const jumps = [{ chain: 'FORWARD' as const, target: 'KNP-FORWARD', args: '-m comment --comment "k1s network policies"' }];
  const p1 = restorePlan(first, { stale: ['KNP-OLD'], missingJumps: jumps });
  const w = podChains('KNP', 'u-web').ingress;
  assert.deepEqual(p1.written, ['KNP-FORWARD', 'KNP-INPUT', w]);
  assert.deepEqual(p1.removed, ['KNP-OLD']);
  const lines = p1.text.trim().split('\n');
  assert.equal(lines[0], '*filter');
  assert.equal(lines.at(-1), 'COMMIT');
  assert.ok(lines.includes(':KNP-OLD - [0:0]') && lines.includes('-X KNP-OLD'));
  assert.ok(lines.includes('-I FORWARD 1 -m comment --comment "k1s network policies" -j KNP-FORWARD'));
  assert.ok(lines.indexOf(`:${w} - [0:0]`) < lines.indexOf(`-A KNP-FORWARD -o br9 -d 10.1.0.2/32 -m comment --comment "default/web" -j ${w}`));
  assert.ok(lines.indexOf('-X KNP-OLD') > lines.indexOf(`-A ${w} -j DROP`), 'stale chains go after the top chains are refilled');

  assert.equal(restorePlan(first, { previous: first, stale: first.keys() }).text, '', 'unchanged: nothing to write');

  // the client pod becomes isolated: its chain and the top chains change, web's chain is left alone
  const second = buildPolicyChains([web, client], { prefix: 'KNP', bridge: 'br9' });
  const p2 = restorePlan(second, { previous: first, stale: first.keys() });
  assert.deepEqual(p2.written, ['KNP-FORWARD', 'KNP-INPUT', podChains('KNP', 'u-client').egress]);
  assert.deepEqual(p2.removed, []);

  // web's policy goes: its chain is deleted
  const third = buildPolicyChains([client], { prefix: 'KNP', bridge: 'br9' });
  const p3 = restorePlan(third, { previous: second, stale: second.keys() });
  assert.deepEqual(p3.written, ['KNP-FORWARD']);
  assert.deepEqual(p3.removed, [w]);
});
