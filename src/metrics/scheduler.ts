// kube-scheduler's families (pkg/scheduler/metrics): attempts, their latency, the end-to-end SLI and the queue.
import { Counter, exponentialBuckets, Gauge, Histogram } from './family.js';

export type ScheduleResult = 'scheduled' | 'unschedulable' | 'error';

export class SchedulerMetrics {
  readonly attempts = new Counter({
    name: 'scheduler_schedule_attempts_total',
    help: "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
    stability: 'STABLE',
    labelNames: ['result', 'profile'],
  });
  readonly attemptDuration = new Histogram({
    name: 'scheduler_scheduling_attempt_duration_seconds',
    help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
    stability: 'STABLE',
    labelNames: ['result', 'profile'],
    buckets: exponentialBuckets(0.001, 2, 15),
  });
  readonly algorithmDuration = new Histogram({
    name: 'scheduler_scheduling_algorithm_duration_seconds',
    help: 'Scheduling algorithm latency in seconds',
    stability: 'ALPHA',
    buckets: exponentialBuckets(0.001, 2, 15),
  });
  readonly sli = new Histogram({
    name: 'scheduler_pod_scheduling_sli_duration_seconds',
    help: 'E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.',
    stability: 'BETA',
    labelNames: ['attempts'],
    buckets: exponentialBuckets(0.01, 2, 20),
  });
  readonly podAttempts = new Histogram({
    name: 'scheduler_pod_scheduling_attempts',
    help: 'Number of attempts to successfully schedule a pod.',
    stability: 'STABLE',
    buckets: exponentialBuckets(1, 2, 5),
  });
  readonly pending = new Gauge({
    name: 'scheduler_pending_pods',
    help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
    stability: 'STABLE',
    labelNames: ['queue'],
  });

  families() {
    return [this.attempts, this.attemptDuration, this.algorithmDuration, this.sli, this.podAttempts, this.pending];
  }

  /** one scheduling attempt of a pod by `profile` (the algorithm's share, when it ran) */
  attempt(result: ScheduleResult, profile: string, seconds: number, algorithmSeconds?: number): void {
    this.attempts.with(result, profile).inc();
    this.attemptDuration.with(result, profile).observe(seconds);
    if (algorithmSeconds !== undefined) this.algorithmDuration.with().observe(algorithmSeconds);
  }

  /** a pod bound after `attempts` attempts, `seconds` after it first entered the queue */
  scheduled(attempts: number, seconds: number): void {
    this.sli.with(attempts >= 15 ? '15+' : String(attempts)).observe(seconds);
    this.podAttempts.with().observe(attempts);
  }
}
