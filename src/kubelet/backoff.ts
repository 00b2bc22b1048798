// One back-off helper (client-go's flowcontrol.Backoff): per-key delays that double from `initialMs` up to `maxMs`,
// forgotten after 2 × maxMs without a new failure. The kubelet uses it for CrashLoopBackOff (10 s → 5 min).

interface Entry {
  backoffMs: number;
  lastUpdate: number;
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  now?: () => number;
}

export class Backoff {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly opts: BackoffOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** the current delay of `key` (0 when it has none) */
  get(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  /** records a failure at `eventTime`: the first one gets initialMs, later ones double it up to maxMs */
  next(key: string, eventTime: number): void {
    const e = this.entries.get(key);
    if (!e || this.expired(eventTime, e)) this.entries.set(key, { backoffMs: this.opts.initialMs, lastUpdate: eventTime });
    else {
      e.backoffMs = Math.min(e.backoffMs * 2, this.opts.maxMs);
      e.lastUpdate = eventTime;
    }
  }

  /** true while `now` is within the current delay after `eventTime` */
  isInBackOffSince(key: string, eventTime: number): boolean {
    const e = this.entries.get(key);
    if (!e) return false;
    const now = this.now();
    if (this.expired(now, e)) return false;
    return now - eventTime < e.backoffMs;
  }

  /** when the back-off that started at `eventTime` ends */
  readyAt(key: string, eventTime: number): number {
    return eventTime + this.get(key);
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** forgets every key with `prefix` (a deleted pod's containers) */
  resetPrefix(prefix: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.entries.delete(k);
  }

  private expired(t: number, e: Entry): boolean {
    return t - e.lastUpdate > 2 * this.opts.maxMs;
  }
}

/** Go's time.Duration String(): 100ms, 10s, 1.5s, 1m20s, 5m0s. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const sec = String(((ms % 60_000) / 1000).toFixed(3)).replace(/\.?0+$/, '');
  if (h) return `${h}h${m}m${sec}s`;
  if (m) return `${m}m${sec}s`;
  return `${sec}s`;
}
