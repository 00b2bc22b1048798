// The behaviour every Store backend must have (SQLite now, etcd later). Backends run it from their own test file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KeyValue, Store, WatchEvent } from '../../../src/storage/types.js';
import { collect, mustOk, received, rejectsWith } from './contract-helpers.js';

export interface StoreContractOptions {
  /** reopens a closed store on the same data, for the restart tests (the restart test runs only with it) */
  reopen?: (closed: Store) => Promise<Store>;
}

export function runStoreContract(
  name: string,
  makeStore: () => Promise<Store>,
  opts: StoreContractOptions = {},
): void {
  async function withStore(fn: (s: Store) => Promise<void>): Promise<void> {
    const s = await makeStore();
    try {
      await fn(s);
    } finally {
      await s.close();
    }
  }

  describe(`Store contract: ${name}`, () => {
    it('creates, refuses a second create, and gets', () =>
      withStore(async (s) => {
        const r0 = s.currentRevision();
        const kv = mustOk(await s.create('/r/a', 'v1'));
        assert.equal(kv.modRevision, r0 + 1);
        assert.equal(kv.createRevision, kv.modRevision);
        assert.equal(s.currentRevision(), kv.modRevision);
        const again = await s.create('/r/a', 'v2');
        assert.equal(again.ok, false);
        assert.deepEqual(!again.ok && again.current, kv);
        assert.deepEqual(await s.get('/r/a'), kv);
        assert.equal(await s.get('/r/missing'), undefined);
        assert.equal(s.currentRevision(), kv.modRevision, 'a failed write takes no revision');
      }));

    it('gets at an older revision', () =>
      withStore(async (s) => {
        const before = s.currentRevision();
        const a = mustOk(await s.create('/r/a', 'v1'));
        await s.create('/r/other', 'x');
        const b = mustOk(await s.update('/r/a', 'v2', a.modRevision));
        const d = mustOk(await s.delete('/r/a'));
        if (before > 0) assert.equal(await s.get('/r/a', { revision: before }), undefined);
        assert.deepEqual(await s.get('/r/a', { revision: a.modRevision }), a);
        assert.deepEqual(await s.get('/r/a', { revision: b.modRevision - 1 }), a);
        assert.deepEqual(await s.get('/r/a', { revision: b.modRevision }), b);
        assert.equal(await s.get('/r/a', { revision: d.modRevision }), undefined);
        assert.equal(await s.get('/r/a'), undefined);
        await rejectsWith(s.get('/r/a', { revision: s.currentRevision() + 1 }), 'FutureRevision');
      }));

    it('updates by compare-and-swap', () =>
      withStore(async (s) => {
        const a = mustOk(await s.create('/r/a', 'v1'));
        const b = mustOk(await s.update('/r/a', 'v2', a.modRevision));
        assert.ok(b.modRevision > a.modRevision);
        assert.equal(b.createRevision, a.createRevision);
        assert.equal(b.value, 'v2');
        const stale = await s.update('/r/a', 'v3', a.modRevision);
        assert.equal(stale.ok, false);
        assert.deepEqual(!stale.ok && stale.current, b);
        const missing = await s.update('/r/nope', 'v', 1);
        assert.equal(missing.ok, false);
        assert.equal(!missing.ok && missing.current, undefined);
        assert.deepEqual(await s.get('/r/a'), b);
      }));

    it('applies concurrent compare-and-swaps one at a time', () =>
      withStore(async (s) => {
        const a = mustOk(await s.create('/r/a', 'v0'));
        const results = await Promise.all([1, 2, 3].map((i) => s.update('/r/a', `v${i}`, a.modRevision)));
        assert.equal(results.filter((r) => r.ok).length, 1);
        const winner = results.find((r) => r.ok)!;
        for (const r of results) if (!r.ok) assert.deepEqual(r.current, winner.ok && winner.kv);
      }));

    it('deletes with and without a precondition, leaving a tombstone revision', () =>
      withStore(async (s) => {
        const a = mustOk(await s.create('/r/a', 'va'));
        const b = mustOk(await s.create('/r/b', 'vb'));
        const d = mustOk(await s.delete('/r/a'));
        assert.equal(d.modRevision, s.currentRevision());
        assert.ok(d.modRevision > b.modRevision);
        assert.equal(d.value, 'va');
        assert.equal(d.createRevision, a.createRevision);
        assert.equal((await s.delete('/r/a')).ok, false);
        const wrong = await s.delete('/r/b', { expectedRevision: b.modRevision + 100 });
        assert.equal(wrong.ok, false);
        assert.deepEqual(!wrong.ok && wrong.current, b);
        const right = mustOk(await s.delete('/r/b', { expectedRevision: b.modRevision }));
        assert.equal(right.modRevision, d.modRevision + 1);
        assert.equal(await s.get('/r/b'), undefined);
        const again = mustOk(await s.create('/r/a', 'va2'));
        assert.equal(again.createRevision, again.modRevision, 're-creation starts a new object');
      }));

    it('lists by prefix in key order, with byte-order bounds', () =>
      withStore(async (s) => {
        const keys = ['/a/b/y', '/a/bc/z', '/a/b', '/a/b/x', '/a/c', '/a/b/\u00e9', '/a/b/\u{1F600}', '/a/b/\uffff', '/b'];
        for (const k of keys) mustOk(await s.create(k, k));
        const under = await s.list('/a/b/');
        assert.deepEqual(
          under.kvs.map((kv) => kv.key),
          ['/a/b/x', '/a/b/y', '/a/b/\u00e9', '/a/b/\uffff', '/a/b/\u{1F600}'],
        );
        assert.equal(under.more, false);
        assert.equal(under.revision, s.currentRevision());
        assert.deepEqual(
          (await s.list('/a/b')).kvs.map((kv) => kv.key),
          ['/a/b', '/a/b/x', '/a/b/y', '/a/b/\u00e9', '/a/b/\uffff', '/a/b/\u{1F600}', '/a/bc/z'],
        );
        assert.equal((await s.list('')).kvs.length, keys.length);
        assert.equal((await s.list('/zzz/')).kvs.length, 0);
        assert.equal(await s.count('/a/b/'), 5);
        assert.equal(await s.count('/a/'), 8);
        assert.equal(await s.count('/nothing/'), 0);
      }));

    it('lists at an older revision', () =>
      withStore(async (s) => {
        const a = mustOk(await s.create('/l/a', 'a1'));
        const b = mustOk(await s.create('/l/b', 'b1'));
        mustOk(await s.create('/l/c', 'c1'));
        const c1 = mustOk(await s.delete('/l/c'));
        const rev = s.currentRevision();
        mustOk(await s.update('/l/a', 'a2', a.modRevision));
        mustOk(await s.delete('/l/b', { expectedRevision: b.modRevision }));
        mustOk(await s.create('/l/c', 'c2'));
        mustOk(await s.create('/l/d', 'd1'));
        const old = await s.list('/l/', { revision: rev });
        assert.equal(old.revision, rev);
        assert.deepEqual(old.kvs, [a, b]);
        const oldest = await s.list('/l/', { revision: c1.modRevision - 1 });
        assert.deepEqual(oldest.kvs.map((kv) => kv.value), ['a1', 'b1', 'c1']);
        const now = await s.list('/l/');
        assert.deepEqual(now.kvs.map((kv) => kv.value), ['a2', 'c2', 'd1']);
        await rejectsWith(s.list('/l/', { revision: s.currentRevision() + 1 }), 'FutureRevision');
      }));

    it('pages with limit and startAfter, at a fixed revision', () =>
      withStore(async (s) => {
        for (let i = 0; i < 25; i++) await s.create(`/p/k${String(i).padStart(2, '0')}`, `v${i}`);
        await s.create('/pq', 'outside');
        const p1 = await s.list('/p/', { limit: 10 });
        assert.deepEqual([p1.kvs.length, p1.more, p1.remaining], [10, true, 15]);
        // Writes after the first page must not show in later pages read at its revision.
        await s.create('/p/k000', 'new');
        await s.create('/p/k99', 'new');
        await s.delete('/p/k15');
        const opts = { limit: 10, revision: p1.revision };
        const p2 = await s.list('/p/', { ...opts, startAfter: p1.kvs.at(-1)!.key });
        assert.deepEqual([p2.kvs.length, p2.more, p2.remaining], [10, true, 5]);
        const p3 = await s.list('/p/', { ...opts, startAfter: p2.kvs.at(-1)!.key });
        assert.deepEqual([p3.kvs.length, p3.more], [5, false]);
        assert.equal(p3.remaining ?? 0, 0);
        const all = [...p1.kvs, ...p2.kvs, ...p3.kvs].map((kv) => kv.key);
        assert.deepEqual(all, Array.from({ length: 25 }, (_, i) => `/p/k${String(i).padStart(2, '0')}`));
        const exact = await s.list('/p/', { limit: 5, startAfter: '/p/k20', revision: p1.revision });
        assert.deepEqual([exact.kvs.length, exact.more], [4, false]);
        const latest = await s.list('/p/', { limit: 100 });
        assert.equal(latest.kvs.length, 26);
        assert.equal(latest.more, false);
      }));

    it('watch delivers typed events carrying the previous value', () =>
      withStore(async (s) => {
        const w = collect(s, '/w/', s.currentRevision(), Infinity);
        await s.create('/other/x', 'x');
        const a = mustOk(await s.create('/w/a', 'a1'));
        const a2 = mustOk(await s.update('/w/a', 'a2', a.modRevision));
        const d = mustOk(await s.delete('/w/a'));
        const deadline = Date.now() + 5000;
        while (w.events.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        w.stop();
        assert.deepEqual(w.events, [
          { type: 'ADDED', kv: a },
          { type: 'MODIFIED', kv: a2, prev: a },
          { type: 'DELETED', kv: d, prev: a2 },
        ]);
        // The same history, replayed.
        const r = collect(s, '/w/', a.modRevision - 1, d.modRevision);
        assert.deepEqual(await r.done, w.events);
        r.stop();
      }));

    it('watch from 0 starts now; stop ends delivery', () =>
      withStore(async (s) => {
        await s.create('/w0/old', 'x');
        const w = collect(s, '/w0/', 0, Infinity);
        const n = mustOk(await s.create('/w0/new', 'y'));
        await new Promise((r) => setTimeout(r, 20));
        w.stop();
        await s.create('/w0/late', 'z');
        await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(w.events, [{ type: 'ADDED', kv: n }]);
      }));

    it('watch replays then follows live writes with no gap or duplicate', () =>
      withStore(async (s) => {
        const writers = 8;
        const perWriter = 40;
        const base = s.currentRevision();
        let started: ReturnType<typeof collect> | undefined;
        const startAt = base + 50;
        await Promise.all(
          Array.from({ length: writers }, async (_, w) => {
            for (let i = 0; i < perWriter; i++) {
              const key = `/g/w${w}/k${i % 5}`;
              const cur = await s.get(key);
              const r = cur ? await s.update(key, `${i}`, cur.modRevision) : await s.create(key, `${i}`);
              assert.ok(r.ok);
              // Start the watch mid-stream, from a revision in the past.
              if (!started && s.currentRevision() >= base + 150) started = collect(s, '/g/', startAt, base + writers * perWriter);
              await s.delete(`/g-not/${w}`).catch(() => {});
            }
          }),
        );
        assert.ok(started);
        const events = await started.done;
        started.stop();
        const revs = events.map((e) => e.kv.modRevision);
        assert.deepEqual(revs, Array.from({ length: writers * perWriter - 50 }, (_, i) => startAt + 1 + i));
        for (const e of events) assert.ok(e.kv.key.startsWith('/g/'));
        for (const e of events) assert.equal(e.type === 'ADDED', e.prev === undefined);
      }));

    it('watch and reads refuse compacted revisions', () =>
      withStore(async (s) => {
        const a = mustOk(await s.create('/c/a', '1'));
        const b = mustOk(await s.update('/c/a', '2', a.modRevision));
        mustOk(await s.update('/c/a', '3', b.modRevision));
        await s.compact(b.modRevision);
        assert.equal(s.compactedRevision(), b.modRevision);
        const err = await rejectsWith(() => s.watch('/c/', { afterRevision: a.modRevision }, () => {}), 'Compacted');
        assert.equal(err.revision, b.modRevision);
        await rejectsWith(s.get('/c/a', { revision: a.modRevision }), 'Compacted');
        await rejectsWith(s.list('/c/', { revision: a.modRevision }), 'Compacted');
        await rejectsWith(() => s.watch('/c/', { afterRevision: s.currentRevision() + 1 }, () => {}), 'FutureRevision');
        // From the compacted revision itself everything after it is still there.
        const w = collect(s, '/c/', b.modRevision, s.currentRevision());
        assert.deepEqual((await w.done).map((e) => e.kv.value), ['3']);
        w.stop();
        assert.equal((await s.get('/c/a', { revision: b.modRevision }))?.value, '2');
      }));

    it('compaction keeps the latest value of every live key', () =>
      withStore(async (s) => {
        for (let i = 0; i < 20; i++) mustOk(await s.create(`/k/${i}`, 'v0'));
        for (let round = 1; round <= 3; round++) {
          for (let i = 0; i < 20; i++) {
            const cur = (await s.get(`/k/${i}`))!;
            mustOk(await s.update(`/k/${i}`, `v${round}`, cur.modRevision));
          }
        }
        for (let i = 0; i < 20; i += 2) mustOk(await s.delete(`/k/${i}`));
        mustOk(await s.create('/k/0', 'again'));
        const mid = s.currentRevision();
        const before = await s.list('/k/');
        mustOk(await s.update('/k/1', 'after', (await s.get('/k/1'))!.modRevision));
        await s.compact(mid);
        await s.compact(mid - 5); // older than the compacted revision: nothing to do
        assert.equal(s.compactedRevision(), mid);
        assert.deepEqual((await s.list('/k/', { revision: mid })).kvs, before.kvs);
        assert.equal((await s.get('/k/1'))?.value, 'after');
        assert.equal((await s.get('/k/2')), undefined);
        assert.equal(await s.count('/k/'), 11);
        await s.compact(s.currentRevision());
        const latest = await s.list('/k/');
        assert.equal(latest.kvs.length, 11);
        assert.equal((await s.get('/k/1', { revision: s.currentRevision() }))?.value, 'after');
        await rejectsWith(s.compact(s.currentRevision() + 1), 'FutureRevision');
        const c = mustOk(await s.update('/k/3', 'post', (await s.get('/k/3'))!.modRevision));
        assert.equal(c.modRevision, s.currentRevision());
      }));

    it('matches a model under random writes, reads at past revisions and compactions', () =>
      withStore(async (s) => {
        let seed = 42;
        const rand = (n: number) => {
          // mulberry32
          let t = (seed = (seed + 0x6d2b79f5) | 0);
          t = Math.imul(t ^ (t >>> 15), t | 1);
          t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
          return ((t ^ (t >>> 14)) >>> 0) % n;
        };
        const keys = ['/m/a', '/m/b', '/m/c', '/m/d/e', '/m/d/f', '/m2/x'];
        const model = new Map<string, KeyValue>();
        const snapshots = new Map<number, string>(); // revision -> the model under /m/ after it
        const snap = () => JSON.stringify([...model.values()].filter((kv) => kv.key.startsWith('/m/')).sort((a, b) => (a.key < b.key ? -1 : 1)));
        const expectedEvents: WatchEvent[] = [];
        const events: WatchEvent[] = [];
        const base = s.currentRevision();
        const w = s.watch('/m/', { afterRevision: base }, (e) => events.push(received(e)));
        for (let i = 0; i < 300; i++) {
          const key = keys[rand(keys.length)]!;
          const cur = model.get(key);
          const kind = !cur || rand(4) === 0 ? 'create' : rand(3) === 0 ? 'delete' : 'update';
          const stale = rand(5) === 0;
          const r =
            kind === 'create'
              ? await s.create(key, `v${i}`)
              : kind === 'delete'
                ? await s.delete(key, { expectedRevision: stale ? cur!.modRevision - 1 : cur!.modRevision })
                : await s.update(key, `v${i}`, stale ? cur!.modRevision + 1 : cur!.modRevision);
          assert.equal(r.ok, kind === 'create' ? !cur : !stale, `${kind} ${key}`);
          if (!r.ok) {
            assert.deepEqual(r.current, cur);
            continue;
          }
          if (kind === 'delete') model.delete(key);
          else model.set(key, r.kv);
          snapshots.set(r.kv.modRevision, snap());
          if (key.startsWith('/m/')) {
            const type = kind === 'create' ? 'ADDED' : kind === 'delete' ? 'DELETED' : 'MODIFIED';
            expectedEvents.push(cur && kind !== 'create' ? { type, kv: r.kv, prev: cur } : { type, kv: r.kv });
          }
          if (i % 60 === 59) await s.compact(s.currentRevision() - rand(20));
        }
        // Every revision still available lists (and gets) as the model was then.
        let expected = '[]';
        for (let rev = base + 1; rev <= s.currentRevision(); rev++) {
          expected = snapshots.get(rev) ?? expected;
          if (rev < s.compactedRevision()) continue;
          assert.equal(JSON.stringify((await s.list('/m/', { revision: rev })).kvs), expected, `list at ${rev}`);
          for (const kv of JSON.parse(expected) as KeyValue[]) assert.deepEqual(await s.get(kv.key, { revision: rev }), kv);
        }
        assert.equal(JSON.stringify((await s.list('/m/')).kvs), snap());
        await new Promise((r) => setTimeout(r, 10));
        w.stop();
        assert.deepEqual(events, expectedEvents);
        // A replay from the compacted revision gives the tail of the same stream.
        const from = s.compactedRevision();
        assert.ok(from > base && s.currentRevision() > base + 150, 'the run compacted and wrote enough');
        const tail = expectedEvents.filter((e) => e.kv.modRevision > from);
        const r = collect(s, '/m/', from, tail.at(-1)?.kv.modRevision ?? from);
        assert.deepEqual(await r.done, tail);
        r.stop();
      }));

    it('rejects calls once closed', async () => {
      const s = await makeStore();
      await s.create('/x', '1');
      await s.close();
      await rejectsWith(s.create('/y', '1'), 'Closed');
      await rejectsWith(s.get('/x'), 'Closed');
      await rejectsWith(s.list('/'), 'Closed');
      await rejectsWith(() => s.watch('/', { afterRevision: 0 }, () => {}), 'Closed');
      await rejectsWith(() => s.currentRevision(), 'Closed');
    });

    it('close commits writes already issued', async () => {
      const s = await makeStore();
      const pending = Array.from({ length: 10 }, (_, i) => s.create(`/pending/${i}`, 'v'));
      await s.close();
      for (const r of await Promise.all(pending)) assert.ok(r.ok);
      if (opts.reopen) {
        const s2 = await opts.reopen(s);
        assert.equal(await s2.count('/pending/'), 10);
        await s2.close();
      }
    });

    if (opts.reopen) it('keeps revisions increasing across restarts', async () => {
      let s = await makeStore();
      const a = mustOk(await s.create('/rs/a', '1'));
      const d = mustOk(await s.delete('/rs/a'));
      await s.close();
      s = await opts.reopen!(s);
      assert.equal(s.currentRevision(), d.modRevision);
      // Even when compaction removed the newest tombstone.
      await s.compact(s.currentRevision());
      await s.close();
      s = await opts.reopen!(s);
      assert.equal(s.currentRevision(), d.modRevision);
      assert.equal(s.compactedRevision(), d.modRevision);
      const b = mustOk(await s.create('/rs/a', '2'));
      assert.ok(b.modRevision > d.modRevision && d.modRevision > a.modRevision);
      await s.close();
    });
  });
}
