// Opening a k1s SQLite database: pragmas and schema.
//
// log:     one row per revision (INTEGER PRIMARY KEY = revision). Tombstones (deleted = 1) keep the last value so a
//          DELETED watch event can carry it. prev_rev links each row to the previous row of the same key, making
//          every key's history a chain. UNIQUE (key, prev_rev) means two writers can never both succeed a row, and,
//          since prev_rev grows along a chain, the same index orders each key's history by revision: it serves
//          reads at a past revision too, so each write updates one index only.
// current: key -> revision of its latest live row, so reads of the latest state are a range scan of a narrow table
//          (plus a primary-key lookup of the value) however long the history is. Narrow on purpose: writes land on
//          random keys, and every page a write touches is copied to the WAL at commit.
// meta:    the compacted revision (and the schema version).
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

// require() rather than import: the ESM loader would scan the CommonJS package for named exports first.
const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as typeof Database;

export type Durability = 'full' | 'normal';

export const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (
  rev        INTEGER PRIMARY KEY,
  key        TEXT    NOT NULL,
  create_rev INTEGER NOT NULL,
  prev_rev   INTEGER NOT NULL,
  deleted    INTEGER NOT NULL,
  value      TEXT    NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS log_key_prev ON log (key, prev_rev);
CREATE TABLE IF NOT EXISTS current (
  key TEXT    PRIMARY KEY,
  rev INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name  TEXT    PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

export interface OpenOptions {
  durability: Durability;
  /** how long to wait for another connection's lock (default 5000 ms) */
  lockTimeoutMs?: number;
  /**
   * 'exclusive' (default): this connection is the only one (it also lets WAL mode skip the shared-memory index);
   * 'normal': a reader and a writer connection share the file (the threaded writer).
   */
  locking?: 'exclusive' | 'normal';
  /**
   * WAL frames after which a commit of this connection checkpoints (SQLite's default 1000). A store whose
   * checkpoints run on a thread of their own sets it higher: its own then only catch up when that thread falls behind.
   */
  autocheckpoint?: number;
}

export function openDatabase(path: string, opts: OpenOptions): Database.Database {
  const db = new BetterSqlite3(path, { timeout: opts.lockTimeoutMs ?? 5000 });
  try {
    // Must precede the first table: auto_vacuum can only be chosen for an empty database (or by a full VACUUM).
    db.pragma('auto_vacuum = INCREMENTAL');
    // Exclusive locking: a second connection fails at open ("database is locked") instead of interleaving
    // revisions. (One process per file is also enforced by the store's lock file, see lock.ts.)
    if (opts.locking !== 'normal') db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    setSynchronous(db, opts.durability);
    db.pragma('cache_size = -32768'); // 32 MiB
    db.pragma('temp_store = MEMORY');
    // Trim the WAL back after a checkpoint that followed a burst of writes.
    db.pragma('journal_size_limit = 16777216');
    if (opts.autocheckpoint !== undefined) db.pragma(`wal_autocheckpoint = ${opts.autocheckpoint}`);
    // Take the write lock now rather than at the first write (with exclusive locking, it is kept).
    db.exec('BEGIN IMMEDIATE');
    db.exec(SCHEMA);
    db.prepare('INSERT OR IGNORE INTO meta (name, value) VALUES (?, ?)').run('schema', SCHEMA_VERSION);
    db.prepare('INSERT OR IGNORE INTO meta (name, value) VALUES (?, ?)').run('compacted', 0);
    db.exec('COMMIT');
    const version = readMeta(db, 'schema');
    if (version !== SCHEMA_VERSION) throw new Error(`unsupported k1s database schema version ${version}`);
    return db;
  } catch (e) {
    db.close();
    if (e instanceof Error && /database is locked/.test(e.message)) {
      throw new Error(`${path}: database is in use by another process`, { cause: e });
    }
    throw e;
  }
}

/**
 * A second connection to a database openDatabase has set up, for checkpoints only: checkpoints sync the WAL and the
 * database file as `durability` says (both levels sync them).
 */
export function openCheckpointConnection(path: string, opts: { durability: Durability; lockTimeoutMs?: number }): Database.Database {
  const db = new BetterSqlite3(path, { timeout: opts.lockTimeoutMs ?? 5000, fileMustExist: true });
  try {
    setSynchronous(db, opts.durability);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** FULL: the WAL is fsynced at every commit, so an acknowledged write survives power loss; NORMAL survives process
 * crashes only. */
function setSynchronous(db: Database.Database, durability: Durability): void {
  db.pragma(`synchronous = ${durability === 'normal' ? 'NORMAL' : 'FULL'}`);
}

export function readMeta(db: Database.Database, name: string): number {
  const row = db.prepare('SELECT value FROM meta WHERE name = ?').get(name) as { value: number } | undefined;
  return row?.value ?? 0;
}

/** The highest revision ever issued: compaction may have removed the newest tombstones, never the revision count. */
export function readCurrentRevision(db: Database.Database): number {
  const row = db.prepare('SELECT max(rev) AS rev FROM log').get() as { rev: number | null };
  return Math.max(row.rev ?? 0, readMeta(db, 'compacted'));
}
