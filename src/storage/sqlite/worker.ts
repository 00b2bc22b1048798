// The writer thread of the threaded SQLite store. It owns the write connection, so the fsync of each commit blocks
// this thread, not the main thread's event loop. Requests are answered in the order they came; write batches that
// queued up while a commit was syncing are merged into one transaction, so group commit works across messages.
// The same script runs the inline store's checkpointer thread (checkpoint-thread.ts).
import {
  isMainThread,
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  workerData,
  type MessagePort,
} from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { runCheckpointer, type CheckpointerConfig, type CheckpointerData } from './checkpoint-thread.js';
import { SqliteCompaction } from './compaction.js';
import { openDatabase, readCurrentRevision, type Durability } from './schema.js';
import { SqliteWrites, type Applied, type StoredWriteResult, type WriteOp, type WrittenEvent, batchTransaction, type BatchTransaction } from './writes.js';
import { errorMessage } from '../types.js';

export type Request =
  | { t: 'write'; id: number; ops: WriteOp[] }
  | { t: 'compact'; id: number; lo: number; hi: number }
  | { t: 'reclaim'; id: number }
  | { t: 'close'; id: number };

/** a write's result, or the message of the error that made it fail */
export type Outcome = StoredWriteResult | { error: string };

export type Reply =
  | { t: 'committed'; ids: number[]; outcomes: Outcome[][]; ops: number; events: WrittenEvent[]; ms: number }
  | { t: 'done'; id: number; value?: number; error?: string }
  | { t: 'fatal'; error: string };

export interface WriterConfig {
  path: string;
  durability: Durability;
  lockTimeoutMs?: number;
  maxBatch: number;
}

interface WriterData extends WriterConfig {
  k1sSqliteWriter: true;
  port: MessagePort;
}

/** Starts a writer thread; requests and replies travel over the returned port. */
export function spawnWriter(config: WriterConfig): { worker: Worker; port: MessagePort } {
  return spawnThread((port) => ({ ...config, k1sSqliteWriter: true, port }) satisfies WriterData);
}

/** Starts a checkpointer thread (the same script); requests and replies travel over the returned port. */
export function spawnCheckpointer(config: CheckpointerConfig): { worker: Worker; port: MessagePort } {
  return spawnThread((port) => ({ ...config, k1sSqliteCheckpointer: true, port }) satisfies CheckpointerData);
}

function spawnThread(data: (port: MessagePort) => object): { worker: Worker; port: MessagePort } {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(writerURL(), { workerData: data(port2), transferList: [port2] });
  return { worker, port: port1 };
}

/**
 * The thread's script: this module itself in the tsc build; dist/sqlite-writer.cjs, a small bundle of this module
 * alone (scripts/bundle.mjs, scripts/build-sea.mjs), when this code runs from the single-file bundle or the standalone
 * executable, whose import.meta.url names a .cjs file in dist/. Loading the whole CLI bundle in the thread instead
 * took ~250 ms, which every start with the writer thread waited for before its first commit.
 */
export function writerURL(base = import.meta.url): URL {
  return base.endsWith('.cjs') ? new URL('./sqlite-writer.cjs', base) : new URL(base);
}

class Writer {
  private rev: number;
  private readonly writes: SqliteWrites;
  private readonly compaction: SqliteCompaction;
  private readonly applyBatch: BatchTransaction;

  constructor(
    private readonly db: Database.Database,
    private readonly port: MessagePort,
    private readonly maxBatch: number,
  ) {
    this.rev = readCurrentRevision(db);
    this.writes = new SqliteWrites(db);
    this.compaction = new SqliteCompaction(db);
    this.applyBatch = batchTransaction(db, this.writes);
  }

  handle(req: Request): void {
    let next: Request | undefined = req;
    while (next) next = this.run(next);
  }

  /** Runs one request; returns a request it took off the port but did not run. */
  private run(req: Request): Request | undefined {
    switch (req.t) {
      case 'write':
        return this.commitWrites(req);
      case 'compact':
        this.answer(req.id, () => this.compaction.compactRange(req.lo, req.hi));
        return undefined;
      case 'reclaim':
        this.answer(req.id, () => this.compaction.reclaim());
        return undefined;
      case 'close':
        this.answer(req.id, () => {
          this.compaction.checkpoint();
          this.db.close();
        });
        this.port.close(); // the thread exits: nothing is left to keep it alive
        return undefined;
    }
  }

  /** Commits req and the write batches queued behind it (up to maxBatch writes) in one transaction. */
  private commitWrites(req: Request & { t: 'write' }): Request | undefined {
    const batches = [req];
    let n = req.ops.length;
    let rest: Request | undefined;
    while (n < this.maxBatch) {
      const m = receiveMessageOnPort(this.port)?.message as Request | undefined;
      if (!m) break;
      if (m.t !== 'write' || n + m.ops.length > this.maxBatch) {
        rest = m;
        break;
      }
      batches.push(m);
      n += m.ops.length;
    }
    const t0 = performance.now();
    const events: WrittenEvent[] = [];
    const all = this.apply(batches.length === 1 ? req.ops : batches.flatMap((b) => b.ops), events);
    const ms = performance.now() - t0;
    let i = 0;
    const outcomes = batches.map((b) => all.slice(i, (i += b.ops.length)));
    const reply: Reply = { t: 'committed', ids: batches.map((b) => b.id), outcomes, ops: n, events, ms };
    this.port.postMessage(reply);
    return rest;
  }

  private apply(ops: WriteOp[], events: WrittenEvent[]): Outcome[] {
    let applied: Applied[];
    try {
      applied = this.applyBatch.immediate(ops, this.rev + 1);
    } catch (e) {
      if (ops.length === 1) return [{ error: errorMessage(e) }];
      // The whole transaction rolled back; retry one by one so only the failing write reports the error.
      return ops.flatMap((op) => this.apply([op], events));
    }
    for (const a of applied) {
      if (!a.event) continue;
      events.push(a.event);
      this.rev = a.event.kv.modRevision;
    }
    return applied.map((a) => a.result);
  }

  private answer(id: number, fn: () => number | void): void {
    let reply: Reply;
    try {
      const value = fn();
      reply = { t: 'done', id, value: typeof value === 'number' ? value : undefined };
    } catch (e) {
      reply = { t: 'done', id, error: errorMessage(e) };
    }
    this.port.postMessage(reply);
  }
}

function runWriter(data: WriterData): void {
  let db: Database.Database;
  try {
    db = openDatabase(data.path, { durability: data.durability, lockTimeoutMs: data.lockTimeoutMs, locking: 'normal' });
  } catch (e) {
    data.port.postMessage({ t: 'fatal', error: errorMessage(e) } satisfies Reply);
    data.port.close();
    return;
  }
  const writer = new Writer(db, data.port, data.maxBatch);
  data.port.on('message', (req: Request) => writer.handle(req));
}

if (!isMainThread) {
  const data = workerData as Partial<WriterData & CheckpointerData> | null;
  if (data?.k1sSqliteWriter === true) runWriter(data as WriterData);
  else if (data?.k1sSqliteCheckpointer === true) runCheckpointer(data as CheckpointerData);
}
