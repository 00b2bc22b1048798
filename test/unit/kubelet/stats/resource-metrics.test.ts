import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFloat, resourceMetricsText } from '../../../../src/kubelet/stats/resource-metrics.js';
import type { NodeSample, PodSample } from '../../../../src/kubelet/stats/summary.js';

test("goFloat is Go's strconv.FormatFloat(v, 'g', -1, 64)", () => {
  const cases: [number, string][] = [
    [0, '0'],
    [1, '1'],
    [0.011873114, '0.011873114'],
    [245760, '245760'],
    [999999, '999999'],
    [1000000, '1e+06'],
    [4078989312, '4.078989312e+09'],
    [1795337874.92978, '1.79533787492978e+09'],
    [39609.003356868, '39609.003356868'],
    [0.0001, '0.0001'],
    [0.00001234, '1.234e-05'],
    [-2.5, '-2.5'],
    [1.5e21, '1.5e+21'],
    [1e100, '1e+100'],
  ];
  for (const [v, want] of cases) assert.equal(goFloat(v), want, String(v));
});

const node: NodeSample = {
  nodeName: 'n1',
  startTimeMs: 1_700_000_000_000,
  cpu: { timeMs: 1_700_000_100_123, usageCoreNanoSeconds: 39_609_003_356_868 },
  memory: { timeMs: 1_700_000_100_123, workingSetBytes: 4_078_989_312 },
};

const pods: PodSample[] = [
  {
    name: 'web',
    namespace: 'prod',
    uid: 'u2',
    id: 'sb2',
    startTimeMs: 1_700_000_050_000,
    containers: [
      { name: 'app', id: 'c2', startTimeMs: 1_700_000_050_500, cpu: { timeMs: 1_700_000_100_200, usageCoreNanoSeconds: 2_500_000_000 }, memory: { timeMs: 1_700_000_100_200, workingSetBytes: 1_048_576 } },
    ],
  },
  {
    name: 'api',
    namespace: 'default',
    uid: 'u1',
    id: 'sb1',
    startTimeMs: 1_700_000_040_000,
    cpu: { timeMs: 1_700_000_100_300, usageCoreNanoSeconds: 11_873_114 },
    memory: { timeMs: 1_700_000_100_300, workingSetBytes: 630_784 },
    containers: [
      { name: 'b', id: 'c1b', startTimeMs: 1_700_000_041_000, cpu: { timeMs: 1_700_000_100_300, usageCoreNanoSeconds: 5_000_000 }, memory: { timeMs: 1_700_000_100_300, workingSetBytes: 245_760 } },
      { name: 'a', id: 'c1a', startTimeMs: 1_700_000_040_500, cpu: { timeMs: 1_700_000_100_300, usageCoreNanoSeconds: 6_000_000 }, memory: { timeMs: 1_700_000_100_300, workingSetBytes: 200_000 } },
    ],
  },
];

test('resourceMetricsText: the families, label order, series order and timestamps of the kubelet', () => {
  assert.equal(
    resourceMetricsText({ node, pods }),
    `# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds
# TYPE container_cpu_usage_seconds_total counter
container_cpu_usage_seconds_total{container="a",namespace="default",pod="api"} 0.006 1700000100300
container_cpu_usage_seconds_total{container="app",namespace="prod",pod="web"} 2.5 1700000100200
container_cpu_usage_seconds_total{container="b",namespace="default",pod="api"} 0.005 1700000100300
# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes
# TYPE container_memory_working_set_bytes gauge
container_memory_working_set_bytes{container="a",namespace="default",pod="api"} 200000 1700000100300
container_memory_working_set_bytes{container="app",namespace="prod",pod="web"} 1.048576e+06 1700000100200
container_memory_working_set_bytes{container="b",namespace="default",pod="api"} 245760 1700000100300
# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds
# TYPE container_start_time_seconds gauge
container_start_time_seconds{container="a",namespace="default",pod="api"} 1.7000000405e+09
container_start_time_seconds{container="app",namespace="prod",pod="web"} 1.7000000505e+09
container_start_time_seconds{container="b",namespace="default",pod="api"} 1.700000041e+09
# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds
# TYPE node_cpu_usage_seconds_total counter
node_cpu_usage_seconds_total 39609.003356868 1700000100123
# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes
# TYPE node_memory_working_set_bytes gauge
node_memory_working_set_bytes 4.078989312e+09 1700000100123
# HELP pod_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the pod in core-seconds
# TYPE pod_cpu_usage_seconds_total counter
pod_cpu_usage_seconds_total{namespace="default",pod="api"} 0.011873114 1700000100300
pod_cpu_usage_seconds_total{namespace="prod",pod="web"} 2.5 1700000100200
# HELP pod_memory_working_set_bytes [STABLE] Current working set of the pod in bytes
# TYPE pod_memory_working_set_bytes gauge
pod_memory_working_set_bytes{namespace="default",pod="api"} 630784 1700000100300
pod_memory_working_set_bytes{namespace="prod",pod="web"} 1.048576e+06 1700000100200
# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise
# TYPE resource_scrape_error gauge
resource_scrape_error 0
`,
  );
});

test('resourceMetricsText: a failed read is only resource_scrape_error 1; label values are escaped', () => {
  assert.equal(
    resourceMetricsText({ error: new Error('CRI down') }),
    '# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise\n# TYPE resource_scrape_error gauge\nresource_scrape_error 1\n',
  );
  const odd: PodSample = { name: 'p"q', namespace: 'n\\s', uid: 'u', id: 's', startTimeMs: 0, containers: [{ name: 'c', id: 'c', startTimeMs: 0, memory: { timeMs: 1000, workingSetBytes: 1 } }] };
  const text = resourceMetricsText({ node: { nodeName: 'n', startTimeMs: 0 }, pods: [odd] });
  assert.match(text, /^container_memory_working_set_bytes\{container="c",namespace="n\\\\s",pod="p\\"q"\} 1 1000$/m);
  assert.doesNotMatch(text, /container_start_time_seconds|node_cpu/, 'no start time series for an unknown start, no node series without samples');
});
