// The kubelet's stats over a real containerd (CRI ListContainerStats / ListPodSandboxStats) and the root cgroup,
// served by the kubelet's HTTPS server on /stats/summary and /metrics/resource.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriStatsProvider, podSamples, readNodeSample } from '../../../../src/kubelet/stats/provider.js';
import { KubeletServer, issueKubeletServingCert } from '../../../../src/kubelet/server.js';
import { createCa, createClientCert, type CertKeyPem } from '../../../../src/pki/certs.js';
import { runtimeFixture, type RuntimeFixture } from '../kubelet-server-fixture.js';
import { labelNamesOf, parsePrometheusText, sampleValue } from '../../../prometheus-text.js';

let rt: RuntimeFixture;
const dirs: string[] = [];
after(async () => {
  await rt?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

before(async () => {
  rt = await runtimeFixture();
  await rt.run('burn', ['sh', '-c', 'while :; do :; done']);
  await rt.run('idle', ['sleep', '3600']);
}, { timeout: 30_000 });

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'k1s-stats-'));
  dirs.push(d);
  return d;
}

test('readNodeSample: root cgroup v1 figures, or /proc when there is no v1 hierarchy', async () => {
  const root = tempDir();
  mkdirSync(join(root, 'proc'));
  mkdirSync(join(root, 'cg', 'cpuacct'), { recursive: true });
  mkdirSync(join(root, 'cg', 'memory'), { recursive: true });
  writeFileSync(join(root, 'proc', 'stat'), 'cpu  100 5 50 1000 3 1 2 4 0 0\ncpu0 1 2 3 4\nbtime 1700000000\n');
  writeFileSync(join(root, 'proc', 'meminfo'), 'MemTotal:       1000000 kB\nMemFree:         200000 kB\nMemAvailable:    600000 kB\n');
  writeFileSync(join(root, 'cg', 'cpuacct', 'cpuacct.usage'), '123456789\n');
  writeFileSync(join(root, 'cg', 'memory', 'memory.usage_in_bytes'), '500000000\n');
  writeFileSync(join(root, 'cg', 'memory', 'memory.stat'), 'cache 1\nrss 2\ntotal_rss 300000000\ntotal_inactive_file 100000000\ntotal_pgfault 77\ntotal_pgmajfault 3\n');
  const v1 = await readNodeSample({ nodeName: 'n', cgroupRoot: join(root, 'cg'), procRoot: join(root, 'proc'), now: 5000 });
  assert.deepEqual(v1, {
    nodeName: 'n',
    startTimeMs: 1_700_000_000_000,
    cpu: { timeMs: 5000, usageCoreNanoSeconds: 123456789 },
    memory: { timeMs: 5000, workingSetBytes: 400_000_000, usageBytes: 500_000_000, availableBytes: 1_024_000_000 - 400_000_000, rssBytes: 300_000_000, pageFaults: 77, majorPageFaults: 3 },
  });
  const proc = await readNodeSample({ nodeName: 'n', cgroupRoot: join(root, 'none'), procRoot: join(root, 'proc'), now: 5000 });
  // user+nice+system+irq+softirq+steal = 162 ticks of 10 ms
  assert.deepEqual(proc.cpu, { timeMs: 5000, usageCoreNanoSeconds: 162e7 });
  assert.deepEqual(proc.memory, { timeMs: 5000, workingSetBytes: 409_600_000, usageBytes: 819_200_000, availableBytes: 614_400_000 });
});

test('podSamples: ready sandboxes with their running containers, CRI nanosecond times in ms', () => {
  const pods = podSamples(
    [{ id: 'sb', metadata: { name: 'p', namespace: 'ns', uid: 'u', attempt: 0 }, state: 'SANDBOX_READY', created_at: '1700000000123456789', labels: {}, annotations: {}, runtime_handler: '' }],
    [{ id: 'c1', pod_sandbox_id: 'sb', metadata: { name: 'main', attempt: 0 }, image_ref: '', state: 'CONTAINER_RUNNING', created_at: '1700000001000000000', labels: {}, annotations: {} } as never],
    [{ attributes: { id: 'c1', labels: {}, annotations: {} }, cpu: { timestamp: '1700000002500000000', usage_core_nano_seconds: { value: '42' } }, memory: { timestamp: '1700000002500000000', working_set_bytes: { value: '4096' }, usage_bytes: { value: '8192' } } }],
    [{ attributes: { id: 'sb', labels: {}, annotations: {} }, linux: { cpu: { timestamp: '1700000002600000000', usage_core_nano_seconds: { value: '50' } }, memory: null, containers: [], process: { timestamp: '0', process_count: { value: '3' } } } }],
    99,
  );
  assert.deepEqual(pods, [{
    name: 'p', namespace: 'ns', uid: 'u', id: 'sb', startTimeMs: 1_700_000_000_123.456,
    containers: [{ name: 'main', id: 'c1', startTimeMs: 1_700_000_001_000, cpu: { timeMs: 1_700_000_002_500, usageCoreNanoSeconds: 42 }, memory: { timeMs: 1_700_000_002_500, workingSetBytes: 4096, usageBytes: 8192 } }],
    cpu: { timeMs: 1_700_000_002_600, usageCoreNanoSeconds: 50 },
    processCount: 3,
  }]);
});

