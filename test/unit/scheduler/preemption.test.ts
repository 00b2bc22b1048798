// DefaultPreemption as pure functions, with the situations the "Pod Priority and Preemption" page describes
// (https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/) and kube's selection rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { runFilters } from '../../../src/scheduler/plugins/filters.js';
import { podInfo, type FilterStatus } from '../../../src/scheduler/plugins/pod-info.js';
import { NodeInfo, podEntry, type PodEntry } from '../../../src/scheduler/node-info.js';
import {
  pdbView,
  pickOneNode,
  preempt,
  selectVictimsOnNode,
  type Candidate,
  type PdbView,
  type Victims,
} from '../../../src/scheduler/preemption/post-filter.js';
import { Nominator } from '../../../src/scheduler/preemption/nominator.js';
import { findPlacement } from '../../../src/scheduler/scheduler.js';
import type { PodDisruptionBudget } from '../../../src/api/policy/poddisruptionbudget/resource.js';
import { node, pod } from './fixtures.js';

let uidSeq = 0;
interface P {
  cpu?: string;
  priority?: number;
  start?: string;
  labels?: Record<string, string>;
  policy?: string;
  nominated?: string;
  terminatingByPreemption?: boolean;
}
function mk(name: string, o: P = {}): KObject {
  const p = pod(name, { cpu: o.cpu ?? '1', preemptionPolicy: o.policy }) as KObject & { spec: Record<string, unknown>; status?: Record<string, unknown> };
  p.metadata.uid = `uid-${name}-${uidSeq++}`;
  if (o.labels) p.metadata.labels = o.labels;
  p.spec.priority = o.priority ?? 0;
  p.status = { startTime: o.start ?? '2025-01-01T00:00:00Z', ...(o.nominated ? { nominatedNodeName: o.nominated } : {}) };
  if (o.terminatingByPreemption) {
    p.metadata.deletionTimestamp = '2025-01-01T01:00:00Z';
    p.status.conditions = [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }];
  }
  return p;
}

function nodeWith(name: string, cpu: string, pods: KObject[]): NodeInfo {
  const ni = new NodeInfo(name);
  ni.setNode(node(name, { cpu }));
  for (const p of pods) ni.addPod(podEntry(p, name));
  return ni;
}

const names = (v: Victims | FilterStatus) => {
  assert.ok('pods' in v, `expected victims, got ${JSON.stringify(v)}`);
  return v.pods.map((e) => e.pod.metadata.name);
};

function statusesOf(info: ReturnType<typeof podInfo>, nodes: NodeInfo[]): Map<NodeInfo, FilterStatus> {
  const m = new Map<NodeInfo, FilterStatus>();
  for (const n of nodes) {
    const s = runFilters(info, n);
    if (s) m.set(n, s);
  }
  return m;
}

const pdb = (ns: string, labels: Record<string, string>, allowed: number): PdbView =>
  pdbView({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'b', namespace: ns }, spec: { selector: { matchLabels: labels } }, status: { disruptionsAllowed: allowed } } as unknown as PodDisruptionBudget)!;

