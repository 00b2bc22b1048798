// Helpers of the Store contract suite.
import assert from 'node:assert/strict';
import { StoreError, type KeyValue, type Store, type WatchEvent, type WriteResult } from '../../../src/storage/types.js';

/** Collects the events of a watch until one at or beyond `untilRevision` arrives. */
const plain = (kv: KeyValue): KeyValue => ({ key: kv.key, value: kv.value, modRevision: kv.modRevision, createRevision: kv.createRevision });

/** An event as its watcher reads it on delivery, as plain data (a store may load the previous value when asked). */
export function received(ev: WatchEvent): WatchEvent {
  return ev.prev ? { type: ev.type, kv: plain(ev.kv), prev: plain(ev.prev) } : { type: ev.type, kv: plain(ev.kv) };
}

export function collect(
  store: Store,
  prefix: string,
  afterRevision: number,
  untilRevision: number,
): { events: WatchEvent[]; done: Promise<WatchEvent[]>; stop(): void } {
  const events: WatchEvent[] = [];
  let finish: () => void = () => {};
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<WatchEvent[]>((resolve, reject) => {
    if (Number.isFinite(untilRevision)) {
      timer = setTimeout(() => reject(new Error(`watch timed out at ${events.at(-1)?.kv.modRevision}`)), 10_000);
    }
    finish = () => {
      clearTimeout(timer);
      resolve(events);
    };
  });
  const w = store.watch(prefix, { afterRevision }, (ev) => {
    events.push(received(ev));
    if (ev.kv.modRevision >= untilRevision) finish();
  });
  if (untilRevision <= afterRevision) finish();
  const stop = () => {
    clearTimeout(timer);
    w.stop();
  };
  return { events, done, stop };
}

export async function rejectsWith(p: Promise<unknown> | (() => unknown), code: string): Promise<StoreError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    assert.ok(e instanceof StoreError, `expected StoreError ${code}, got ${String(e)}`);
    assert.equal(e.code, code);
    return e;
  }
  assert.fail(`expected StoreError ${code}`);
}

export function mustOk(r: WriteResult): KeyValue {
  assert.ok(r.ok, 'write failed');
  return r.kv;
}

