import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { SqliteStore, type CheckpointInfo, type CommitInfo } from '../../../src/storage/sqlite/store.js';
import { writerURL, type Reply, type Request } from '../../../src/storage/sqlite/worker.js';
import type { Store, WatchEvent } from '../../../src/storage/types.js';
import { mustOk } from './contract-helpers.js';
import { runStoreContract } from './contract.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k1s-store-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let seq = 0;
const tempPath = () => path.join(dir, `t${++seq}.db`);

runStoreContract('sqlite file', async () => SqliteStore.open({ path: tempPath(), writer: 'inline' }), {
  reopen: async (closed) => SqliteStore.open({ path: (closed as SqliteStore).path, writer: 'inline' }),
});
runStoreContract('sqlite threaded', async () => SqliteStore.open({ path: tempPath(), writer: 'thread' }), {
  reopen: async (closed) => SqliteStore.open({ path: (closed as SqliteStore).path, writer: 'thread' }),
});
// The threaded writer with tiny batches and compaction chunks: merging and splitting across messages.
runStoreContract('sqlite threaded small chunks', async () =>
  SqliteStore.open({ path: tempPath(), writer: 'thread', maxBatch: 3, compactionChunk: 4 }),
);
// Tiny batches and compaction chunks, to exercise the paths that split work.
runStoreContract('sqlite :memory: small chunks', async () =>
  SqliteStore.open({ path: ':memory:', maxBatch: 3, compactionChunk: 4 }),
);

function fileSize(p: string): number {
  try {
    return fs.statSync(p).size;
  } catch {
    return 0;
  }
}

