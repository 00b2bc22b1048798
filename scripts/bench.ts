// `npm run bench`: start-up, write, list and watch figures for the API server, beside the raw SQLite commit rate.
// Prints a table a person can compare with the README's performance section. Not a test: no pass/fail.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import YAML from 'yaml';

const root = resolve(fileURLToPath(import.meta.url), '../../..');
const bin = join(root, 'bin', 'k1s');

interface Server {
  proc: ChildProcess;
  url: string;
  agent: https.Agent;
  dataDir: string;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

function median(xs: number[]): number {
  return pct(xs, 50);
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

async function startServer(dataDir: string): Promise<{ server: Server; readyMs: number }> {
  const kubeconfig = join(dataDir, 'kubeconfig');
  const t0 = performance.now();
  const proc = spawn(process.execPath, [bin, 'server', '--data-dir', dataDir, '--https-listen-port', '0', '--write-kubeconfig', kubeconfig, '--disable-agent'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((res, rej) => {
    const on = (d: Buffer) => {
      out += d;
      const m = /ready at (https:\/\/\S+)/.exec(out);
      if (m) res(m[1]);
    };
    proc.stdout!.on('data', on);
    proc.stderr!.on('data', on);
    proc.on('exit', (c) => rej(new Error(`server exited ${c}: ${out}`)));
  });
  const readyMs = performance.now() - t0;
  const kc = YAML.parse(readFileSync(kubeconfig, 'utf8'));
  const b64 = (s: string) => Buffer.from(s, 'base64');
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: 64,
    ca: b64(kc.clusters[0].cluster['certificate-authority-data']),
    cert: b64(kc.users[0].user['client-certificate-data']),
    key: b64(kc.users[0].user['client-key-data']),
  });
  return { server: { proc, url, agent, dataDir }, readyMs };
}

async function stop(s: Server): Promise<void> {
  s.agent.destroy();
  await new Promise<void>((res) => {
    s.proc.once('exit', () => res());
    s.proc.kill('SIGTERM');
  });
}

function request(s: Server, method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(`${s.url}${path}`, { method, agent: s.agent, headers: data ? { 'content-type': 'application/json' } : {} }, (r) => {
      let text = '';
      r.on('data', (d) => (text += d));
      r.on('end', () => res({ status: r.statusCode ?? 0, body: text }));
    });
    req.on('error', rej);
    req.end(data);
  });
}

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
): Promise<{ rate: number; p50: number; p99: number }> {
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
  return { rate: total / secs, p50: pct(lat, 50), p99: pct(lat, 99) };
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

async function main(): Promise<void> {
  const lines: string[] = [];
  const row = (k: string, v: string) => {
    lines.push(`| ${k} | ${v} |`);
    console.log(`${k}: ${v}`);
  };
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

  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-'));
  const { server } = await startServer(dir);
  const pid = server.proc.pid!;
  row('server RSS after start', `${rssMiB(pid)} MiB`);
  await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  for (const c of [1, 8, 32]) {
    const total = c === 1 ? 1000 : 3000;
    const r = await benchCreates(server, 'bench', c, total);
    row(`ConfigMap creates, ${c} HTTPS client${c > 1 ? 's' : ''}`, `${r.rate.toFixed(0)}/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`);
  }
  row('server RSS after creates', `${rssMiB(pid)} MiB`);
  // top up to 10,000 objects for the list figure
  const have = 1000 + 3000 + 3000;
  await benchCreates(server, 'bench', 32, 10_000 - have, 'fill');
  const listLat: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = await request(server, 'GET', '/api/v1/namespaces/bench/configmaps');
    listLat.push(performance.now() - t);
    if (i === 0) row('objects listed', String(JSON.parse(r.body).items.length));
  }
  row('list of 10,000 ConfigMaps (median of 5)', `${median(listLat).toFixed(0)} ms`);
  row('server RSS after lists', `${rssMiB(pid)} MiB`);

  // 10,000 pods (the largest built-in kind, with defaulting and validation) created and listed
  await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pods' } });
  const podRes = await benchCreates(server, 'pods', 32, 10_000, 'pod', 'pods', (name) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'bench' } },
    spec: { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'], resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
  }));
  row('Pod creates, 32 HTTPS clients (10,000 pods)', `${podRes.rate.toFixed(0)}/s, p50 ${podRes.p50.toFixed(1)} ms, p99 ${podRes.p99.toFixed(1)} ms`);
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
  console.log('\n| measure | result |\n|---|---|\n' + lines.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
