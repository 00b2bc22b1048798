import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { runFilters } from '../../../src/scheduler/plugins/filters.js';
import { toleratesTaint } from '../../../src/scheduler/plugins/node-filters.js';
import { podInfo } from '../../../src/scheduler/plugins/pod-info.js';
import { fitErrorMessage } from '../../../src/scheduler/messages.js';
import { NodeInfo, podEntry } from '../../../src/scheduler/node-info.js';
import { podRequests } from '../../../src/scheduler/resources.js';
import {
  balancedAllocationScore,
  defaultNormalizeScore,
  leastAllocatedScore,
  scoreNodes,
  selectHost,
} from '../../../src/scheduler/plugins/scores.js';
import { node, pod, type NodeOpts } from './fixtures.js';

function info(name: string, o: NodeOpts = {}, pods: KObject[] = []): NodeInfo {
  const ni = new NodeInfo(name);
  ni.setNode(node(name, o));
  pods.forEach((p, i) => {
    p.metadata.uid = `${name}-${i}`;
    ni.addPod(podEntry(p, name));
  });
  return ni;
}

describe('pod requests', () => {
  it('takes the larger of the app containers and the init peak, with sidecars and overhead', () => {
    const p = {
      metadata: { name: 'x' },
      spec: {
        initContainers: [
          { name: 'i1', resources: { requests: { cpu: '2' } } },
          { name: 'side', restartPolicy: 'Always', resources: { requests: { cpu: '500m', memory: '1Gi' } } },
          { name: 'i2', resources: { requests: { cpu: '1', memory: '3Gi' } } },
        ],
        containers: [
          { name: 'a', resources: { requests: { cpu: '250m', memory: '256Mi', 'example.com/gpu': '1' } } },
          { name: 'b', resources: { requests: { cpu: '250m' } } },
        ],
        overhead: { cpu: '100m' },
      },
    } as unknown as KObject;
    const r = podRequests(p);
    // init peak: i1 alone = 2 cpu; i2 beside the sidecar = 1.5 cpu / 4Gi; app: 0.5 + sidecar 0.5 = 1 cpu / 1.25Gi
    assert.equal(r.milliCPU, 2000 + 100);
    assert.equal(r.memory, 4 * 1024 ** 3);
    assert.deepEqual(r.scalar, { 'example.com/gpu': 1 });
    const nz = podRequests(p, { nonMissing: true });
    // container b has no memory request: 200Mi is assumed for scoring
    assert.equal(nz.memory, 4 * 1024 ** 3);
    assert.equal(podRequests(pod('empty'), { nonMissing: true }).milliCPU, 100);
    assert.equal(podRequests(pod('empty')).milliCPU, 0);
  });
});

describe('filters', () => {
  it('reports the first failing plugin per node with kube reasons and codes', () => {
    const p = podInfo(pod('p', { cpu: '2', memory: '1Gi' }));
    assert.equal(runFilters(p, info('ok')), undefined);
    assert.deepEqual(runFilters(p, info('cordoned', { unschedulable: true })), { plugin: 'NodeUnschedulable', code: 'UnschedulableAndUnresolvable', reasons: ['node(s) were unschedulable'] });
    const tainted = info('t', { unschedulable: true, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }] });
    const tol = podInfo(pod('p', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }));
    assert.deepEqual(runFilters(tol, tainted)?.reasons, ['node(s) had untolerated taint {dedicated: gpu}']);
    assert.equal(runFilters(p, info('pref', { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] })), undefined);
    assert.deepEqual(runFilters(p, info('small', { cpu: '1', memory: '512Mi', pods: '0' }))?.reasons, ['Too many pods', 'Insufficient cpu', 'Insufficient memory']);
    assert.deepEqual(runFilters(podInfo(pod('g', { extra: { 'example.com/gpu': '1' } })), info('nogpu'))?.reasons, ['Insufficient example.com/gpu']);
    assert.equal(runFilters(podInfo(pod('g', { extra: { 'example.com/gpu': '1' } })), info('gpu', { extra: { 'example.com/gpu': '2' } })), undefined);
  });

  it('counts what is already placed, and host ports', () => {
    const busy = info('busy', { cpu: '4' }, [pod('a', { cpu: '3', hostPort: 8080 })]);
    assert.deepEqual(runFilters(podInfo(pod('p', { cpu: '2' })), busy)?.reasons, ['Insufficient cpu']);
    assert.equal(runFilters(podInfo(pod('p', { cpu: '1' })), busy), undefined);
    assert.deepEqual(runFilters(podInfo(pod('p', { hostPort: 8080 })), busy), { plugin: 'NodePorts', code: 'Unschedulable', reasons: ["node(s) didn't have free ports for the requested pod ports"] });
    assert.equal(runFilters(podInfo(pod('p', { hostPort: 8081 })), busy), undefined);
  });

  it('matches nodeSelector and required node affinity terms', () => {
    const n = info('n', { labels: { zone: 'a', gen: '5' } });
    const aff = (exprs: unknown[]) => podInfo(pod('p', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: exprs }] } } } }));
    assert.equal(runFilters(podInfo(pod('p', { nodeSelector: { zone: 'a' } })), n), undefined);
    assert.equal(runFilters(podInfo(pod('p', { nodeSelector: { zone: 'b' } })), n)?.reasons[0], "node(s) didn't match Pod's node affinity/selector");
    assert.equal(runFilters(aff([{ key: 'gen', operator: 'Gt', values: ['4'] }]), n), undefined);
    assert.ok(runFilters(aff([{ key: 'gen', operator: 'Lt', values: ['4'] }]), n));
    assert.equal(runFilters(aff([{ key: 'zone', operator: 'NotIn', values: ['b'] }, { key: 'disk', operator: 'DoesNotExist' }]), n), undefined);
    assert.ok(runFilters(aff([{ key: 'disk', operator: 'Exists' }]), n));
    const byName = podInfo(pod('p', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['other'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] }] } } } }));
    assert.equal(runFilters(byName, n), undefined);
  });

  it('tolerations follow ToleratesTaint', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
    assert.ok(toleratesTaint({ operator: 'Exists' }, taint));
    assert.ok(toleratesTaint({ key: 'k', value: 'v' }, taint));
    assert.ok(!toleratesTaint({ key: 'k', value: 'w' }, taint));
    assert.ok(!toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, taint));
  });
});

