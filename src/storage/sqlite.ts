// The SQLite backend of Store (kine's model: etcd semantics on SQL). Writes go through group commit; reads are
// served directly and, since better-sqlite3 is synchronous and a batch commits within one call, only ever see
// committed state. One process per database file (the file is locked exclusively).
import type Database from 'better-sqlite3';
import { GroupCommit } from './group-commit.js';
import { SqliteCompaction } from './sqlite-compaction.js';
import { SqliteReads } from './sqlite-reads.js';
import { openDatabase, readCurrentRevision, readMeta, type Durability } from './sqlite-schema.js';
import { SqliteWrites, type Applied, type WriteOp } from './sqlite-writes.js';
import {
  StoreError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Store,
  type Watch,
  type WatchEvent,
  type WatchOptions,
  type WriteResult,
} from './types.js';
import { WatchHub } from './watch-hub.js';

export interface SqliteStoreOptions {
  /** database file, or ':memory:' */
  path: string;
  /** 'full' (default): acknowledged writes survive power loss; 'normal': they survive a process crash */
  durability?: Durability;
  /** log each commit batch to stderr (default: when K1S_TRACE lists "store") */
  trace?: boolean;
  /** called after each committed batch (metrics, tests) */
  onCommit?: (info: CommitInfo) => void;
  /** how long open waits for another process to release the database (default 5000 ms) */
  lockTimeoutMs?: number;
  /** most writes per transaction (default 2000) */
  maxBatch?: number;
  /** revisions compacted per transaction, so compaction does not stall the event loop (default 10000) */
  compactionChunk?: number;
}

export interface CommitInfo {
  /** writes in the batch */
  ops: number;
  /** writes that succeeded (the others failed their precondition) */
  changed: number;
  /** the revision after the batch */
  revision: number;
  /** time spent applying and committing */
  ms: number;
}

