// Finalizer-based tracking (trackJobStatusAndRemoveFinalizers): finished pods go into
// status.uncountedTerminatedPods first, then lose their batch.kubernetes.io/job-tracking finalizer, then move into
// the succeeded/failed counters; the terminal condition is written only once nothing is uncounted or terminating.
import type { Job, JobCondition } from '../../api/batch/types.js';
import type { KObject } from '../../api/types.js';
import { StatusError } from '../../machinery/errors.js';
import { matchPodFailurePolicy, isPodFailed } from './failure-policy.js';
import { completionIndex } from './indexes.js';
import { hasTrackingFinalizer } from './pods.js';
import { ensureCondition, hasBackoffLimitPerIndex, isIndexed, JOB_TRACKING_FINALIZER, MAX_UNCOUNTED_PODS, newCondition } from './status.js';
import type { JobDeps, SyncCtx } from './context.js';
import { podPhase } from '../framework/pod-util.js';

const uid = (p: KObject) => p.metadata.uid!;

/** canRemoveFinalizer: a failed pod of a per-index job stays until its index has a replacement. */
function canRemoveFinalizer(ctx: SyncCtx, pod: KObject, consideredFailed: boolean): boolean {
  if (ctx.job.metadata.deletionTimestamp || ctx.finishedCondition || podPhase(pod) === 'Succeeded') return true;
  if (!consideredFailed) return false;
  if (hasBackoffLimitPerIndex(ctx.job)) {
    const kept = ctx.delayedDeletion.get(completionIndex(pod));
    if (kept && uid(kept) === uid(pod)) return false;
  }
  return true;
}

/** Moves uncounted UIDs whose pods lost their finalizer into the counters. */
function countUncountedWithoutFinalizer(job: Job, withFinalizer: Set<string>): boolean {
  const u = job.status!.uncountedTerminatedPods!;
  let changed = false;
  for (const kind of ['succeeded', 'failed'] as const) {
    const list = u[kind] ?? [];
    const keep = list.filter((id) => withFinalizer.has(id));
    if (keep.length !== list.length) {
      changed = true;
      job.status![kind] = (job.status![kind] ?? 0) + list.length - keep.length;
      u[kind] = keep;
    }
  }
  return changed;
}

export async function writeJobStatus(deps: JobDeps, ctx: SyncCtx): Promise<void> {
  const u = ctx.job.status!.uncountedTerminatedPods!;
  // An empty list is omitted, as Go's omitempty does.
  for (const kind of ['succeeded', 'failed'] as const) if (u[kind] && u[kind]!.length === 0) delete u[kind];
  const st = ctx.job.status!;
  for (const k of ['active', 'succeeded', 'failed'] as const) if (st[k] === 0) delete st[k];
  if (st.conditions && st.conditions.length === 0) delete st.conditions;
  const saved = (await deps.client.resource('batch/v1', 'jobs').update(ctx.job.metadata.namespace!, ctx.job, { subresource: 'status' })) as Job;
  deps.expectations.expectStatus(ctx.key, saved.metadata.resourceVersion);
  saved.status ??= {};
  saved.status.uncountedTerminatedPods ??= {};
  ctx.job = saved;
}

async function removeFinalizers(deps: JobDeps, ctx: SyncCtx, pods: KObject[]): Promise<{ removed: Set<string>; error?: unknown }> {
  const removed = new Set<string>();
  let error: unknown;
  const rc = deps.client.resource('v1', 'pods');
  const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] } };
  await Promise.all(
    pods.map(async (p) => {
      deps.expectations.expectFinalizerRemoved(ctx.key, uid(p));
      try {
        await rc.patch(p.metadata.namespace!, p.metadata.name!, 'strategic', patch);
        removed.add(uid(p));
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) removed.add(uid(p));
        else {
          deps.expectations.forgetFinalizer(ctx.key, uid(p));
          error ??= e;
        }
      }
    }),
  );
  return { removed, error };
}

/** Removes the tracking finalizer from pods of a job that is finished or gone (syncOrphanPod). */
export async function removeTrackingFinalizer(deps: Pick<JobDeps, 'client'>, pod: KObject): Promise<void> {
  try {
    await deps.client.resource('v1', 'pods').patch(pod.metadata.namespace!, pod.metadata.name!, 'strategic', {
      metadata: { '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] },
    });
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 404)) throw e;
  }
}

const isCriteriaMet = (c: JobCondition | undefined) => c?.type === 'SuccessCriteriaMet';

