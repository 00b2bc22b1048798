// How SqliteStore commits: a writer takes writes and compaction steps and reports each committed batch back to the
// store (which advances its revision and tells the watchers). InlineWriter commits on the calling thread through
// the store's own connection; ThreadWriter (thread.ts) hands the work to a writer thread.
import type Database from 'better-sqlite3';
import { GroupCommit } from '../group-commit.js';
import { SqliteCompaction } from './compaction.js';
import { SqliteWrites, type StoredWriteResult, type WriteOp, type WrittenEvent, batchTransaction, type BatchTransaction } from './writes.js';

/** One committed transaction. */
export interface Committed {
  /** writes in the transaction (including the ones whose precondition failed) */
  ops: number;
  /** the changes, in revision order */
  events: WrittenEvent[];
  /** time spent applying and committing */
  ms: number;
}

export interface StoreWriter {
  write(op: WriteOp): Promise<StoredWriteResult>;
  /** compacts (lo, hi] in one transaction; resolves to the number of rows removed */
  compactRange(lo: number, hi: number): Promise<number>;
  /** gives freed pages back and empties the WAL */
  reclaim(): Promise<void>;
  /** starts committing everything queued now (close) */
  flush(): void;
  /** waits for the queued work, checkpoints and lets go of the write connection */
  close(): Promise<void>;
  /** true when the database may hold commits the store has not been told about yet */
  unreported(): boolean;
  /** reports, synchronously, the commits that are done */
  drain(): void;
}

export interface WriterOptions {
  maxBatch?: number;
  onCommitted(c: Committed): void;
}

export class InlineWriter implements StoreWriter {
  private readonly writes: SqliteWrites;
  private readonly compaction: SqliteCompaction;
  private readonly commits: GroupCommit<WriteOp, StoredWriteResult>;
  private readonly applyBatch: BatchTransaction;

  constructor(
    private readonly db: Database.Database,
    private readonly opts: WriterOptions & { nextRevision(): number },
  ) {
    this.writes = new SqliteWrites(db);
    this.compaction = new SqliteCompaction(db);
    this.applyBatch = batchTransaction(db, this.writes);
    this.commits = new GroupCommit({ commit: (ops) => this.commitBatch(ops), maxBatch: opts.maxBatch });
  }

  write(op: WriteOp): Promise<StoredWriteResult> {
    return this.commits.enqueue(op);
  }

  async compactRange(lo: number, hi: number): Promise<number> {
    return this.compaction.compactRange(lo, hi);
  }

  async reclaim(): Promise<void> {
    this.compaction.reclaim();
  }

  flush(): void {
    this.commits.flushAll();
  }

  async close(): Promise<void> {
    this.commits.flushAll();
    if (this.db.open && !this.db.memory) this.compaction.checkpoint();
  }

  unreported(): boolean {
    return false; // commits happen synchronously, and are reported within the same call
  }

  drain(): void {}

  /** Runs one batch as one transaction (one fsync). */
  private commitBatch(ops: WriteOp[]): StoredWriteResult[] {
    const t0 = performance.now();
    const applied = this.applyBatch.immediate(ops, this.opts.nextRevision());
    const events: WrittenEvent[] = [];
    for (const a of applied) if (a.event) events.push(a.event);
    this.opts.onCommitted({ ops: ops.length, events, ms: performance.now() - t0 });
    return applied.map((a) => a.result);
  }
}
