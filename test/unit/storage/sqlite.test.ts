import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqliteStore, type CommitInfo } from '../../../src/storage/sqlite.js';
import type { Store } from '../../../src/storage/types.js';
import { runStoreContract } from './contract.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'k1s-store-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let seq = 0;
const tempPath = () => path.join(dir, `t${++seq}.db`);

runStoreContract('sqlite file', async () => SqliteStore.open({ path: tempPath() }), {
  reopen: async (closed) => SqliteStore.open({ path: (closed as SqliteStore).path }),
});
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

describe('SqliteStore', () => {
  it('commits concurrent writes as one group', async () => {
    const commits: CommitInfo[] = [];
    const s = SqliteStore.open({ path: tempPath(), onCommit: (c) => commits.push(c) });
    const base = s.currentRevision();
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => s.create(`/gc/${i}`, `v${i}`)));
    const revs = results.map((r) => (assert.ok(r.ok), r.kv.modRevision));
    assert.deepEqual(revs, Array.from({ length: 1000 }, (_, i) => base + 1 + i), 'distinct, in issue order');
    assert.equal(commits.length, 1);
    assert.deepEqual([commits[0]!.ops, commits[0]!.changed], [1000, 1000]);
    assert.equal(await s.count('/gc/'), 1000);
    await s.close();
  });

  it('applies compare-and-swap in order within a batch', async () => {
    const s = SqliteStore.open({ path: ':memory:' });
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

  it('splits a large backlog into batches of maxBatch', async () => {
    const commits: CommitInfo[] = [];
    const s = SqliteStore.open({ path: ':memory:', maxBatch: 100, onCommit: (c) => commits.push(c) });
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => s.create(`/b/${i}`, 'v')));
    assert.ok(results.every((r) => r.ok));
    assert.equal(commits.length, 10);
    await s.close();
  });

  it('refuses a second open of the same file', async () => {
    const p = tempPath();
    const s = SqliteStore.open({ path: p });
    assert.throws(() => SqliteStore.open({ path: p, lockTimeoutMs: 50 }), /in use by another process/);
    await s.close();
    await SqliteStore.open({ path: p }).close();
  });

  it('keeps every acknowledged write across kill -9', async () => {
    const p = tempPath();
    const writer = fileURLToPath(new URL('./fixtures/writer.js', import.meta.url));
    const child = spawn(process.execPath, [writer, p, '8'], { stdio: ['ignore', 'pipe', 'inherit'] });
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

    const s = SqliteStore.open({ path: p });
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
    const s = SqliteStore.open({ path: p });
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

    const s2 = SqliteStore.open({ path: p });
    assert.equal(s2.currentRevision(), rev);
    assert.equal(s2.compactedRevision(), rev);
    assert.equal((await s2.get('/big/one'))?.modRevision, rev);
    await s2.close();
  });

  it('durability normal still reads back after reopen', async () => {
    const p = tempPath();
    const s: Store = SqliteStore.open({ path: p, durability: 'normal' });
    await s.create('/n', '1');
    await s.close();
    const s2 = SqliteStore.open({ path: p });
    assert.equal((await s2.get('/n'))?.value, '1');
    await s2.close();
  });
});
