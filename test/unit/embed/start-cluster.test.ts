// The embedding API as its users call it: startCluster() from the package entry, driven by the official
// JavaScript client (@kubernetes/client-node) over HTTPS with the kubeconfig it returns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startCluster, type RunningCluster } from '../../../src/index.js';

function api(cluster: RunningCluster): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeconfig);
  return kc.makeApiClient(CoreV1Api);
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// the certificates throwaway clusters share go to this process' own cache dir, removed at the end
const cacheHome = mkdtempSync(join(tmpdir(), 'k1s-embed-cache-'));
process.env.XDG_CACHE_HOME = cacheHome;
process.on('exit', () => rmSync(cacheHome, { recursive: true, force: true }));

const caOf = (c: RunningCluster) => /certificate-authority-data: (\S+)/.exec(c.kubeconfig)?.[1];

let firstCA: string | undefined;

const readyNodes = async (core: CoreV1Api) =>
  (await core.listNode()).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata!.name!);

test('startCluster: a ConfigMap round trip and Ready simulated nodes through @kubernetes/client-node', async (t) => {
  const t0 = performance.now();
  const cluster = await startCluster({ simulatedNodes: 2 });
  const startMs = performance.now() - t0;
  t.after(() => cluster.stop());
  t.diagnostic(`startCluster({ simulatedNodes: 2 }) resolved in ${Math.round(startMs)} ms (first cluster of the process)`);
  assert.match(cluster.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(readFileSync(cluster.kubeconfigPath, 'utf8'), cluster.kubeconfig);

  const core = api(cluster);
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'embedded' }, data: { answer: '42' } } });
  const list = await core.listNamespacedConfigMap({ namespace: 'default' });
  const cm = list.items.find((c) => c.metadata?.name === 'embedded');
  assert.deepEqual(cm?.data, { answer: '42' });
  assert.ok(Number(cm?.metadata?.resourceVersion) > 0);
  const nodes = await until('2 Ready nodes', async () => {
    const ready = await readyNodes(core);
    return ready.length === 2 ? ready : undefined;
  });
  assert.deepEqual(nodes.sort(), ['k1s-sim-0', 'k1s-sim-1']);

  // the components write under their own names, as on a real cluster: the root CA publisher's ConfigMap, the
  // kubelet's status writes
  const ca = await until('kube-root-ca.crt', () => core.readNamespacedConfigMap({ namespace: 'default', name: 'kube-root-ca.crt' }).catch(() => undefined));
  assert.deepEqual(ca.metadata?.managedFields?.map((m) => [m.manager, m.operation]), [['kube-controller-manager', 'Update']]);
  await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'managed' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
  const running = await until('pod Running', async () => {
    const p = await core.readNamespacedPod({ namespace: 'default', name: 'managed' });
    return p.status?.phase === 'Running' ? p : undefined;
  });
  const managers = running.metadata?.managedFields?.map((m) => `${m.manager} ${m.operation} ${m.subresource ?? ''}`.trim());
  assert.ok(managers?.includes('kubelet Update status'), `managers: ${managers}`);
  assert.ok(!managers?.some((m) => m.startsWith('k1s ')), `managers: ${managers}`);

  await cluster.stop();
  assert.ok(!existsSync(cluster.dataDir), 'the temporary data dir is removed on stop');
  assert.ok(existsSync(join(cacheHome, 'k1s', 'embedded-tls-v1', 'ca.crt')), 'its certificates are kept for the next one');
  firstCA = caOf(cluster);
  await cluster.stop(); // a second stop does nothing
});

test('startCluster: two clusters in one process are independent; a given data dir is kept', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'k1s-embed-test-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const times: number[] = [];
  const timed = async (o: Parameters<typeof startCluster>[0]) => {
    const t0 = performance.now();
    const c = await startCluster(o);
    times.push(performance.now() - t0);
    t.after(() => c.stop());
    return c;
  };
  const a = await timed({});
  const b = await timed({ dataDir, simulatedNodes: 1 });
  t.diagnostic(`startCluster() in a warm process: ${times.map((ms) => `${Math.round(ms)} ms`).join(', ')}`);
  assert.notEqual(a.url, b.url);
  // a throwaway cluster starts with the certificates of the first; one with its own data dir makes its own
  assert.ok(firstCA);
  assert.equal(caOf(a), firstCA);
  assert.notEqual(caOf(b), firstCA);

  const ca = api(a);
  const cb = api(b);
  await ca.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'only-in-a' } } });
  await cb.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'only-in-b' } } });
  const names = async (c: CoreV1Api) =>
    (await c.listNamespacedConfigMap({ namespace: 'default' })).items.map((x) => x.metadata!.name!).filter((n) => n.startsWith('only-'));
  assert.deepEqual(await names(ca), ['only-in-a']);
  assert.deepEqual(await names(cb), ['only-in-b']);
  assert.deepEqual(await readyNodes(ca), []); // API only
  assert.deepEqual(await until('b\'s node Ready', async () => ((await readyNodes(cb)).length === 1 ? readyNodes(cb) : undefined)), ['k1s-sim-0']);

  await b.stop();
  assert.ok(existsSync(join(dataDir, 'db', 'state.db')), 'a given data dir is kept');
  // a's cluster still serves after b stopped
  assert.deepEqual(await names(ca), ['only-in-a']);
});

test('startCluster({ reuseCertificates: false }) makes its own CA', async (t) => {
  const c = await startCluster({ reuseCertificates: false, controllers: false, scheduler: false });
  t.after(() => c.stop());
  assert.ok(firstCA);
  assert.notEqual(caOf(c), firstCA);
  const list = await api(c).listNamespace();
  assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
});

test("import('k1s'), as users load the package: the bundle (one file, code-cached), not the per-module build", async (t) => {
  const t0 = performance.now();
  // self-reference through package.json "exports", as node resolves it for a dependency
  const specifier = 'k1s'; // a variable: tsc must not resolve it (dist/ is its own output)
  const pkg = (await import(specifier)) as typeof import('../../../src/index.js');
  const importMs = performance.now() - t0;
  assert.equal(typeof pkg.startCluster, 'function');
  assert.notEqual(pkg.startCluster, startCluster, 'the package entry runs dist/k1s.cjs (npm run build makes it)');
  const c = await pkg.startCluster({ controllers: false, scheduler: false });
  t.after(() => c.stop());
  t.diagnostic(`import('k1s') ${Math.round(importMs)} ms (this process has the per-module build loaded too), startCluster() ${Math.round(performance.now() - t0 - importMs)} ms`);
  const core = api(c);
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'from-the-bundle' } } });
  assert.deepEqual((await core.listNamespacedConfigMap({ namespace: 'default' })).items.map((x) => x.metadata?.name), ['from-the-bundle']);
});
