// The etcd backend of Store: each write is one etcd transaction (compare a revision, then put or delete, else read
// what is there), reads are ranges, and the watchers of the whole process share one etcd watch of k1s' prefix,
// fanned out in-process by the same WatchHub SQLite uses. etcd's revision is the resourceVersion, as in kube.
// currentRevision() is synchronous, so the store keeps the newest revision it has seen in any response header or
// watch response.
import { compareKeys } from '../key-range.js';
import type { KeyTransformers } from '../encryption/key-transformers.js';
import {
  StoreError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Revision,
  type Store,
  type Watch,
  type WatchEvent,
  type WatchOptions,
  type WriteResult,
} from '../types.js';
import { WatchHub } from '../watch-hub.js';
import { EtcdClient, type EtcdConnectionOptions, type RawKeyValue } from './client.js';
import { KeyLayout } from './keys.js';
import { RecentEvents } from './recent-events.js';
import { EtcdValues } from './values.js';
import { WatchStream, type RawEvent } from './watch-stream.js';
import { OwnWatch } from './own-watch.js';
import { findCompacted } from './compacted-revision.js';
import { toWatchEvents } from './events.js';
import { scanRoot } from './scan.js';
import { closedError, compactedError } from './errors.js';

export interface EtcdStoreOptions extends EtcdConnectionOptions {
  /** the root of k1s' keys in etcd (--etcd-prefix, default /registry) */
  prefix?: string;
  /** encryption at rest, as SqliteStore takes it */
  transformers?: KeyTransformers;
  /** how many recent events a watch can start from without a watcher of its own in etcd (default 20000) */
  recentEvents?: number;
  /** how often etcd is asked how far it is (default 5 s) */
  progressIntervalMs?: number;
  log?: (line: string) => void;
}

export class EtcdStore implements Store {
  readonly layout: KeyLayout;
  private readonly values: EtcdValues;
  private readonly hub = new WatchHub();
  private readonly stream: WatchStream;
  private recent: RecentEvents;
  private readonly log: (line: string) => void;
  /** the newest revision seen anywhere */
  private rev: number;
  /** the newest revision whose events the hub has published */
  private published: number;
  private compacted: number;
  private closed = false;
  private readonly inflight = new Set<Promise<unknown>>();
  private compacting: Promise<void> = Promise.resolve();
  private readonly ownWatches = new Set<OwnWatch>();

  private constructor(
    readonly client: EtcdClient,
    opts: EtcdStoreOptions,
    layout: KeyLayout,
    rev: number,
    compacted: number,
  ) {
    this.layout = layout;
    this.values = new EtcdValues(opts.transformers);
    this.log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
    this.rev = rev;
    this.published = rev;
    this.compacted = compacted;
    this.recent = new RecentEvents(rev, opts.recentEvents ?? 20_000);
    this.stream = new WatchStream(client, { onRevision: (r) => this.seen(r), progressIntervalMs: opts.progressIntervalMs, log: this.log });
    this.watchRoot(rev + 1, opts.recentEvents ?? 20_000);
  }

  /**
   * The store's one watch of its whole prefix. etcd ends it only when it cannot resume (the stream was down for
   * longer than the history etcd kept): then it starts again from the oldest revision left, the changes in between
   * are lost to the watchers (said on stderr), and the memory of events starts afresh.
   */
  private watchRoot(from: number, recentEvents: number): void {
    const root = this.layout.rootRange();
    this.stream.add({
      key: Buffer.from(root.start),
      rangeEnd: root.end,
      next: from,
      onEvents: (evs) => this.publish(evs),
      onCanceled: (reason, compactRev) => {
        this.log(`k1s etcd: the store's watch was ended by etcd (${reason || `compacted at ${compactRev}`}); watches miss the changes up to ${compactRev}`);
        if (this.closed) return;
        const next = Math.max(compactRev, this.published + 1);
        this.published = next - 1;
        this.recent = new RecentEvents(next - 1, recentEvents);
        this.watchRoot(next, recentEvents);
      },
    });
  }

