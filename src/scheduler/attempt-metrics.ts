// What kube-scheduler records of each scheduling attempt (pkg/scheduler/metrics): its result and latency, the
// algorithm's share, and for a bound pod the end-to-end SLI from its first entry into the queue.
import type { SchedulerMetrics, ScheduleResult } from '../metrics/scheduler.js';
import type { QueuedPod, SchedulingQueue } from './queue.js';

export class AttemptMetrics {
  constructor(
    private readonly m: SchedulerMetrics,
    private readonly profile: string,
    queue: SchedulingQueue,
  ) {
    m.pending.collect = () => {
      for (const [name, n] of Object.entries(queue.pendingCounts())) m.pending.with(name).set(n);
    };
  }

  /** the attempt's result, `algorithmEnd` when filtering and scoring ended */
  finish(q: QueuedPod, result: ScheduleResult, algorithmEnd?: number): void {
    const start = q.attemptStart;
    if (start === undefined) return;
    q.attemptStart = undefined;
    const now = performance.now();
    this.m.attempt(result, this.profile, (now - start) / 1000, algorithmEnd === undefined ? undefined : (algorithmEnd - start) / 1000);
    if (result === 'scheduled') this.m.scheduled(q.attempts, (now - q.enqueued) / 1000);
  }
}
