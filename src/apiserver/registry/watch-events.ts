// How a store change becomes a watcher's event: which type it is for a watcher with a selector, and, for a kind
// converted by a webhook, the events converted one after another so they still leave in revision order.
import type { KObject } from '../../api/types.js';
import { errors } from '../../machinery/errors.js';
import type { KeyValue, WatchEvent } from '../../storage/types.js';
import type { WatchEventOut } from './list.js';
import type { Predicate } from './selection.js';
import type { ResourceStore } from './store.js';

/** The event a change is for a watcher with a selector, from its decoded object and previous object. */
export function selectEvent(pred: Predicate, type: WatchEvent['type'], cur: KObject, prev: KObject | undefined, kv?: KeyValue): WatchEventOut | undefined {
  const prevMatch = prev ? pred.matches(prev) : false;
  if (type === 'DELETED') return prevMatch || pred.matches(cur) ? { type: 'DELETED', object: cur, kv } : undefined;
  const curMatch = pred.matches(cur);
  if (type === 'ADDED') return curMatch ? { type: 'ADDED', object: cur, kv } : undefined;
  if (curMatch && prevMatch) return { type: 'MODIFIED', object: cur, kv };
  if (curMatch) return { type: 'ADDED', object: cur, kv };
  if (prevMatch) return { type: 'DELETED', object: cur, kv };
  return undefined;
}

/** Per store, each change's conversion, shared by all its watchers (kube's watch cache converts an event once). */
const converting = new WeakMap<ResourceStore, WeakMap<KeyValue, Promise<KObject>>>();

function convertedShared(rs: ResourceStore, kv: KeyValue): Promise<KObject> {
  let byKv = converting.get(rs);
  if (!byKv) converting.set(rs, (byKv = new WeakMap()));
  let p = byKv.get(kv);
  if (!p) byKv.set(kv, (p = rs.decodeConverted(kv)));
  return p;
}

/**
 * A store watch callback for a definition with an async conversion: each change is converted after the one
 * before it is sent, the converted object shared by the store's watchers (read-only, as decodeShared's). `sent` is
 * told each revision once its event is out (bookmarks must not run ahead of events). A conversion that fails ends
 * the watch with an internal error, as kube's etcd watcher does on a decode error.
 */
export function convertedEvents(
  rs: ResourceStore,
  pred: Predicate,
  send: (ev: WatchEventOut) => void,
  sent: (rev: number) => void,
  stop: () => void,
): (ev: WatchEvent) => void {
  let queue = Promise.resolve();
  let failed = false;
  const prevOf = async (kv: KeyValue | undefined): Promise<KObject | undefined> => {
    if (!kv) return undefined;
    try {
      return await rs.decodeConverted(kv);
    } catch {
      return undefined;
    }
  };
  const handle = async (ev: WatchEvent): Promise<void> => {
    if (failed) return;
    try {
      const prevPending = pred.empty ? undefined : prevOf(ev.prev);
      const cur = await convertedShared(rs, ev.kv);
      const out = pred.empty ? { type: ev.type, object: cur } : selectEvent(pred, ev.type, cur, await prevPending);
      if (out) send(out);
      sent(ev.kv.modRevision);
    } catch (e) {
      failed = true;
      send({ type: 'ERROR', object: errors.internal(e instanceof Error ? e.message : String(e)).toStatus() });
      stop();
    }
  };
  return (ev) => {
    // a store may read the previous value only while the event is delivered: taken now, converted later
    const held = ev.prev && !pred.empty ? { ...ev, prev: { ...ev.prev, value: ev.prev.value } } : ev;
    queue = queue.then(() => handle(held));
  };
}
