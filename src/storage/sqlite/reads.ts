// Read queries. The latest state comes from `current` (joined to `log` for the value); reads at an older revision
// walk `log`, where the value of a key at revision R is its row with rev <= R that has no successor at or below R
// (and is not a tombstone). Within a key, the (key, prev_rev) index is in revision order.
import type Database from 'better-sqlite3';
import { keyRange, type KeyRange } from '../key-range.js';
import type { KeyValue, Revision, WatchEvent } from '../types.js';

/** A value as the log holds it: JSON text, or (encrypted at rest) a transformer's bytes, a BLOB. */
export type StoredValue = string | Uint8Array;

/** A key's revision with its value as stored. */
export interface StoredKeyValue extends Omit<KeyValue, 'value'> {
  value: StoredValue;
}

/** Stored value → the value (decryption at rest); throws when no transformer can read it. */
export type ValueDecoder = (key: string, stored: StoredValue) => string;

interface ValueRow {
  key: string;
  rev: number;
  create_rev: number;
  value: StoredValue;
}

interface LogRow extends ValueRow {
  deleted: number;
}

interface ReplayRow extends LogRow {
  p_rev: number | null;
  p_create_rev: number | null;
  p_deleted: number | null;
  p_value: StoredValue | null;
}

export interface Page {
  kvs: KeyValue[];
  more: boolean;
  remaining: number;
}

export function toStoredKeyValue(r: ValueRow): StoredKeyValue {
  return { key: r.key, value: r.value, modRevision: r.rev, createRevision: r.create_rev };
}

/** A row of `log` at or below R with no successor at or below R: the key's state at R. */
const LIVE_AT = `l.rev <= @rev AND l.deleted = 0
  AND NOT EXISTS (SELECT 1 FROM log n WHERE n.key = l.key AND n.prev_rev = l.rev AND n.rev <= @rev)`;

/** The latest value of one key. */
export const LATEST_ONE =
  'SELECT l.key, l.rev, l.create_rev, l.value FROM current c JOIN log l ON l.rev = c.rev WHERE c.key = ?';

/** The latest revision of one key, without its value (the log row's value is its last column: never read). */
export const LATEST_REVISION = 'SELECT l.rev, l.create_rev FROM current c JOIN log l ON l.rev = c.rev WHERE c.key = ?';

