// List and watch over the generic store: selectors, paging with continue tokens, resourceVersion semantics,
// synthetic initial events, bookmarks.
import type { KObject } from '../../api/types.js';
import { errors, StatusError } from '../../machinery/errors.js';
import { isValidPathSegmentName } from '../../machinery/validation.js';
import { StoreError, type KeyValue, type WatchEvent } from '../../storage/types.js';
import type { ListParams, WatchParams } from '../context.js';
import type { ResourceStore } from './store.js';
import { makePredicate, type Predicate } from './selection.js';
import { convertedEvents, selectEvent } from './watch-events.js';

export interface ListOutput {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

function encodeContinue(rv: number, start: string): string {
  const t: ContinueToken = { v: 'meta.k8s.io/v1', rv, start };
  return Buffer.from(JSON.stringify(t)).toString('base64');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as ContinueToken;
    if (t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string') throw new Error('bad');
    return t;
  } catch {
    throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

function parseRV(rv: string, what = 'resourceVersion'): number {
  if (!/^\d+$/.test(rv)) {
    throw new StatusError(400, 'BadRequest', `invalid ${what}: ${rv}`);
  }
  return Number(rv);
}

export async function listObjects(rs: ResourceStore, namespace: string, p: ListParams): Promise<ListOutput> {
  await rs.def.storedAs?.prepare?.();
  const store = rs.deps.store;
  const pred = makePredicate(rs.def, p.labelSelector, p.fieldSelector);
  const prefix = rs.prefix(namespace);
  let revision = 0;
  let startAfter: string | undefined;
  if (p.resourceVersionMatch && !p.resourceVersion) {
    throw errors.badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  if (p.continue) {
    if (p.resourceVersion && p.resourceVersion !== '0') {
      throw errors.badRequest('specifying resource version is not allowed when using continue');
    }
    const t = decodeContinue(p.continue);
    revision = t.rv;
    startAfter = prefix + t.start;
    if (revision <= store.compactedRevision()) {
      throw errors.expired(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      );
    }
  } else if (p.resourceVersion && p.resourceVersion !== '0') {
    const rv = parseRV(p.resourceVersion);
    const cur = store.currentRevision();
    if (p.resourceVersionMatch === 'Exact') {
      if (rv > cur) throw tooLarge(rv, cur);
      if (rv < store.compactedRevision()) throw errors.expired('The resourceVersion for the provided list is too old.');
      revision = rv;
    } else if (p.resourceVersionMatch && p.resourceVersionMatch !== 'NotOlderThan') {
      throw errors.badRequest(
        `resourceVersionMatch: Unsupported value: "${p.resourceVersionMatch}": supported values: "Exact", "NotOlderThan"`,
      );
    } else if (rv > cur) throw tooLarge(rv, cur);
  }
  // one object named by the field selector (a kubelet's own Node): read its key, not every object of the kind, as
  // kube-apiserver does when the predicate matches a single name and the key is known (not across namespaces)
  // a name that cannot be a key skips the single-key read (kube: KeyFunc fails, the list goes on)
  if (pred.singleName !== undefined && !p.continue && (namespace || !rs.def.namespaced) && !isValidPathSegmentName(pred.singleName).length) {
    return listOne(rs, namespace, pred, revision);
  }
  const limit = p.limit && p.limit > 0 ? p.limit : 0;
  // a conversion webhook converts each object as it is read, as kube's storage decodes list items one by one
  const converting = !!rs.def.conversion;
  const items: KObject[] = [];
  let more = false;
  let lastKey = '';
  let remaining: number | undefined;
  const chunk = limit ? Math.max(limit, 64) : 0;
  for (;;) {
    let res;
    try {
      res = await store.list(prefix, { revision: revision || undefined, limit: chunk || undefined, startAfter });
    } catch (e) {
      if (e instanceof StoreError && e.code === 'Compacted') throw errors.expired('The resourceVersion for the provided list is too old.');
      throw e;
    }
    revision = res.revision;
    let stoppedEarly = false;
    for (let i = 0; i < res.kvs.length; i++) {
      const kv = res.kvs[i];
      const obj = converting ? await rs.decodeConverted(kv) : rs.decode(kv);
      if (!pred.matches(obj)) continue;
      items.push(obj);
      lastKey = kv.key;
      if (limit && items.length >= limit) {
        stoppedEarly = i < res.kvs.length - 1 || res.more;
        if (pred.empty && res.remaining !== undefined) remaining = res.remaining + (res.kvs.length - 1 - i);
        break;
      }
    }
    if (limit && items.length >= limit) {
      more = stoppedEarly;
      break;
    }
    if (!res.more || !limit) break;
    startAfter = res.kvs[res.kvs.length - 1].key;
  }
  const out: ListOutput = { items, resourceVersion: String(revision) };
  if (more) {
    out.continue = encodeContinue(revision, lastKey.slice(prefix.length));
    if (remaining !== undefined && remaining > 0) out.remainingItemCount = remaining;
  }
  return out;
}

async function listOne(rs: ResourceStore, namespace: string, pred: Predicate, revision: number): Promise<ListOutput> {
  const store = rs.deps.store;
  const before = store.currentRevision();
  let kv: KeyValue | undefined;
  try {
    kv = await store.get(rs.key(namespace, pred.singleName!), revision ? { revision } : undefined);
  } catch (e) {
    if (e instanceof StoreError && e.code === 'Compacted') throw errors.expired('The resourceVersion for the provided list is too old.');
    throw e;
  }
  const obj = !kv ? undefined : rs.def.conversion ? await rs.decodeConverted(kv) : rs.decode(kv);
  // the list's revision covers what was read (a write to the key meanwhile is in it; a watch from it misses nothing)
  const at = revision || Math.max(before, kv?.modRevision ?? 0);
  return { items: obj && pred.matches(obj) ? [obj] : [], resourceVersion: String(at) };
}

function tooLarge(rv: number, cur: number): StatusError {
  return new StatusError(504, 'Timeout', `Too large resource version: ${rv}, current: ${cur}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

export type WatchEventOut =
  // kv: the revision `object` decodes to, for serialising from its stored text (revision-json.ts)
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KObject; kv?: KeyValue }
  | { type: 'BOOKMARK'; object: KObject }
  | { type: 'ERROR'; object: unknown };

export interface ObjectWatch {
  stop(): void;
}

/** Starts a watch; events are delivered through `send` in order. Errors at start-up throw. */
export async function watchObjects(
  rs: ResourceStore,
  namespace: string,
  p: WatchParams,
  send: (ev: WatchEventOut) => void,
  opts: { bookmarkIntervalMs?: number } = {},
): Promise<ObjectWatch> {
  const store = rs.deps.store;
  const pred = makePredicate(rs.def, p.labelSelector, p.fieldSelector);
  const prefix = rs.prefix(namespace);
  const rvParam = p.resourceVersion ?? '';
  const initial = p.sendInitialEvents ?? (rvParam === '' || rvParam === '0');
  const converting = !!rs.def.conversion;
  let lastRev: number;
  if (initial) {
    const l = await store.list(prefix);
    for (const kv of l.kvs) {
      const obj = converting ? await rs.decodeConverted(kv) : rs.decode(kv);
      if (pred.matches(obj)) send({ type: 'ADDED', object: obj, kv });
    }
    lastRev = l.revision;
    if (p.sendInitialEvents && p.allowWatchBookmarks) {
      send({ type: 'BOOKMARK', object: bookmark(rs, lastRev, true) });
    }
  } else {
    lastRev = parseRV(rvParam);
    if (lastRev > store.currentRevision()) throw tooLarge(lastRev, store.currentRevision());
  }
  let w: { stop(): void } | undefined;
  try {
    // a trigger's value is read synchronously, from the object as stored: not under a conversion webhook
    const trigger = pred.trigger && !converting ? { valueOf: rs.triggerValueOf(pred.trigger.field), value: pred.trigger.value } : undefined;
    const onEvent = converting
      ? convertedEvents(rs, pred, send, (rev) => (lastRev = rev), () => w?.stop())
      : (ev: WatchEvent) => {
          lastRev = ev.kv.modRevision;
          const out = translate(rs, pred, ev);
          if (out) send(out);
        };
    w = store.watch(prefix, { afterRevision: lastRev, trigger }, onEvent);
  } catch (e) {
    if (e instanceof StoreError && e.code === 'Compacted') {
      send({
        type: 'ERROR',
        object: errors.expired(`too old resource version: ${lastRev} (${e.revision ?? store.compactedRevision()})`).toStatus(),
      });
      return { stop() {} };
    }
    throw e;
  }
  let timer: NodeJS.Timeout | undefined;
  if (p.allowWatchBookmarks) {
    timer = setInterval(() => send({ type: 'BOOKMARK', object: bookmark(rs, Math.max(lastRev, 0), false) }), opts.bookmarkIntervalMs ?? 60_000);
    timer.unref();
  }
  return {
    stop() {
      if (timer) clearInterval(timer);
      w!.stop();
    },
  };
}

function bookmark(rs: ResourceStore, rev: number, initialEnd: boolean): KObject {
  const metadata: KObject['metadata'] = { resourceVersion: String(rev) };
  if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { kind: rs.def.kind, apiVersion: rs.apiVersion, metadata };
}

/** A change as this watcher sees it (selectors decide between ADDED, MODIFIED and DELETED), if at all. */
function translate(rs: ResourceStore, pred: Predicate, ev: WatchEvent): WatchEventOut | undefined {
  const cur = rs.decodeShared(ev.kv);
  if (pred.empty) return { type: ev.type, object: cur, kv: ev.kv };
  return selectEvent(pred, ev.type, cur, ev.prev ? safeDecode(rs, ev.prev) : undefined, ev.kv);
}

function safeDecode(rs: ResourceStore, kv: KeyValue): KObject | undefined {
  try {
    return rs.decodeShared(kv);
  } catch {
    return undefined;
  }
}
