// A watch that starts before the store's memory of recent events: an etcd watcher of its own (on the store's one
// watch stream), from the revision asked for, delivering in revision order with the previous values.
import type { Watch, WatchEvent, WatchOptions } from '../types.js';
import type { EtcdStore } from './store.js';

/** A watch from before the store's memory of events: an etcd watcher of its own, delivering in revision order. */
export class OwnWatch implements Watch {
  private readonly id: number;
  private stopped = false;
  private last: number;

  constructor(
    private readonly store: EtcdStore,
    prefix: string,
    after: number,
    opts: WatchOptions,
    onEvent: (ev: WatchEvent) => void,
  ) {
    this.last = after;
    const range = store.layout.range(prefix) ?? store.layout.rootRange();
    const trigger = opts.trigger;
    const matches = (ev: WatchEvent) => {
      if (!trigger) return true;
      const v = safe(() => trigger.valueOf(ev.kv));
      const p = ev.prev ? safe(() => trigger.valueOf(ev.prev!)) : trigger.value;
      return v === undefined || p === undefined || v === trigger.value || p === trigger.value;
    };
    this.id = store.addStreamWatcher({
      key: Buffer.from(range.start),
      rangeEnd: range.end,
      next: after + 1,
      onEvents: (raw) => {
        for (const ev of store.toEvents(raw, prefix)) {
          if (this.stopped) return;
          if (ev.kv.modRevision <= this.last) continue;
          this.last = ev.kv.modRevision;
          if (!matches(ev)) continue;
          try {
            onEvent(ev);
          } catch (e) {
            process.stderr.write(`k1s: watch listener failed: ${String(e)}\n`);
          }
        }
      },
      onCanceled: (reason, compactRev) => {
        process.stderr.write(`k1s etcd: a watch of ${prefix} was ended by etcd (${reason || `compacted at ${compactRev}`})\n`);
        this.stop();
      },
    });
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.store.removeStreamWatcher(this.id, this);
  }
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
