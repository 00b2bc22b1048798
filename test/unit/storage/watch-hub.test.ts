import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WatchEvent } from '../../../src/storage/types.js';
import { WatchHub } from '../../../src/storage/watch-hub.js';

const ev = (key: string, rev: number): WatchEvent => ({
  type: 'ADDED',
  kv: { key, value: '', modRevision: rev, createRevision: rev },
});
const tick = () => new Promise((r) => setImmediate(r));

describe('WatchHub', () => {
  it('delivers the replay, then live events by prefix, asynchronously and without duplicates', async () => {
    const hub = new WatchHub();
    const got: number[] = [];
    hub.subscribe('/a/', { replay: [ev('/a/1', 1), ev('/a/2', 2)], throughRevision: 3 }, (e) => got.push(e.kv.modRevision));
    hub.publish([ev('/a/x', 3), ev('/b/x', 4), ev('/a/y', 5)]);
    assert.deepEqual(got, [], 'not delivered synchronously');
    await tick();
    assert.deepEqual(got, [1, 2, 5]);
  });

  it('keeps delivering when a listener throws, and stops on stop()', async () => {
    const errors: unknown[] = [];
    const hub = new WatchHub({ onListenerError: (e) => errors.push(e) });
    const got: number[] = [];
    const w = hub.subscribe('/', { throughRevision: 0 }, (e) => {
      got.push(e.kv.modRevision);
      if (e.kv.modRevision === 1) throw new Error('boom');
    });
    hub.publish([ev('/1', 1), ev('/2', 2)]);
    await tick();
    assert.deepEqual(got, [1, 2]);
    assert.equal(errors.length, 1);
    w.stop();
    assert.equal(hub.size, 0);
    hub.publish([ev('/3', 3)]);
    await tick();
    assert.deepEqual(got, [1, 2]);
  });

  it('offers a triggered watcher only the changes whose value or previous value is its own', async () => {
    const hub = new WatchHub();
    // values are the node a pod is on ('' unbound); '!' cannot be read
    const valueOf = (kv: { value: string }) => {
      if (kv.value === '!') throw new Error('unreadable');
      return kv.value;
    };
    const change = (key: string, rev: number, value: string, prev?: string): WatchEvent => ({
      type: prev === undefined ? 'ADDED' : 'MODIFIED',
      kv: { key, value, modRevision: rev, createRevision: 1 },
      prev: prev === undefined ? undefined : { key, value: prev, modRevision: rev - 1, createRevision: 1 },
    });
    const got = { a: [] as number[], b: [] as number[], all: [] as number[] };
    const a = hub.subscribe('/pods/', { throughRevision: 0, trigger: { valueOf, value: 'node-a' } }, (e) => got.a.push(e.kv.modRevision));
    hub.subscribe('/pods/', { throughRevision: 0, trigger: { valueOf, value: 'node-b' } }, (e) => got.b.push(e.kv.modRevision));
    hub.subscribe('/pods/', { throughRevision: 0 }, (e) => got.all.push(e.kv.modRevision));
    hub.publish([
      change('/pods/p1', 1, ''), // unbound: nobody's
      change('/pods/p1', 2, 'node-a', ''), // bound to a
      change('/pods/p1', 3, 'node-b', 'node-a'), // moved: a sees it leave, b sees it come
      change('/pods/p2', 4, '!'), // unreadable: everyone decides for themselves
      change('/other/p3', 5, 'node-a'), // another prefix
    ]);
    await tick();
    assert.deepEqual(got, { a: [2, 3, 4], b: [3, 4], all: [1, 2, 3, 4] });
    assert.ok(hub.watched('/pods/x'));
    a.stop();
    hub.publish([change('/pods/p4', 6, 'node-a')]);
    await tick();
    assert.deepEqual(got.a, [2, 3, 4], 'a stopped watcher is out of the index');
    assert.equal(hub.size, 2);
  });

  it('delivers each watcher exactly the events under its prefix, for random directory and name prefixes', async () => {
    let seed = 5;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const parts = ['r', 'pods', 'ns', 'a', 'ab'];
    const key = () => '/' + Array.from({ length: 1 + rnd(4) }, () => parts[rnd(parts.length)]).join('/');
    for (let round = 0; round < 20; round++) {
      const hub = new WatchHub();
      const subs: { prefix: string; got: number[]; stop: () => void; stopped: boolean }[] = [];
      const add = () => {
        const k = key();
        // a directory, the root, the empty prefix or a key/name prefix
        // (even rounds: directories only, the indexed path; odd rounds mix in the others)
        const prefix = round % 2 === 0 ? [k + '/', '/'][rnd(2)]! : [k + '/', '/', '', k, k.slice(0, -1)][rnd(5)]!;
        const s = { prefix, got: [] as number[], stop: () => {}, stopped: false };
        const w = hub.subscribe(prefix, { throughRevision: 0 }, (e) => s.got.push(e.kv.modRevision));
        s.stop = () => w.stop();
        subs.push(s);
      };
      for (let i = 0; i < 6; i++) add();
      const events = Array.from({ length: 40 }, (_, i) => ev(key(), i + 1));
      hub.publish(events.slice(0, 20));
      // watchers come and go between batches (a stopped one gets nothing more)
      const gone = subs[rnd(subs.length)]!;
      await tick();
      const before = gone.got.length;
      gone.stop();
      gone.stopped = true;
      hub.publish(events.slice(20));
      await tick();
      for (const s of subs) {
        const want = (s.stopped ? events.slice(0, 20) : events).filter((e) => e.kv.key.startsWith(s.prefix)).map((e) => e.kv.modRevision);
        assert.deepEqual(s.got, want, `prefix ${JSON.stringify(s.prefix)}`);
        if (s.stopped) assert.equal(s.got.length, before);
      }
    }
  });

  it('answers watched() right as watchers come and go, directory prefixes or not', () => {
    const hub = new WatchHub();
    assert.equal(hub.watched('/r/pods/ns1/a'), false);
    const ns1 = hub.subscribe('/r/pods/ns1/', { throughRevision: 0 }, () => {});
    assert.equal(hub.watched('/r/pods/ns1/a'), true);
    assert.equal(hub.watched('/r/pods/ns1/b'), true);
    assert.equal(hub.watched('/r/pods/ns2/a'), false);
    const all = hub.subscribe('/r/pods/', { throughRevision: 0 }, () => {});
    assert.equal(hub.watched('/r/pods/ns2/a'), true);
    all.stop();
    assert.equal(hub.watched('/r/pods/ns2/a'), false);
    // a prefix that is no directory (one key, or part of a name): keys of one directory differ
    const one = hub.subscribe('/r/pods/ns2/ab', { throughRevision: 0 }, () => {});
    assert.equal(hub.watched('/r/pods/ns2/zz'), false);
    assert.equal(hub.watched('/r/pods/ns2/abc'), true);
    assert.equal(hub.watched('/r/pods/ns2/zz'), false);
    one.stop();
    assert.equal(hub.watched('/r/pods/ns2/abc'), false);
    ns1.stop();
    assert.equal(hub.watched('/r/pods/ns1/a'), false);
  });

  it('delivers a triggered watcher its whole replay (its own selector filters it)', async () => {
    const hub = new WatchHub();
    const got: number[] = [];
    hub.subscribe('/p/', { replay: [ev('/p/1', 1), ev('/p/2', 2)], throughRevision: 2, trigger: { valueOf: () => 'x', value: 'y' } }, (e) => got.push(e.kv.modRevision));
    await tick();
    assert.deepEqual(got, [1, 2]);
  });
});
