import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import type { DaemonSet } from '../../../../src/api/apps/daemonset/validation.js';
import { addDaemonTolerations, nodeShouldRunDaemonPod, pinToNode, requiredAffinityMatches, targetNodeName, type Node, type PodSpecLike } from '../../../../src/controllers/daemonset/nodes.js';
import { planRollingUpdate } from '../../../../src/controllers/daemonset/update.js';

const node = (name: string, labels: Record<string, string> = {}, taints: { key: string; value?: string; effect: string }[] = []): Node =>
  ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: { taints } }) as Node;
const daemon = (spec: PodSpecLike, extra: Record<string, unknown> = {}): DaemonSet =>
  ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd', namespace: 'default', annotations: { 'deprecated.daemonset.template.generation': '2' } }, spec: { template: { metadata: { labels: { app: 'd' } }, spec }, ...extra } }) as DaemonSet;

describe('DaemonSet node placement', () => {
  it('adds network-unavailable for hostNetwork pods and replaces an equal toleration instead of duplicating it', () => {
    const spec: PodSpecLike = { hostNetwork: true, tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }, { key: 'x', operator: 'Exists' }] };
    addDaemonTolerations(spec);
    assert.equal(spec.tolerations!.length, 8);
    assert.equal(spec.tolerations!.filter((t) => t.key === 'node.kubernetes.io/unschedulable').length, 1);
    assert.ok(spec.tolerations!.some((t) => t.key === 'node.kubernetes.io/network-unavailable' && t.effect === 'NoSchedule'));
  });

  it('matches required node affinity terms (any term, all expressions) and the nodeSelector', () => {
    const n = node('w1', { zone: 'a', cpus: '8' });
    const aff = (exprs: { key: string; operator: string; values?: string[] }[][]): PodSpecLike => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: exprs.map((e) => ({ matchExpressions: e })) } } } });
    assert.ok(requiredAffinityMatches(aff([[{ key: 'zone', operator: 'In', values: ['a', 'b'] }, { key: 'cpus', operator: 'Gt', values: ['4'] }]]), n));
    assert.ok(!requiredAffinityMatches(aff([[{ key: 'zone', operator: 'NotIn', values: ['a'] }]]), n));
    assert.ok(requiredAffinityMatches(aff([[{ key: 'gpu', operator: 'Exists' }], [{ key: 'gpu', operator: 'DoesNotExist' }]]), n));
    assert.ok(!requiredAffinityMatches({ ...aff([[{ key: 'zone', operator: 'Exists' }]]), nodeSelector: { zone: 'b' } }, n));
  });

  it('NoSchedule taints stop new pods but let running ones stay; NoExecute removes them', () => {
    const d = daemon({ containers: [] });
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', {}, [{ key: 'k', effect: 'NoSchedule' }]), d), { shouldRun: false, shouldContinueRunning: true });
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', {}, [{ key: 'k', effect: 'NoExecute' }]), d), { shouldRun: false, shouldContinueRunning: false });
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', {}, [{ key: 'k', effect: 'PreferNoSchedule' }]), d), { shouldRun: true, shouldContinueRunning: true });
    assert.deepEqual(nodeShouldRunDaemonPod(node('a', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]), d), { shouldRun: true, shouldContinueRunning: true });
  });

  it('pins a pod to its node by replacing the required terms, and reads the target back', () => {
    const spec: PodSpecLike = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } }, podAffinity: {} } };
    pinToNode(spec, 'w1');
    assert.deepEqual(spec.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution!.nodeSelectorTerms, [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['w1'] }] }]);
    assert.deepEqual(spec.affinity!.podAffinity, {});
    assert.equal(targetNodeName({ metadata: {}, spec } as KObject), 'w1');
    assert.equal(targetNodeName({ metadata: {}, spec: { ...spec, nodeName: 'w2' } } as KObject), 'w2');
  });

  it('a rolling update never deletes more available old pods than maxUnavailable (percent rounds up)', () => {
    const d = daemon({ containers: [] }, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '30%', maxSurge: 0 } } });
    const nodes = ['a', 'b', 'c', 'd', 'e'].map((n) => node(n));
    const t = '2020-01-01T00:00:00Z';
    const old = (n: string): KObject => ({ metadata: { name: `old-${n}`, labels: { 'controller-revision-hash': 'h1', 'pod-template-generation': '1' }, creationTimestamp: t }, spec: { nodeName: n }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: t }] } }) as KObject;
    const map = new Map(nodes.map((n) => [n.metadata.name!, [old(n.metadata.name!)]]));
    const plan = planRollingUpdate(d, nodes, map, 'h2', Date.parse(t) + 1000);
    assert.equal(plan.podsToDelete.length, 2, 'ceil(30% of 5) = 2');
    map.set('a', [{ ...old('a'), metadata: { name: 'new-a', labels: { 'controller-revision-hash': 'h2' } }, status: { phase: 'Pending' } } as KObject]);
    assert.equal(planRollingUpdate(d, nodes, map, 'h2', Date.parse(t) + 1000).podsToDelete.length, 1, 'one unavailable new pod uses one slot');
  });
});