/** Counts finished pods, removes their finalizers and writes the status; returns once the status is stored. */
export async function trackStatusAndRemoveFinalizers(deps: JobDeps, ctx: SyncCtx, needsStatusUpdate: boolean): Promise<void> {
  const job = ctx.job;
  const status = job.status!;
  const indexed = isIndexed(job);
  const completions = job.spec?.completions ?? 0;
  let needsFlush = needsStatusUpdate;
  const pods = indexed ? [...ctx.pods].sort((a, b) => completionIndex(a) - completionIndex(b)) : ctx.pods;
  const withFinalizer = new Set(pods.filter((p) => hasTrackingFinalizer(p) && !ctx.expectedRmFinalizers.has(uid(p))).map(uid));
  if (countUncountedWithoutFinalizer(job, withFinalizer)) needsFlush = true;
  const uncounted = status.uncountedTerminatedPods!;
  uncounted.succeeded = [...(uncounted.succeeded ?? [])];
  uncounted.failed = [...(uncounted.failed ?? [])];
  const toRemove: KObject[] = [];
  const newSucceededIndexes: number[] = [];
  let reachedMax = false;
  for (const pod of pods) {
    if (!hasTrackingFinalizer(pod) || ctx.expectedRmFinalizers.has(uid(pod))) continue;
    const failed = isPodFailed(pod, job);
    if (!canRemoveFinalizer(ctx, pod, failed)) continue;
    toRemove.push(pod);
    const ix = completionIndex(pod);
    if (podPhase(pod) === 'Succeeded' && !ctx.uncounted.failed.has(uid(pod))) {
      if (indexed) {
        if (ix >= 0 && ix < completions && !ctx.prevSucceededIndexes!.has(ix)) {
          newSucceededIndexes.push(ix);
          needsFlush = true;
        }
      } else if (!ctx.uncounted.succeeded.has(uid(pod))) {
        uncounted.succeeded.push(uid(pod));
        needsFlush = true;
      }
    } else if (failed || (ctx.finishedCondition && !isCriteriaMet(ctx.finishedCondition))) {
      // Once the job is finishing every pod that did not succeed counts as failed.
      if (!ctx.uncounted.failed.has(uid(pod)) && (!indexed || (ix >= 0 && ix < completions))) {
        if (!job.spec?.podFailurePolicy || matchPodFailurePolicy(job, pod).countFailed) {
          uncounted.failed.push(uid(pod));
          needsFlush = true;
        }
      }
    }
    if (newSucceededIndexes.length + uncounted.succeeded.length + uncounted.failed.length >= MAX_UNCOUNTED_PODS) {
      reachedMax = true;
      break;
    }
  }
  if (indexed) {
    ctx.succeededIndexes = ctx.succeededIndexes!.with(newSucceededIndexes);
    const text = ctx.succeededIndexes.toString();
    if (text !== (status.completedIndexes ?? '')) needsFlush = true;
    status.succeeded = ctx.succeededIndexes.total();
    status.completedIndexes = text;
    const failedText = ctx.failedIndexes ? ctx.failedIndexes.toString() : undefined;
    if ((status.failedIndexes ?? undefined) !== failedText) {
      status.failedIndexes = failedText;
      needsFlush = true;
    }
  }
  const now = deps.now();
  let finished = ctx.finishedCondition;
  if (finished?.type === 'FailureTarget') {
    // The interim condition records why before the pods lose their finalizers; Failed follows once they are gone.
    (status.conditions ??= []).push(finished);
    needsFlush = true;
    finished = newCondition('Failed', 'True', finished.reason!, finished.message!, now);
  }
  if (isCriteriaMet(finished)) {
    if (!(status.conditions ?? []).some((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True')) {
      (status.conditions ??= []).push(finished!);
      needsFlush = true;
    }
    finished = newCondition('Complete', 'True', finished!.reason!, finished!.message!, now);
  }
  ctx.finishedCondition = finished;

  // flushUncountedAndRemoveFinalizers
  if (needsFlush) {
    await writeJobStatus(deps, ctx);
    deps.backoff.set(ctx.key, ctx.newBackoff);
    needsFlush = false;
  }
  let rmError: unknown;
  if (toRemove.length) {
    const r = await removeFinalizers(deps, ctx, toRemove);
    for (const id of r.removed) withFinalizer.delete(id);
    rmError = r.error;
  }
  if (countUncountedWithoutFinalizer(ctx.job, withFinalizer)) needsFlush = true;
  if (rmError) {
    if (needsFlush) await writeJobStatus(deps, ctx);
    throw rmError;
  }
  const done = !reachedMax && enactFinished(ctx, now);
  if (done) needsFlush = true;
  if (needsFlush) {
    await writeJobStatus(deps, ctx);
    if (done) recordFinished(deps, ctx.job, ctx.finishedCondition!);
  }
}

/** enactJobFinished: the terminal condition once no pod is uncounted or still terminating. */
function enactFinished(ctx: SyncCtx, now: number): boolean {
  const cond = ctx.finishedCondition;
  if (!cond) return false;
  const u = ctx.job.status!.uncountedTerminatedPods!;
  if ((u.succeeded?.length ?? 0) + (u.failed?.length ?? 0) > 0) return false;
  if (ctx.terminating > 0) return false;
  const conds = (ctx.job.status!.conditions ??= []);
  ensureCondition(conds, cond, now);
  if (cond.type === 'Complete') ctx.job.status!.completionTime = conds.find((c) => c.type === 'Complete')!.lastTransitionTime;
  return true;
}

function recordFinished(deps: JobDeps, job: Job, cond: JobCondition): void {
  if (cond.type === 'Complete') deps.recorder.event(job, 'Normal', 'Completed', 'Job completed');
  else deps.recorder.event(job, 'Warning', cond.reason ?? '', cond.message ?? '');
}
