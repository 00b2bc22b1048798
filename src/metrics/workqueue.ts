// client-go's work-queue families (component-base/metrics/prometheus/workqueue), one series per queue name.
import { Counter, exponentialBuckets, Gauge, Histogram, type CounterCell, type GaugeCell, type HistogramCell } from './family.js';

const BUCKETS = exponentialBuckets(10e-9, 10, 10);

export class WorkQueueFamilies {
  readonly depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', stability: 'ALPHA', labelNames: ['name'] });
  readonly adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', stability: 'ALPHA', labelNames: ['name'] });
  readonly latency = new Histogram({
    name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested.', stability: 'ALPHA', labelNames: ['name'], buckets: BUCKETS,
  });
  readonly workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes.', stability: 'ALPHA', labelNames: ['name'], buckets: BUCKETS,
  });
  readonly unfinished = new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
    stability: 'ALPHA',
    labelNames: ['name'],
  });
  readonly longest = new Gauge({
    name: 'workqueue_longest_running_processor_seconds', help: 'How many seconds has the longest running processor for workqueue been running.', stability: 'ALPHA', labelNames: ['name'],
  });
  readonly retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', stability: 'ALPHA', labelNames: ['name'] });
  private readonly queues = new Map<string, QueueMetrics>();

  constructor() {
    // the in-progress figures are read at scrape time from each queue's running items
    this.unfinished.collect = () => {
      const now = performance.now();
      for (const q of this.queues.values()) q.publish(now);
    };
  }

  families() {
    return [this.depth, this.adds, this.latency, this.workDuration, this.unfinished, this.longest, this.retries];
  }

  /** The recorder of the queue called `name` (one per name; a second queue of that name shares it). */
  queue(name: string): QueueMetrics {
    let q = this.queues.get(name);
    if (!q) this.queues.set(name, (q = new QueueMetrics(this, name)));
    return q;
  }
}

/** What a work queue reports: kube's queue metrics provider, with times from performance.now(). */
export class QueueMetrics {
  private readonly depth: GaugeCell;
  private readonly adds: CounterCell;
  private readonly latency: HistogramCell;
  private readonly work: HistogramCell;
  private readonly unfinished: GaugeCell;
  private readonly longest: GaugeCell;
  private readonly retries: CounterCell;
  /** when each queued item was added, and when each item being processed started */
  private readonly addedAt = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();

  constructor(f: WorkQueueFamilies, name: string) {
    this.depth = f.depth.with(name);
    this.adds = f.adds.with(name);
    this.latency = f.latency.with(name);
    this.work = f.workDuration.with(name);
    this.unfinished = f.unfinished.with(name);
    this.longest = f.longest.with(name);
    this.retries = f.retries.with(name);
  }

  add(key: string): void {
    this.adds.inc();
    this.depth.inc();
    if (!this.addedAt.has(key)) this.addedAt.set(key, performance.now());
  }

  get(key: string): void {
    const now = performance.now();
    this.depth.dec();
    const t = this.addedAt.get(key);
    if (t !== undefined) {
      this.latency.observe((now - t) / 1000);
      this.addedAt.delete(key);
    }
    this.startedAt.set(key, now);
  }

  done(key: string): void {
    const t = this.startedAt.get(key);
    if (t === undefined) return;
    this.work.observe((performance.now() - t) / 1000);
    this.startedAt.delete(key);
  }

  retry(): void {
    this.retries.inc();
  }

  publish(now: number): void {
    let total = 0;
    let oldest = 0;
    for (const t of this.startedAt.values()) {
      total += now - t;
      oldest = Math.max(oldest, now - t);
    }
    this.unfinished.set(total / 1000);
    this.longest.set(oldest / 1000);
  }
}
