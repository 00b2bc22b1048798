// The API server's scraper against a real kubelet HTTPS server (real TLS, the kubelet client identity), over a
// real in-process k1s: real nodes' pods get the measured usage, simulated nodes are not scraped, a kubelet that
// cannot be reached is reported once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { issueKubeletClientCert } from '../../../src/apiserver/streams/kubelet-connection.js';
import { KubeletMetricsScraper } from '../../../src/controllers/metrics-server/scraper.js';
import { RealUsageStore } from '../../../src/api/metrics/real-usage.js';
import type { KObject } from '../../../src/api/types.js';
import { KubeletServer, issueKubeletServingCert } from '../../../src/kubelet/server.js';
import { resourceMetricsText } from '../../../src/kubelet/stats/resource-metrics.js';
import { buildSummary, CpuRateCache, type NodeSample, type PodSample } from '../../../src/kubelet/stats/summary.js';
import type { KubeletStatsSource } from '../../../src/kubelet/stats/provider.js';
import { createCa } from '../../../src/pki/certs.js';
import { controllerCluster, markPodRunning } from '../controllers/harness.js';

/** A kubelet whose node uses `cores` CPU: each read advances its counters by the time since the last one. */
class SteadyNode implements KubeletStatsSource {
  private t = Date.now();
  private node = 0;
  private app = 0;
  reads = 0;
  constructor(private readonly cores: { node: number; app: number }) {}
  private samples(): { node: NodeSample; pods: PodSample[] } {
    const now = Date.now();
    this.node += (now - this.t) * 1e6 * this.cores.node;
    this.app += (now - this.t) * 1e6 * this.cores.app;
    this.t = now;
    this.reads++;
    return {
      node: { nodeName: 'real', startTimeMs: 0, cpu: { timeMs: now, usageCoreNanoSeconds: this.node }, memory: { timeMs: now, workingSetBytes: 3 * 2 ** 30 } },
      pods: [{ name: 'web', namespace: 'default', uid: 'u', id: 'sb', startTimeMs: now - 1000, containers: [{ name: 'app', id: 'c', startTimeMs: 1_000_000, cpu: { timeMs: now, usageCoreNanoSeconds: this.app }, memory: { timeMs: now, workingSetBytes: 20 * 2 ** 20 } }] }],
    };
  }
  async summary() {
    const s = this.samples();
    return buildSummary(s.node, s.pods, new CpuRateCache(), { updateCache: false });
  }
  async resourceMetrics() {
    return resourceMetricsText(this.samples());
  }
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

const node = (name: string, port: number, annotations: Record<string, string> = {}): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, annotations },
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } },
  }) as KObject;

test('scraped usage reaches metrics.k8s.io for real nodes only; the first rate comes after firstWindowMs', async () => {
  const ca = await createCa();
  const [serving, client] = await Promise.all([issueKubeletServingCert(ca, { name: 'real', ips: ['127.0.0.1'] }), issueKubeletClientCert(ca)]);
  const stats = new SteadyNode({ node: 1.5, app: 0.5 });
  const kubelet = new KubeletServer({ streams: {} as never, tls: { ...serving, caPem: ca.certPem }, stats });
  const port = await kubelet.listen(0, '127.0.0.1');
  const usage = new RealUsageStore();
  const c = await controllerCluster([], { api: { realUsage: usage } });
  const logs: string[] = [];
  const scraper = new KubeletMetricsScraper({
    client: c.client,
    kubeletClient: { ...client, caPem: ca.certPem },
    usage,
    skipNode: (n) => n.metadata.annotations?.['k1s.dev/simulated'] === 'true',
    resolutionMs: 60_000,
    firstWindowMs: 300,
    log: (l) => logs.push(l),
  });
  try {
    const nodes = c.client.resource('v1', 'nodes');
    await nodes.create('', node('real', port));
    await nodes.create('', node('sim', port, { 'k1s.dev/simulated': 'true' }));
    await nodes.create('', node('down', await freePort()));
    const pods = c.client.resource('v1', 'pods');
    const pod = (name: string, nodeName: string) =>
      pods.create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'app', image: 'x', resources: { requests: { cpu: '100m' } } }] } } as KObject);
    await markPodRunning(c.client, await pod('web', 'real'), { nodeName: 'real' });
    await markPodRunning(c.client, await pod('simweb', 'sim'), { nodeName: 'sim' });

    const t0 = Date.now();
    await scraper.start();
    const pm = c.client.resource('metrics.k8s.io/v1beta1', 'pods');
    const web = await c.waitFor('the real pod to have a rate', async () => {
      const m = (await pm.get('default', 'web')) as any;
      return m.containers.length ? m : undefined;
    }, 5000);
    const took = Date.now() - t0;
    assert.ok(took < 3000, `a rate ${took} ms after start, not a 60 s resolution later`);
    const cpu = web.containers[0].usage.cpu as string;
    const cores = cpu.endsWith('n') ? Number(cpu.slice(0, -1)) / 1e9 : cpu.endsWith('m') ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu);
    assert.ok(Math.abs(cores - 0.5) < 0.05, `app uses 0.5 core: ${cpu}`);
    assert.equal(web.containers[0].usage.memory, '20Mi');
    assert.match(web.window, /^\d+ms$|^\d+(\.\d+)?s$/);
    // the simulated pod keeps its simulated usage (its request), the simulated node was never asked
    assert.equal(((await pm.get('default', 'simweb')) as any).containers[0].usage.cpu, '100m');
    const nm = (await c.client.resource('metrics.k8s.io/v1beta1', 'nodes').get('', 'real')) as any;
    assert.equal(nm.usage.memory, '3Gi');
    assert.ok(usage.coversNode('down') && !usage.coversNode('sim'));
    assert.equal(logs.filter((l) => l.includes('failed to scrape node down')).length, 1, logs.join('\n'));
    assert.ok(logs.every((l) => !l.includes('node real')), logs.join('\n'));
    // a miss (a new pod with no samples yet) brings the next pass forward
    const reads = stats.reads;
    await markPodRunning(c.client, await pod('late', 'real'), { nodeName: 'real' });
    await pm.get('default', 'late');
    await c.waitFor('a pass soon after the miss', () => stats.reads > reads, 2000);
  } finally {
    await scraper.stop();
    await kubelet.close();
    await c.close();
  }
});