for (const writer of ['inline', 'thread'] as const) describe(`SqliteStore (${writer} writer)`, () => {
  it('commits concurrent writes as one group', async () => {
    const commits: CommitInfo[] = [];
    const s = SqliteStore.open({ path: tempPath(), writer, onCommit: (c) => commits.push(c) });
    assert.equal(s.writerKind, writer);
    const base = s.currentRevision();
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => s.create(`/gc/${i}`, `v${i}`)));
    const revs = results.map((r) => (assert.ok(r.ok), r.kv.modRevision));
    assert.deepEqual(revs, Array.from({ length: 1000 }, (_, i) => base + 1 + i), 'distinct, in issue order');
    assert.equal(commits.length, 1);
    assert.deepEqual([commits[0]!.ops, commits[0]!.changed], [1000, 1000]);
    assert.equal(await s.count('/gc/'), 1000);
    await s.close();
  });

  // ':memory:' is always inline: a second connection would not see it.
  const dbPath = () => (writer === 'thread' ? tempPath() : ':memory:');

  it('applies compare-and-swap in order within a batch', async () => {
    const s = SqliteStore.open({ path: dbPath(), writer });
    const [c, u1, u2, d] = await Promise.all([
      s.create('/m', 'a'),
      s.update('/m', 'b', 1),
      s.update('/m', 'c', 1), // stale: u1 already moved it to 2
      s.delete('/m', { expectedRevision: 2 }),
    ]);
    assert.ok(c!.ok && u1!.ok && d!.ok);
    assert.equal(u2!.ok, false);
    assert.equal(!u2!.ok && u2!.current?.value, 'b');
    assert.equal(s.currentRevision(), 3);
    await s.close();
  });

  it('reads a key\'s latest revision without its value, as get() has it', async () => {
    const s = SqliteStore.open({ path: dbPath(), writer });
    assert.equal(await s.revision('/r'), undefined);
    await s.create('/r', 'a');
    const u = await s.update('/r', 'b', s.currentRevision());
    assert.ok(u.ok);
    const got = (await s.get('/r'))!;
    assert.deepEqual(await s.revision('/r'), { modRevision: got.modRevision, createRevision: got.createRevision });
    assert.deepEqual([got.modRevision, got.createRevision], [u.kv.modRevision, u.kv.createRevision]);
    await s.delete('/r');
    assert.equal(await s.revision('/r'), undefined);
    await s.create('/r', 'c');
    assert.deepEqual(await s.revision('/r'), { modRevision: s.currentRevision(), createRevision: s.currentRevision() });
    await s.close();
  });

  it('answers revision() from the keys committed last, and from the file for the keys past that bound', async () => {
    const s = SqliteStore.open({ path: dbPath(), writer, recentRevisions: 3 });
    for (let i = 0; i < 6; i++) await s.create(`/k/${i}`, 'a');
    await s.update('/k/0', 'b', 1); // back among the recent ones
    await s.delete('/k/5');
    await s.create('/k/6', 'c');
    for (let i = 0; i <= 6; i++) {
      const kv = await s.get(`/k/${i}`);
      const want = kv && { modRevision: kv.modRevision, createRevision: kv.createRevision };
      assert.deepEqual(await s.revision(`/k/${i}`), want, `/k/${i}`);
    }
    // an answer is the caller's: changing it changes nothing
    const r = (await s.revision('/k/6'))!;
    r.modRevision = 0;
    assert.equal((await s.revision('/k/6'))!.modRevision, s.currentRevision());
    await s.close();
  });


  it("an update's event reads the previous value when the watcher asks for it: '' once compacted away", async () => {
    const s = SqliteStore.open({ path: dbPath(), writer });
    const events: WatchEvent[] = [];
    const w = s.watch('/p/', { afterRevision: s.currentRevision() }, (e) => events.push(e));
    const a = mustOk(await s.create('/p/a', 'a1'));
    const a2 = mustOk(await s.update('/p/a', 'a2', a.modRevision));
    const a3 = mustOk(await s.update('/p/a', 'a3', a2.modRevision));
    while (events.length < 3) await new Promise((r) => setTimeout(r, 5));
    w.stop();
    const [, first, second] = events;
    assert.deepEqual([first!.prev?.key, first!.prev?.modRevision, first!.prev?.createRevision], ['/p/a', a.modRevision, a.modRevision]);
    assert.equal(first!.prev?.value, 'a1', 'read now, while the revision is there');
    await s.compact(a3.modRevision);
    assert.equal(first!.prev?.value, 'a1', 'read once');
    assert.equal(second!.prev?.modRevision, a2.modRevision);
    assert.equal(second!.prev?.value, '', 'a2 is compacted away: nothing to decode');
    await s.close();
  });
  it('splits a large backlog into batches of maxBatch', async () => {
    const commits: CommitInfo[] = [];
    const s = SqliteStore.open({ path: dbPath(), writer, maxBatch: 100, onCommit: (c) => commits.push(c) });
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => s.create(`/b/${i}`, 'v')));
    assert.ok(results.every((r) => r.ok));
    assert.equal(commits.length, 10);
    assert.ok(commits.every((c) => c.ops === 100));
    await s.close();
  });

  it('reads see acknowledged writes, and nothing past the revision they report', async () => {
    const s = SqliteStore.open({ path: tempPath(), writer });
    let stop = false;
    const acked: [string, number][] = [];
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; !stop; i++) acked.push([`/rc/${w}/${i}`, mustOk(await s.create(`/rc/${w}/${i}`, 'x')).modRevision]);
    });
    const seen = new Map<string, number>();
    const w = s.watch('/rc/', { afterRevision: s.currentRevision() || 0 }, (ev) => {
      assert.ok(!seen.has(ev.kv.key), `duplicate event for ${ev.kv.key}`);
      seen.set(ev.kv.key, ev.kv.modRevision);
    });
    for (let round = 0; round < 200; round++) {
      const known = acked.slice();
      const page = await s.list('/rc/');
      for (const kv of page.kvs) assert.ok(kv.modRevision <= page.revision, 'list holds a write past its revision');
      const listed = new Map(page.kvs.map((kv) => [kv.key, kv.modRevision]));
      for (const [key, rev] of known) assert.equal(listed.get(key), rev, `acknowledged ${key} not listed`);
      const [key, rev] = known.at(-1) ?? ['/rc/none', undefined];
      assert.equal((await s.get(key))?.modRevision, rev);
      assert.ok((await s.count('/rc/')) >= known.length);
      await new Promise((resolve) => setImmediate(resolve));
    }
    stop = true;
    await Promise.all(writers);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen.size, acked.length);
    w.stop();
    await s.close();
  });

  it('refuses a second open of the same file', async () => {
    const p = tempPath();
    const s = SqliteStore.open({ path: p, writer });
    for (const other of ['inline', 'thread'] as const) {
      assert.throws(() => SqliteStore.open({ path: p, writer: other, lockTimeoutMs: 50 }), /in use by another process/);
    }
    await s.close();
    await SqliteStore.open({ path: p, writer }).close();
  });

  it('refuses a database another process has open, and takes it over when that process dies', async () => {
    const p = tempPath();
    const script = fileURLToPath(new URL('./fixtures/writer.js', import.meta.url));
    const child = spawn(process.execPath, [script, p, '1', writer], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    assert.throws(() => SqliteStore.open({ path: p, writer, lockTimeoutMs: 50 }), /in use by another process/);
    child.kill('SIGKILL');
    await exited;
    const s = SqliteStore.open({ path: p, writer, lockTimeoutMs: 50 });
    assert.ok((await s.list('/kill/')).kvs.length >= 0);
    await s.close();
  });

  it('keeps every acknowledged write across kill -9', async () => {
    const p = tempPath();
    const script = fileURLToPath(new URL('./fixtures/writer.js', import.meta.url));
    const child = spawn(process.execPath, [script, p, '8', writer], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked = new Map<string, number>();
    let buf = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buf += chunk;
      const lines = buf.split('\n');
      buf = lines.pop()!; // an incomplete last line is not an acknowledgement
      for (const line of lines) {
        const [key, rev] = line.split(' ');
        if (rev) acked.set(key!, Number(rev));
      }
      if (acked.size >= 3000 && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    const signal = await exited;
    assert.equal(signal, 'SIGKILL', 'the writer must be killed mid-stream');
    assert.ok(acked.size >= 3000);

    const s = SqliteStore.open({ path: p, writer });
    const maxAcked = Math.max(...acked.values());
    assert.ok(s.currentRevision() >= maxAcked);
    const { kvs } = await s.list('/kill/');
    const stored = new Map(kvs.map((kv) => [kv.key, kv.modRevision]));
    for (const [key, rev] of acked) assert.equal(stored.get(key), rev, `acknowledged ${key} lost`);
    const next = await s.create('/kill/after', 'x');
    assert.ok(next.ok && next.kv.modRevision > s.currentRevision() - 1 && next.kv.modRevision > maxAcked);
    await s.close();
  });

  it('stays small after many updates and compaction, and keeps revisions across restart', async () => {
    const p = tempPath();
    const s = SqliteStore.open({ path: p, writer });
    const value = (i: number) => JSON.stringify({ i, data: 'y'.repeat(300) });
    const first = await s.create('/big/one', value(0));
    assert.ok(first.ok);
    let rev = first.kv.modRevision;
    const total = 50_000;
    const wave = 1000;
    for (let done = 0; done < total; done += wave) {
      // Issued together, applied in order in one transaction: each expects the revision the previous one makes.
      const rs = await Promise.all(Array.from({ length: wave }, (_, i) => s.update('/big/one', value(done + i + 1), rev + i)));
      assert.ok(rs.every((r) => r.ok));
      rev += wave;
    }
    assert.equal(s.currentRevision(), rev);
    const grown = fileSize(p) + fileSize(`${p}-wal`);
    await s.compact(rev);
    const compacted = fileSize(p) + fileSize(`${p}-wal`);
    assert.ok(grown > 10 * 1024 * 1024, `history should take room before compaction (${grown})`);
    assert.ok(compacted < 2 * 1024 * 1024, `db + wal after compaction: ${compacted} bytes`);
    assert.equal((await s.get('/big/one'))?.value, value(total));
    await s.close();

    const s2 = SqliteStore.open({ path: p, writer });
    assert.equal(s2.currentRevision(), rev);
    assert.equal(s2.compactedRevision(), rev);
    assert.equal((await s2.get('/big/one'))?.modRevision, rev);
    await s2.close();
  });

  it('durability normal still reads back after reopen', async () => {
    const p = tempPath();
    const s: Store = SqliteStore.open({ path: p, writer, durability: 'normal' });
    await s.create('/n', '1');
    await s.close();
    const s2 = SqliteStore.open({ path: p, writer });
    assert.equal((await s2.get('/n'))?.value, '1');
    await s2.close();
  });
});

describe('the checkpointer thread', () => {
  const until = async (what: string, done: () => boolean) => {
    for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(done(), what);
  };

  it('copies commits into the database file off the event loop, and the WAL starts over', async () => {
    const p = tempPath();
    const seen: CheckpointInfo[] = [];
    const s = SqliteStore.open({ path: p, writer: 'inline', checkpointer: 'thread', onCheckpoint: (c) => seen.push(c) });
    const big = 'x'.repeat(4000);
    // 3,000 pages of values: past SQLite's own 1,000-page checkpoint, well below the store's fallback
    for (let i = 0; i < 30; i++) await Promise.all(Array.from({ length: 100 }, (_, j) => s.create(`/c/${i}/${j}`, big)));
    const caughtUp = () => seen.length > 0 && seen.at(-1)!.frames === seen.at(-1)!.copied;
    // caught up, and no checkpoint asked for by a later commit is running
    let last = -1;
    await until('the thread copied every frame', () => {
      const quiet = seen.length === last;
      last = seen.length;
      return quiet && caughtUp();
    });
    // (the WAL may have started over in between already, when a checkpoint ended before the next commit)
    assert.ok(fileSize(p) > 12_000_000, `the values are in the database file (${fileSize(p)} bytes)`);
    // the next commit starts the WAL over: the checkpoint after it finds only that commit's pages
    const n = seen.length;
    await s.create('/c/last', big);
    await until('a checkpoint after the last commit', () => seen.length > n && caughtUp());
    assert.ok(seen.at(-1)!.frames < 50, `the WAL started over (${seen.at(-1)!.frames} frames)`);
    assert.equal(await s.count('/c/'), 3001);
    await s.close();
    assert.equal(fileSize(`${p}-wal`), 0, 'closed: the WAL is gone');
    const again = SqliteStore.open({ path: p, writer: 'inline' });
    assert.equal((await again.get('/c/29/99'))?.value, big);
    await again.close();
  });

  it('inline: checkpoints stay in the commits (the database file grows only past 1,000 pages)', async () => {
    const p = tempPath();
    const seen: CheckpointInfo[] = [];
    const s = SqliteStore.open({ path: p, writer: 'inline', checkpointer: 'inline', onCheckpoint: (c) => seen.push(c) });
    await Promise.all(Array.from({ length: 100 }, (_, j) => s.create(`/c/${j}`, 'x'.repeat(4000))));
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(fileSize(p) < 100_000, `no checkpoint yet (${fileSize(p)} bytes)`);
    assert.equal(seen.length, 0);
    await s.close();
  });
});

describe('the writer thread script', () => {
  it('is this module in the tsc build, and dist/sqlite-writer.cjs beside the bundle and in the executable', () => {
    assert.match(writerURL().pathname, /\/dist\/src\/storage\/sqlite\/worker\.js$/);
    assert.equal(writerURL('file:///opt/k1s/dist/k1s.cjs').href, 'file:///opt/k1s/dist/sqlite-writer.cjs');
    const sea = 'file:///home/u/.cache/k1s/sea-1/dist/sqlite-writer.cjs';
    assert.equal(writerURL(sea).href, sea);
  });

  it('dist/sqlite-writer.cjs (what the bundle starts) commits writes on its own', async () => {
    const script = new URL('../../../sqlite-writer.cjs', import.meta.url);
    assert.ok(fs.existsSync(script), `${fileURLToPath(script)} is built by scripts/bundle.mjs`);
    assert.ok(fs.statSync(script).size < 100_000, 'the writer bundle carries the writer only, not the whole CLI');
    const { port1, port2 } = new MessageChannel();
    const data = { path: tempPath(), durability: 'full', maxBatch: 10, k1sSqliteWriter: true, port: port2 };
    const w = new Worker(script, { workerData: data, transferList: [port2] });
    try {
      const reply = new Promise<Reply>((resolve) => port1.once('message', resolve));
      port1.postMessage({ t: 'write', id: 1, ops: [{ kind: 'create', key: '/registry/configmaps/a/b', value: '{}' }] } satisfies Request);
      const r = await reply;
      assert.equal(r.t, 'committed');
      assert.deepEqual(r.t === 'committed' && r.outcomes[0]![0], { ok: true, kv: { key: '/registry/configmaps/a/b', value: '{}', modRevision: 1, createRevision: 1 } });
    } finally {
      port1.close();
      await w.terminate();
    }
  });
});
