// Completion indexes of Indexed Jobs (indexed_job_utils.go): ordered intervals as status.completedIndexes and
// status.failedIndexes spell them ("1,3-5,7"), and the index annotation on pods.
import type { KObject } from '../../api/types.js';
import { COMPLETION_INDEX } from './status.js';

export interface Interval {
  first: number;
  last: number;
}

/** Sorted, non-overlapping, non-adjacent intervals. */
export class Indexes {
  constructor(readonly intervals: Interval[] = []) {}

  /** parseIndexesFromString: bad parts and indexes ≥ completions are skipped. */
  static parse(text: string | null | undefined, completions: number): Indexes {
    const ranges: Interval[] = [];
    for (const part of (text ?? '').split(',')) {
      if (!part) continue;
      const m = /^(\d+)(?:-(\d+))?$/.exec(part);
      if (!m) continue;
      const first = Number(m[1]);
      const last = Math.min(m[2] === undefined ? first : Number(m[2]), completions - 1);
      if (first > last) continue;
      ranges.push({ first, last });
    }
    return new Indexes().withIntervals(ranges);
  }

  private withIntervals(add: Interval[]): Indexes {
    const all = [...this.intervals, ...add].sort((a, b) => a.first - b.first);
    const merged: Interval[] = [];
    for (const iv of all) {
      const prev = merged[merged.length - 1];
      if (prev && iv.first <= prev.last + 1) prev.last = Math.max(prev.last, iv.last);
      else merged.push({ ...iv });
    }
    return new Indexes(merged);
  }

  /** withOrderedIndexes: a new set with these indexes added. */
  with(indexes: Iterable<number>): Indexes {
    return this.withIntervals([...indexes].map((i) => ({ first: i, last: i })));
  }

  has(ix: number): boolean {
    return this.intervals.some((iv) => iv.first <= ix && ix <= iv.last);
  }

  total(): number {
    return this.intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);
  }

  /** How many of `other`'s indexes are also in this set. */
  countIn(other: Indexes): number {
    let n = 0;
    for (const a of this.intervals) {
      for (const b of other.intervals) {
        const lo = Math.max(a.first, b.first);
        const hi = Math.min(a.last, b.last);
        if (lo <= hi) n += hi - lo + 1;
      }
    }
    return n;
  }

  /** Two adjacent indexes print as "a,b", longer runs as "a-b". */
  toString(): string {
    return this.intervals
      .map((iv) => (iv.first === iv.last ? `${iv.first}` : iv.last === iv.first + 1 ? `${iv.first},${iv.last}` : `${iv.first}-${iv.last}`))
      .join(',');
  }
}

/** The pod's completion index from its annotation, or -1 (getCompletionIndex). */
export function completionIndex(pod: KObject): number {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX];
  if (v === undefined || !/^\d+$/.test(v)) return -1;
  const n = Number(v);
  return Number.isSafeInteger(n) && n <= 2147483647 ? n : -1;
}

/** The first `count` indexes below `completions` that no pod covers yet (firstPendingIndexes). */
export function firstPendingIndexes(count: number, completions: number, taken: (ix: number) => boolean): number[] {
  const out: number[] = [];
  for (let ix = 0; ix < completions && out.length < count; ix++) if (!taken(ix)) out.push(ix);
  return out;
}