export class SqliteReads {
  private readonly cache = new Map<string, Database.Statement>();
  private readonly getLatest: Database.Statement;
  private readonly getLatestRevision: Database.Statement;
  private readonly getRevisionAt: Database.Statement;
  private readonly getAtRev: Database.Statement;
  private readonly getValue: Database.Statement;
  private readonly replayRows: Database.Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly decode: ValueDecoder,
  ) {
    this.getLatest = db.prepare(LATEST_ONE);
    this.getLatestRevision = db.prepare(LATEST_REVISION);
    this.getRevisionAt = db.prepare('SELECT rev, create_rev, deleted FROM log WHERE key = ? AND rev <= ? ORDER BY prev_rev DESC LIMIT 1');
    this.getValue = db.prepare('SELECT value FROM log WHERE rev = ?').pluck();
    this.getAtRev = db.prepare(
      'SELECT key, rev, create_rev, deleted, value FROM log WHERE key = ? AND rev <= ? ORDER BY prev_rev DESC LIMIT 1',
    );
    // Scan by revision (the unary + keeps SQLite off the key index): a watch resumes from a recent revision, so
    // the rows after it are few, while the history under a broad prefix like /registry/pods/ can be long.
    this.replayRows = db.prepare(
      `SELECT l.key, l.rev, l.create_rev, l.deleted, l.value,
              p.rev AS p_rev, p.create_rev AS p_create_rev, p.deleted AS p_deleted, p.value AS p_value
       FROM log l LEFT JOIN log p ON p.rev = l.prev_rev
       WHERE l.rev > @after AND l.rev <= @through AND +l.key >= @prefix AND +l.key < CAST(@end AS TEXT)
       ORDER BY l.rev`,
    );
  }

  latest(key: string): KeyValue | undefined {
    const r = this.getLatest.get(key) as ValueRow | undefined;
    return r && this.toKeyValue(r);
  }

  private toKeyValue(r: ValueRow): KeyValue {
    return { key: r.key, value: this.decode(r.key, r.value), modRevision: r.rev, createRevision: r.create_rev };
  }

  latestRevision(key: string): Revision | undefined {
    const r = this.getLatestRevision.get(key) as { rev: number; create_rev: number } | undefined;
    return r && { modRevision: r.rev, createRevision: r.create_rev };
  }

  revisionAt(key: string, rev: number): Revision | undefined {
    const r = this.getRevisionAt.get(key, rev) as { rev: number; create_rev: number; deleted: number } | undefined;
    return r && !r.deleted ? { modRevision: r.rev, createRevision: r.create_rev } : undefined;
  }

  /** The value of the log row of revision `rev` (a tombstone's is the last value); undefined once compacted. */
  valueAt(rev: number, key: string): string | undefined {
    const v = this.storedAt(rev);
    return v === undefined ? undefined : this.decode(key, v);
  }

  /** valueAt as stored. */
  storedAt(rev: number): StoredValue | undefined {
    return this.getValue.get(rev) as StoredValue | undefined;
  }

  at(key: string, rev: number): KeyValue | undefined {
    const r = this.getAtRev.get(key, rev) as LogRow | undefined;
    return r && !r.deleted ? this.toKeyValue(r) : undefined;
  }

  /** One page of keys under prefix; rev undefined reads the latest state. */
  list(prefix: string, opts: { rev?: number; limit?: number; startAfter?: string }): Page {
    const range = keyRange(prefix, opts.startAfter);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    const params = this.params(range, opts.rev);
    const rows = (
      limit === undefined
        ? this.stmt('list', range, opts.rev).all(params)
        : this.stmt('list', range, opts.rev, { limited: true }).all({ ...params, limit: limit + 1 })
    ) as ValueRow[];
    const more = limit !== undefined && rows.length > limit;
    if (more) rows.length = limit;
    let remaining = 0;
    if (more) {
      const rest = { from: rows[rows.length - 1]!.key, exclusive: true, end: range.end };
      remaining = this.countRange(rest, opts.rev);
    }
    return { kvs: rows.map((r) => this.toKeyValue(r)), more, remaining };
  }

  count(prefix: string, rev?: number): number {
    return this.countRange(keyRange(prefix), rev);
  }

  /**
   * Every change under prefix in (after, through], oldest first, with the value each change replaced. (The file
   * may already hold later commits, not yet published to watchers, when another connection writes.)
   */
  replay(prefix: string, after: number, through: number): WatchEvent[] {
    const end = keyRange(prefix).end;
    const rows = this.replayRows.all({ after, through, prefix, end }) as ReplayRow[];
    return rows.map((r) => {
      const kv = this.toKeyValue(r);
      const prev: KeyValue | undefined =
        r.p_rev !== null && !r.p_deleted
          ? { key: r.key, value: this.decode(r.key, r.p_value!), modRevision: r.p_rev, createRevision: r.p_create_rev! }
          : undefined;
      if (r.deleted) return prev ? { type: 'DELETED', kv, prev } : { type: 'DELETED', kv };
      if (r.create_rev === r.rev || !prev) return { type: 'ADDED', kv };
      return { type: 'MODIFIED', kv, prev };
    });
  }

  private countRange(range: KeyRange, rev?: number): number {
    const row = this.stmt('count', range, rev).get(this.params(range, rev)) as { n: number };
    return row.n;
  }

  private params(range: KeyRange, rev?: number): Record<string, unknown> {
    const p: Record<string, unknown> = { from: range.from, end: range.end };
    if (rev !== undefined) p.rev = rev;
    return p;
  }

  /** The statement for a list or count over a range, latest or at a revision; prepared once per shape. */
  private stmt(
    kind: 'list' | 'count',
    range: KeyRange,
    rev: number | undefined,
    opts: { limited?: boolean } = {},
  ): Database.Statement {
    const atRev = rev !== undefined;
    const lower = range.exclusive ? '>' : '>=';
    const id = `${kind}|${lower}|${atRev}|${opts.limited ?? false}`;
    let s = this.cache.get(id);
    if (s) return s;
    // Latest: range over current (c), value from log (l). At a revision: range over log's key index.
    const from = atRev ? 'log l' : 'current c JOIN log l ON l.rev = c.rev';
    const k = atRev ? 'l.key' : 'c.key';
    const where = `${k} ${lower} @from AND ${k} < CAST(@end AS TEXT)` + (atRev ? ` AND ${LIVE_AT}` : '');
    const sql =
      kind === 'count'
        ? `SELECT count(*) AS n FROM ${atRev ? 'log l' : 'current c'} WHERE ${where}`
        : `SELECT l.key, l.rev, l.create_rev, l.value FROM ${from} WHERE ${where} ORDER BY ${k}` +
          (opts.limited ? ' LIMIT @limit' : '');
    s = this.db.prepare(sql);
    this.cache.set(id, s);
    return s;
  }
}
