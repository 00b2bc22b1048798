import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podInfo } from '../../../src/scheduler/plugins/pod-info.js';
import { selectorFromSet } from '../../../src/machinery/labels.js';
import { defaultSelectorFor } from '../../../src/scheduler/cluster-lookups.js';
import { findPlacement } from '../../../src/scheduler/scheduler.js';
import { podTopologySpreadFilter, podTopologySpreadScores, REASON_SPREAD_CONSTRAINTS, REASON_SPREAD_MISSING_LABEL } from '../../../src/scheduler/plugins/topology-spread.js';
import type { KObject } from '../../../src/api/types.js';
import { feasible, HOST, labelled, place, ZONE, zonedCluster } from './topology-spread-fixtures.js';

const FOO = { foo: 'bar' };
const constraint = (topologyKey: string, extra: Record<string, unknown> = {}) => ({
  maxSkew: 1,
  topologyKey,
  whenUnsatisfiable: 'DoNotSchedule',
  labelSelector: { matchLabels: FOO },
  ...extra,
});
const spreadPod = (name: string, constraints: unknown[], extra: Record<string, unknown> = {}, labels: Record<string, string> = FOO) =>
  labelled(name, labels, { spec: { topologySpreadConstraints: constraints, ...extra } });

/** The documentation's cluster: node1, node2 in zoneA, node3, node4 in zoneB, one foo=bar pod on node1..node3. */
function docsCluster(more: Record<string, string | undefined> = {}) {
  const cache = zonedCluster({ node1: 'zoneA', node2: 'zoneA', node3: 'zoneB', node4: 'zoneB', ...more });
  for (const n of ['node1', 'node2', 'node3']) place(cache, labelled(`p-${n}`, FOO), n);
  return cache;
}

