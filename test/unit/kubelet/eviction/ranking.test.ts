import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import { evictionDecision, isCriticalPod, podRequest, rankForEviction, type PodWithStats } from '../../../../src/kubelet/eviction/ranking.js';
import { defaultEvictionHard, thresholdsMet, type Observations } from '../../../../src/kubelet/eviction/signals.js';

const Mi = 1024 * 1024;

function pod(name: string, opts: { memRequest?: string; priority?: number; annotations?: Record<string, string> } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', annotations: opts.annotations },
    spec: {
      priority: opts.priority ?? 0,
      containers: [{ name: 'app', image: 'busybox', resources: opts.memRequest ? { requests: { memory: opts.memRequest } } : {} }],
    },
  } as Pod;
}

const mem = (p: Pod, bytes: number): PodWithStats => ({
  pod: p,
  stats: { memoryWorkingSetBytes: bytes, containers: [{ name: 'app', memoryWorkingSetBytes: bytes }] },
});

test('memory ranking: over-request pods first, then lower priority, then usage above request', () => {
  // The docs' order: BestEffort/Burstable over their requests go first, by priority, then by how far over they are.
  const guaranteedUnder = mem(pod('under', { memRequest: '500Mi' }), 200 * Mi);
  const overLowPrio = mem(pod('over-low', { memRequest: '100Mi', priority: -10 }), 150 * Mi);
  const overBig = mem(pod('over-big', { memRequest: '100Mi' }), 900 * Mi);
  const overSmall = mem(pod('over-small', { memRequest: '100Mi' }), 120 * Mi);
  const bestEffort = mem(pod('best-effort'), 300 * Mi);
  const noStats: PodWithStats = { pod: pod('no-stats', { priority: 1000 }) };
  const ranked = rankForEviction([guaranteedUnder, overSmall, bestEffort, overBig, noStats, overLowPrio], 'memory.available');
  assert.deepEqual(
    ranked.map((p) => p.pod.metadata!.name),
    ['no-stats', 'over-low', 'over-big', 'best-effort', 'over-small', 'under'],
  );
});

test('a higher-priority pod over its request still goes before a pod within its request', () => {
  const ranked = rankForEviction(
    [mem(pod('low-within', { memRequest: '1Gi', priority: -100 }), 10 * Mi), mem(pod('high-over', { memRequest: '10Mi', priority: 1000 }), 20 * Mi)],
    'memory.available',
  );
  assert.deepEqual(ranked.map((p) => p.pod.metadata!.name), ['high-over', 'low-within']);
});

test('PID ranking: priority, then process count; critical pods are never candidates', () => {
  const p = (name: string, priority: number, processes: number): PodWithStats => ({ pod: pod(name, { priority }), stats: { processes } });
  const critical = p('kube-dns', 2_000_000_000, 5000);
  const staticPod: PodWithStats = { pod: pod('etcd', { annotations: { 'kubernetes.io/config.source': 'file' } }), stats: { processes: 9000 } };
  assert.equal(isCriticalPod(critical.pod), true);
  assert.equal(isCriticalPod(staticPod.pod), true);
  const ranked = rankForEviction([p('a', 10, 50), p('b', 0, 5), p('c', 0, 500), critical, staticPod], 'pid.available');
  assert.deepEqual(ranked.map((x) => x.pod.metadata!.name), ['c', 'b', 'a']);
});

test('disk ranking uses ephemeral-storage usage against requests', () => {
  const d = (name: string, request: string | undefined, bytes: number): PodWithStats => {
    const p = pod(name);
    if (request) p.spec!.containers![0].resources = { requests: { 'ephemeral-storage': request } };
    return { pod: p, stats: { ephemeralStorageBytes: bytes } };
  };
  const ranked = rankForEviction([d('within', '1Gi', 500 * Mi), d('small', undefined, 10 * Mi), d('big', '100Mi', 800 * Mi)], 'nodefs.available');
  assert.deepEqual(ranked.map((x) => x.pod.metadata!.name), ['big', 'small', 'within']);
});

test('pod requests count sidecars and the largest init phase, plus overhead', () => {
  const p = pod('x', { memRequest: '100Mi' });
  p.spec!.initContainers = [
    { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { memory: '50Mi' } } },
    { name: 'init-big', resources: { requests: { memory: '400Mi' } } },
  ];
  assert.equal(podRequest(p, 'memory').toString(), '450Mi', 'init-big runs beside the sidecar');
  p.spec!.initContainers[1].resources = { requests: { memory: '10Mi' } };
  assert.equal(podRequest(p, 'memory').toString(), '150Mi', 'containers + sidecar');
  (p.spec as Record<string, unknown>).overhead = { memory: '10Mi' };
  assert.equal(podRequest(p, 'memory').toString(), '160Mi');
  assert.equal(podRequest(pod('none'), 'memory').toString(), '0');
});

test('the eviction status and message kubelet writes', () => {
  const observations: Observations = { 'memory.available': { available: 50 * Mi, capacity: 16 * 1024 * Mi } };
  const met = thresholdsMet(defaultEvictionHard(), observations);
  const victim = mem(pod('hog', { memRequest: '100Mi' }), 300 * Mi);
  const d = evictionDecision({ pod: victim, threshold: met[0], met, observations, now: Date.parse('2026-01-02T03:04:05.678Z') });
  const message =
    'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. ' +
    'Container app was using 300Mi, request is 100Mi, has larger consumption of memory. ';
  assert.equal(d.message, message);
  assert.deepEqual(d.annotations, { offending_containers: 'app', offending_containers_usage: '300Mi', starved_resource: 'memory' });
  assert.deepEqual(d.status, {
    phase: 'Failed',
    reason: 'Evicted',
    message,
    conditions: [{ type: 'DisruptionTarget', status: 'True', lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'TerminationByKubelet', message }],
  });
  assert.equal(d.gracePeriodSeconds, 1);

  // no request at all: "request is 0"; odd byte counts print as kubelet's quantities do
  const be = mem(pod('be'), 123_456_789);
  const obs2: Observations = { 'memory.available': { available: 98_765_432, capacity: 16 * 1024 * Mi } };
  const d2 = evictionDecision({ pod: be, threshold: met[0], met, observations: obs2 });
  assert.equal(
    d2.message,
    'The node was low on resource: memory. Threshold quantity: 100Mi, available: 98765432. ' +
      'Container app was using 123456789, request is 0, has larger consumption of memory. ',
  );
});

test('disk eviction message names ephemeral-storage with the percentage threshold as a quantity', () => {
  const observations: Observations = { 'nodefs.available': { available: 5 * 1024 * Mi, capacity: 100 * 1024 * Mi } };
  const met = thresholdsMet(defaultEvictionHard(), observations);
  assert.equal(met[0].signal, 'nodefs.available');
  const p: PodWithStats = { pod: pod('writer'), stats: { ephemeralStorageBytes: 2048 * Mi, containers: [{ name: 'app', rootfsUsedBytes: 2000 * Mi, logsUsedBytes: 48 * Mi }] } };
  const d = evictionDecision({ pod: p, threshold: met[0], met, observations });
  assert.equal(
    d.message,
    `The node was low on resource: ephemeral-storage. Threshold quantity: ${Math.trunc(100 * 1024 * Mi * Math.fround(0.1))}, available: 5Gi. ` +
      'Container app was using 2Gi, request is 0, has larger consumption of ephemeral-storage. ',
  );
});