export class SqliteStore implements Store {
  readonly path: string;
  private readonly reads: SqliteReads;
  private readonly writes: SqliteWrites;
  private readonly compaction: SqliteCompaction;
  private readonly commits: GroupCommit<WriteOp, WriteResult>;
  private readonly hub = new WatchHub();
  private readonly applyBatch: Database.Transaction<(ops: WriteOp[], firstRev: number) => Applied[]>;
  private readonly trace: boolean;
  private readonly onCommit: ((info: CommitInfo) => void) | undefined;
  private readonly compactionChunk: number;
  private rev: number;
  private compacted: number;
  private closed = false;
  /** the running (or last) compaction; compactions are serialised */
  private compacting: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: Database.Database,
    opts: SqliteStoreOptions,
  ) {
    this.path = opts.path;
    this.trace = opts.trace ?? traceEnabled();
    this.onCommit = opts.onCommit;
    this.compactionChunk = opts.compactionChunk ?? 10_000;
    this.reads = new SqliteReads(db);
    this.writes = new SqliteWrites(db);
    this.compaction = new SqliteCompaction(db);
    this.rev = readCurrentRevision(db);
    this.compacted = readMeta(db, 'compacted');
    this.applyBatch = db.transaction((ops: WriteOp[], firstRev: number) => {
      let rev = firstRev;
      return ops.map((op) => {
        const a = this.writes.apply(op, rev);
        if (a.result.ok) rev++;
        return a;
      });
    });
    this.commits = new GroupCommit({ commit: (ops) => this.commitBatch(ops), maxBatch: opts.maxBatch });
  }

  static open(opts: SqliteStoreOptions): SqliteStore {
    const db = openDatabase(opts.path, { durability: opts.durability ?? 'full', lockTimeoutMs: opts.lockTimeoutMs });
    return new SqliteStore(db, opts);
  }

  create(key: string, value: string): Promise<WriteResult> {
    return this.write({ kind: 'create', key, value });
  }

  update(key: string, value: string, expectedRevision: number): Promise<WriteResult> {
    return this.write({ kind: 'update', key, value, expectedRevision });
  }

  delete(key: string, opts: { expectedRevision?: number } = {}): Promise<WriteResult> {
    return this.write({ kind: 'delete', key, expectedRevision: opts.expectedRevision });
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.checkOpen();
    const rev = this.readRevision(opts.revision);
    return rev === this.rev ? this.reads.latest(key) : this.reads.at(key, rev);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const rev = this.readRevision(opts.revision);
    const page = this.reads.list(prefix, {
      rev: rev === this.rev ? undefined : rev,
      limit: opts.limit,
      startAfter: opts.startAfter,
    });
    return { kvs: page.kvs, revision: rev, more: page.more, remaining: page.remaining };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    return this.reads.count(prefix);
  }

  /**
   * Replays the history after opts.afterRevision (read synchronously, so nothing can slip in between) and then
   * follows live commits. Throws StoreError 'Compacted' when that history is gone and 'FutureRevision' when
   * afterRevision has not happened yet (it does not wait). The replay is held in memory until delivered; the
   * compactor's retention window bounds it.
   */
  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void): Watch {
    this.checkOpen();
    const after = opts.afterRevision;
    if (!Number.isSafeInteger(after) || after < 0) throw new RangeError(`invalid afterRevision ${after}`);
    if (after === 0) return this.hub.subscribe(prefix, { throughRevision: this.rev }, onEvent);
    if (after < this.compacted) {
      throw new StoreError(
        'Compacted',
        `revision ${after} has been compacted (oldest available: ${this.compacted})`,
        this.compacted,
      );
    }
    if (after > this.rev) throw new StoreError('FutureRevision', `revision ${after} is ahead of ${this.rev}`);
    const replay = this.reads.replay(prefix, after);
    return this.hub.subscribe(prefix, { replay, throughRevision: this.rev }, onEvent);
  }

  compact(revision: number): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    const run = this.compacting.catch(() => {}).then(() => this.compactTo(revision));
    this.compacting = run;
    return run;
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
    this.commits.flushAll();
    await this.compacting.catch(() => {});
    // Events of the final commits have been delivered by now (their microtasks ran before this continuation).
    this.hub.stopAll();
    try {
      if (this.db.open && !this.db.memory) this.compaction.checkpoint();
    } finally {
      this.db.close();
    }
  }

  private write(op: WriteOp): Promise<WriteResult> {
    if (this.closed) return Promise.reject(closedError());
    return this.commits.enqueue(op);
  }

  /** Runs one batch as one transaction; on success advances the revision and tells the watchers. */
  private commitBatch(ops: WriteOp[]): WriteResult[] {
    const observe = this.trace || this.onCommit !== undefined;
    const t0 = observe ? performance.now() : 0;
    const applied = this.applyBatch.immediate(ops, this.rev + 1);
    const events: WatchEvent[] = [];
    for (const a of applied) if (a.event) events.push(a.event);
    if (events.length) this.rev = events[events.length - 1]!.kv.modRevision;
    this.hub.publish(events);
    if (observe) {
      const info: CommitInfo = { ops: ops.length, changed: events.length, revision: this.rev, ms: performance.now() - t0 };
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
    return applied.map((a) => a.result);
  }

  private async compactTo(revision: number): Promise<void> {
    if (this.closed) throw closedError();
    if (!Number.isSafeInteger(revision) || revision < 0) throw new RangeError(`invalid revision ${revision}`);
    if (revision > this.rev) throw new StoreError('FutureRevision', `revision ${revision} is ahead of ${this.rev}`);
    if (revision <= this.compacted) return;
    const t0 = performance.now();
    let removed = 0;
    while (this.compacted < revision) {
      const hi = Math.min(this.compacted + this.compactionChunk, revision);
      removed += this.compaction.compactRange(this.compacted, hi);
      this.compacted = hi;
      if (this.compacted < revision) {
        // Let writes and reads run between chunks.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.closed) throw closedError();
      }
    }
    this.compaction.reclaim();
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

function traceEnabled(): boolean {
  return (process.env.K1S_TRACE ?? '').split(/[\s,]+/).includes('store');
}
