// Applying writes inside a transaction. Ops of a batch are applied one after another against the state left by
// the previous ones, so compare-and-swap checks are exactly as if each write had its own transaction.
import type Database from 'better-sqlite3';
import { LATEST_ONE, LATEST_REVISION, toStoredKeyValue, type StoredKeyValue, type StoredValue } from './reads.js';
import type { WatchEventType } from '../types.js';

/**
 * `value` is what watchers and the writer see; `stored`, when given, is what the log holds instead (the value
 * encrypted at rest), so that a commit's events need no decryption.
 */
export type WriteOp =
  | { kind: 'create'; key: string; value: string; stored?: StoredValue }
  | { kind: 'update'; key: string; value: string; expectedRevision: number; stored?: StoredValue }
  | { kind: 'delete'; key: string; expectedRevision?: number };

/** A write's result; values read from the log (a delete's last value, a conflict's current one) as stored. */
export type StoredWriteResult = { ok: true; kv: StoredKeyValue } | { ok: false; current?: StoredKeyValue };

/**
 * A committed change as the writer knows it. An update's previous value is not read: watchers mostly have that
 * revision decoded already, so the store reads it only when one asks (`value` absent).
 */
export interface WrittenEvent {
  type: WatchEventType;
  kv: StoredKeyValue;
  prev?: Omit<StoredKeyValue, 'value'> & { value?: StoredValue };
}

export interface Applied {
  result: StoredWriteResult;
  /** the change, when the write succeeded */
  event?: WrittenEvent;
}

interface CurrentRow {
  key: string;
  rev: number;
  create_rev: number;
  value: StoredValue;
}

export class SqliteWrites {
  private readonly getCurrent: Database.Statement;
  private readonly getCurrentRevision: Database.Statement;
  private readonly lastRev: Database.Statement;
  private readonly insertLog: Database.Statement;
  private readonly insertCurrent: Database.Statement;
  private readonly updateCurrent: Database.Statement;
  private readonly deleteCurrent: Database.Statement;

  constructor(db: Database.Database) {
    this.getCurrent = db.prepare(LATEST_ONE);
    this.getCurrentRevision = db.prepare(LATEST_REVISION);
    this.lastRev = db.prepare('SELECT rev FROM log WHERE key = ? ORDER BY prev_rev DESC LIMIT 1').pluck();
    this.insertLog = db.prepare(
      'INSERT INTO log (rev, key, create_rev, prev_rev, deleted, value) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.insertCurrent = db.prepare('INSERT INTO current (key, rev) VALUES (?, ?)');
    this.updateCurrent = db.prepare('UPDATE current SET rev = ? WHERE key = ?');
    this.deleteCurrent = db.prepare('DELETE FROM current WHERE key = ?');
  }

  /**
   * A create: the key's last log row first. With none, the key has no live row either (a live key's current row
   * names a log row of that key), so a new key — most creates — costs one index lookup, not two.
   */
  private create(op: Extract<WriteOp, { kind: 'create' }>, rev: number): Applied {
    const lastRev = this.lastRev.get(op.key) as number | undefined;
    if (lastRev !== undefined) {
      const row = this.getCurrent.get(op.key) as CurrentRow | undefined;
      if (row) return { result: { ok: false, current: toStoredKeyValue(row) } };
    }
    // A re-created key continues its chain after the tombstone, keeping (key, prev_rev) unique.
    this.insertLog.run(rev, op.key, rev, lastRev ?? 0, 0, op.stored ?? op.value);
    this.insertCurrent.run(op.key, rev);
    const kv: StoredKeyValue = { key: op.key, value: op.value, modRevision: rev, createRevision: rev };
    return { result: { ok: true, kv }, event: { type: 'ADDED', kv } };
  }

  /** Applies op as revision `rev` if its precondition holds; the caller advances the revision only on success. */
  apply(op: WriteOp, rev: number): Applied {
    if (op.kind === 'create') return this.create(op, rev);
    if (op.kind === 'update') {
      const cur = this.getCurrentRevision.get(op.key) as { rev: number; create_rev: number } | undefined;
      if (!cur || cur.rev !== op.expectedRevision) return { result: this.conflict(op.key) };
      this.insertLog.run(rev, op.key, cur.create_rev, cur.rev, 0, op.stored ?? op.value);
      this.updateCurrent.run(rev, op.key);
      const kv: StoredKeyValue = { key: op.key, value: op.value, modRevision: rev, createRevision: cur.create_rev };
      return { result: { ok: true, kv }, event: { type: 'MODIFIED', kv, prev: { key: op.key, modRevision: cur.rev, createRevision: cur.create_rev } } };
    }
    const row = this.getCurrent.get(op.key) as CurrentRow | undefined;
    const cur = row && toStoredKeyValue(row);
    switch (op.kind) {
      case 'delete': {
        if (!cur) return { result: { ok: false } };
        if (op.expectedRevision !== undefined && cur.modRevision !== op.expectedRevision) {
          return { result: { ok: false, current: cur } };
        }
        this.insertLog.run(rev, op.key, cur.createRevision, cur.modRevision, 1, cur.value);
        this.deleteCurrent.run(op.key);
        const kv: StoredKeyValue = { key: op.key, value: cur.value, modRevision: rev, createRevision: cur.createRevision };
        return { result: { ok: true, kv }, event: { type: 'DELETED', kv, prev: cur } };
      }
    }
  }

  /** A failed precondition: the key's current value, if any. */
  private conflict(key: string): StoredWriteResult {
    const row = this.getCurrent.get(key) as CurrentRow | undefined;
    return row ? { ok: false, current: toStoredKeyValue(row) } : { ok: false };
  }
}

export type BatchTransaction = Database.Transaction<(ops: WriteOp[], firstRev: number) => Applied[]>;

/** One transaction applying a batch in order; only successful writes consume a revision. */
export function batchTransaction(db: Database.Database, writes: SqliteWrites): BatchTransaction {
  return db.transaction((ops: WriteOp[], firstRev: number) => {
    let rev = firstRev;
    return ops.map((op) => {
      const a = writes.apply(op, rev);
      if (a.result.ok) rev++;
      return a;
    });
  });
}
