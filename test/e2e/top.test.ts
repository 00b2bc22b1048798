// `kubectl top` on a real node: `k1s server` with its own containerd runs a pod that burns CPU and an idle one; the
// kubelet serves /metrics/resource and /stats/summary from CRI stats, the API server scrapes it like metrics-server
// and metrics.k8s.io reports the measured usage (kubectl 1.33 and 1.27).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { kubectl, until, type K1sServer } from './harness.js';
import { startRealNode, stopRealNode } from './real-node.js';
import { join } from 'node:path';
import { createClientCert } from '../../src/pki/certs.js';
import { parsePrometheusText, sampleValue } from '../prometheus-text.js';

const BUSYBOX = 'k1s.local/busybox:1.35';
const BRIDGE = 'k1stop0';
const ARGS = ['--cluster-cidr', '10.51.0.0/16', '--cni-bridge', BRIDGE, '--service-cidr', '10.151.0.0/16', '--disable-ingress', '--disable-servicelb'];
let dataDir: string;
let server: K1sServer | undefined;
let k: ReturnType<typeof kubectl>;
let k27: ReturnType<typeof kubectl>;
const started = Date.now();

const pod = (name: string, command: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { suite: 'top' } },
  spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: BUSYBOX, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', command] }] },
});

/** "250m" / "1" cores → millicores; "17Mi" → MiB */
const milli = (s: string) => (s.endsWith('m') ? Number(s.slice(0, -1)) : Number(s) * 1000);
const mib = (s: string) => Number(s.replace(/Mi$/, ''));

function topRows(out: string): Map<string, string[]> {
  return new Map(out.trim().split('\n').filter(Boolean).map((l) => l.trim().split(/\s+/)).map((f) => [f[0], f.slice(1)]));
}

/** GET on the node's kubelet with the admin identity from the kubeconfig (a CA-signed client certificate), or `as`. */
async function kubeletGet(path: string, as?: { certPem: string; keyPem: string }): Promise<{ code: number; type: string; body: string }> {
  const kc = parseYaml(readFileSync(server!.kubeconfig, 'utf8')) as any;
  const user = as
    ? { 'client-certificate-data': Buffer.from(as.certPem).toString('base64'), 'client-key-data': Buffer.from(as.keyPem).toString('base64') }
    : kc.users[0].user;
  const ca = Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64');
  const node = JSON.parse(await k.ok(['get', 'nodes', '-o', 'json'])).items[0];
  const port = node.status.daemonEndpoints.kubeletEndpoint.Port;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'GET', ca, cert: Buffer.from(user['client-certificate-data'], 'base64'), key: Buffer.from(user['client-key-data'], 'base64'), checkServerIdentity: () => undefined },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  ({ server, dataDir } = await startRealNode('top', ARGS));
  k = kubectl(server, '1.33');
  k27 = kubectl(server, '1.27');
  // the burner also holds 16 MiB in tmpfs, so its working set is well above what kubectl rounds to 0Mi
  const pods = [pod('burner', 'dd if=/dev/zero of=/dev/shm/fill bs=1048576 count=16 2>/dev/null; while :; do :; done'), pod('idle', 'sleep 3600')];
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: pods }) });
  await k.ok(['wait', '--for=jsonpath={.status.phase}=Running', 'pod/burner', 'pod/idle', '--timeout=60s']);
});

after(() => stopRealNode({ server, dataDir }, { bridge: BRIDGE, deletes: [['pods', '-l', 'suite=top']], label: 'top', started }));

