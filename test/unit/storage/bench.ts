// Storage micro-benchmarks (not a test): node dist/test/unit/storage/bench.js run [dir]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../../src/storage/sqlite/schema.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

const SECONDS = 2;

function objectJson(i: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: 'default',
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      labels: { app: 'bench', shard: String(i % 16) },
      creationTimestamp: '2024-01-01T00:00:00Z',
    },
    data: { 'config.yaml': 'key: value\n'.repeat(40) },
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function time(n: number, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

function rawCommits(file: string): number {
  const db = openDatabase(file, { durability: 'full' });
  db.exec('CREATE TABLE raw (id INTEGER PRIMARY KEY, k TEXT NOT NULL, v TEXT NOT NULL)');
  const ins = db.prepare('INSERT INTO raw (k, v) VALUES (?, ?)');
  const v = objectJson(0);
  let n = 0;
  const t = performance.now();
  while (performance.now() - t < SECONDS * 1000) ins.run(`/raw/${n++}`, v); // autocommit: one transaction each
  const rate = n / ((performance.now() - t) / 1000);
  db.close();
  return rate;
}

type Writer = 'inline' | 'thread';

interface CreatesResult {
  rate: number;
  n: number;
  batches: number;
  /** share of the wall time the main thread's event loop was busy */
  busy: number;
}

async function storeCreates(file: string, writers: number, writer: Writer): Promise<CreatesResult> {
  let batches = 0;
  const s = SqliteStore.open({ path: file, writer, onCommit: () => batches++ });
  const elu0 = performance.eventLoopUtilization();
  const v = objectJson(0);
  let n = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const r = await s.create(`/registry/configmaps/w${w}/${i}`, v);
        if (!r.ok) throw new Error('create failed');
        n++;
      }
    }),
  );
  const rate = n / ((performance.now() - t) / 1000);
  const busy = performance.eventLoopUtilization(elu0).utilization;
  await s.close();
  return { rate, n, batches, busy };
}

async function lists(file: string, writer: Writer): Promise<void> {
  const s = SqliteStore.open({ path: file, writer });
  const prefix = '/registry/configmaps/default/';
  const N = 10_000;
  await Promise.all(Array.from({ length: N }, (_, i) => s.create(`${prefix}cm-${String(i).padStart(5, '0')}`, objectJson(i))));
  const old = s.currentRevision();
  // Some history on top, so reads at `old` walk a log longer than the live set.
  for (let round = 0; round < 2; round++) {
    const { kvs } = await s.list(prefix);
    await Promise.all(kvs.map((kv) => s.update(kv.key, objectJson(round), kv.modRevision)));
  }
  const full = await time(20, () => s.list(prefix));
  const page = await time(50, () => s.list(prefix, { limit: 500, startAfter: `${prefix}cm-05000` }));
  const fullOld = await time(10, () => s.list(prefix, { revision: old }));
  const pageOld = await time(20, () => s.list(prefix, { revision: old, limit: 500, startAfter: `${prefix}cm-05000` }));
  const count = await time(50, () => s.count(prefix));
  const get = await time(2000, () => s.get(`${prefix}cm-04242`));
  const fmt = (x: number) => `${x.toFixed(2)} ms`;
  console.log(`list 10,000 keys (~${objectJson(0).length} B values), latest: ${fmt(full)}`);
  console.log(`list page of 500 (+remaining count), latest: ${fmt(page)}`);
  console.log(`list 10,000 keys at an older revision (30,000-row log): ${fmt(fullOld)}`);
  console.log(`list page of 500 at an older revision: ${fmt(pageOld)}`);
  console.log(`count 10,000: ${fmt(count)}; get: ${(get * 1000).toFixed(1)} µs (${writer} writer)`);
  await s.close();
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(process.argv[3] ?? os.tmpdir(), 'k1s-bench-'));
  try {
    // Interleaved rounds, medians: the disk and CPU of a shared machine are noisy.
    const rounds = Number(process.env.ROUNDS ?? 3);
    const raw: number[] = [];
    const runs = new Map<string, CreatesResult[]>();
    for (let round = 0; round < rounds; round++) {
      raw.push(rawCommits(path.join(dir, `raw${round}.db`)));
      for (const writers of [1, 32]) {
        for (const writer of ['inline', 'thread'] as const) {
          const r = await storeCreates(path.join(dir, `w${writers}-${writer}-${round}.db`), writers, writer);
          const id = `${writers} concurrent writer(s), ${writer}`;
          runs.set(id, [...(runs.get(id) ?? []), r]);
        }
      }
    }
    const rates = (xs: number[]) => `median ${median(xs).toFixed(0)}/s (runs: ${xs.map((x) => x.toFixed(0)).join(', ')})`;
    console.log(`raw better-sqlite3, one insert per transaction (WAL, synchronous=FULL): ${rates(raw)}`);
    for (const [id, rs] of runs) {
      const batch = rs.reduce((a, r) => a + r.n, 0) / rs.reduce((a, r) => a + r.batches, 0);
      const busy = median(rs.map((r) => r.busy)) * 100;
      console.log(`SqliteStore creates, ${id}: ${rates(rs.map((r) => r.rate))}, avg batch ${batch.toFixed(1)}, main thread busy ${busy.toFixed(0)} %`);
    }
    if (process.env.LISTS !== '0') for (const writer of ['inline', 'thread'] as const) await lists(path.join(dir, `list-${writer}.db`), writer);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'run') await main();