describe('scores', () => {
  it('LeastAllocated and BalancedAllocation use integer arithmetic like kube', () => {
    const p = podInfo(pod('p', { cpu: '1', memory: '1Gi' }));
    const n = info('n', { cpu: '4', memory: '4Gi' }, [pod('a', { cpu: '1' })]); // a: 1 cpu, 200Mi assumed for scoring
    // cpu (4000-2000)*100/4000 = 50; memory (4096-1024-200)Mi*100/4096Mi = 70 → (50+70)/2 = 60
    assert.equal(leastAllocatedScore(p, n), 60);
    // fractions 0.5 and 0.25 → std 0.125 → 87
    assert.equal(balancedAllocationScore(p, n), 87);
    assert.deepEqual(defaultNormalizeScore([0, 1, 2]), [0, 50, 100]);
    assert.deepEqual(defaultNormalizeScore([0, 1, 2], { reverse: true }), [100, 50, 0]);
    assert.deepEqual(defaultNormalizeScore([0, 0], { reverse: true }), [100, 100]);
  });

  it('prefers emptier nodes, tolerated PreferNoSchedule and preferred affinity', () => {
    const p = podInfo(pod('p', { cpu: '1', memory: '1Gi' }));
    const empty = info('empty', { cpu: '8', memory: '16Gi' });
    const full = info('full', { cpu: '8', memory: '16Gi' }, [pod('a', { cpu: '6', memory: '12Gi' })]);
    assert.equal(selectHost(scoreNodes(p, [full, empty])), empty);
    const soft = info('soft', { cpu: '8', memory: '16Gi', taints: [{ key: 'spot', effect: 'PreferNoSchedule' }] });
    assert.equal(selectHost(scoreNodes(p, [soft, empty])), empty);
    const zoned = info('zoned', { cpu: '8', memory: '16Gi', labels: { zone: 'x' } });
    const pref = podInfo(pod('p', { cpu: '1', affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['x'] }] } }] } } }));
    assert.equal(selectHost(scoreNodes(pref, [empty, zoned])), zoned);
  });

  it('breaks ties among the best at random', () => {
    const p = podInfo(pod('p'));
    const nodes = ['a', 'b', 'c'].map((n) => info(n));
    const seen = new Set<string>();
    let x = 0;
    const rnd = () => ((x = (x * 9301 + 49297) % 233280) / 233280);
    for (let i = 0; i < 60; i++) seen.add(selectHost(scoreNodes(p, nodes), rnd)!.name);
    assert.deepEqual([...seen].sort(), ['a', 'b', 'c']);
  });
});

describe('failure messages', () => {
  it('sorts "count reason" entries like FitError', () => {
    const statuses = [
      { plugin: 'TaintToleration', code: 'UnschedulableAndUnresolvable' as const, reasons: ['node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }'] },
      { plugin: 'NodeResourcesFit', code: 'Unschedulable' as const, reasons: ['Insufficient cpu'] },
      { plugin: 'NodeResourcesFit', code: 'Unschedulable' as const, reasons: ['Insufficient cpu', 'Insufficient memory'] },
    ];
    assert.equal(
      fitErrorMessage(3, statuses, 'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'),
      '0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });
});
