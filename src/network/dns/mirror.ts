// The cluster DNS worker's copy of the informer caches. The main thread owns the informers; a DnsFeed turns their
// events into messages (a snapshot when a worker starts, then batches of changes, each with the informers' synced
// state) and the worker applies them to MirrorSources, which ClusterDnsRecords reads as it reads informers. Only
// the part of each object the records read travels (dnsView), and an update that leaves that part unchanged is not
// sent at all: it changes no answer (CoreDNS' controller skips such updates too).
import type { KObject } from '../../api/types.js';
import { IndexedCache, objectKey, type InformerHandler } from '../../client/indexed-cache.js';
import type { DnsSource, DnsSourceKind } from './records.js';
import { dnsView } from './view.js';

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

/** An informer's cache rebuilt from messages: get, indexes and handlers as Informer has them. */
export class MirrorSource extends IndexedCache implements DnsSource {
  private synced = false;

  addHandler(h: InformerHandler): void {
    this.handlers.push(h);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  setSynced(synced: boolean): void {
    this.synced = synced;
  }

  set(key: string, obj: KObject): void {
    this.store(key, obj);
  }

  delete(key: string): void {
    this.drop(key);
  }

  /** Replaces the contents with `objs` (a snapshot): sets every object, deletes what is not among them. */
  reset(objs: KObject[]): void {
    const keep = new Set<string>();
    for (const o of objs) {
      const key = objectKey(o);
      keep.add(key);
      this.store(key, o);
    }
    for (const key of [...this.items.keys()]) if (!keep.has(key)) this.drop(key);
  }
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
        add: (o) => this.push({ k, key: objectKey(o), obj: dnsView(k, o) }),
        update: (old, o) => {
          const view = dnsView(k, o);
          if (objectKey(old) === objectKey(o) && JSON.stringify(dnsView(k, old)) === JSON.stringify(view)) return;
          if (objectKey(old) !== objectKey(o)) this.push({ k, key: objectKey(old) });
          this.push({ k, key: objectKey(o), obj: view });
        },
        delete: (o) => this.push({ k, key: objectKey(o) }),
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
