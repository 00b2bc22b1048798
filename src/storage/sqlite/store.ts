// The SQLite backend of Store (kine's model: etcd semantics on SQL). Writes go through group commit, either on
// the main thread ('inline', its WAL checkpointed by a thread of its own: checkpointer.ts) or on a writer
// thread with its own connection ('thread'), so that the fsyncs do not stall the event loop. Reads are served on the
// main thread's connection. The store's revision (and the watchers) advance when a commit is reported; with the
// writer thread the file can be a commit ahead of that, so reads make sure they see exactly the reported state. One
// process per database file (a lock file).
import type Database from 'better-sqlite3';
import { Checkpointer } from './checkpointer.js';
import { lockDatabase } from './lock.js';
import { SqliteReads } from './reads.js';
import { RecentRevisions } from './recent-revisions.js';
import type { CommitInfo, SqliteStoreOptions } from './options.js';
import { openDatabase, readCurrentRevision, readMeta } from './schema.js';
import { ThreadWriter } from './thread.js';
import { InlineWriter, type Committed, type StoreWriter } from './writer.js';
import type { StoredWriteResult, WriteOp, WrittenEvent } from './writes.js';
import type { StoredKeyValue } from './reads.js';
import { StoredValues } from './values.js';
import { PreviousKeyValue } from '../previous-key-value.js';
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

/**
 * With the checkpointer thread, the store's own connection checkpoints only once the WAL holds this many pages (64 MiB
 * of 4 KiB pages): the thread has then fallen behind, or cannot finish because commits keep coming.
 */
const FALLBACK_AUTOCHECKPOINT = 16384;

export type { CheckpointInfo, CommitInfo, SqliteStoreOptions } from './options.js';

