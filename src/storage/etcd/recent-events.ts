// The store's memory of its latest events (as kube's watch cache keeps one): a watch that starts a little in the
// past, as every informer does after its list, is replayed from here at once and then follows the shared stream.
// Only a watch from further back needs a watcher of its own in etcd.
import type { WatchEvent } from '../types.js';

export class RecentEvents {
  private events: WatchEvent[] = [];
  /** every event after this revision (up to the newest) is held */
  private from: number;

  constructor(
    from: number,
    private readonly max: number,
  ) {
    this.from = from;
  }

  /** the revision after which the memory is complete */
  get start(): number {
    return this.from;
  }

  push(evs: readonly WatchEvent[]): void {
    for (const e of evs) this.events.push(e);
    if (this.events.length > this.max + this.max / 4) {
      const drop = this.events.length - this.max;
      this.from = this.events[drop - 1]!.kv.modRevision;
      this.events = this.events.slice(drop);
    }
  }

  /** The events under prefix after revision `after` (>= start), oldest first. */
  since(after: number, prefix: string): WatchEvent[] {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.kv.modRevision <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: WatchEvent[] = [];
    for (let i = lo; i < this.events.length; i++) if (this.events[i]!.kv.key.startsWith(prefix)) out.push(this.events[i]!);
    return out;
  }
}
