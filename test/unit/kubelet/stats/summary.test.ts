import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSummary, CpuRateCache, nanoCores, podTotals, rfc3339, type NodeSample, type PodSample } from '../../../../src/kubelet/stats/summary.js';

const T = 1_700_000_000_000;

test('nanoCores: the rate between two cumulative samples; none without advance or after a reset', () => {
  assert.equal(nanoCores({ timeMs: T, usageCoreNanoSeconds: 1e9 }, { timeMs: T + 2000, usageCoreNanoSeconds: 2e9 }), 500_000_000);
  assert.equal(nanoCores({ timeMs: T, usageCoreNanoSeconds: 0 }, { timeMs: T + 10_000, usageCoreNanoSeconds: 15e9 }), 1_500_000_000);
  assert.equal(nanoCores(undefined, { timeMs: T, usageCoreNanoSeconds: 1 }), undefined);
  assert.equal(nanoCores({ timeMs: T, usageCoreNanoSeconds: 5 }, { timeMs: T, usageCoreNanoSeconds: 9 }), undefined);
  assert.equal(nanoCores({ timeMs: T, usageCoreNanoSeconds: 5e9 }, { timeMs: T + 1000, usageCoreNanoSeconds: 1e9 }), undefined);
});

test('podTotals: the sandbox figures when given, else the sum of the containers', () => {
  const p: PodSample = {
    name: 'p', namespace: 'ns', uid: 'u', id: 'sb', startTimeMs: T,
    containers: [
      { name: 'a', id: 'a', startTimeMs: T, cpu: { timeMs: T + 5, usageCoreNanoSeconds: 100 }, memory: { timeMs: T + 5, workingSetBytes: 1000 } },
      { name: 'b', id: 'b', startTimeMs: T, cpu: { timeMs: T + 9, usageCoreNanoSeconds: 50 }, memory: { timeMs: T + 9, workingSetBytes: 24 } },
    ],
  };
  assert.deepEqual(podTotals(p), { cpu: { timeMs: T + 9, usageCoreNanoSeconds: 150 }, memory: { timeMs: T + 9, workingSetBytes: 1024 } });
  const own = { ...p, cpu: { timeMs: T, usageCoreNanoSeconds: 7 }, memory: { timeMs: T, workingSetBytes: 8 } };
  assert.deepEqual(podTotals(own), { cpu: own.cpu, memory: own.memory });
});

test('buildSummary: the stats/v1alpha1 shape; usageNanoCores from the previous /stats/summary sample only', () => {
  const cache = new CpuRateCache();
  const node = (t: number, cpu: number): NodeSample => ({ nodeName: 'n1', startTimeMs: T - 3_600_000, cpu: { timeMs: t, usageCoreNanoSeconds: cpu }, memory: { timeMs: t, workingSetBytes: 4096, availableBytes: 10_000, usageBytes: 5000 } });
  const pod = (t: number, cpu: number): PodSample => ({
    name: 'web', namespace: 'default', uid: 'uid-1', id: 'sb1', startTimeMs: T - 60_000, processCount: 2,
    containers: [{ name: 'app', id: 'c1', startTimeMs: T - 59_000, cpu: { timeMs: t, usageCoreNanoSeconds: cpu }, memory: { timeMs: t, workingSetBytes: 2048, rssBytes: 1024 } }],
  });
  const first = buildSummary(node(T, 10e9), [pod(T, 1e9)], cache, { updateCache: true });
  assert.deepEqual(first, {
    node: {
      nodeName: 'n1',
      startTime: rfc3339(T - 3_600_000),
      cpu: { time: rfc3339(T), usageCoreNanoSeconds: 10e9 },
      memory: { time: rfc3339(T), availableBytes: 10_000, usageBytes: 5000, workingSetBytes: 4096 },
    },
    pods: [{
      podRef: { name: 'web', namespace: 'default', uid: 'uid-1' },
      startTime: rfc3339(T - 60_000),
      containers: [{ name: 'app', startTime: rfc3339(T - 59_000), cpu: { time: rfc3339(T), usageCoreNanoSeconds: 1e9 }, memory: { time: rfc3339(T), workingSetBytes: 2048, rssBytes: 1024 } }],
      cpu: { time: rfc3339(T), usageCoreNanoSeconds: 1e9 },
      memory: { time: rfc3339(T), workingSetBytes: 2048 },
      process_stats: { process_count: 2 },
    }],
  });
  // a read that does not move the baseline (GetCPUAndMemoryStats), then one that does
  const peek = buildSummary(node(T + 5000, 15e9), [pod(T + 5000, 1.5e9)], cache, { updateCache: false });
  assert.equal(peek.node.cpu?.usageNanoCores, 1e9);
  assert.equal(peek.pods[0].containers[0].cpu?.usageNanoCores, 100_000_000);
  const second = buildSummary(node(T + 10_000, 20e9), [pod(T + 10_000, 3e9)], cache, { updateCache: true });
  assert.equal(second.node.cpu?.usageNanoCores, 1e9);
  assert.equal(second.pods[0].containers[0].cpu?.usageNanoCores, 200_000_000);
  assert.equal(second.pods[0].cpu?.usageNanoCores, 200_000_000);
  const third = buildSummary(node(T + 20_000, 20e9), [], cache, { updateCache: true });
  assert.equal(third.node.cpu?.usageNanoCores, 0);
  // the removed pod's baseline is gone: it comes back with none
  const back = buildSummary(node(T + 30_000, 20e9), [pod(T + 30_000, 9e9)], cache, { updateCache: true });
  assert.equal(back.pods[0].containers[0].cpu?.usageNanoCores, undefined);
});
