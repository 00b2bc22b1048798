// `npm run bench`: start-up, write, list and watch figures for the API server, beside the raw SQLite commit rate.
// Prints a table a person can compare with the README's performance section. Not a test: no pass/fail.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { median, pct, request, root, rssMiB, startServer, stop, wrkPodCreates, type Server } from './bench-server.js';
import { benchScheduler } from './bench-scheduler.js';
import { benchCli } from './bench-cli.js';
import { benchNetwork } from './bench-network.js';
import { benchNode } from './bench-node.js';
import { benchCustomResources } from './bench-custom-resources.js';
import { benchAdmission } from './bench-admission.js';
import { benchAudit } from './bench-audit.js';
import { benchEncryption } from './bench-encryption.js';
import { benchMetrics } from './bench-metrics.js';
import { benchRegistry } from './bench-registry.js';
import { benchEtcd } from './bench-etcd.js';

type Make = (name: string) => Record<string, unknown>;
const configMap: Make = (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { key: 'value' } });

async function benchCreates(
  s: Server,
  ns: string,
  clients: number,
  total: number,
  prefix = `cm-${clients}`,
  plural = 'configmaps',
  make: Make = configMap,
): Promise<{ rate: number; p50: number; p99: number; count: number }> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t = performance.now();
        const r = await request(s, 'POST', `/api/v1/namespaces/${ns}/${plural}`, make(`${prefix}-${i}`));
        if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.body}`);
        lat.push(performance.now() - t);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  return { rate: total / secs, p50: pct(lat, 50), p99: pct(lat, 99), count: total };
}

function wrkAvailable(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    // wrk --version exits 1 after printing its version
    return (e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as { status?: number }).status === 1;
  }
}

/** A ServiceAccount token for wrk, which cannot present client certificates. */
async function benchToken(s: Server): Promise<string> {
  await request(s, 'POST', '/api/v1/namespaces/bench/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench' } });
  // RBAC: what a real cluster's user would need to create ConfigMaps and pods in any namespace: edit's own rules
  // (the API phase runs without the controller manager, whose aggregation controller fills `edit` from them)
  await request(s, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'bench-edit' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:aggregate-to-edit' },
    subjects: [{ kind: 'ServiceAccount', name: 'bench', namespace: 'bench' }],
  });
  const r = await request(s, 'POST', '/api/v1/namespaces/bench/serviceaccounts/bench/token', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  return JSON.parse(r.body).status.token as string;
}

const WRK_SCRIPT = `
local counter = 0
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
function init(args)
  token = args[1]
  prefix = args[2]
end
request = function()
  counter = counter + 1
  local body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"' .. prefix .. '-' .. tid .. '-' .. counter .. '"},"data":{"key":"value"}}'
  return wrk.format("POST", "/api/v1/namespaces/bench/configmaps", { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }, body)
end
`;

/** `clients` keep-alive HTTPS connections from one wrk thread for `seconds`; every response must be 201. */
function wrkCreates(s: Server, token: string, clients: number, seconds: number, prefix = `wrk${clients}`): { rate: number; p50: number; p99: number; count: number } {
  const script = join(s.dataDir, 'wrk-creates.lua');
  writeFileSync(script, WRK_SCRIPT);
  const out = execFileSync('wrk', ['-t1', `-c${clients}`, `-d${seconds}s`, '--latency', '-s', script, s.url, '--', token, prefix], { encoding: 'utf8' });
  if (/Non-2xx or 3xx responses/.test(out) || /Socket errors/.test(out)) throw new Error(`wrk saw failed requests:\n${out}`);
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(out);
    if (!m) throw new Error(`no ${label}% latency in wrk output:\n${out}`);
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  const count = Number(/^\s*(\d+) requests in/m.exec(out)?.[1] ?? 0);
  return { rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), p50: ms('50'), p99: ms('99'), count };
}

function rawSqliteRate(dir: string, n: number): number {
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY, key TEXT, value TEXT)');
  const ins = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
  const value = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'bench' }, data: { key: 'value' } });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) db.transaction(() => ins.run(`/registry/core/configmaps/bench/cm-${i}`, value))();
  const rate = n / ((performance.now() - t0) / 1000);
  db.close();
  return rate;
}

/** A test file's view: a project whose node_modules/k1s is this checkout, importing the package and starting a cluster. */
function embeddedStarts(n: number): { import: number; total: number }[] {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-embed-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(root, join(dir, 'node_modules', 'k1s'));
    writeFileSync(
      join(dir, 'start.mjs'),
      `const t0 = performance.now();
