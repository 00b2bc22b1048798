// In-process fan-out of committed changes to watchers. The writer publishes each committed batch; nothing polls.
//
// A watcher is subscribed with the history it missed (its replay) and the revision that replay reaches. Because
// the store reads the replay and subscribes in one synchronous step, no commit can fall between the two: live
// events start right after the replay, and the revision guard below only protects against a misbehaving caller.
// Events are delivered asynchronously (a microtask), in revision order, so a watcher's callback never runs inside
// the writer's commit nor before watch() has returned its handle.
import type { Watch, WatchEvent } from './types.js';

export interface WatchHubOptions {
  /** called when a watcher's callback throws (default: print to stderr); the watch carries on */
  onListenerError?: (err: unknown) => void;
}

export interface SubscribeOptions {
  /** events already known to have happened, oldest first (delivered first) */
  replay?: WatchEvent[];
  /** the revision the watcher is up to date with once the replay is delivered; older live events are dropped */
  throughRevision: number;
}

class Subscription implements Watch {
  private queue: WatchEvent[];
  private next = 0;
  private scheduled = false;
  private stopped = false;
  private lastRevision: number;

  constructor(
    private readonly hub: WatchHub,
    readonly prefix: string,
    opts: SubscribeOptions,
    private readonly onEvent: (ev: WatchEvent) => void,
    private readonly onError: (err: unknown) => void,
  ) {
    this.queue = opts.replay ? opts.replay.slice() : [];
    this.lastRevision = Math.max(opts.throughRevision, this.queue.at(-1)?.kv.modRevision ?? 0);
    if (this.queue.length) this.schedule();
  }

  push(ev: WatchEvent): void {
    if (this.stopped || ev.kv.modRevision <= this.lastRevision) return;
    this.lastRevision = ev.kv.modRevision;
    this.queue.push(ev);
    this.schedule();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue = [];
    this.hub.remove(this);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    while (!this.stopped && this.next < this.queue.length) {
      const ev = this.queue[this.next++]!;
      try {
        this.onEvent(ev);
      } catch (e) {
        this.onError(e);
      }
    }
    if (this.next >= this.queue.length) {
      this.queue = [];
      this.next = 0;
    }
  }
}

export class WatchHub {
  private readonly subs = new Set<Subscription>();
  /** how many watchers each prefix has (far fewer prefixes than watchers: one per resource or namespace) */
  private readonly prefixes = new Map<string, number>();
  private readonly onError: (err: unknown) => void;

  constructor(opts: WatchHubOptions = {}) {
    this.onError = opts.onListenerError ?? ((e) => process.stderr.write(`k1s: watch listener failed: ${String(e)}\n`));
  }

  get size(): number {
    return this.subs.size;
  }

  subscribe(prefix: string, opts: SubscribeOptions, onEvent: (ev: WatchEvent) => void): Watch {
    const sub = new Subscription(this, prefix, opts, onEvent, this.onError);
    this.subs.add(sub);
    this.prefixes.set(prefix, (this.prefixes.get(prefix) ?? 0) + 1);
    return sub;
  }

  /** Whether a change of `key` would reach any watcher. */
  watched(key: string): boolean {
    for (const p of this.prefixes.keys()) if (key.startsWith(p)) return true;
    return false;
  }

  /** Fans out committed events (in revision order) to the watchers whose prefix they fall under. */
  publish(events: readonly WatchEvent[]): void {
    if (!this.subs.size || !events.length) return;
    for (const sub of this.subs) {
      for (const ev of events) if (ev.kv.key.startsWith(sub.prefix)) sub.push(ev);
    }
  }

  /** Stops every watcher (the store is closing). */
  stopAll(): void {
    for (const sub of [...this.subs]) sub.stop();
  }

  /** @internal */
  remove(sub: Subscription): void {
    if (!this.subs.delete(sub)) return;
    const n = (this.prefixes.get(sub.prefix) ?? 1) - 1;
    if (n > 0) this.prefixes.set(sub.prefix, n);
    else this.prefixes.delete(sub.prefix);
  }
}