describe('PodTopologySpread filter (kubernetes.io examples)', () => {
  it('one zone constraint with maxSkew 1 sends mypod to zoneB', () => {
    const { fits, statuses } = feasible(docsCluster(), spreadPod('mypod', [constraint(ZONE)]));
    assert.deepEqual(fits, ['node3', 'node4']);
    assert.deepEqual(statuses.node1, { plugin: 'PodTopologySpread', code: 'Unschedulable', reasons: [REASON_SPREAD_CONSTRAINTS] });
    assert.equal(REASON_SPREAD_CONSTRAINTS, "node(s) didn't match pod topology spread constraints");
  });

  it('zone and node constraints together leave only node4', () => {
    const { fits } = feasible(docsCluster(), spreadPod('mypod', [constraint(ZONE), constraint(HOST)]));
    assert.deepEqual(fits, ['node4']);
  });

  it('conflicting constraints leave the pod nowhere to go', () => {
    // zoneA: node1 with 2 pods, an empty node2; zoneB: node3 with 1 pod
    const cache = zonedCluster({ node1: 'zoneA', node2: 'zoneA', node3: 'zoneB' });
    place(cache, labelled('a', FOO), 'node1');
    place(cache, labelled('b', FOO), 'node1');
    place(cache, labelled('c', FOO), 'node3');
    // the zone rule allows only zoneB (node3), the node rule (minimum 0 on node2) rejects node3
    const { fits, statuses } = feasible(cache, spreadPod('mypod', [constraint(ZONE), constraint(HOST)]));
    assert.deepEqual(fits, []);
    assert.deepEqual(Object.keys(statuses), ['node1', 'node2', 'node3']);
    assert.ok(Object.values(statuses).every((s) => s.plugin === 'PodTopologySpread' && s.code === 'Unschedulable'));
    // each rule alone has a place
    assert.deepEqual(feasible(cache, spreadPod('z', [constraint(ZONE)])).fits, ['node3']);
    assert.deepEqual(feasible(cache, spreadPod('h', [constraint(HOST)])).fits, ['node2']);
  });

  it('nodeAffinityPolicy Honor: an excluded zoneC does not hold the minimum at 0', () => {
    const cache = docsCluster({ node5: 'zoneC' });
    // without node affinity the empty zoneC is the global minimum and the only place left
    assert.deepEqual(feasible(cache, spreadPod('mypod', [constraint(ZONE)])).fits, ['node5']);
    const notC = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'NotIn', values: ['zoneC'] }] }] } } };
    const { fits, statuses } = feasible(cache, spreadPod('mypod', [constraint(ZONE)], { affinity: notC }));
    assert.deepEqual(fits, ['node3', 'node4']);
    assert.equal(statuses.node5.plugin, 'NodeAffinity');
    // nodeAffinityPolicy Ignore counts zoneC again: its 0 is the minimum, and zoneC is filtered by NodeAffinity
    assert.deepEqual(feasible(cache, spreadPod('mypod', [constraint(ZONE, { nodeAffinityPolicy: 'Ignore' })], { affinity: notC })).fits, []);
  });

  it('nodeTaintsPolicy Honor leaves tainted nodes out of the counts', () => {
    const cache = docsCluster({ node5: 'zoneC' });
    cache.setNode({ ...cache.nodeInfo('node5')!.node!, spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] } } as KObject);
    // Ignore (default): zoneC's 0 is the minimum, and zoneC is tainted: nothing fits
    assert.deepEqual(feasible(cache, spreadPod('p', [constraint(ZONE)])).fits, []);
    assert.deepEqual(feasible(cache, spreadPod('p', [constraint(ZONE, { nodeTaintsPolicy: 'Honor' })])).fits, ['node3', 'node4']);
  });

  it('a node without the topology label is unresolvable', () => {
    const cache = docsCluster({ bare: undefined });
    const { statuses } = feasible(cache, spreadPod('p', [constraint(ZONE)]));
    assert.deepEqual(statuses.bare, { plugin: 'PodTopologySpread', code: 'UnschedulableAndUnresolvable', reasons: [REASON_SPREAD_MISSING_LABEL] });
    assert.equal(REASON_SPREAD_MISSING_LABEL, "node(s) didn't match pod topology spread constraints (missing required label)");
  });

  it('minDomains above the number of domains takes the minimum as 0', () => {
    const cache = zonedCluster({ a: 'zoneA', b: 'zoneB' });
    place(cache, labelled('x', FOO), 'a');
    place(cache, labelled('y', FOO), 'b');
    assert.deepEqual(feasible(cache, spreadPod('p', [constraint(ZONE)])).fits, ['a', 'b']);
    assert.deepEqual(feasible(cache, spreadPod('p', [constraint(ZONE, { minDomains: 3 })])).fits, []);
    assert.deepEqual(feasible(cache, spreadPod('p', [constraint(ZONE, { minDomains: 3, maxSkew: 2 })])).fits, ['a', 'b']);
  });

  it('matchLabelKeys counts only pods sharing the pod\'s values; other namespaces and non-matching pods never count', () => {
    const cache = zonedCluster({ a: 'zoneA', b: 'zoneB' });
    for (let i = 0; i < 3; i++) place(cache, labelled(`old${i}`, { ...FOO, 'pod-template-hash': 'v1' }), 'a');
    place(cache, labelled('other-ns', FOO, { namespace: 'elsewhere' }), 'b');
    place(cache, labelled('other-ns2', FOO, { namespace: 'elsewhere' }), 'b');
    const labels = { ...FOO, 'pod-template-hash': 'v2' };
    assert.deepEqual(feasible(cache, spreadPod('p', [constraint(ZONE)], {}, labels)).fits, ['b']);
    assert.deepEqual(feasible(cache, spreadPod('p', [constraint(ZONE, { matchLabelKeys: ['pod-template-hash'] })], {}, labels)).fits, ['a', 'b']);
    // a pod not matching its own selector does not add itself
    assert.deepEqual(feasible(cache, spreadPod('p', [constraint(ZONE, { maxSkew: 3 })], {}, { other: 'x' })).fits, ['a', 'b']);
  });

  it('preemption copies of a node count without the removed pods', () => {
    const cache = zonedCluster({ a: 'zoneA', b: 'zoneB' });
    place(cache, labelled('x', FOO), 'a');
    place(cache, labelled('y', FOO), 'a');
    const info = podInfo(spreadPod('p', [constraint(ZONE)]));
    const a = cache.nodeInfo('a')!;
    assert.equal(podTopologySpreadFilter(info, a)?.reasons[0], REASON_SPREAD_CONSTRAINTS);
    assert.equal(podTopologySpreadFilter(info, a.without(() => true)), undefined);
  });
});

