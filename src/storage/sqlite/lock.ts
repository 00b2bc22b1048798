// One k1s process per database file. The writer thread needs a second connection in the same process, so the
// database cannot use SQLite's exclusive locking mode; instead the store holds an exclusive transaction on a side
// file, <db>.lock (a tiny SQLite database of its own). That lock is the operating system's: it is gone with the
// process, kill -9 included, so there is no stale lock and no pid to check (pids repeat: every container's k1s can
// be pid 1). SQLite also keeps the connections of one process apart, so a second open in this process fails too.
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as typeof Database;

/** Takes the lock of the database at path, waiting up to timeoutMs for another owner; returns its release. */
export function lockDatabase(path: string, timeoutMs: number): () => void {
  if (path === ':memory:' || path === '') return () => {};
  const lock = new BetterSqlite3(`${path}.lock`, { timeout: timeoutMs });
  try {
    lock.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    lock.close();
    if (e instanceof Error && /database is locked/.test(e.message)) {
      throw new Error(`${path}: database is in use by another process`, { cause: e });
    }
    throw e;
  }
  return () => {
    if (!lock.open) return;
    // The file stays: removing it would let a waiting opener lock a file a third one no longer sees.
    try {
      lock.exec('ROLLBACK');
    } finally {
      lock.close();
    }
  };
}