const { startCluster } = await import('k1s');
const t1 = performance.now();
const c = await startCluster({});
console.log(JSON.stringify({ import: t1 - t0, total: performance.now() - t0 }));
await c.stop();
`,
    );
    return Array.from({ length: n }, () => JSON.parse(execFileSync(process.execPath, [join(dir, 'start.mjs')], { encoding: 'utf8' })));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const lines: string[] = [];
  const row = (k: string, v: string) => {
    lines.push(`| ${k} | ${v} |`);
    console.log(`${k}: ${v}`);
  };
  // K1S_BENCH_ONLY=scheduler|etcd|node|cli|network|crd|admission|registry|audit|encryption|metrics runs just those figures (api: see below)
  const only: Record<string, (row: (k: string, v: string) => void) => Promise<void>> = {
    registry: benchRegistry,
    audit: benchAudit,
    encryption: benchEncryption,
    metrics: benchMetrics,
    admission: benchAdmission,
    crd: benchCustomResources,
    node: benchNode,
    cli: benchCli,
    network: benchNetwork,
    etcd: benchEtcd,
    scheduler: benchScheduler,
  };
  const one = only[process.env.K1S_BENCH_ONLY ?? ''];
  if (one) {
    await one(row);
    console.log('\n| measure | result |\n|---|---|\n' + lines.join('\n'));
    return;
  }
  const fresh: number[] = [];
  const existing: number[] = [];
  for (let i = 0; i < 5; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-'));
    const a = await startServer(dir);
    fresh.push(a.readyMs);
    await stop(a.server);
    const b = await startServer(dir);
    existing.push(b.readyMs);
    await stop(b.server);
    rmSync(dir, { recursive: true, force: true });
  }
  row('cold start to ready, fresh data dir (median of 5)', `${median(fresh).toFixed(0)} ms`);
  row('cold start to ready, existing data dir (median of 5)', `${median(existing).toFixed(0)} ms`);
  const embedded = embeddedStarts(5);
  row("embedding: `import('k1s')` + `startCluster()` in a new node process (median of 5)", `${median(embedded.map((e) => e.total)).toFixed(0)} ms (import ${median(embedded.map((e) => e.import)).toFixed(0)} ms)`);

  // the API-server figures are taken without the controller manager and scheduler, as kube-apiserver's are
  // (with them, every pod create also triggers scheduling attempts, events and controller writes)
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-'));
  const { server } = await startServer(dir, ['--disable-controller-manager', '--disable-scheduler']);
  const pid = server.proc.pid!;
  row('server RSS after start', `${rssMiB(pid)} MiB`);
  await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  const token = wrkAvailable() ? await benchToken(server) : undefined;
  if (!token) console.log('(wrk not found: creates are driven by a Node.js client, which itself tops out near 5,000 requests/s on 2 cores; apt-get install wrk for the real figure)');
  // a short unmeasured run first, so the figures are of a warmed-up (JIT-compiled) server, not of its first seconds
  if (token) wrkCreates(server, token, 8, 2, 'warmup');
  else await benchCreates(server, 'bench', 8, 1000, 'warmup');
  for (const c of [1, 8, 32]) {
    const r = token ? wrkCreates(server, token, c, 5) : await benchCreates(server, 'bench', c, c === 1 ? 1000 : 3000);
    row(`ConfigMap creates, ${c} HTTPS client${c > 1 ? 's' : ''}${token ? ' (wrk, bearer token)' : ''}`, `${r.rate.toFixed(0)}/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`);
  }
  row('server RSS after creates', `${rssMiB(pid)} MiB`);
  // 10,000 ConfigMaps in a namespace of their own for the list figure
  await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'list' } });
  await benchCreates(server, 'list', 32, 10_000, 'fill');
  const listLat: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = await request(server, 'GET', '/api/v1/namespaces/list/configmaps');
    listLat.push(performance.now() - t);
    if (i === 0 && JSON.parse(r.body).items.length !== 10_000) throw new Error('configmap list is incomplete');
  }
  row('list of 10,000 ConfigMaps (median of 5)', `${median(listLat).toFixed(0)} ms`);
  row('server RSS after lists', `${rssMiB(pid)} MiB`);

  // 10,000 pods (the largest built-in kind, with defaulting and validation) created and listed
  await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pods' } });
  // no controller manager in this phase: the ServiceAccount admission needs the default account made by hand
  await request(server, 'POST', '/api/v1/namespaces/pods/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  const podRes = await benchCreates(server, 'pods', 32, 10_000, 'pod', 'pods', (name) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'bench' } },
    spec: { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'], resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
  }));
  row('Pod creates, 32 HTTPS clients, Node.js client (10,000 pods)', `${podRes.rate.toFixed(0)}/s, p50 ${podRes.p50.toFixed(1)} ms, p99 ${podRes.p99.toFixed(1)} ms`);
  if (token) {
    // the Node.js client above spends much of the two cores itself: wrk gives the server's own rate
    await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wrkpods' } });
    await request(server, 'POST', '/api/v1/namespaces/wrkpods/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    const w = wrkPodCreates(server, { token, namespace: 'wrkpods', clients: 32, seconds: 5, prefix: 'wp' });
    row('Pod creates, 32 HTTPS clients (wrk, bearer token, 5 s)', `${w.rate.toFixed(0)}/s, p50 ${w.p50.toFixed(1)} ms, p99 ${w.p99.toFixed(1)} ms; ${w.cpuUsPerCreate.toFixed(0)} µs of server CPU per create`);
  }
  const podList: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = await request(server, 'GET', '/api/v1/namespaces/pods/pods');
    podList.push(performance.now() - t);
    if (i === 0 && JSON.parse(r.body).items.length !== 10_000) throw new Error('pod list is incomplete');
  }
  row('list of 10,000 pods (median of 5)', `${median(podList).toFixed(0)} ms`);
  row('server RSS after pods', `${rssMiB(pid)} MiB`);

  // 100 watchers; time from the write's acknowledgement... to each watcher's receipt of the event
  const watchers = 100;
  const received: number[][] = Array.from({ length: watchers }, () => []);
  const reqs: ReturnType<typeof https.get>[] = [];
  const sent = new Map<string, number>();
  await Promise.all(
    Array.from({ length: watchers }, (_, w) =>
      new Promise<void>((res) => {
        const rv = 'resourceVersion=' + '';
        const req = https.get(`${server.url}/api/v1/namespaces/watch/configmaps?watch=true&${rv}`, { agent: new https.Agent({ ...server.agent.options, keepAlive: false }) }, (r) => {
          let buf = '';
          r.on('data', (d) => {
            buf += d;
            let i;
            while ((i = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, i);
              buf = buf.slice(i + 1);
              const ev = JSON.parse(line);
              const t0 = sent.get(ev.object.metadata.name);
              if (t0 !== undefined) received[w].push(performance.now() - t0);
            }
          });
          res();
        });
        reqs.push(req);
      }),
    ),
  );
  await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watch' } });
  await new Promise((r) => setTimeout(r, 300));
  for (let i = 0; i < 50; i++) {
    const name = `w-${i}`;
    sent.set(name, performance.now());
    await request(server, 'POST', '/api/v1/namespaces/watch/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 500));
  const all = received.flat();
  row(`watch delivery, ${watchers} watchers x 50 events`, `${all.length} delivered, p50 ${pct(all, 50).toFixed(1)} ms, p99 ${pct(all, 99).toFixed(1)} ms`);
  row('server RSS after watches', `${rssMiB(pid)} MiB`);
  reqs.forEach((r) => r.destroy());
  await stop(server);
  row('raw better-sqlite3 commits (WAL, synchronous=FULL, one insert per transaction)', `${rawSqliteRate(dir, 3000).toFixed(0)}/s`);
  rmSync(dir, { recursive: true, force: true });
  // K1S_BENCH_ONLY=api stops after the start-up and API-server figures
  if (process.env.K1S_BENCH_ONLY !== 'api') {
    await benchCustomResources(row);
    await benchAdmission(row);
    await benchAudit(row);
    await benchEncryption(row);
    await benchMetrics(row);
    await benchControllers(row);
    await benchScheduler(row);
    await benchEtcd(row);
    await benchNode(row);
    await benchRegistry(row);
    await benchNetwork(row);
    await benchCli(row);
  }
  console.log('\n| measure | result |\n|---|---|\n' + lines.join('\n'));
}

/** user+system CPU seconds of a process so far (/proc/<pid>/stat fields 14 and 15, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function idleCpuPercent(pid: number, seconds: number): Promise<number> {
  const c0 = cpuSeconds(pid);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return ((cpuSeconds(pid) - c0) / ((performance.now() - t0) / 1000)) * 100;
}

/** Controllers and simulated nodes: a 1,000-replica Deployment on 100 nodes, and CPU use while idle. */
async function benchControllers(row: (k: string, v: string) => void): Promise<void> {
  const idleSecs = Number(process.env.K1S_BENCH_IDLE_SECONDS ?? 60);
  {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-'));
    const { server } = await startServer(dir);
    await new Promise((r) => setTimeout(r, 2000));
    row(`server CPU while idle ${idleSecs} s, no nodes (controllers, scheduler, leases)`, `${(await idleCpuPercent(server.proc.pid!, idleSecs)).toFixed(2)} % of a core`);
    await stop(server);
    rmSync(dir, { recursive: true, force: true });
  }
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-'));
  const { server } = await startServer(dir, ['--simulated-nodes', '100']);
  const pid = server.proc.pid!;
  const nodesReady = async () => {
    const r = JSON.parse((await request(server, 'GET', '/api/v1/nodes')).body) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
    return r.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
  };
  while ((await nodesReady()) < 100) await new Promise((r) => setTimeout(r, 100));
  const t0 = performance.now();
  const created = await request(server, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'big' },
    spec: {
      replicas: 1000,
      selector: { matchLabels: { app: 'big' } },
      template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } },
    },
  });
  if (created.status !== 201) throw new Error(`deployment create failed: ${created.body}`);
  for (;;) {
    const d = JSON.parse((await request(server, 'GET', '/apis/apps/v1/namespaces/default/deployments/big')).body) as {
      status?: { availableReplicas?: number; conditions?: { type: string; status: string }[] };
    };
    if (d.status?.availableReplicas === 1000 && d.status.conditions?.some((c) => c.type === 'Available' && c.status === 'True')) break;
    if (performance.now() - t0 > 600_000) throw new Error(`1,000-replica deployment not available after 10 min: ${JSON.stringify(d.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  row('1,000-replica Deployment Available on 100 simulated nodes', `${((performance.now() - t0) / 1000).toFixed(1)} s`);
  row('server RSS with 100 nodes and 1,000 pods', `${rssMiB(pid)} MiB`);
  await new Promise((r) => setTimeout(r, 2000));
  row(`server CPU while idle ${idleSecs} s, 100 simulated nodes and 1,000 pods`, `${(await idleCpuPercent(pid, idleSecs)).toFixed(2)} % of a core`);
  await stop(server);
  rmSync(dir, { recursive: true, force: true });
}

/** Scheduling throughput: 10,000 pods created as fast as the API takes them onto 100 simulated nodes. */
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
