// In-process fan-out of committed changes to watchers. The writer publishes each committed batch; nothing polls.
//
// A watcher is subscribed with the history it missed (its replay) and the revision that replay reaches. Because
// the store reads the replay and subscribes in one synchronous step, no commit can fall between the two: live
// events start right after the replay, and the revision guard below only protects against a misbehaving caller.
// Events are delivered asynchronously (a microtask), in revision order, so a watcher's callback never runs inside
// the writer's commit nor before watch() has returned its handle.
//
// A watcher with a trigger (a kubelet's `spec.nodeName=X`) is filed under its trigger value, so a change is offered
// only to the watchers of its value and of its previous value: with 1,000 kubelets each pod change costs two map
// reads, not 1,000 queued deliveries that each kubelet's selector then throws away.
import type { KeyValue, Watch, WatchEvent, WatchTrigger } from './types.js';

export interface WatchHubOptions {
  /** called when a watcher's callback throws (default: print to stderr); the watch carries on */
  onListenerError?: (err: unknown) => void;
}

export interface SubscribeOptions {
  /** events already known to have happened, oldest first (delivered first) */
  replay?: WatchEvent[];
  /** the revision the watcher is up to date with once the replay is delivered; older live events are dropped */
  throughRevision: number;
  /** live events are offered only when their trigger value matches (the replay is delivered whole) */
  trigger?: WatchTrigger;
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
    readonly trigger: WatchTrigger | undefined,
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

type ValueOf = WatchTrigger['valueOf'];

/** Triggered watchers of one prefix: trigger function → trigger value → watchers. */
type TriggerIndex = Map<ValueOf, Map<string, Set<Subscription>>>;

export class WatchHub {
  private readonly subs = new Set<Subscription>();
  /** the watchers without a trigger by prefix, offered every event under it */
  private readonly untriggered = new Map<string, Set<Subscription>>();
  /** how many of those prefixes are no directory (end in no '/'): publish then tests every prefix */
  private partialUntriggered = 0;
  private readonly triggered = new Map<string, TriggerIndex>();
  /** how many watchers each prefix has (far fewer prefixes than watchers: one per resource or namespace) */
  private readonly prefixes = new Map<string, number>();
  /** how many prefixes do not end in '/' (a watch of one key or a name prefix): they need a startsWith each */
  private partialPrefixes = 0;
  private readonly onError: (err: unknown) => void;

  constructor(opts: WatchHubOptions = {}) {
    this.onError = opts.onListenerError ?? ((e) => process.stderr.write(`k1s: watch listener failed: ${String(e)}\n`));
  }

  get size(): number {
    return this.subs.size;
  }

  subscribe(prefix: string, opts: SubscribeOptions, onEvent: (ev: WatchEvent) => void): Watch {
    const sub = new Subscription(this, prefix, opts.trigger, opts, onEvent, this.onError);
    this.subs.add(sub);
    if (opts.trigger) {
      const { valueOf, value } = opts.trigger;
      let byFn = this.triggered.get(prefix);
      if (!byFn) this.triggered.set(prefix, (byFn = new Map()));
      let byValue = byFn.get(valueOf);
      if (!byValue) byFn.set(valueOf, (byValue = new Map()));
      let set = byValue.get(value);
      if (!set) byValue.set(value, (set = new Set()));
      set.add(sub);
    } else {
      let set = this.untriggered.get(prefix);
      if (!set) {
        this.untriggered.set(prefix, (set = new Set()));
        if (!prefix.endsWith('/')) this.partialUntriggered++;
      }
      set.add(sub);
    }
    this.prefixAdded(prefix);
    return sub;
  }

  /** Whether a change of `key` would reach any watcher. */
  watched(key: string): boolean {
    if (this.partialPrefixes === 0) return someDirectory(key, (dir) => this.prefixes.has(dir));
    for (const p of this.prefixes.keys()) if (key.startsWith(p)) return true;
    return false;
  }

  private prefixAdded(prefix: string): void {
    const n = this.prefixes.get(prefix) ?? 0;
    this.prefixes.set(prefix, n + 1);
    if (n === 0 && !prefix.endsWith('/')) this.partialPrefixes++;
  }

  private prefixRemoved(prefix: string): void {
    const n = (this.prefixes.get(prefix) ?? 1) - 1;
    if (n > 0) {
      this.prefixes.set(prefix, n);
      return;
    }
    this.prefixes.delete(prefix);
    if (!prefix.endsWith('/')) this.partialPrefixes--;
  }

  /** Fans out committed events (in revision order) to the watchers whose prefix they fall under. */
  publish(events: readonly WatchEvent[]): void {
    if (!this.subs.size || !events.length) return;
    if (this.untriggered.size) {
      if (this.partialUntriggered) {
        for (const [prefix, set] of this.untriggered) {
          for (const ev of events) if (ev.kv.key.startsWith(prefix)) set.forEach((sub) => sub.push(ev));
        }
      } else {
        // every untriggered prefix is a directory: an event reaches those of the directories along its key
        for (const ev of events) {
          someDirectory(ev.kv.key, (dir) => {
            this.untriggered.get(dir)?.forEach((sub) => sub.push(ev));
            return false;
          });
        }
      }
    }
    if (!this.triggered.size) return;
    for (const ev of events) {
      for (const [prefix, byFn] of this.triggered) {
        if (!ev.kv.key.startsWith(prefix)) continue;
        for (const [valueOf, byValue] of byFn) {
          const cur = triggerValue(valueOf, ev.kv);
          // a value that cannot be read goes to every watcher of the index; their selectors decide
          if (cur === undefined) {
            for (const set of byValue.values()) for (const sub of set) sub.push(ev);
            continue;
          }
          byValue.get(cur)?.forEach((sub) => sub.push(ev));
          if (!ev.prev) continue;
          const prev = triggerValue(valueOf, ev.prev);
          if (prev === cur) continue;
          if (prev === undefined) for (const set of byValue.values()) for (const sub of set) sub.push(ev);
          else byValue.get(prev)?.forEach((sub) => sub.push(ev));
        }
      }
    }
  }

  /** Stops every watcher (the store is closing). */
  stopAll(): void {
    for (const sub of [...this.subs]) sub.stop();
  }

  /** @internal */
  remove(sub: Subscription): void {
    if (!this.subs.delete(sub)) return;
    if (sub.trigger) {
      const byFn = this.triggered.get(sub.prefix);
      const byValue = byFn?.get(sub.trigger.valueOf);
      const set = byValue?.get(sub.trigger.value);
      set?.delete(sub);
      if (set && !set.size) byValue!.delete(sub.trigger.value);
      if (byValue && !byValue.size) byFn!.delete(sub.trigger.valueOf);
      if (byFn && !byFn.size) this.triggered.delete(sub.prefix);
    } else {
      const set = this.untriggered.get(sub.prefix);
      set?.delete(sub);
      if (set && !set.size) {
        this.untriggered.delete(sub.prefix);
        if (!sub.prefix.endsWith('/')) this.partialUntriggered--;
      }
    }
    this.prefixRemoved(sub.prefix);
  }
}

/** Calls `test` with each directory along `key` ('/', '/a/', '/a/b/' …), shortest first, until it returns true. */
function someDirectory(key: string, test: (dir: string) => boolean): boolean {
  for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) if (test(key.slice(0, i + 1))) return true;
  return false;
}

function triggerValue(valueOf: ValueOf, kv: KeyValue): string | undefined {
  try {
    return valueOf(kv);
  } catch {
    return undefined;
  }
}