test('the kubelet serves /metrics/resource and /stats/summary from CRI stats', async () => {
  const metrics = await kubeletGet('/metrics/resource');
  assert.equal(metrics.code, 200, metrics.body);
  assert.match(metrics.type, /^text\/plain; version=0\.0\.4/);
  assert.match(metrics.body, /^# HELP container_cpu_usage_seconds_total \[STABLE\] Cumulative cpu time consumed by the container in core-seconds$/m);
  assert.match(metrics.body, /^container_cpu_usage_seconds_total\{container="main",namespace="default",pod="burner"\} [0-9.e+-]+ \d{13}$/m);
  assert.match(metrics.body, /^container_memory_working_set_bytes\{container="main",namespace="default",pod="idle"\} [0-9.e+-]+ \d{13}$/m);
  assert.match(metrics.body, /^pod_cpu_usage_seconds_total\{namespace="default",pod="burner"\} /m);
  assert.match(metrics.body, /^node_cpu_usage_seconds_total [0-9.e+]+ \d{13}$/m);
  assert.match(metrics.body, /^node_memory_working_set_bytes [0-9.e+]+ \d{13}$/m);
  assert.match(metrics.body, /^resource_scrape_error 0$/m);

  const summary = await kubeletGet('/stats/summary');
  assert.equal(summary.code, 200, summary.body);
  const s = JSON.parse(summary.body);
  assert.ok(s.node.nodeName);
  assert.ok(s.node.cpu.usageCoreNanoSeconds > 0 && s.node.memory.workingSetBytes > 0);
  const burner = s.pods.find((p: any) => p.podRef.name === 'burner');
  assert.equal(burner.podRef.namespace, 'default');
  assert.equal(burner.containers[0].name, 'main');
  assert.ok(burner.containers[0].memory.workingSetBytes >= 16 * 1024 * 1024, JSON.stringify(burner.containers[0]));
  // a second call has a baseline: usageNanoCores is the rate since the first
  await new Promise((r) => setTimeout(r, 500));
  const again = JSON.parse((await kubeletGet('/stats/summary')).body);
  const c = again.pods.find((p: any) => p.podRef.name === 'burner').containers[0];
  assert.ok(c.cpu.usageNanoCores > 50_000_000, `burner uses > 0.05 core: ${JSON.stringify(c.cpu)}`);
});

test('the kubelet serves /metrics/cadvisor and /metrics, authorized on nodes/metrics through the API server', async () => {
  const cad = await kubeletGet('/metrics/cadvisor');
  assert.equal(cad.code, 200, cad.body);
  const c = parsePrometheusText(cad.body);
  assert.ok(sampleValue(c, 'container_cpu_usage_seconds_total', { container: 'main', namespace: 'default', pod: 'burner' })! > 0);
  assert.ok(sampleValue(c, 'container_memory_working_set_bytes', { container: 'main', pod: 'burner' })! >= 16 * 1024 * 1024);
  assert.ok(sampleValue(c, 'container_memory_working_set_bytes', { id: '/' })! > 0, 'the node');
  // the pod's own cgroup, with no container, as cAdvisor labels it; its containers' ids are cgroups under it
  const uid = JSON.parse(await k.ok(['get', 'pod', 'burner', '-o', 'json'])).metadata.uid;
  const series = (name: string, container: string) => c.samples.get(name)!.metrics.filter((m) => m.labels?.pod === 'burner' && m.labels?.container === container);
  const podLevel = series('container_memory_working_set_bytes', '');
  assert.equal(podLevel.length, 1, JSON.stringify(podLevel));
  const podId = podLevel[0]!.labels!.id!;
  assert.match(podId, new RegExp(`^/kubepods(/burstable|/besteffort)?/pod${uid}$`));
  assert.ok(Number(podLevel[0]!.value) >= 16 * 1024 * 1024);
  assert.ok(series('container_cpu_usage_seconds_total', 'main')[0]!.labels!.id!.startsWith(`${podId}/`));
  const own = parsePrometheusText((await kubeletGet('/metrics')).body);
  assert.ok(sampleValue(own, 'kubelet_running_pods')! >= 2);
  // a CA-signed user without nodes/metrics gets the kubelet's 403; a ClusterRole granting it lets them in
  const tls = join(server!.dataDir, 'tls');
  const ca = { certPem: readFileSync(join(tls, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(tls, 'ca.key'), 'utf8') };
  const bob = await createClientCert(ca, { commonName: 'bob' });
  const denied = await kubeletGet('/metrics/cadvisor', bob);
  assert.equal(denied.code, 403);
  assert.equal(denied.body, 'Forbidden (user=bob, verb=get, resource=nodes, subresource(s)=[metrics])\n');
  assert.equal((await kubeletGet('/stats/summary', bob)).body, 'Forbidden (user=bob, verb=get, resource=nodes, subresource(s)=[stats])\n');
  const monitor = await createClientCert(ca, { commonName: 'carol' });
  await k.ok(['create', 'clusterrole', 'node-metrics', '--verb=get', '--resource=nodes/metrics']);
  await k.ok(['create', 'clusterrolebinding', 'carol-node-metrics', '--clusterrole=node-metrics', '--user=carol']);
  await until(async () => (await kubeletGet('/metrics/resource', monitor)).code === 200, 'carol to be allowed nodes/metrics', 10_000);
  assert.equal((await kubeletGet('/stats/summary', monitor)).code, 403);
});

test('kubectl top pod shows the burner using far more CPU than the idle pod (1.33 and 1.27)', async () => {
  const t0 = Date.now();
  const rows = await until(async () => {
    const r = topRows(await k.ok(['top', 'pod', '--no-headers']));
    return r.has('burner') && r.has('idle') && milli(r.get('burner')![0]) >= 50 ? r : undefined;
  }, 'the burner to show CPU in kubectl top', 30_000);
  console.log(`kubectl top pod had a rate ${Date.now() - t0} ms after the pods ran: burner ${rows.get('burner')!.join(' ')}, idle ${rows.get('idle')!.join(' ')}`);
  const [burnCpu, burnMem] = rows.get('burner')!;
  const [idleCpu] = rows.get('idle')!;
  // a busy loop gets at least its share of a loaded 2-core CI machine; the idle pod rounds to 0m
  assert.ok(milli(burnCpu) >= 10 * milli(idleCpu) + 40, `burner ${burnCpu} vs idle ${idleCpu}`);
  assert.ok(mib(burnMem) >= 16, `the burner's working set includes its 16 MiB: ${burnMem}`);
  const r27 = topRows(await k27.ok(['top', 'pod', '--no-headers']));
  assert.ok(milli(r27.get('burner')![0]) >= 50, `kubectl 1.27: ${[...r27].join(' / ')}`);
  // the metrics API as metrics-server shapes it: nano-cores, Ki, a real window and a recent timestamp
  const pm = JSON.parse(await k.ok(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/burner']));
  assert.equal(pm.kind, 'PodMetrics');
  assert.equal(pm.containers[0].name, 'main');
  assert.match(pm.containers[0].usage.cpu, /^\d+(n|u|m)?$/);
  assert.match(pm.window, /^\d+(\.\d+)?m?s$/);
  assert.ok(Math.abs(Date.now() - Date.parse(pm.timestamp)) < 60_000, pm.timestamp);
});

test('kubectl top node shows the real node (1.33 and 1.27)', async () => {
  const nodeName = (await k.ok(['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
  for (const kc of [k, k27]) {
    const rows = await until(async () => {
      const r = topRows(await kc.ok(['top', 'node', '--no-headers']));
      return r.has(nodeName) && milli(r.get(nodeName)![0]) > 0 ? r : undefined;
    }, `kubectl ${kc.version} top node`, 30_000);
    const [cpu, cpuPct, mem, memPct] = rows.get(nodeName)!;
    // the node's CPU includes the burner's
    assert.ok(milli(cpu) >= 50, `kubectl ${kc.version}: node CPU ${cpu}`);
    assert.match(cpuPct, /^\d+%$/);
    assert.ok(mib(mem) > 50, `node memory ${mem}`);
    assert.match(memPct, /^\d+%$/);
  }
});
