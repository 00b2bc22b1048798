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
});
