// Dumping a SQLite store's live keys and loading such a dump into an empty database (see ../dump.ts). A load keeps
// each key's revisions (its resourceVersion) and marks everything up to the dump's revision compacted: the copy has
// no history, so a watch or a read from before it gets 410 Gone, as after a compaction, and clients relist.
import type Database from 'better-sqlite3';
import type { Dump, DumpRow } from '../dump.js';
import { readCurrentRevision } from './schema.js';

interface Row {
  key: string;
  rev: number;
  create_rev: number;
  value: string | Uint8Array;
}

/** The live keys of db, in key order, at its current revision (the caller keeps writers away: lock or copy). */
export function dumpSqlite(db: Database.Database, opts: { pageSize?: number } = {}): Dump {
  const pageSize = opts.pageSize ?? 500;
  return {
    revision: readCurrentRevision(db),
    async *pages() {
      const rows = db.prepare('SELECT c.key, l.rev, l.create_rev, l.value FROM current c JOIN log l ON l.rev = c.rev ORDER BY c.key').iterate() as IterableIterator<Row>;
      let page: DumpRow[] = [];
      for (const r of rows) {
        page.push({ key: r.key, value: r.value, modRevision: r.rev, createRevision: r.create_rev });
        if (page.length >= pageSize) {
          yield page;
          page = [];
        }
      }
      if (page.length) yield page;
    },
  };
}

/** How many live keys db holds. */
export function countSqlite(db: Database.Database): number {
  return db.prepare('SELECT count(*) FROM current').pluck().get() as number;
}

/**
 * Loads a dump into db (opened with openDatabase, holding no keys), one transaction per page. Revisions are the
 * dump's; a revision two keys share (etcd writes several keys in one transaction when another program does) is a
 * row id SQLite cannot repeat, so the later keys get new revisions after the dump's.
 */
export async function loadSqlite(db: Database.Database, dump: Dump, onPage?: (copied: number) => void): Promise<{ copied: number; revision: number }> {
  if (countSqlite(db)) throw new Error('the database already holds keys');
  const insertLog = db.prepare('INSERT OR IGNORE INTO log (rev, key, create_rev, prev_rev, deleted, value) VALUES (?, ?, ?, 0, 0, ?)');
  const insertCurrent = db.prepare('INSERT INTO current (key, rev) VALUES (?, ?)');
  const clashes: DumpRow[] = [];
  let top = dump.revision;
  const write = db.transaction((rows: DumpRow[]) => {
    for (const r of rows) {
      if (insertLog.run(r.modRevision, r.key, r.createRevision, r.value).changes === 0) clashes.push(r);
      else insertCurrent.run(r.key, r.modRevision);
      top = Math.max(top, r.modRevision);
    }
  });
  let copied = 0;
  for await (const page of dump.pages()) {
    write(page);
    copied += page.length;
    onPage?.(copied - clashes.length);
  }
  db.transaction(() => {
    for (const r of clashes) {
      insertLog.run(++top, r.key, Math.min(r.createRevision, top), r.value);
      insertCurrent.run(r.key, top);
    }
    db.prepare("UPDATE meta SET value = ? WHERE name = 'compacted'").run(dump.revision);
  })();
  if (clashes.length) onPage?.(copied);
  return { copied, revision: readCurrentRevision(db) };
}
