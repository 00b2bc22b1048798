import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  advance, goDuration, parseResourceMetrics, RealUsageStore, usageQuantities, windowed, type ScrapeBatch, type UsagePoint,
} from '../../../../src/api/metrics/real-usage.js';
import { resourceMetricsText } from '../../../../src/kubelet/stats/resource-metrics.js';
import type { KObject } from '../../../../src/api/types.js';
import { controllerCluster, markPodRunning } from '../../controllers/harness.js';

const T = 1_700_000_000_000;

const TEXT = `# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 2.5 1700000015000
container_cpu_usage_seconds_total{container="odd",namespace="n\\\\s",pod="p\\"q"} 1 1700000015000
# TYPE container_memory_working_set_bytes gauge
container_memory_working_set_bytes{container="app",namespace="default",pod="web"} 1.048576e+06 1700000015000
container_memory_working_set_bytes{container="odd",namespace="n\\\\s",pod="p\\"q"} 7 1700000015000
container_memory_working_set_bytes{container="nocpu",namespace="default",pod="web"} 5 1700000015000
container_start_time_seconds{container="app",namespace="default",pod="web"} 1.7e+09
node_cpu_usage_seconds_total 39609.5 1700000015100
node_memory_working_set_bytes 4.078989312e+09 1700000015100
resource_scrape_error 0
`;

test('parseResourceMetrics reads the series metrics-server uses, with their timestamps and escaped labels', () => {
  const b = parseResourceMetrics(TEXT, 0);
  assert.deepEqual(b.node, { timestampMs: T + 15_100, cumulativeCpu: 39609.5, memoryBytes: 4_078_989_312, startTimeMs: 0 });
  assert.deepEqual(b.pods.get('default/web')?.get('app'), { timestampMs: T + 15_000, cumulativeCpu: 2.5, memoryBytes: 1_048_576, startTimeMs: 1.7e12 });
  assert.equal(b.pods.get('default/web')?.has('nocpu'), false, 'a container without a CPU series is dropped');
  assert.equal(b.pods.get('n\\s/p"q')?.get('odd')?.memoryBytes, 7);
});

test('parseResourceMetrics round-trips what the kubelet renders', () => {
  const text = resourceMetricsText({
    node: { nodeName: 'n', startTimeMs: 0, cpu: { timeMs: T, usageCoreNanoSeconds: 12_345_678_901 }, memory: { timeMs: T, workingSetBytes: 99 } },
    pods: [{ name: 'p', namespace: 'ns', uid: 'u', id: 's', startTimeMs: T - 5000, containers: [{ name: 'c', id: 'c', startTimeMs: T - 4000, cpu: { timeMs: T + 1, usageCoreNanoSeconds: 3_000_000 }, memory: { timeMs: T + 1, workingSetBytes: 4096 } }] }],
  });
  const b = parseResourceMetrics(text, 0);
  assert.deepEqual(b.node, { timestampMs: T, cumulativeCpu: 12.345678901, memoryBytes: 99, startTimeMs: 0 });
  assert.deepEqual(b.pods.get('ns/p')?.get('c'), { timestampMs: T + 1, cumulativeCpu: 0.003, memoryBytes: 4096, startTimeMs: T - 4000 });
});

const pt = (t: number, cpu: number, mem = 100, start = T): UsagePoint => ({ timestampMs: t, cumulativeCpu: cpu, memoryBytes: mem, startTimeMs: start });

test('advance + windowed: the CPU rate over the last two samples, memory from the last; restarts start over', () => {
  let s = advance(undefined, pt(T, 10));
  assert.equal(windowed(s), undefined, 'one point is no rate');
  s = advance(s, pt(T + 15_000, 25, 300));
  assert.deepEqual(windowed(s), { timestampMs: T + 15_000, windowMs: 15_000, cpuNanoCores: 1_000_000_000, memoryBytes: 300 });
  assert.equal(advance(s, pt(T + 15_000, 99)), s, 'the same sample again changes nothing');
  s = advance(s, pt(T + 17_500, 25.25, 200));
  assert.deepEqual(windowed(s), { timestampMs: T + 17_500, windowMs: 2500, cpuNanoCores: 100_000_000, memoryBytes: 200 });
  assert.equal(windowed(advance(s, pt(T + 20_000, 1))), undefined, 'a counter that went down starts over');
  assert.equal(windowed(advance(s, pt(T + 20_000, 30, 1, T + 19_000))), undefined, 'a new start time starts over');
});

test('goDuration and usageQuantities format as metrics-server does', () => {
  assert.equal(goDuration(15_000), '15s');
  assert.equal(goDuration(15_012), '15.012s');
  assert.equal(goDuration(2_400), '2.4s');
  assert.equal(goDuration(500), '500ms');
  assert.equal(goDuration(60_500), '1m0.5s');
  assert.equal(goDuration(3_725_000), '1h2m5s');
  assert.deepEqual(usageQuantities({ cpuNanoCores: 123_456_789, memoryBytes: 2_058_878_976 }), { cpu: '123456789n', memory: '2010624Ki' });
  assert.deepEqual(usageQuantities({ cpuNanoCores: 1_500_000_000, memoryBytes: 1000 }), { cpu: '1500m', memory: '1k' });
  assert.deepEqual(usageQuantities({ cpuNanoCores: 0, memoryBytes: 0 }), { cpu: '0', memory: '0' });
});