  /** Connects, reads etcd's revision and compacted revision, and starts the store's watch. */
  static async open(opts: EtcdStoreOptions): Promise<EtcdStore> {
    const layout = new KeyLayout(opts.prefix);
    const client = new EtcdClient(opts);
    try {
      const probe = Buffer.from(`${layout.root}_k1s/`);
      const r = await client.range({ key: probe, count_only: true });
      const compacted = await findCompacted(client, probe, r.header.revision);
      return new EtcdStore(client, opts, layout, r.header.revision, compacted);
    } catch (e) {
      client.close();
      throw e;
    }
  }

  create(key: string, value: string): Promise<WriteResult> {
    return this.run(async () => {
      const k = this.etcdKey(key);
      const r = await this.client.txn({
        compare: [{ key: k, target: 'CREATE', result: 'EQUAL', create_revision: 0 }],
        success: [{ request_put: { key: k, value: this.values.encode(key, value) } }],
        failure: [{ request_range: { key: k } }],
      });
      this.seen(r.header.revision);
      if (!r.succeeded) return this.conflict(key, r.responses[0]);
      const rev = r.header.revision;
      return { ok: true, kv: { key, value, modRevision: rev, createRevision: rev } };
    });
  }

  update(key: string, value: string, expectedRevision: number): Promise<WriteResult> {
    return this.run(async () => {
      const k = this.etcdKey(key);
      if (!(expectedRevision > 0)) return { ok: false, current: await this.get(key) };
      const r = await this.client.txn({
        compare: [{ key: k, target: 'MOD', result: 'EQUAL', mod_revision: expectedRevision }],
        // the range after the put reads the key's create revision (without its value)
        success: [{ request_put: { key: k, value: this.values.encode(key, value) } }, { request_range: { key: k, keys_only: true } }],
        failure: [{ request_range: { key: k } }],
      });
      this.seen(r.header.revision);
      if (!r.succeeded) return this.conflict(key, r.responses[0]);
      const created = (r.responses[1]!.response_range.kvs as RawKeyValue[])[0]!.create_revision;
      return { ok: true, kv: { key, value, modRevision: r.header.revision, createRevision: created } };
    });
  }

  delete(key: string, opts: { expectedRevision?: number } = {}): Promise<WriteResult> {
    return this.run(async () => {
      const k = this.etcdKey(key);
      const expected = opts.expectedRevision;
      const r = await this.client.txn({
        compare:
          expected === undefined
            ? [{ key: k, target: 'VERSION', result: 'GREATER', version: 0 }]
            : [{ key: k, target: 'MOD', result: 'EQUAL', mod_revision: expected }],
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: expected === undefined ? [] : [{ request_range: { key: k } }],
      });
      this.seen(r.header.revision);
      if (!r.succeeded) return expected === undefined ? { ok: false } : this.conflict(key, r.responses[0]);
      const prev = (r.responses[0]!.response_delete_range.prev_kvs as RawKeyValue[])[0];
      if (!prev) return { ok: false };
      return { ok: true, kv: { key, value: this.values.decode(key, prev.value), modRevision: r.header.revision, createRevision: prev.create_revision } };
    });
  }

