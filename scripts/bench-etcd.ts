// etcd beside SQLite (issue 28), in one run so the figures compare as ratios: creates at 8 and 32 clients with their
// p99, a list of 10,000 pods (whole and in pages), a watch fan-out, and scheduling 10,000 pods on 100 simulated
// nodes; with the memory and CPU of the k1s server and of each etcd member. The two servers run side by side and
// each step runs on one and then the other, so other load on the machine falls on both. etcd is Debian's, three members on
// loopback with their own data directories (as test/etcd-member.ts starts them for the tests).
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdCluster } from '../test/etcd-member.js';
import { cpuMs, pct, request, rssMiB, startServer, stop, type Server } from './bench-server.js';
import { benchPendingBacklog } from './bench-scheduler.js';
import { EtcdStore } from '../src/storage/etcd/store.js';
import { SqliteStore } from '../src/storage/sqlite/store.js';
import type { Store as KeyValueStore } from '../src/storage/types.js';

type Row = (k: string, v: string) => void;

interface Store {
  name: string;
  args: string[];
}

interface Figures {
  creates8: { rate: number; p99: number };
  creates32: { rate: number; p99: number };
  podCreates: { rate: number; p99: number };
  listAll: number;
  listPaged: number;
  fanOut: { events: number; secs: number; p99: number };
  serverRss: number;
  serverCpuMs: number;
}

