// The cluster DNS worker's copy of the informer caches. The main thread owns the informers; a DnsFeed turns their
// events into messages (a snapshot when a worker starts, then batches of changes, each with the informers' synced
// state) and the worker applies them to MirrorSources, which ClusterDnsRecords reads as it reads informers. Only
// the part of each object the records read travels (dnsView), and an update that leaves that part unchanged is not
// sent at all: it changes no answer (CoreDNS' controller skips such updates too).
import type { KObject } from '../api/types.js';
import type { IndexFunc, InformerHandler } from '../client/informer.js';
import { dnsView, type DnsSource, type DnsSourceKind } from './dns-records.js';

export const SOURCE_KINDS: readonly DnsSourceKind[] = ['services', 'endpointSlices', 'namespaces', 'pods'];

/** one object set (obj) or deleted (no obj), by its informer key */
export interface DnsChange {
  k: DnsSourceKind;
  key: string;
  obj?: KObject;
}

export type SyncedState = Partial<Record<DnsSourceKind, boolean>>;

export type FeedMessage =
  | { t: 'snapshot'; objects: Partial<Record<DnsSourceKind, KObject[]>>; synced: SyncedState }
  | { t: 'changes'; changes: DnsChange[]; synced: SyncedState };

/** `namespace/name` or `name`, as the informers key objects */
export function mirrorKey(o: KObject): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!;
}

/** An informer's cache rebuilt from messages: get, indexes and handlers as Informer has them. */
export class MirrorSource implements DnsSource {
  private readonly items = new Map<string, KObject>();
  private readonly handlers: InformerHandler[] = [];
  private readonly indexers = new Map<string, IndexFunc>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  private synced = false;

  addHandler(h: InformerHandler): void {
    this.handlers.push(h);
  }

  addIndex(name: string, fn: IndexFunc): void {
    if (this.indexers.has(name)) return;
    this.indexers.set(name, fn);
    const idx = new Map<string, Set<string>>();
    this.indexes.set(name, idx);
    for (const [k, o] of this.items) for (const v of fn(o)) addTo(idx, v, k);
  }

  get(namespace: string, name: string): KObject | undefined {
    return this.items.get(namespace ? `${namespace}/${name}` : name);
  }

  byIndex(index: string, value: string): KObject[] {
    const keys = this.indexes.get(index)?.get(value);
    if (!keys) return [];
    const out: KObject[] = [];
    for (const k of keys) {
      const o = this.items.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  get size(): number {
    return this.items.size;
  }

  setSynced(synced: boolean): void {
    this.synced = synced;
  }

  set(key: string, obj: KObject): void {
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) for (const v of fn(obj)) addTo(this.indexes.get(name)!, v, key);
    for (const h of this.handlers) {
      if (old) h.update?.(old, obj);
      else h.add?.(obj);
    }
  }

  delete(key: string): void {
    const old = this.items.get(key);
    if (!old) return;
    this.unindex(key, old);
    this.items.delete(key);
    for (const h of this.handlers) h.delete?.(old);
  }

  /** Replaces the contents with `objs` (a snapshot): sets every object, deletes what is not among them. */
  reset(objs: KObject[]): void {
    const keep = new Set<string>();
    for (const o of objs) {
      const key = mirrorKey(o);
      keep.add(key);
      this.set(key, o);
    }
    for (const key of [...this.items.keys()]) if (!keep.has(key)) this.delete(key);
  }

  private unindex(key: string, obj: KObject): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indexes.get(name)!;
      for (const v of fn(obj)) {
        const s = idx.get(v);
        if (!s) continue;
        s.delete(key);
        if (!s.size) idx.delete(v);
      }
    }
  }
}

function addTo(idx: Map<string, Set<string>>, v: string, key: string): void {
  let s = idx.get(v);
  if (!s) idx.set(v, (s = new Set()));
  s.add(key);
}

/** The worker side: one MirrorSource per informer, fed by FeedMessages. */
export class DnsMirror {
  readonly sources: Partial<Record<DnsSourceKind, MirrorSource>> = {};

  constructor(kinds: readonly DnsSourceKind[]) {
    for (const k of kinds) this.sources[k] = new MirrorSource();
  }

  apply(m: FeedMessage): void {
    if (m.t === 'snapshot') {
      for (const k of SOURCE_KINDS) this.sources[k]?.reset(m.objects[k] ?? []);
    } else {
      for (const c of m.changes) {
        const src = this.sources[c.k];
        if (!src) continue;
        if (c.obj) src.set(c.key, c.obj);
        else src.delete(c.key);
      }
    }
    for (const k of SOURCE_KINDS) this.sources[k]?.setSynced(!!m.synced[k]);
  }
}

/** What the feed reads of an informer (the real ones, on the main thread). */
export interface FeedSource {
  addHandler(h: InformerHandler): void;
  list(): KObject[];
  hasSynced(): boolean;
}

/**
 * The main-thread side: queues the informers' events (the part of each object the records read) and posts them in
 * one batch per turn of the event loop; snapshot() is what a newly started worker gets first.
 */
export class DnsFeed {
  private queue: DnsChange[] = [];
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly sources: Partial<Record<DnsSourceKind, FeedSource>>,
    private readonly post: (m: FeedMessage) => void,
  ) {
    for (const k of SOURCE_KINDS) {
      const inf = sources[k];
      if (!inf) continue;
      inf.addHandler({
        add: (o) => this.push({ k, key: mirrorKey(o), obj: dnsView(k, o) }),
        update: (old, o) => {
          const view = dnsView(k, o);
          if (mirrorKey(old) === mirrorKey(o) && JSON.stringify(dnsView(k, old)) === JSON.stringify(view)) return;
          if (mirrorKey(old) !== mirrorKey(o)) this.push({ k, key: mirrorKey(old) });
          this.push({ k, key: mirrorKey(o), obj: view });
        },
        delete: (o) => this.push({ k, key: mirrorKey(o) }),
      });
    }
  }

  synced(): SyncedState {
    const out: SyncedState = {};
    for (const k of SOURCE_KINDS) if (this.sources[k]) out[k] = this.sources[k]!.hasSynced();
    return out;
  }

  /** Everything the informers hold now; what was queued is part of it, so the queue is dropped. */
  snapshot(): FeedMessage {
    this.queue = [];
    const objects: Partial<Record<DnsSourceKind, KObject[]>> = {};
    for (const k of SOURCE_KINDS) {
      const inf = this.sources[k];
      if (inf) objects[k] = inf.list().map((o) => dnsView(k, o));
    }
    return { t: 'snapshot', objects, synced: this.synced() };
  }

  /** Posts what is queued, with the current synced state, even when nothing is (a sync without events). */
  flush(): void {
    this.scheduled = false;
    if (this.closed) return;
    const changes = this.queue;
    this.queue = [];
    this.post({ t: 'changes', changes, synced: this.synced() });
  }

  close(): void {
    this.closed = true;
    this.queue = [];
  }

  private push(c: DnsChange): void {
    if (this.closed) return;
    this.queue.push(c);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      if (this.scheduled) this.flush();
    });
  }
}
