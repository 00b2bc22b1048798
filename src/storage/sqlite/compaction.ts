// Compaction of the log. Compacting to R keeps, for every key, its newest row at or below R unless that row is a
// tombstone, and every row above R; so reads at any revision >= R and watches from R on are unaffected.
// Row r is superseded at R exactly when its successor (the row whose prev_rev is r) is at or below R.
import type Database from 'better-sqlite3';

const pause = new Int32Array(new SharedArrayBuffer(4));

export class SqliteCompaction {
  private readonly deleteSuperseded: Database.Statement;
  private readonly deleteTombstones: Database.Statement;
  private readonly setCompacted: Database.Statement;
  private readonly step: Database.Transaction<(lo: number, hi: number) => number>;

  constructor(private readonly db: Database.Database) {
    this.deleteSuperseded = db.prepare(
      'DELETE FROM log WHERE rev IN (SELECT prev_rev FROM log WHERE rev > ? AND rev <= ? AND prev_rev > 0)',
    );
    this.deleteTombstones = db.prepare('DELETE FROM log WHERE rev > ? AND rev <= ? AND deleted = 1');
    this.setCompacted = db.prepare("UPDATE meta SET value = ? WHERE name = 'compacted'");
    this.step = db.transaction((lo: number, hi: number) => {
      // Predecessors first: the tombstones' own prev_rev links are needed to find the rows they supersede.
      const n = this.deleteSuperseded.run(lo, hi).changes + this.deleteTombstones.run(lo, hi).changes;
      this.setCompacted.run(hi);
      return n;
    });
  }

  /**
   * Compacts the revisions in (lo, hi], given that everything up to lo is already compacted, and records hi as the
   * compacted revision. Returns the number of rows removed.
   */
  compactRange(lo: number, hi: number): number {
    return this.step.immediate(lo, hi);
  }

  /** Returns freed pages to the file system and empties the WAL, so the files shrink after a compaction. */
  reclaim(): void {
    this.db.pragma('incremental_vacuum');
    this.checkpoint();
  }

  /**
   * Checkpoints and truncates the WAL. A checkpoint the checkpointer thread is running meanwhile makes SQLite answer
   * busy at once (no busy handler for that lock), so a busy answer is retried for up to 100 ms: else the WAL stays as large as
   * the history it held.
   */
  checkpoint(): void {
    for (let i = 0; i < 20; i++) {
      const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      if (!r?.busy) return;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}
