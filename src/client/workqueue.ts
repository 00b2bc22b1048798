// A work queue for level-triggered controllers: identical keys merge, a key is never processed twice at once,
// failures back off exponentially, success forgets the key's failures.
import type { QueueMetrics } from '../metrics/workqueue.js';

export interface ReconcileResult {
  requeueAfterMs?: number;
}

export interface WorkQueueOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** keys processed at the same time */
  workers?: number;
  onError?: (key: string, err: unknown) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  /** keys added again while being processed */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = 0;
  private stopped = false;
  /** workqueue_* of this queue's name (client-go's queue metrics); unset: nothing recorded */
  private metrics?: QueueMetrics;

  constructor(
    private readonly reconcile: (key: string) => Promise<ReconcileResult | void>,
    private readonly opts: WorkQueueOptions = {},
  ) {}

  /** Records into `metrics` from now on. */
  useMetrics(metrics: QueueMetrics | undefined): void {
    this.metrics = metrics;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      // as client-go: an add while the key is processed counts (and waits in the depth) once
      if (!this.dirty.has(key)) this.metrics?.add(key);
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.metrics?.add(key);
    this.enqueue(key);
  }

  private enqueue(key: string): void {
    if (this.stopped || this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const prev = this.timers.get(key);
    if (prev) clearTimeout(prev);
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    t.unref();
    this.timers.set(key, t);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private pump(): void {
    const max = this.opts.workers ?? 1;
    while (this.running < max && this.queue.length && !this.stopped) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.metrics?.get(key);
      this.active.add(key);
      this.running++;
      void this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    try {
      const res = await this.reconcile(key);
      this.failures.delete(key);
      if (res?.requeueAfterMs !== undefined) this.addAfter(key, res.requeueAfterMs);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const delay = Math.min((this.opts.baseDelayMs ?? 5) * 2 ** (n - 1), this.opts.maxDelayMs ?? 1000_000);
      this.opts.onError?.(key, err);
      this.metrics?.retry();
      this.addAfter(key, delay);
    } finally {
      this.metrics?.done(key);
      this.active.delete(key);
      this.running--;
      // counted when it was added during processing
      if (this.dirty.delete(key)) this.enqueue(key);
      this.pump();
    }
  }
}