describe('selecting victims on a node', () => {
  it('removes only as many lower-priority pods as needed, sparing the most important ones', () => {
    // "preemption does not necessarily remove all lower-priority Pods"
    const ni = nodeWith('n', '4', [mk('a', { priority: 10 }), mk('b', { priority: 5 }), mk('c', { priority: 1 }), mk('d', { priority: 1, start: '2025-01-02T00:00:00Z' })]);
    const p = podInfo(mk('p', { cpu: '2', priority: 100 }));
    // the two least important go: priority 1, and of those the later started one is less important
    assert.deepEqual(names(selectVictimsOnNode(p, ni)).sort(), ['c', 'd']);
    const p3 = podInfo(mk('p3', { cpu: '3', priority: 100 }));
    // victims come out most important first
    assert.deepEqual(names(selectVictimsOnNode(p3, ni)), ['b', 'c', 'd']);
  });

  it('never takes pods of equal or higher priority', () => {
    // "a Node is considered for preemption only if removing all lower-priority Pods lets the pending Pod fit"
    const ni = nodeWith('n', '2', [mk('same', { priority: 100 }), mk('low', { priority: 1 })]);
    const st = selectVictimsOnNode(podInfo(mk('p', { cpu: '2', priority: 100 })), ni) as FilterStatus;
    assert.deepEqual(st.reasons, ['Insufficient cpu']);
    const none = selectVictimsOnNode(podInfo(mk('q', { cpu: '1', priority: 1 })), ni) as FilterStatus;
    assert.deepEqual(none, { plugin: 'DefaultPreemption', code: 'UnschedulableAndUnresolvable', reasons: ['No preemption victims found for incoming pod'] });
  });

  it('reprieves PDB-protected pods first and counts the budgets it must break', () => {
    const ni = nodeWith('n', '2', [mk('guarded', { priority: 1, labels: { app: 'db' } }), mk('free', { priority: 1, labels: { app: 'web' } })]);
    const p = podInfo(mk('p', { cpu: '1', priority: 100 }));
    const r = selectVictimsOnNode(p, ni, { pdbs: [pdb('default', { app: 'db' }, 0)] }) as Victims;
    assert.deepEqual(names(r), ['free']);
    assert.equal(r.numPDBViolations, 0);
    // both must go: the budget is violated and counted ("not guaranteed", the docs say)
    const big = selectVictimsOnNode(podInfo(mk('big', { cpu: '2', priority: 100 })), ni, { pdbs: [pdb('default', { app: 'db' }, 0)] }) as Victims;
    assert.deepEqual(names(big).sort(), ['free', 'guarded']);
    assert.equal(big.numPDBViolations, 1);
    // a budget in another namespace or allowing a disruption protects nothing
    assert.equal((selectVictimsOnNode(podInfo(mk('big2', { cpu: '2', priority: 100 })), ni, { pdbs: [pdb('other', { app: 'db' }, 0), pdb('default', { app: 'db' }, 1)] }) as Victims).numPDBViolations, 0);
  });

  it('leaves room for pods nominated to the node', () => {
    const nominator = new Nominator();
    const ni = nodeWith('n', '2', [mk('low', { priority: 1 })]);
    nominator.add(mk('nom', { cpu: '1', priority: 200 }), 'n');
    // with the nominated pod counted, evicting "low" (1 cpu) is not enough for 2 cpu
    const st = selectVictimsOnNode(podInfo(mk('p', { cpu: '2', priority: 100 })), ni, { nominatedOn: nominator.forPod });
    assert.ok('reasons' in st);
    // a nominated pod of lower priority does not count against a more important pod
    const lowNom = new Nominator();
    lowNom.add(mk('nom2', { cpu: '1', priority: 50 }), 'n');
    assert.deepEqual(names(selectVictimsOnNode(podInfo(mk('p2', { cpu: '2', priority: 100 })), ni, { nominatedOn: lowNom.forPod })), ['low']);
  });
});

describe('picking the node (pickOneNodeForPreemption)', () => {
  const entry = (name: string, priority: number, start = '2025-01-01T00:00:00Z'): PodEntry => podEntry(mk(name, { priority, start }), 'x');
  const cand = (name: string, pods: PodEntry[], numPDBViolations = 0): Candidate => ({ node: new NodeInfo(name), pods, numPDBViolations });
  const pick = (...c: Candidate[]) => pickOneNode(c)!.node.name;

  it('applies the criteria in order', () => {
    assert.equal(pick(cand('a', [entry('x', 1)]), cand('b', [])), 'b', 'a node without victims wins at once');
    assert.equal(pick(cand('a', [entry('x', 1)], 1), cand('b', [entry('y', 9), entry('z', 9)])), 'b', 'fewest PDB violations');
    assert.equal(pick(cand('a', [entry('x', 5)]), cand('b', [entry('y', 3), entry('z', 3)])), 'b', 'lowest highest-victim priority');
    assert.equal(pick(cand('a', [entry('x', 5), entry('y', 5)]), cand('b', [entry('z', 5), entry('w', 1)])), 'b', 'smallest priority sum');
    // negative priorities are offset by 2^31, so two victims always weigh more than one
    assert.equal(pick(cand('a', [entry('x', -5), entry('y', -5)]), cand('b', [entry('z', -5)])), 'b', 'sum with offset');
    assert.equal(pick(cand('a', [entry('x', 5), entry('y', 0), entry('z', 0)]), cand('b', [entry('w', 5), entry('v', 0)])), 'b', 'fewer victims (the offset sum)');
    assert.equal(
      pick(cand('a', [entry('x', 5, '2025-01-01T00:00:00Z')]), cand('b', [entry('y', 5, '2025-03-01T00:00:00Z')])),
      'b',
      'latest start of the most important victims',
    );
    assert.equal(pick(cand('a', [entry('x', 5)]), cand('b', [entry('y', 5)])), 'a', 'then the first');
  });
});