const batch = (t: number, cpu: Record<string, number>, node?: number): ScrapeBatch => {
  const web = new Map(Object.entries(cpu).map(([c, v]) => [c, pt(t, v, 1024 * 1024)]));
  return { node: node === undefined ? undefined : pt(t, node, 2 * 1024 * 1024 * 1024, 0), pods: new Map([['default/web', web]]) };
};

test('RealUsageStore: a pod has usage once every container has two points; gone pods are forgotten; misses are reported', () => {
  const u = new RealUsageStore();
  let misses = 0;
  u.onMiss(() => misses++);
  u.setRealNodes(['n1']);
  assert.equal(u.coversNode('n1'), true);
  assert.equal(u.coversNode('sim'), false);
  u.record('n1', batch(T, { app: 1 }, 100));
  assert.equal(u.hasFreshSeries(), true);
  assert.equal(u.podUsage('default', 'web'), undefined);
  assert.equal(misses, 1);
  u.record('n1', batch(T + 10_000, { app: 3, side: 0 }, 115));
  assert.equal(u.podUsage('default', 'web'), undefined, 'side has one point only');
  u.record('n1', batch(T + 12_000, { app: 3.5, side: 0.1 }, 116));
  assert.equal(u.hasFreshSeries(), false);
  assert.deepEqual(u.podUsage('default', 'web'), {
    timestampMs: T + 12_000,
    windowMs: 2000,
    containers: [
      { name: 'app', cpuNanoCores: 250_000_000, memoryBytes: 1_048_576 },
      { name: 'side', cpuNanoCores: 50_000_000, memoryBytes: 1_048_576 },
    ],
  });
  assert.deepEqual(u.nodeUsage('n1'), { timestampMs: T + 12_000, windowMs: 2000, cpuNanoCores: 500_000_000, memoryBytes: 2 * 1024 * 1024 * 1024 });
  const before = misses;
  u.record('n1', { pods: new Map() });
  assert.equal(u.podUsage('default', 'web'), undefined, 'a pod missing from a scrape is gone');
  assert.equal(misses, before + 1);
  assert.ok(u.nodeUsage('n1'), 'a scrape without node series keeps the node');
  u.setRealNodes([]);
  assert.equal(u.nodeUsage('n1'), undefined);
});

test('the metrics API takes real usage for pods and nodes of real kubelets, simulated usage for the rest', async () => {
  const usage = new RealUsageStore();
  const c = await controllerCluster([], { api: { realUsage: usage } });
  try {
    const nodes = c.client.resource('v1', 'nodes');
    await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'real' } } as KObject);
    await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'sim', annotations: { 'k1s.dev/simulated': 'true' } } } as KObject);
    usage.setRealNodes(['real']);
    const mk = (name: string, node: string) =>
      c.client.resource('v1', 'pods').create('default', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
        spec: { containers: [{ name: 'side', image: 'x' }, { name: 'app', image: 'x', resources: { requests: { cpu: '300m', memory: '64Mi' } } }], nodeName: node },
      } as KObject);
    await markPodRunning(c.client, await mk('web', 'real'), { nodeName: 'real' });
    await markPodRunning(c.client, await mk('simpod', 'sim'), { nodeName: 'sim' });
    const pm = c.client.resource('metrics.k8s.io/v1beta1', 'pods');
    const nm = c.client.resource('metrics.k8s.io/v1beta1', 'nodes');
    // before two scrapes: a real pod has no containers yet, a real node zero usage
    assert.deepEqual((await pm.get('default', 'web') as any).containers, []);
    assert.deepEqual((await nm.get('', 'real') as any).usage, { cpu: '0', memory: '0' });
    usage.record('real', batch(T, { app: 1, side: 2 }, 100));
    usage.record('real', batch(T + 15_000, { app: 4, side: 2.15 }, 130));
    const web = (await pm.get('default', 'web')) as any;
    assert.equal(web.window, '15s');
    assert.equal(web.timestamp, new Date(T + 15_000).toISOString().replace('.000Z', 'Z'));
    assert.deepEqual(web.containers, [
      { name: 'side', usage: { cpu: '10m', memory: '1Mi' } },
      { name: 'app', usage: { cpu: '200m', memory: '1Mi' } },
    ]);
    const sim = (await pm.get('default', 'simpod')) as any;
    assert.equal(sim.window, '15s');
    assert.deepEqual(sim.containers.map((x: any) => [x.name, x.usage.cpu, x.usage.memory]), [['side', '0', '0'], ['app', '300m', '64Mi']]);
    assert.deepEqual((await nm.get('', 'real') as any).usage, { cpu: '2', memory: '2Gi' });
    assert.deepEqual((await nm.get('', 'sim') as any).usage, { cpu: '300m', memory: '64Mi' });
    const list = (await pm.list('default')).items as any[];
    assert.deepEqual(list.map((p) => p.metadata.name).sort(), ['simpod', 'web']);
  } finally {
    await c.close();
  }
});
