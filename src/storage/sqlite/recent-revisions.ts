// The latest revision of the keys committed last, so that revision() answers a key written moments ago without
// SQLite: a writer reads the revision of a key it wrote or saw written (a pod bound, then its status written).
import type { Revision, WatchEvent } from '../types.js';

/**
 * Two generations: every commit passes through remember(), so an entry is always the key's latest (a deleted key
 * has none in either). When `recent` is full it becomes `older` and the previous `older` is dropped whole (a Map
 * used as a queue, its first key deleted at every write, costs a scan over the deleted slots at every keys().next()).
 */
export class RecentRevisions {
  private recent = new Map<string, Revision>();
  private older = new Map<string, Revision>();

  constructor(private readonly size: number) {}

  get(key: string): Revision | undefined {
    const known = this.recent.get(key) ?? this.older.get(key);
    return known && { modRevision: known.modRevision, createRevision: known.createRevision };
  }

  remember(events: readonly WatchEvent[]): void {
    for (const { type, kv } of events) {
      if (type === 'DELETED') {
        this.recent.delete(kv.key);
        this.older.delete(kv.key);
        continue;
      }
      // `recent` is looked at first: an older entry of the key is shadowed
      if (this.recent.size >= this.size) {
        this.older = this.recent;
        this.recent = new Map();
      }
      this.recent.set(kv.key, { modRevision: kv.modRevision, createRevision: kv.createRevision });
    }
  }
}