export class SqliteStore implements Store {
  readonly path: string;
  readonly writerKind: 'thread' | 'inline';
  private readonly reads: SqliteReads;
  private readonly writer: StoreWriter;
  private readonly checkpointer: Checkpointer | undefined;
  /** what revision() answers without SQLite (recent-revisions.ts) */
  private readonly recent: RecentRevisions;
  private readonly hub = new WatchHub();
  private readonly maxLogRev: Database.Statement;
  private readonly trace: boolean;
  private readonly onCommit: ((info: CommitInfo) => void) | undefined;
  private readonly compactionChunk: number;
  /** plain or encrypted at rest */
  private readonly values: StoredValues;
  private rev: number;
  private compacted: number;
  private closed = false;
  /** the running (or last) compaction; compactions are serialised */
  private compacting: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: Database.Database,
    private readonly unlock: () => void,
    opts: SqliteStoreOptions & { writer: 'thread' | 'inline'; checkpointer: 'thread' | 'inline' },
  ) {
    this.path = opts.path;
    this.writerKind = opts.writer;
    this.trace = opts.trace ?? traceEnabled();
    this.onCommit = opts.onCommit;
    this.compactionChunk = opts.compactionChunk ?? 10_000;
    this.recent = new RecentRevisions(opts.recentRevisions ?? 65_536);
    this.values = new StoredValues(opts.transformers);
    this.reads = new SqliteReads(db, this.values.decode);
    this.maxLogRev = db.prepare('SELECT max(rev) FROM log').pluck();
    this.rev = readCurrentRevision(db);
    this.compacted = readMeta(db, 'compacted');
    const onCommitted = (c: Committed) => this.committed(c);
    this.writer =
      opts.writer === 'thread'
        ? new ThreadWriter(
            { path: opts.path, durability: opts.durability ?? 'full', lockTimeoutMs: opts.lockTimeoutMs, maxBatch: opts.maxBatch },
            { onCommitted },
          )
        : new InlineWriter(db, { maxBatch: opts.maxBatch, onCommitted, nextRevision: () => this.rev + 1 });
    if (opts.checkpointer === 'thread') {
      this.checkpointer = new Checkpointer(
        { path: opts.path, durability: opts.durability ?? 'full', lockTimeoutMs: opts.lockTimeoutMs },
        {
          onFailure: (e) => {
            if (this.closed) return;
            process.stderr.write(`k1s store: the checkpointer thread failed (${e.message}); checkpointing in commits again\n`);
            this.db.pragma('wal_autocheckpoint = 1000');
          },
          onCheckpoint: (c) => {
            if (this.trace) process.stderr.write(`k1s store: checkpoint frames=${c.frames} copied=${c.copied} ms=${c.ms.toFixed(2)}\n`);
            opts.onCheckpoint?.(c);
          },
        },
      );
    }
  }

  static open(opts: SqliteStoreOptions): SqliteStore {
    const memory = opts.path === ':memory:' || opts.path === '';
    const writer = memory ? 'inline' : (opts.writer ?? defaultWriter());
    // the writer thread's commits are off the event loop already, checkpoints included
    const checkpointer = memory || writer === 'thread' ? 'inline' : (opts.checkpointer ?? defaultCheckpointer());
    const lockTimeoutMs = opts.lockTimeoutMs ?? 5000;
    const unlock = lockDatabase(opts.path, lockTimeoutMs);
    try {
      const db = openDatabase(opts.path, {
        durability: opts.durability ?? 'full',
        lockTimeoutMs,
        // another connection in this process: exclusive locking would shut it out
        locking: writer === 'thread' || checkpointer === 'thread' ? 'normal' : 'exclusive',
        autocheckpoint: checkpointer === 'thread' ? FALLBACK_AUTOCHECKPOINT : undefined,
      });
      return new SqliteStore(db, unlock, { ...opts, writer, checkpointer });
    } catch (e) {
      unlock();
      throw e;
    }
  }

  create(key: string, value: string): Promise<WriteResult> {
    return this.write({ kind: 'create', key, value, stored: this.values.encode(key, value) });
  }

  update(key: string, value: string, expectedRevision: number): Promise<WriteResult> {
    return this.write({ kind: 'update', key, value, expectedRevision, stored: this.values.encode(key, value) });
  }

  delete(key: string, opts: { expectedRevision?: number } = {}): Promise<WriteResult> {
    return this.write({ kind: 'delete', key, expectedRevision: opts.expectedRevision });
  }

  /**
   * Whether the stored value of this revision is not what a write would store now (written under an older key or
   * provider, or before encryption was configured): an update that changes nothing rewrites it, as kube's does.
   */
  async stale(key: string, modRevision: number): Promise<boolean> {
    this.checkOpen();
    if (this.values.plain) return false;
    const v = this.reads.storedAt(modRevision);
    return v !== undefined && this.values.stale(key, v);
  }

  async revision(key: string): Promise<Revision | undefined> {
    this.checkOpen();
    this.writer.drain();
    const known = this.recent.get(key);
    if (known) return known;
    const rev = this.rev;
    return this.readLatest(
      () => this.reads.latestRevision(key),
      () => this.reads.revisionAt(key, rev),
    );
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.checkOpen();
    this.writer.drain();
    const rev = this.readRevision(opts.revision);
    if (rev !== this.rev) return this.reads.at(key, rev);
    return this.readLatest(
      () => this.reads.latest(key),
      () => this.reads.at(key, rev),
    );
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    this.writer.drain();
    const rev = this.readRevision(opts.revision);
    const page = (at: number | undefined) =>
      this.reads.list(prefix, { rev: at, limit: opts.limit, startAfter: opts.startAfter });
    const p = rev === this.rev ? this.readLatest(() => page(undefined), () => page(rev)) : page(rev);
    return { kvs: p.kvs, revision: rev, more: p.more, remaining: p.remaining };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    this.writer.drain();
    const rev = this.rev;
    return this.readLatest(
      () => this.reads.count(prefix),
      () => this.reads.count(prefix, rev),
    );
  }

  /**
   * Replays the history after opts.afterRevision (read synchronously, so nothing can slip in between) and then
   * follows live commits. Throws StoreError 'Compacted' when that history is gone and 'FutureRevision' when
   * afterRevision has not happened yet (it does not wait). The replay is held in memory until delivered; the
   * compactor's retention window bounds it.
   */
  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void): Watch {
    this.checkOpen();
    this.writer.drain();
    const after = opts.afterRevision;
    if (!Number.isSafeInteger(after) || after < 0) throw new RangeError(`invalid afterRevision ${after}`);
    if (after === 0) return this.hub.subscribe(prefix, { throughRevision: this.rev, trigger: opts.trigger }, onEvent);
    if (after < this.compacted) {
      throw new StoreError(
        'Compacted',
        `revision ${after} has been compacted (oldest available: ${this.compacted})`,
        this.compacted,
      );
    }
    if (after > this.rev) throw new StoreError('FutureRevision', `revision ${after} is ahead of ${this.rev}`);
    const replay = this.reads.replay(prefix, after, this.rev);
    return this.hub.subscribe(prefix, { replay, throughRevision: this.rev, trigger: opts.trigger }, onEvent);
  }

  compact(revision: number): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    const run = this.compacting.catch(() => {}).then(() => this.compactTo(revision));
    this.compacting = run;
    return run;
  }

  watched(key: string): boolean {
    return this.hub.watched(key);
  }

  currentRevision(): number {
    this.checkOpen();
    return this.rev;
  }

  compactedRevision(): number {
    this.checkOpen();
    return this.compacted;
  }

  /** Commits the queued writes, waits for a running compaction to stop, checkpoints and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      this.writer.flush();
      await this.compacting.catch(() => {});
      await this.checkpointer?.close();
      await this.writer.close();
    } finally {
      // Events of the final commits have been delivered by now (their microtasks ran before this continuation).
      this.hub.stopAll();
      this.db.close();
      this.unlock();
    }
  }

  private write(op: WriteOp): Promise<WriteResult> {
    if (this.closed) return Promise.reject(closedError());
    const written = this.writer.write(op);
    // nothing encrypted: every value is text, the one written or the one read
    if (this.values.plain) return written as Promise<WriteResult>;
    return written.then((r) => this.decodedResult(op, r));
  }

  /** What came from the log is as stored (a delete's last value, a conflict's current one): decrypted. */
  private decodedResult(op: WriteOp, r: StoredWriteResult): WriteResult {
    if (!r.ok) return r.current ? { ok: false, current: this.values.decoded(r.current) } : { ok: false };
    return { ok: true, kv: op.kind === 'delete' ? this.values.decoded(r.kv) : (r.kv as KeyValue) };
  }

  /** A batch committed: advance the revision and tell the watchers. */
  private committed(c: Committed): void {
    const events = c.events.map((e) => this.watchEvent(e));
    if (events.length) {
      this.rev = events[events.length - 1]!.kv.modRevision;
      this.checkpointer?.kick();
      this.recent.remember(events);
    }
    this.hub.publish(events);
    if (this.trace || this.onCommit) {
      const info: CommitInfo = { ops: c.ops, changed: events.length, revision: this.rev, ms: c.ms };
      if (this.trace) {
        process.stderr.write(
          `k1s store: commit ops=${info.ops} changed=${info.changed} rev=${info.revision} ms=${info.ms.toFixed(2)}\n`,
        );
      }
      try {
        this.onCommit?.(info);
      } catch {
        // Committed is committed: a failing observer must not make the batch look failed (and be retried).
      }
    }
  }

  private watchEvent(e: WrittenEvent): WatchEvent {
    const p = e.prev;
    if (this.values.plain && typeof e.kv.value === 'string' && (p === undefined || typeof p.value === 'string')) {
      return e as WatchEvent; // plain values all: the event as it is
    }
    if (e.type === 'DELETED') {
      // a delete's values come from the log, as stored (both its last one, decrypted once); a create's or
      // update's is the value written
      const kv = this.values.decodedOrEmpty(e.kv);
      if (p === undefined) return { type: e.type, kv };
      return { type: e.type, kv, prev: p.value === e.kv.value ? { ...p, value: kv.value } : this.values.decodedOrEmpty(p as StoredKeyValue) };
    }
    const kv = e.kv as KeyValue;
    if (p === undefined) return { type: e.type, kv };
    if (p.value !== undefined) return { type: e.type, kv, prev: this.values.decodedOrEmpty(p as StoredKeyValue) };
    return { type: e.type, kv, prev: new PreviousKeyValue(p.key, p.modRevision, p.createRevision, this.loadValue) };
  }

  private readonly loadValue = (rev: number, key: string): string | undefined => {
    if (this.closed) return undefined;
    try {
      return this.reads.valueAt(rev, key);
    } catch {
      return undefined;
    }
  };

  /**
   * Runs a read of the latest state so that it sees exactly revision this.rev. With a writer thread, the file may
   * hold a commit that is not reported yet: then read in one snapshot and, if that snapshot is ahead, read at
   * this.rev instead (all of its history is there: compaction never goes past the store's revision).
   */
  private readLatest<T>(latest: () => T, atRev: () => T): T {
    if (!this.writer.unreported()) return latest();
    this.db.exec('BEGIN'); // deferred: the snapshot is taken by the first read below
    try {
      const newest = (this.maxLogRev.get() as number | null) ?? 0;
      return newest <= this.rev ? latest() : atRev();
    } finally {
      this.db.exec('COMMIT');
    }
  }

  private async compactTo(revision: number): Promise<void> {
    if (this.closed) throw closedError();
    if (!Number.isSafeInteger(revision) || revision < 0) throw new RangeError(`invalid revision ${revision}`);
    if (revision > this.rev) throw new StoreError('FutureRevision', `revision ${revision} is ahead of ${this.rev}`);
    if (revision <= this.compacted) return;
    const t0 = performance.now();
    let removed = 0;
    while (this.compacted < revision) {
      const lo = this.compacted;
      const hi = Math.min(lo + this.compactionChunk, revision);
      // Before the chunk starts: a writer thread compacts while reads go on here, and none may go below hi.
      this.compacted = hi;
      removed += await this.writer.compactRange(lo, hi);
      this.checkpointer?.kick();
      if (this.compacted < revision) {
        // Let writes and reads run between chunks.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.closed) throw closedError();
      }
    }
    await this.writer.reclaim();
    if (this.trace) {
      const ms = (performance.now() - t0).toFixed(1);
      process.stderr.write(`k1s store: compact rev=${revision} removed=${removed} ms=${ms}\n`);
    }
  }

  /** The revision a read is served at; throws when it is compacted or in the future. */
  private readRevision(revision: number | undefined): number {
    if (!revision) return this.rev;
    if (!Number.isSafeInteger(revision) || revision < 0) throw new RangeError(`invalid revision ${revision}`);
    if (revision < this.compacted) {
      throw new StoreError(
        'Compacted',
        `revision ${revision} has been compacted (oldest available: ${this.compacted})`,
        this.compacted,
      );
    }
    if (revision > this.rev) throw new StoreError('FutureRevision', `revision ${revision} is ahead of ${this.rev}`);
    return revision;
  }

  private checkOpen(): void {
    if (this.closed) throw closedError();
  }
}

function closedError(): StoreError {
  return new StoreError('Closed', 'the store is closed');
}

/** K1S_SQLITE_WRITER=thread|inline overrides the default (for comparing the two on a whole server). */
function defaultWriter(): 'thread' | 'inline' {
  const env = process.env.K1S_SQLITE_WRITER;
  return env === 'thread' || env === 'inline' ? env : 'inline';
}

/** K1S_SQLITE_CHECKPOINTER=thread|inline overrides the default. */
function defaultCheckpointer(): 'thread' | 'inline' {
  return process.env.K1S_SQLITE_CHECKPOINTER === 'inline' ? 'inline' : 'thread';
}

function traceEnabled(): boolean {
  return (process.env.K1S_TRACE ?? '').split(/[\s,]+/).includes('store');
}
