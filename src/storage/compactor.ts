// Periodic compaction: every interval, compact to the newest revision that is at least `retentionMs` old, so
// watchers that reconnect within the retention window can still resume. Revision ages are known from samples of
// (time, current revision): a sample (t, R) says every revision <= R existed at time t.
import { StoreError, type Store } from './types.js';

export interface CompactorOptions {
  /** how often to compact (default 60 s) */
  intervalMs?: number;
  /** how much history to keep (default 5 minutes) */
  retentionMs?: number;
  /** clock, for tests (default Date.now) */
  now?: () => number;
  /** reports a failed compaction (default: print to stderr) */
  onError?: (err: unknown) => void;
}

interface Sample {
  time: number;
  revision: number;
}

/** Samples beyond this are dropped oldest first (only reachable when tick() is called far more often than needed). */
const MAX_SAMPLES = 4096;

export class Compactor {
  private readonly intervalMs: number;
  private readonly retentionMs: number;
  private readonly now: () => number;
  private readonly onError: (err: unknown) => void;
  private samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<Store, 'compact' | 'currentRevision' | 'compactedRevision'>,
    opts: CompactorOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 60_000;
    this.retentionMs = opts.retentionMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
    this.onError = opts.onError ?? ((e) => process.stderr.write(`k1s: compaction failed: ${String(e)}\n`));
  }

  start(): void {
    if (this.timer) return;
    this.sample();
    this.timer = setInterval(() => {
      if (!this.running) void this.tick();
    }, this.intervalMs);
    this.timer.unref(); // never keeps the process alive
  }

  /** Stops the timer and waits for a compaction in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Takes a sample and compacts if a sample is old enough; what the timer runs. */
  tick(): Promise<void> {
    const run = this.compactOnce().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async compactOnce(): Promise<void> {
    try {
      this.sample();
      const target = this.takeTarget();
      if (target !== undefined && target > this.store.compactedRevision()) await this.store.compact(target);
    } catch (e) {
      if (e instanceof StoreError && e.code === 'Closed') {
        if (this.timer) clearInterval(this.timer);
        this.timer = undefined;
        return;
      }
      this.onError(e);
    }
  }

  private sample(): void {
    const revision = this.store.currentRevision();
    // An unchanged revision keeps its earlier (more informative) time.
    if (this.samples.at(-1)?.revision === revision) return;
    this.samples.push({ time: this.now(), revision });
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
  }

  /** The revision of the newest sample at least retentionMs old; it and older samples are dropped. */
  private takeTarget(): number | undefined {
    const cutoff = this.now() - this.retentionMs;
    let i = -1;
    while (i + 1 < this.samples.length && this.samples[i + 1]!.time <= cutoff) i++;
    if (i < 0) return undefined;
    const target = this.samples[i]!.revision;
    this.samples = this.samples.slice(i + 1);
    return target;
  }
}
