// The Job controller (pkg/controller/job): runs pods until a Job's completions succeed, its failures exceed the
// backoff limit or its pod failure policy, success policy or deadline decides; tracks finished pods through the
// batch.kubernetes.io/job-tracking finalizer. Pod keys ("pod:<ns>/<name>") share the queue to release the
// finalizer of pods whose job is finished or gone (syncOrphanPod).
import type { Job } from '../../api/batch/types.js';
import type { KObject } from '../../api/types.js';
import { objectKey, splitKey, type Informer } from '../../client/informer.js';
import type { ReconcileResult } from '../../client/workqueue.js';
import { StatusError } from '../../machinery/errors.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import type { BackoffRecord } from './backoff.js';
import type { JobDeps } from './context.js';
import { JobExpectations } from './expectations.js';
import { hasTrackingFinalizer } from './pods.js';
import { isJobFinished, JOB_CONTROLLER_NAME, JOB_TRACKING_FINALIZER } from './status.js';
import { syncJob } from './sync.js';
import { removeTrackingFinalizer } from './tracking.js';
import { controllerOf, controllerRef, controllerUidIndex } from '../framework/owner.js';
import { fromLabelSelector } from '../../machinery/labels.js';

const POD_KEY = 'pod:';
const isJobRef = (r: { apiVersion: string; kind: string } | undefined) => r?.kind === 'Job' && r.apiVersion === 'batch/v1';
/** spec.managedBy naming another controller hands the job over to it. */
const managedElsewhere = (job: Job) => job.spec?.managedBy != null && job.spec.managedBy !== JOB_CONTROLLER_NAME;

export class JobController extends Reconciler {
  readonly name = 'job';
  private jobs!: Informer;
  private pods!: Informer;
  private deps!: JobDeps;
  private readonly backoff = new Map<string, BackoffRecord>();

  constructor(ctx: ControllerContext) {
    super(ctx, { workers: 5 });
  }

  setup(): void {
    this.jobs = this.informer('batch/v1', 'jobs');
    this.pods = this.informer('v1', 'pods');
    this.pods.addIndex('controllerUid', controllerUidIndex);
    this.pods.addIndex('uid', (o) => (o.metadata.uid ? [o.metadata.uid] : []));
    const expectations = new JobExpectations(this.pods);
    this.deps = {
      client: this.ctx.client,
      recorder: this.ctx.recorder('job-controller'),
      now: () => this.ctx.now(),
      log: this.ctx.log,
      expectations,
      backoff: this.backoff,
    };
    this.jobs.addHandler({
      add: (j) => this.enqueueObject(j),
      update: (_, j) => {
        expectations.observeJob(objectKey(j), j.metadata.resourceVersion);
        this.enqueueObject(j);
      },
      delete: (j) => {
        this.enqueueObject(j);
        // Pods of a deleted job still holding the finalizer are released one by one.
        for (const p of this.pods.byIndex('controllerUid', j.metadata.uid!)) if (hasTrackingFinalizer(p)) this.enqueue(POD_KEY + objectKey(p));
      },
    });
    this.pods.addHandler({
      add: (p) => this.podChanged(p),
      update: (old, p) => {
        const oldRef = controllerOf(old);
        if (oldRef && oldRef.uid !== controllerOf(p)?.uid) this.podChanged(old);
        this.podChanged(p);
      },
      delete: (p) => this.podChanged(p),
    });
  }

  private podChanged(pod: KObject): void {
    const ref = controllerOf(pod);
    if (ref && !isJobRef(ref)) return;
    const job = ref ? (this.jobs.get(pod.metadata.namespace!, ref.name) as Job | undefined) : undefined;
    if (job && job.metadata.uid === ref!.uid && !isJobFinished(job)) {
      this.enqueueObject(job);
      return;
    }
    if (hasTrackingFinalizer(pod)) this.enqueue(POD_KEY + objectKey(pod));
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (key.startsWith(POD_KEY)) return this.syncOrphanPod(key.slice(POD_KEY.length));
    const job = this.jobs.getByKey(key) as Job | undefined;
    if (!job) {
      this.deps.expectations.forget(key);
      this.backoff.delete(key);
      return;
    }
    if (managedElsewhere(job)) return;
    if (isJobFinished(job)) {
      this.backoff.delete(key);
      for (const p of this.pods.byIndex('controllerUid', job.metadata.uid!)) if (hasTrackingFinalizer(p)) this.enqueue(POD_KEY + objectKey(p));
      return;
    }
    // Our own last status write is not in the cache yet: its update event brings the job back.
    if (this.deps.expectations.jobStale(key, job.metadata.resourceVersion)) return;
    if (!job.metadata.deletionTimestamp) await this.adoptOrphans(job);
    const pods = this.pods.byIndex('controllerUid', job.metadata.uid!);
    try {
      const requeue = await syncJob(this.deps, key, job, pods);
      return requeue !== undefined ? { requeueAfterMs: requeue } : undefined;
    } catch (e) {
      // A conflict means the cache was behind; the newer job brings the key back anyway.
      if (e instanceof StatusError && e.code === 409) return { requeueAfterMs: 50 };
      throw e;
    }
  }

  /**
   * ClaimPods' adoption half: pods matching the selector without a controller become the job's, with the tracking
   * finalizer; the live job is re-read first so a job being deleted adopts nothing.
   */
  private async adoptOrphans(job: Job): Promise<void> {
    let selector;
    try {
      selector = fromLabelSelector(job.spec?.selector);
    } catch {
      return;
    }
    const orphans = this.pods.list(job.metadata.namespace!).filter((p) => !controllerOf(p) && !p.metadata.deletionTimestamp && selector.matches(p.metadata.labels));
    if (!orphans.length) return;
    const fresh = (await this.ctx.client.resource('batch/v1', 'jobs').get(job.metadata.namespace!, job.metadata.name!)) as Job;
    if (fresh.metadata.uid !== job.metadata.uid || fresh.metadata.deletionTimestamp) return;
    for (const p of orphans) {
      await this.ctx.client
        .resource('v1', 'pods')
        .patch(p.metadata.namespace!, p.metadata.name!, 'strategic', {
          metadata: { uid: p.metadata.uid, ownerReferences: [controllerRef(job)], finalizers: [JOB_TRACKING_FINALIZER] },
        })
        .catch((e) => {
          if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
        });
    }
  }

  /** syncOrphanPod: release the finalizer unless a live, unfinished job of ours controls the pod. */
  private async syncOrphanPod(podKey: string): Promise<void> {
    const pod = this.pods.getByKey(podKey);
    if (!pod || !hasTrackingFinalizer(pod)) return;
    const ref = controllerOf(pod);
    if (ref) {
      if (!isJobRef(ref)) return;
      const { namespace } = splitKey(podKey);
      let job = this.jobs.get(namespace, ref.name) as Job | undefined;
      if (!job) {
        // The cache may lag behind a job just created: ask the API server before releasing the pod.
        job = (await this.ctx.client.resource('batch/v1', 'jobs').get(namespace, ref.name).catch((e) => {
          if (e instanceof StatusError && e.code === 404) return undefined;
          throw e;
        })) as Job | undefined;
      }
      if (job && job.metadata.uid === ref.uid) {
        if (managedElsewhere(job)) return;
        if (!isJobFinished(job)) return;
      }
    }
    await removeTrackingFinalizer(this.deps, pod);
  }
}

export function jobController(): ControllerFactory {
  return (ctx) => new JobController(ctx);
}