describe('preempt', () => {
  it('nominates the cheapest node and lists its victims', () => {
    const n1 = nodeWith('n1', '2', [mk('mid', { cpu: '2', priority: 50 })]);
    const n2 = nodeWith('n2', '2', [mk('low', { cpu: '2', priority: 10 })]);
    const p = podInfo(mk('p', { cpu: '2', priority: 100 }));
    const out = preempt(p, [n1, n2], statusesOf(p, [n1, n2]));
    assert.equal(out.kind, 'nominate');
    assert.equal(out.kind === 'nominate' && out.candidate.node.name, 'n2');
    assert.deepEqual(out.kind === 'nominate' && out.candidate.pods.map((e) => e.pod.metadata.name), ['low']);
  });

  it('prefers a node where no PodDisruptionBudget is broken', () => {
    const n1 = nodeWith('n1', '1', [mk('guarded', { priority: 1, labels: { app: 'db' } })]);
    const n2 = nodeWith('n2', '1', [mk('free', { priority: 5, labels: { app: 'web' } })]);
    const p = podInfo(mk('p', { cpu: '1', priority: 100 }));
    const out = preempt(p, [n1, n2], statusesOf(p, [n1, n2]), { pdbs: [pdb('default', { app: 'db' }, 0)] });
    assert.equal(out.kind === 'nominate' && out.candidate.node.name, 'n2');
  });

  it('explains why no node works, in kube words', () => {
    const full = nodeWith('full', '1', [mk('same', { priority: 100 })]);
    const tainted = new NodeInfo('tainted');
    tainted.setNode(node('tainted', { taints: [{ key: 'k', effect: 'NoSchedule' }] }));
    const cordoned = new NodeInfo('cordoned');
    cordoned.setNode(node('cordoned', { unschedulable: true }));
    const p = podInfo(mk('p', { cpu: '1', priority: 100 }));
    const nodes = [full, tainted, cordoned];
    const out = preempt(p, nodes, statusesOf(p, nodes));
    assert.deepEqual(out, {
      kind: 'none',
      message: 'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
    });
    // removing every lower-priority pod is still not enough: the filter's own reason is reported
    const small = nodeWith('small', '1', [mk('low', { priority: 1 })]);
    const big = podInfo(mk('big', { cpu: '2', priority: 100 }));
    assert.deepEqual(preempt(big, [small], statusesOf(big, [small])), { kind: 'none', message: 'preemption: 0/1 nodes are available: 1 Insufficient cpu.' });
  });

  it('does not preempt for preemptionPolicy: Never or while its victims terminate', () => {
    const n = nodeWith('n', '1', [mk('low', { priority: 1 })]);
    const never = podInfo(mk('never', { cpu: '1', priority: 100, policy: 'Never' }));
    assert.deepEqual(preempt(never, [n], statusesOf(never, [n])), { kind: 'ineligible', message: 'preemption: not eligible due to preemptionPolicy=Never.' });
    const t = nodeWith('t', '1', [mk('victim', { priority: 1, terminatingByPreemption: true })]);
    const again = podInfo(mk('again', { cpu: '1', priority: 100, nominated: 't' }));
    assert.deepEqual(preempt(again, [t], statusesOf(again, [t])), { kind: 'ineligible', message: 'preemption: not eligible due to a terminating pod on the nominated node.' });
    // a nomination still only in memory (its status write not seen yet) counts the same
    const fresh = podInfo(mk('fresh', { cpu: '1', priority: 100 }));
    assert.equal(preempt(fresh, [t], statusesOf(fresh, [t]), { nominatedNode: 't' }).kind, 'ineligible');
    // nominated elsewhere: the terminating pod does not matter
    const other = podInfo(mk('other', { cpu: '1', priority: 100, nominated: 'gone' }));
    assert.equal(preempt(other, [t], statusesOf(other, [t])).kind, 'nominate');
  });
});

describe('nominated pods reserve their node', () => {
  it('a pod of lower or equal priority does not take the room of a nominated one', () => {
    const nominator = new Nominator();
    const n1 = nodeWith('n1', '2', []);
    const n2 = nodeWith('n2', '2', []);
    nominator.add(mk('nom', { cpu: '2', priority: 100 }), 'n1');
    const low = podInfo(mk('low', { cpu: '2', priority: 100 }));
    const placed = findPlacement(low, [n1, n2], { nominatedOn: nominator.forPod });
    assert.equal(placed.host?.name, 'n2');
    assert.deepEqual(placed.statuses.get(n1)?.reasons, ['Insufficient cpu']);
    // a more important pod ignores the nomination
    const high = podInfo(mk('high', { cpu: '2', priority: 1000 }));
    assert.equal(findPlacement(high, [n1], { nominatedOn: nominator.forPod }).host?.name, 'n1');
    // the nominated pod itself is not in its own way
    assert.equal(findPlacement(podInfo(nominator.on('n1')[0].pod), [n1], { nominatedOn: nominator.forPod }).host?.name, 'n1');
  });

  it('follows the informer: a cleared nomination is dropped, an update without one keeps the in-memory one', () => {
    const nominator = new Nominator();
    const p = mk('p', { priority: 10 });
    nominator.add(p, 'n1');
    nominator.onPending(p, { ...p, metadata: { ...p.metadata, resourceVersion: '2' } });
    assert.equal(nominator.nodeOf(p.metadata.uid!), 'n1');
    const withNom = { ...p, status: { nominatedNodeName: 'n2' } } as KObject;
    nominator.onPending(p, withNom);
    assert.equal(nominator.nodeOf(p.metadata.uid!), 'n2');
    nominator.onPending(withNom, { ...p, status: {} } as KObject);
    assert.equal(nominator.nodeOf(p.metadata.uid!), undefined);
    assert.deepEqual(nominator.on('n2'), []);
  });
});