test('CriStatsProvider over real containerd: the busy container uses far more CPU than the idle one', async () => {
  const stats = new CriStatsProvider({ cri: rt.cri, nodeName: 'n1' });
  const first = await stats.summary();
  assert.equal(first.node.nodeName, 'n1');
  assert.ok((first.node.cpu?.usageCoreNanoSeconds ?? 0) > 0 && (first.node.memory?.workingSetBytes ?? 0) > 0);
  const pod = first.pods.find((p) => p.podRef.name === 'streams');
  assert.ok(pod, JSON.stringify(first.pods.map((p) => p.podRef)));
  assert.equal(pod.podRef.namespace, 'default');
  assert.deepEqual(pod.containers.map((c) => c.name), ['burn', 'idle']);
  await new Promise((r) => setTimeout(r, 1500));
  const second = await stats.summary();
  const [burn, idle] = second.pods.find((p) => p.podRef.name === 'streams')!.containers;
  const burnRate = burn.cpu?.usageNanoCores ?? 0;
  const idleRate = idle.cpu?.usageNanoCores ?? 0;
  console.log(`burn ${Math.round(burnRate / 1e6)}m, idle ${Math.round(idleRate / 1e6)}m, memory ${burn.memory?.workingSetBytes} / ${idle.memory?.workingSetBytes} bytes`);
  assert.ok(burnRate > 50_000_000, `burn: ${JSON.stringify(burn.cpu)}`);
  assert.ok(burnRate > 10 * idleRate, `burn ${burnRate} vs idle ${idleRate}`);
  assert.ok((burn.memory?.workingSetBytes ?? 0) > 0 && (idle.memory?.workingSetBytes ?? 0) > 0);
  const text = await stats.resourceMetrics();
  assert.match(text, /^container_cpu_usage_seconds_total\{container="burn",namespace="default",pod="streams"\} \S+ \d{13}$/m);
  assert.match(text, /^pod_memory_working_set_bytes\{namespace="default",pod="streams"\} \S+ \d{13}$/m);
  assert.match(text, /^resource_scrape_error 0$/m);
});

function get(port: number, path: string, client?: CertKeyPem, ca?: string): Promise<{ code: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, ca, cert: client?.certPem, key: client?.keyPem, rejectUnauthorized: false },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('the kubelet server serves /stats/summary and /metrics/resource to CA-signed clients only', async () => {
  const ca = await createCa();
  const [serving, client] = await Promise.all([
    issueKubeletServingCert(ca, { name: 'n1', ips: ['127.0.0.1'] }),
    createClientCert(ca, { commonName: 'kube-apiserver-kubelet-client', organizations: ['system:masters'] }),
  ]);
  const noStreams = {} as never;
  const server = new KubeletServer({ streams: noStreams, tls: { ...serving, caPem: ca.certPem } });
  const port = await server.listen(0, '127.0.0.1');
  try {
    assert.equal((await get(port, '/metrics/resource', client)).code, 404, 'no stats source yet');
    server.setStats(new CriStatsProvider({ cri: rt.cri, nodeName: 'n1' }));
    assert.equal((await get(port, '/stats/summary')).code, 401, 'anonymous');
    const m = await get(port, '/metrics/resource', client);
    assert.equal(m.code, 200);
    assert.equal(m.type, 'text/plain; version=0.0.4; charset=utf-8');
    assert.match(m.body, /^container_memory_working_set_bytes\{container="idle",namespace="default",pod="streams"\} \S+ \d{13}$/m);
    const s = await get(port, '/stats/summary', client);
    assert.equal(s.code, 200);
    assert.equal(s.type, 'application/json');
    const summary = JSON.parse(s.body);
    assert.equal(summary.node.nodeName, 'n1');
    assert.ok(summary.pods.some((p: { podRef: { name: string } }) => p.podRef.name === 'streams'));
    // cAdvisor's families and the kubelet's own, read back by a Prometheus text parser
    assert.equal((await get(port, '/metrics/cadvisor')).code, 401, 'anonymous');
    const cad = await get(port, '/metrics/cadvisor', client);
    assert.equal(cad.code, 200);
    assert.equal(cad.type, 'text/plain; version=0.0.4; charset=utf-8');
    const c = parsePrometheusText(cad.body);
    assert.equal(c.families.get('container_cpu_usage_seconds_total')?.help, 'Cumulative cpu time consumed in seconds.');
    assert.ok(sampleValue(c, 'container_cpu_usage_seconds_total', { container: 'burn', namespace: 'default', pod: 'streams' })! > 0);
    assert.ok(sampleValue(c, 'container_memory_working_set_bytes', { container: 'idle', pod: 'streams' })! > 0);
    assert.ok(sampleValue(c, 'container_cpu_usage_seconds_total', { id: '/' })! > 0, 'the node (root cgroup)');
    assert.ok(sampleValue(c, 'container_start_time_seconds', { container: 'burn' })! > 1.7e9);
    assert.ok(labelNamesOf(c, 'container_memory_working_set_bytes').has('image'));
    const own = parsePrometheusText((await get(port, '/metrics', client)).body);
    assert.ok(sampleValue(own, 'kubelet_running_pods')! >= 1);
    assert.ok(sampleValue(own, 'kubelet_running_containers', { container_state: 'running' })! >= 2);
    assert.equal(sampleValue(own, 'kubernetes_build_info', { major: '1', minor: '33' }), 1);
    assert.ok(own.families.has('process_cpu_seconds_total'));
  } finally {
    await server.close();
  }
});