  get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    return this.run(async () => {
      const revision = this.readRevision(opts.revision);
      const r = await this.client.range({ key: this.etcdKey(key), revision });
      this.seen(r.header.revision);
      const kv = r.kvs[0];
      return kv ? this.decoded(key, kv) : undefined;
    });
  }

  revision(key: string): Promise<Revision | undefined> {
    return this.run(async () => {
      const r = await this.client.range({ key: this.etcdKey(key), keys_only: true });
      this.seen(r.header.revision);
      const kv = r.kvs[0];
      return kv ? { modRevision: kv.mod_revision, createRevision: kv.create_revision } : undefined;
    });
  }

  /** Whether this revision's stored bytes are under an older key or provider than a write would use now. */
  stale(key: string, modRevision: number): Promise<boolean> {
    return this.run(async () => {
      if (this.values.plain) return false;
      // the latest value, not a read at modRevision: that fails once compaction has passed it, the key unchanged
      const kv = (await this.client.range({ key: this.etcdKey(key) })).kvs[0];
      return !!kv && kv.mod_revision === modRevision && this.values.stale(key, kv.value);
    });
  }

  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return this.run(async () => {
      const revision = this.readRevision(opts.revision);
      const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
      const after = opts.startAfter && compareKeys(opts.startAfter, prefix) >= 0 ? opts.startAfter : undefined;
      const range = this.layout.range(prefix);
      if (range && (after === undefined || after.startsWith(prefix))) {
        const start = after === undefined ? Buffer.from(range.start) : Buffer.concat([Buffer.from(this.layout.toEtcd(after)), Buffer.from([0])]);
        const r = await this.client.range({ key: start, range_end: range.end, limit, revision });
        this.seen(r.header.revision);
        const kvs: KeyValue[] = [];
        for (const kv of r.kvs) {
          const key = this.layout.fromEtcd(kv.key.toString());
          if (key !== undefined) kvs.push(this.decoded(key, kv));
        }
        return { kvs, revision: revision || r.header.revision, more: r.more, remaining: Math.max(0, r.count - r.kvs.length) };
      }
      // keys of several translations (a list of everything): read them all and order them as k1s' keys
      const { kvs: all, revision: at } = await this.scan(prefix, revision, false);
      const from = after === undefined ? all : all.filter((kv) => compareKeys(kv.key, after) > 0);
      const page = limit ? from.slice(0, limit) : from;
      return { kvs: page, revision: at, more: page.length < from.length, remaining: from.length - page.length };
    });
  }

  count(prefix: string): Promise<number> {
    return this.run(async () => {
      const range = this.layout.range(prefix);
      if (!range) return (await this.scan(prefix, 0, true)).kvs.length;
      const r = await this.client.range({ key: Buffer.from(range.start), range_end: range.end, count_only: true });
      this.seen(r.header.revision);
      return r.count;
    });
  }

  /**
   * From now, or from the recent past (the store's memory of events), a watch is one more subscriber of the shared
   * stream; from further back it gets an etcd watcher of its own on the same stream.
   */
  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void): Watch {
    this.checkOpen();
    const after = opts.afterRevision;
    if (!Number.isSafeInteger(after) || after < 0) throw new RangeError(`invalid afterRevision ${after}`);
    const trigger = opts.trigger;
    if (after === 0) return this.hub.subscribe(prefix, { throughRevision: this.rev, trigger }, onEvent);
    if (after < this.compacted) throw compactedError(after, this.compacted);
    if (after > this.rev) throw new StoreError('FutureRevision', `revision ${after} is ahead of ${this.rev}`);
    // not published yet: the shared stream brings everything after it
    if (after >= this.published) return this.hub.subscribe(prefix, { throughRevision: after, trigger }, onEvent);
    if (after >= this.recent.start) {
      return this.hub.subscribe(prefix, { replay: this.recent.since(after, prefix), throughRevision: this.published, trigger }, onEvent);
    }
    const own = new OwnWatch(this, prefix, after, opts, onEvent);
    this.ownWatches.add(own);
    return own;
  }

  compact(revision: number): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    const run = this.compacting.catch(() => {}).then(() => this.compactTo(revision));
    this.compacting = run;
    return run;
  }

  watched(key: string): boolean {
    return this.ownWatches.size > 0 || this.hub.watched(key);
  }

  currentRevision(): number {
    this.checkOpen();
    return this.rev;
  }

  compactedRevision(): number {
    this.checkOpen();
    return this.compacted;
  }

  /** etcd's own figures for metrics and health (the member calls go to) */
  status(): Promise<{ dbSize: number; version: string; revision: number }> {
    return this.run(async () => {
      const s = await this.client.status();
      this.seen(s.header.revision);
      return { dbSize: s.dbSize, version: s.version, revision: s.header.revision };
    });
  }

  /** Whether etcd answers within timeoutMs (the `etcd` health check): throws when it does not. */
  async check(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreError('Unavailable', `etcd did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      // a linearizable read, as kube's etcd check gets "health": it needs the members' quorum, which a status does not
      await Promise.race([this.client.range({ key: Buffer.from('health'), count_only: true }), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for the calls already made, then disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inflight, this.compacting]);
    this.hub.stopAll();
    for (const w of [...this.ownWatches]) w.stop();
    this.stream.close();
    this.client.close();
  }

  // --- internals shared with OwnWatch ---

  /** @internal for OwnWatch */
  addStreamWatcher(w: Parameters<WatchStream['add']>[0]): number {
    return this.stream.add(w);
  }

  removeStreamWatcher(id: number, own?: OwnWatch): void {
    this.stream.remove(id);
    if (own) this.ownWatches.delete(own);
  }

  /** @internal etcd events → the store's, for the keys k1s wrote */
  toEvents(evs: RawEvent[], prefix?: string): WatchEvent[] {
    return toWatchEvents(evs, this.layout, this.values, prefix);
  }

  /** @internal */
  seen(rev: number): void {
    if (rev > this.rev) this.rev = rev;
  }

  private publish(evs: RawEvent[]): void {
    const events = this.toEvents(evs);
    const last = evs[evs.length - 1]!.kv.mod_revision;
    this.seen(last);
    this.published = Math.max(this.published, last);
    this.recent.push(events);
    this.hub.publish(events);
  }

  private decoded(key: string, kv: RawKeyValue): KeyValue {
    return { key, value: this.values.decode(key, kv.value), modRevision: kv.mod_revision, createRevision: kv.create_revision };
  }

  private conflict(key: string, resp: Record<string, any> | undefined): WriteResult {
    const kv = (resp?.response_range?.kvs as RawKeyValue[] | undefined)?.[0];
    return kv ? { ok: false, current: this.decoded(key, kv) } : { ok: false };
  }

  private etcdKey(key: string): Buffer {
    return Buffer.from(this.layout.toEtcd(key));
  }

  private async scan(prefix: string, revision: number, keysOnly: boolean): Promise<{ kvs: KeyValue[]; revision: number }> {
    const r = await scanRoot(this.client, this.layout, prefix, revision, keysOnly, (key, kv) => this.decoded(key, kv));
    this.seen(r.header);
    return r;
  }

  private async compactTo(revision: number): Promise<void> {
    this.checkOpen();
    if (!Number.isSafeInteger(revision) || revision < 0) throw new RangeError(`invalid revision ${revision}`);
    if (revision > this.rev) throw new StoreError('FutureRevision', `revision ${revision} is ahead of ${this.rev}`);
    if (revision <= this.compacted) return;
    try {
      const r = await this.client.compact(revision);
      this.seen(r.header.revision);
    } catch (e) {
      // another client compacted further already: nothing left to do
      if (!(e instanceof StoreError && e.code === 'Compacted')) throw e;
    }
    if (revision > this.compacted) this.compacted = revision;
  }

  /** The revision a read is served at (0: latest); throws when it is compacted or in the future. */
  private readRevision(revision: number | undefined): number {
    if (!revision) return 0;
    if (!Number.isSafeInteger(revision) || revision < 0) throw new RangeError(`invalid revision ${revision}`);
    if (revision < this.compacted) throw compactedError(revision, this.compacted);
    if (revision > this.rev) throw new StoreError('FutureRevision', `revision ${revision} is ahead of ${this.rev}`);
    return revision;
  }

  /** Runs a call, so that close() can wait for it; etcd's Compacted gets the revision it does not say. */
  private run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    const p = fn().catch((e: unknown) => {
      if (e instanceof StoreError && e.code === 'Compacted' && e.revision === undefined) throw new StoreError('Compacted', e.message, this.compacted);
      throw e;
    });
    this.inflight.add(p);
    const done = () => this.inflight.delete(p);
    p.then(done, done);
    return p;
  }

  private checkOpen(): void {
    if (this.closed) throw closedError();
  }
}