async function creates(s: Server, ns: string, clients: number, total: number, make: (i: number) => object, plural = 'configmaps'): Promise<{ rate: number; p99: number }> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < total; i = next++) {
        const t = performance.now();
        const r = await request(s, 'POST', `/api/v1/namespaces/${ns}/${plural}`, make(i));
        if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.body}`);
        lat.push(performance.now() - t);
      }
    }),
  );
  return { rate: total / ((performance.now() - t0) / 1000), p99: pct(lat, 99) };
}

const cm = (prefix: string) => (i: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${prefix}-${i}` }, data: { key: 'value' } });
const pod = (i: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p-${i}`, labels: { app: 'bench' } },
  spec: { containers: [{ name: 'c', image: 'busybox:1.36', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
});

async function namespace(s: Server, ns: string): Promise<void> {
  await request(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  // the API rows run without the controller manager, whose ServiceAccount controller would make it
  await request(s, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
}

/** the median time of three reads of every pod, whole or in pages of 500 */
async function listMs(s: Server, ns: string, limit?: number): Promise<number> {
  const times: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t = performance.now();
    let cont = '';
    let n = 0;
    do {
      const q = limit ? `?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}` : '';
      const r = JSON.parse((await request(s, 'GET', `/api/v1/namespaces/${ns}/pods${q}`)).body) as { items: unknown[]; metadata: { continue?: string } };
      n += r.items.length;
      cont = r.metadata.continue ?? '';
    } while (cont);
    if (n !== 10_000) throw new Error(`listed ${n} pods, not 10,000`);
    times.push(performance.now() - t);
  }
  return pct(times, 50);
}

/** `watchers` watches of one namespace's ConfigMaps, then `total` creates: until every watcher has every event */
async function fanOut(s: Server, watchers: number, total: number): Promise<{ events: number; secs: number; p99: number }> {
  await namespace(s, 'fan');
  const sent = new Map<string, number>();
  const lat: number[] = [];
  let seen = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const agent = new https.Agent({ ...s.agent.options, keepAlive: false, maxSockets: watchers + 1 });
  const reqs = await Promise.all(
    Array.from(
      { length: watchers },
      () =>
        new Promise<ReturnType<typeof https.get>>((started) => {
          const req = https.get(`${s.url}/api/v1/namespaces/fan/configmaps?watch=true`, { agent }, (r) => {
            started(req);
            let buf = '';
            r.on('error', () => undefined);
            r.on('data', (d) => {
              buf += d;
              let i;
              while ((i = buf.indexOf('\n')) >= 0) {
                const name = (JSON.parse(buf.slice(0, i)) as { object?: { metadata?: { name?: string } } }).object?.metadata?.name;
                buf = buf.slice(i + 1);
                const at = name ? sent.get(name) : undefined;
                if (at !== undefined) lat.push(performance.now() - at);
                if (++seen === watchers * total) done();
              }
            });
          });
          req.on('error', () => undefined);
        }),
    ),
  );
  const t0 = performance.now();
  await creates(s, 'fan', 8, total, (i) => {
    sent.set(`fan-${i}`, performance.now());
    return cm('fan')(i);
  });
  await Promise.race([all, new Promise((_, rej) => setTimeout(() => rej(new Error(`fan-out: ${seen} of ${watchers * total} events after 120 s`)), 120_000))]);
  const secs = (performance.now() - t0) / 1000;
  for (const r of reqs) r.destroy();
  agent.destroy();
  return { events: watchers * total, secs, p99: pct(lat, 99) };
}

/** Both servers run side by side and each step is taken on one, then at once on the other: the load other work
 *  puts on this shared machine falls on both alike. */
async function measureBoth(stores: [Store, Store]): Promise<[Figures, Figures]> {
  const dirs = stores.map(() => mkdtempSync(join(tmpdir(), 'k1s-bench-etcd-')));
  const servers = await Promise.all(stores.map(async (st, i) => (await startServer(dirs[i]!, ['--disable-controller-manager', '--disable-scheduler', ...st.args])).server));
  const cpu0 = servers.map((s) => cpuMs(s.proc.pid!));
  const both = async <T>(step: (s: Server) => Promise<T>): Promise<[T, T]> => [await step(servers[0]!), await step(servers[1]!)];
  await both((s) => namespace(s, 'b'));
  await both((s) => creates(s, 'b', 8, 300, cm('warm')));
  const creates8 = await both((s) => creates(s, 'b', 8, 3000, cm('c8')));
  const creates32 = await both((s) => creates(s, 'b', 32, 3000, cm('c32')));
  const podCreates = await both((s) => creates(s, 'b', 32, 10_000, pod, 'pods'));
  const listAll = await both((s) => listMs(s, 'b'));
  const listPaged = await both((s) => listMs(s, 'b', 500));
  const fan = await both((s) => fanOut(s, 100, 500));
  const figures = servers.map((s, i) => ({
    creates8: creates8[i]!,
    creates32: creates32[i]!,
    podCreates: podCreates[i]!,
    listAll: listAll[i]!,
    listPaged: listPaged[i]!,
    fanOut: fan[i]!,
    serverRss: rssMiB(s.proc.pid!),
    serverCpuMs: cpuMs(s.proc.pid!) - cpu0[i]!,
  }));
  await Promise.all(servers.map((s) => stop(s)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  return [figures[0]!, figures[1]!];
}

/** the store's own create rate, no API server: 32 writers of 600-byte values */
async function rawCreates(store: KeyValueStore, prefix: string): Promise<number> {
  let next = 0;
  const total = 3000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (let i = next++; i < total; i = next++) await store.create(`/configmaps/${prefix}/k${i}`, JSON.stringify({ data: 'x'.repeat(580), i }));
    }),
  );
  return total / ((performance.now() - t0) / 1000);
}

async function rawRates(endpoints: string[]): Promise<[number, number]> {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-bench-raw-'));
  const sqlite = SqliteStore.open({ path: join(dir, 'state.db') });
  const etcd = await EtcdStore.open({ endpoints, prefix: '/raw' });
  try {
    const rates: [number, number] = [0, 0];
    // alternating, twice: the better of each
    for (const round of [1, 2]) {
      rates[0] = Math.max(rates[0], await rawCreates(sqlite, `r${round}`));
      rates[1] = Math.max(rates[1], await rawCreates(etcd, `r${round}`));
    }
    return rates;
  } finally {
    sqlite.close();
    await etcd.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ratio = (etcd: number, sqlite: number) => `${(etcd / sqlite).toFixed(2)}×`;

export async function benchEtcd(row: Row): Promise<void> {
  const etcd = await EtcdCluster.start(3);
  try {
    const onEtcd: Store = { name: 'etcd', args: ['--datastore-endpoint', etcd.endpoints.join(',')] };
    const etcdCpu0 = etcd.members.map((m) => cpuMs(m.pid!));
    const [sq, et] = await measureBoth([{ name: 'SQLite', args: [] }, onEtcd]);
    const etcdCpu = etcd.members.map((m, i) => cpuMs(m.pid!) - etcdCpu0[i]!);
    const [rawSqlite, rawEtcd] = await rawRates(etcd.endpoints);
    row('the stores alone (no API server), 32 writers: creates, SQLite · etcd (3 members)', `${rawSqlite.toFixed(0)}/s · ${rawEtcd.toFixed(0)}/s (etcd ${ratio(rawEtcd, rawSqlite)})`);
    const both = (label: string, a: { rate: number; p99: number }, b: { rate: number; p99: number }) =>
      row(`${label}, SQLite · etcd (3 members)`, `${a.rate.toFixed(0)}/s p99 ${a.p99.toFixed(0)} ms · ${b.rate.toFixed(0)}/s p99 ${b.p99.toFixed(0)} ms (etcd ${ratio(b.rate, a.rate)})`);
    both('ConfigMap creates, 8 clients', sq.creates8, et.creates8);
    both('ConfigMap creates, 32 clients', sq.creates32, et.creates32);
    both('pod creates (10,000), 32 clients', sq.podCreates, et.podCreates);
    row('list of 10,000 pods, SQLite · etcd (median of 3)', `${sq.listAll.toFixed(0)} ms · ${et.listAll.toFixed(0)} ms (etcd ${ratio(sq.listAll, et.listAll)} the speed)`);
    row('the same in pages of 500, SQLite · etcd', `${sq.listPaged.toFixed(0)} ms · ${et.listPaged.toFixed(0)} ms (etcd ${ratio(sq.listPaged, et.listPaged)} the speed)`);
    const fan = (f: Figures['fanOut']) => `${(f.events / f.secs).toFixed(0)} events/s, create → delivered p99 ${f.p99.toFixed(0)} ms`;
    row('watch fan-out: 500 creates to 100 watchers, SQLite · etcd', `${fan(sq.fanOut)} · ${fan(et.fanOut)} (etcd ${ratio(sq.fanOut.secs, et.fanOut.secs)} the speed)`);
    row('k1s server after those rows: RSS, CPU, SQLite · etcd', `${sq.serverRss} MiB, ${(sq.serverCpuMs / 1000).toFixed(1)} s · ${et.serverRss} MiB, ${(et.serverCpuMs / 1000).toFixed(1)} s`);
    row('each etcd member after them: RSS, CPU', etcd.members.map((m, i) => `${m.name} ${rssMiB(m.pid!)} MiB, ${(etcdCpu[i]! / 1000).toFixed(1)} s`).join(' · '));
    if (process.env.K1S_BENCH_ETCD_SCHED !== 'skip') {
      // whole clusters, one after the other: twice each, alternating, so a burst of other load shows as a spread
      for (const round of [1, 2]) {
        await benchPendingBacklog(row, 10_000, 100, { label: `, SQLite (round ${round})` });
        // its own prefix: the API rows' objects stay in etcd under /registry
        await benchPendingBacklog(row, 10_000, 100, { label: `, etcd, 3 members (round ${round})`, serverArgs: [...onEtcd.args, '--etcd-prefix', `/sched${round}`] });
      }
    }
  } finally {
    await etcd.stop();
  }
}
