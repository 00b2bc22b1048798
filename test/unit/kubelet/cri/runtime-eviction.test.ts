// The eviction path the node agent drives (Kubelet.evict → PodWorker.evict), on a simulated node: the ranked pod gets
// a Warning Evicted event, its containers are killed, and it turns Failed/Evicted with a DisruptionTarget condition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evictionDecision, rankForEviction } from '../../../../src/kubelet/eviction/ranking.js';
import { parseThreshold } from '../../../../src/kubelet/eviction/signals.js';
import { condition, createPod, getPod, pod, simCluster } from '../helpers.js';

test('the kubelet evicts the BestEffort pod before the Guaranteed one under memory pressure', async (t) => {
  const c = await simCluster({ count: 1 });
  t.after(() => c.close());
  await createPod(c, pod('gold', { containers: [{ name: 'app', image: 'nginx:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }] }));
  await createPod(c, pod('cheap', { terminationGracePeriodSeconds: 30 }));
  const kubelet = c.nodes.kubelet('k1s-sim-0')!;
  await c.waitFor('both pods to run', async () => (await getPod(c, 'gold')).status?.phase === 'Running' && (await getPod(c, 'cheap')).status?.phase === 'Running');
  await c.waitFor('the kubelet to see both pods', () => kubelet.activePods().length === 2);

  const threshold = parseThreshold('memory.available<100Mi');
  const observations = { 'memory.available': { available: 50 * 1024 * 1024, capacity: 4 * 1024 ** 3 } };
  const ranked = rankForEviction(kubelet.activePods().map((p) => ({ pod: p, stats: { memoryWorkingSetBytes: p.metadata.name === 'gold' ? 900 << 20 : 10 << 20 } })), 'memory.available');
  assert.deepEqual(ranked.map((r) => r.pod.metadata.name), ['cheap', 'gold']);
  const d = evictionDecision({ pod: ranked[0], threshold, met: [threshold], observations });
  assert.equal(kubelet.evict(ranked[0].pod, d), true);

  const evicted = await c.waitFor('cheap to be evicted', async () => {
    const p = await getPod(c, 'cheap');
    return p.status?.phase === 'Failed' && p.status.containerStatuses?.[0]?.state?.terminated && p;
  });
  assert.equal(evicted.status!.reason, 'Evicted');
  assert.match(String(evicted.status!.message), /^The node was low on resource: memory\. Threshold quantity: 100Mi, available: 50Mi\. /);
  assert.equal(condition(evicted, 'DisruptionTarget')?.reason, 'TerminationByKubelet');
  assert.equal(condition(evicted, 'Ready')?.status, 'False');
  const events = await c.client.resource('v1', 'events').list('default');
  assert.ok(events.items.some((e) => (e as { reason?: string; involvedObject?: { name?: string } }).reason === 'Evicted' && (e as { involvedObject?: { name?: string } }).involvedObject?.name === 'cheap'));
  // the other pod runs on, and an evicted pod is not restarted
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await getPod(c, 'gold')).status?.phase, 'Running');
  assert.equal((await getPod(c, 'cheap')).status?.phase, 'Failed');
  assert.equal(kubelet.activePods().length, 1);
});
