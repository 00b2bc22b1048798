// The TTL-after-finished controller (pkg/controller/ttlafterfinished): deletes a finished Job
// spec.ttlSecondsAfterFinished after its Complete/Failed condition, re-checking the live object first, and
// requeues each job for its expiry instead of polling.
import type { Job } from '../api/batch/types.js';
import type { Informer } from '../client/informer.js';
import type { ReconcileResult } from '../client/workqueue.js';
import { splitKey } from '../client/informer.js';
import { StatusError } from '../machinery/errors.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../client/controller.js';

export interface TtlAfterFinishedOptions {
  /** how the job's pods go: Kubernetes uses Foreground (the garbage collector deletes them, then the job) */
  propagationPolicy?: 'Foreground' | 'Background';
}

/** When the job finished: the lastTransitionTime of its Complete or Failed condition (jobFinishTime). */
function finishTime(job: Job): number | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : undefined;
  }
  return undefined;
}

const needsCleanup = (job: Job) => job.spec?.ttlSecondsAfterFinished != null && finishTime(job) !== undefined;

export class TtlAfterFinishedController extends Reconciler {
  readonly name = 'ttl-after-finished';
  private jobs!: Informer;

  constructor(
    ctx: ControllerContext,
    private readonly opts: TtlAfterFinishedOptions = {},
  ) {
    super(ctx, { workers: 5 });
  }

  setup(): void {
    this.jobs = this.informer('batch/v1', 'jobs');
    const consider = (j: Job) => {
      if (!j.metadata.deletionTimestamp && needsCleanup(j)) this.enqueueObject(j);
    };
    this.jobs.addHandler({ add: (j) => consider(j as Job), update: (_, j) => consider(j as Job) });
  }

  /** ms left before the job expires, or undefined when it is not due for cleanup. */
  private timeLeft(job: Job): number | undefined {
    if (job.metadata.deletionTimestamp || !needsCleanup(job)) return undefined;
    return finishTime(job)! + job.spec!.ttlSecondsAfterFinished! * 1000 - this.ctx.now();
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const cached = this.jobs.getByKey(key) as Job | undefined;
    if (!cached) return;
    const left = this.timeLeft(cached);
    if (left === undefined) return;
    if (left > 0) return { requeueAfterMs: left };
    // The cached TTL may be stale: decide again on the live object.
    const { namespace, name } = splitKey(key);
    const rc = this.ctx.client.resource('batch/v1', 'jobs');
    let fresh: Job;
    try {
      fresh = (await rc.get(namespace, name)) as Job;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return;
      throw e;
    }
    const freshLeft = this.timeLeft(fresh);
    if (freshLeft === undefined) return;
    if (freshLeft > 0) return { requeueAfterMs: freshLeft };
    try {
      await rc.delete(namespace, name, { propagationPolicy: this.opts.propagationPolicy ?? 'Foreground', preconditions: { uid: fresh.metadata.uid } });
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
}

export function ttlAfterFinishedController(opts: TtlAfterFinishedOptions = {}): ControllerFactory {
  return (ctx) => new TtlAfterFinishedController(ctx, opts);
}