describe('PodTopologySpread score', () => {
  it('ScheduleAnyway prefers the emptier domain with kube\'s normalisation', () => {
    const cache = zonedCluster({ a1: 'zoneA', b1: 'zoneB' });
    place(cache, labelled('x', FOO), 'a1');
    place(cache, labelled('y', FOO), 'a1');
    const p = spreadPod('p', [constraint(ZONE, { whenUnsatisfiable: 'ScheduleAnyway' })]);
    // ScheduleAnyway never filters
    assert.deepEqual(feasible(cache, p).fits, ['a1', 'b1']);
    // raw: round(2 × ln 4) = 3 and 0 → 100 × (3 + 0 − s) / 3
    assert.deepEqual(podTopologySpreadScores(podInfo(p), cache.nodes()), [0, 100]);
    assert.equal(findPlacement(podInfo(p), cache.nodes()).host?.name, 'b1');
    // nodes lacking a required key are ignored (score 0)
    const withBare = zonedCluster({ a1: 'zoneA', bare: undefined });
    assert.deepEqual(podTopologySpreadScores(podInfo(p), withBare.nodes()), [100, 0]);
  });

  it('system default constraints spread pods of a controller across nodes and zones', () => {
    const cache = zonedCluster({ a1: 'zoneA', a2: 'zoneA', b1: 'zoneB' });
    const owned = (name: string) => {
      const p = labelled(name, { app: 'web' });
      p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'rs', controller: true }];
      return p;
    };
    place(cache, owned('w1'), 'a1');
    place(cache, owned('w2'), 'b1');
    const scores = podTopologySpreadScores(podInfo(owned('w3')), cache.nodes())!;
    // a2 is empty but zoneA already has one, like zoneB: the empty node wins (raw 9, 7, 9 → 100 × (16 − s) / 9)
    assert.equal(scores.indexOf(Math.max(...scores)), 1);
    assert.deepEqual(scores, [77, 100, 77]);
    // no owner, no Service: no default constraints
    assert.equal(podTopologySpreadScores(podInfo(labelled('lone', { app: 'web' })), cache.nodes()), undefined);
    // a wired lookup decides instead of the owner
    cache.lookups = { defaultSpreadSelector: () => selectorFromSet({ app: 'web' }) };
    assert.deepEqual(podTopologySpreadScores(podInfo(labelled('lone', { app: 'web' })), cache.nodes()), [77, 100, 77]);
  });

  it('the default selector combines Services, ReplicationControllers, ReplicaSets and StatefulSets selecting the pod', () => {
    const p = labelled('p', { app: 'web', tier: 'front', 'pod-template-hash': 'h' });
    const svc = (sel: Record<string, string>) => ({ metadata: { name: 's' }, spec: { selector: sel } }) as unknown as KObject;
    const rs = (sel: unknown) => ({ metadata: { name: 'r' }, spec: { selector: sel } }) as unknown as KObject;
    const sel = defaultSelectorFor(p, {
      services: [svc({ app: 'web' }), svc({ app: 'other' })],
      rcs: [],
      replicaSets: [rs({ matchLabels: { 'pod-template-hash': 'h' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] }), rs({ matchLabels: { app: 'nope' } })],
      statefulSets: [],
    })!;
    assert.ok(sel.matches({ app: 'web', tier: 'front', 'pod-template-hash': 'h' }));
    assert.ok(!sel.matches({ app: 'web', tier: 'front', 'pod-template-hash': 'g' }));
    assert.ok(!sel.matches({ app: 'web', tier: 'back', 'pod-template-hash': 'h' }));
    assert.equal(defaultSelectorFor(p, { services: [svc({ app: 'other' })], rcs: [], replicaSets: [], statefulSets: [] }), undefined);
  });
});
