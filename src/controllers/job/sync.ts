// One sync of one Job (syncJob + manageJob of pkg/controller/job): count pods, decide whether the job has
// failed or succeeded, create or delete pods towards parallelism/completions, then track the status.
import type { Job } from '../../api/batch/types.js';
import type { KObject } from '../../api/types.js';
import { objectKey } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import { rfc3339 } from '../../machinery/object.js';
import { finishedTime, nextBackoffRecord, remainingBackoffMs } from './backoff.js';
import { requeueWithin, type JobDeps, type SyncCtx } from './context.js';
import { failJobMessage, isPodFailed, matchPodFailurePolicy, podStatus } from './failure-policy.js';
import { completionIndex, firstPendingIndexes, Indexes } from './indexes.js';
import { activePodsForRemoval, countTerminating, hasTrackingFinalizer, indexFailureCount, indexIgnoredFailureCount, jobPod } from './pods.js';
import {
  ensureCondition, findCondition, hasBackoffLimitPerIndex, isIndexed, MAX_POD_CREATE_DELETE_PER_SYNC, MESSAGE, newCondition, onlyReplaceFailedPods, REASON,
} from './status.js';
import { matchSuccessPolicy } from './success-policy.js';
import { trackStatusAndRemoveFinalizers } from './tracking.js';
import { isPodActive, isPodReady, podPhase } from '../framework/pod-util.js';

const uid = (p: KObject) => p.metadata.uid!;
const suspended = (job: Job) => job.spec?.suspend === true;

/** Failed pods whose failure counts (nonIgnoredFailedPodsCount). */
function countedFailures(job: Job, pods: KObject[]): number {
  return job.spec?.podFailurePolicy ? pods.filter((p) => matchPodFailurePolicy(job, p).countFailed).length : pods.length;
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, container restarts count against backoffLimit. */
function pastBackoffLimitOnFailure(job: Job, pods: KObject[]): boolean {
  if ((job.spec?.template?.spec as { restartPolicy?: string } | undefined)?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    const phase = podPhase(p);
    if (phase !== 'Running' && phase !== 'Pending') continue;
    const st = podStatus(p) as { containerStatuses?: { restartCount?: number }[]; initContainerStatuses?: { restartCount?: number }[] };
    for (const cs of [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])]) restarts += cs.restartCount ?? 0;
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** The failure condition: FailureTarget first, Failed once the pods are gone (delayTerminalCondition). */
const failure = (deps: JobDeps, reason: string, message: string) => newCondition('FailureTarget', 'True', reason, message, deps.now());

/** isIndexFailed: the pod's failure exhausts its index's backoffLimitPerIndex, or a FailIndex rule matched. */
function isIndexFailed(job: Job, pod: KObject): boolean {
  if (!isPodFailed(pod, job)) return false;
  let counted = true;
  if (job.spec?.podFailurePolicy) {
    const m = matchPodFailurePolicy(job, pod);
    if (m.action === 'FailIndex') return true;
    counted = m.countFailed;
  }
  return counted && indexFailureCount(pod) >= (job.spec?.backoffLimitPerIndex ?? 0);
}

function indexedState(deps: JobDeps, ctx: SyncCtx, valid: (p: KObject) => boolean): void {
  const job = ctx.job;
  const completions = job.spec?.completions ?? 0;
  const inRange = (ix: number) => ix >= 0 && ix < completions;
  ctx.prevSucceededIndexes = Indexes.parse(job.status?.completedIndexes, completions);
  const newOk = ctx.pods.filter((p) => podPhase(p) === 'Succeeded' && inRange(completionIndex(p)) && hasTrackingFinalizer(p)).map(completionIndex);
  ctx.succeededIndexes = ctx.prevSucceededIndexes.with(new Set(newOk));
  ctx.succeeded = ctx.succeededIndexes.total();
  if (hasBackoffLimitPerIndex(job)) {
    const newFailed = ctx.pods.filter((p) => isIndexFailed(job, p) && inRange(completionIndex(p)) && hasTrackingFinalizer(p)).map(completionIndex);
    ctx.failedIndexes = Indexes.parse(job.status?.failedIndexes, completions).with(new Set(newFailed));
    const nFailed = ctx.failedIndexes.total();
    if (!ctx.finishedCondition) {
      if (job.spec?.maxFailedIndexes != null && nFailed > job.spec.maxFailedIndexes) {
        ctx.finishedCondition = failure(deps, REASON.maxFailedIndexesExceeded, MESSAGE.maxFailedIndexesExceeded);
      } else if (nFailed > 0 && nFailed + ctx.succeededIndexes.total() >= completions) {
        ctx.finishedCondition = failure(deps, REASON.failedIndexes, MESSAGE.failedIndexes);
      }
    }
    // getPodsWithDelayedDeletionPerIndex: the newest failure of each index still waiting for a replacement.
    const activeIx = new Set(ctx.activePods.map(completionIndex));
    for (const p of ctx.pods) {
      if (!valid(p) || !isPodFailed(p, job)) continue;
      const ix = completionIndex(p);
      if (ctx.succeededIndexes.has(ix) || ctx.failedIndexes.has(ix) || activeIx.has(ix)) continue;
      const prev = ctx.delayedDeletion.get(ix);
      const abs = (q: KObject) => indexFailureCount(q) + indexIgnoredFailureCount(q);
      if (!prev || (abs(prev) <= abs(p) && finishedTime(p, deps.now()) >= finishedTime(prev, deps.now()))) ctx.delayedDeletion.set(ix, p);
    }
  }
  if (!ctx.finishedCondition) {
    const msg = matchSuccessPolicy(job, ctx.succeededIndexes);
    if (msg) ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', REASON.successPolicy, msg, deps.now());
  }
}

export async function syncJob(deps: JobDeps, key: string, cached: Job, pods: KObject[]): Promise<number | undefined> {
  const job = structuredClone(cached);
  const status = (job.status ??= {});
  status.uncountedTerminatedPods ??= {};
  const now = deps.now();
  const expectationsOk = deps.expectations.podsSatisfied(key);
  const expectedRm = new Set(deps.expectations.pendingFinalizers(key));
  const u = status.uncountedTerminatedPods;
  const ctx: SyncCtx = {
    key, job, pods,
    activePods: pods.filter(isPodActive),
    expectedRmFinalizers: expectedRm,
    uncounted: { succeeded: new Set(u.succeeded ?? []), failed: new Set(u.failed ?? []) },
    newBackoff: { failuresAfterLastSuccess: 0 },
    succeeded: 0, failed: 0, ready: 0, terminating: 0,
    delayedDeletion: new Map(),
  };
  const indexed = isIndexed(job);
  const completions = job.spec?.completions ?? 0;
  const valid = (p: KObject) => hasTrackingFinalizer(p) && !expectedRm.has(uid(p)) && (!indexed || (completionIndex(p) >= 0 && completionIndex(p) < completions));
  const newSucceeded = pods.filter((p) => valid(p) && !ctx.uncounted.succeeded.has(uid(p)) && podPhase(p) === 'Succeeded');
  const newFailed = pods.filter((p) => valid(p) && !ctx.uncounted.failed.has(uid(p)) && isPodFailed(p, job));
  let active = ctx.activePods.length;
  ctx.terminating = countTerminating(pods);
  ctx.succeeded = (status.succeeded ?? 0) + newSucceeded.length + ctx.uncounted.succeeded.size;
  ctx.failed = (status.failed ?? 0) + countedFailures(job, newFailed) + ctx.uncounted.failed.size;
  ctx.ready = ctx.activePods.filter(isPodReady).length;
  if (!status.startTime && !suspended(job)) status.startTime = rfc3339(now);
  ctx.newBackoff = nextBackoffRecord(deps.backoff.get(key) ?? { failuresAfterLastSuccess: 0 }, newSucceeded, newFailed, now);

  const criteria = findCondition(job, 'SuccessCriteriaMet');
  const target = findCondition(job, 'FailureTarget');
  if (criteria?.status === 'True') ctx.finishedCondition = criteria;
  else if (target?.status === 'True') ctx.finishedCondition = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', now);
  else {
    const msg = failJobMessage(job, pods);
    if (msg) ctx.finishedCondition = newCondition('FailureTarget', 'True', REASON.podFailurePolicy, msg, now);
  }
  if (!ctx.finishedCondition) {
    const deadline = job.spec?.activeDeadlineSeconds;
    const started = status.startTime ? Date.parse(status.startTime) : undefined;
    if (ctx.failed > (job.spec?.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods)) {
      ctx.finishedCondition = failure(deps, REASON.backoffLimitExceeded, MESSAGE.backoffLimitExceeded);
    } else if (deadline != null && started !== undefined && !suspended(job)) {
      const left = deadline * 1000 - (now - started);
      if (left <= 0) ctx.finishedCondition = failure(deps, REASON.deadlineExceeded, MESSAGE.deadlineExceeded);
      else requeueWithin(ctx, left);
    }
  }
  if (indexed) indexedState(deps, ctx, valid);

  let manageErr: unknown;
  let suspendChanged = false;
  if (ctx.finishedCondition) {
    const { deleted, deletedReady, error } = await deletePods(deps, ctx, ctx.activePods);
    if (deleted !== active || !expectationsOk) ctx.finishedCondition = undefined;
    active -= deleted;
    ctx.terminating += deleted;
    ctx.ready -= deletedReady;
    manageErr = error;
  } else {
    let managed = false;
    if (expectationsOk && !job.metadata.deletionTimestamp) {
      try {
        active = await manageJob(deps, ctx, active);
      } catch (e) {
        manageErr = e;
      }
      managed = true;
    }
    const complete = job.spec?.completions == null ? ctx.succeeded > 0 && active === 0 : ctx.succeeded >= completions && active === 0;
    if (complete) {
      ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', REASON.completionsReached, MESSAGE.completionsReached, now);
    } else if (managed) {
      const conds = (status.conditions ??= []);
      if (suspended(job)) {
        if (ensureCondition(conds, { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' }, now)) {
          suspendChanged = true;
          deps.recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
        }
        // A suspended job restarts its activeDeadlineSeconds clock when resumed.
        if (active === 0 && status.startTime) {
          status.startTime = null;
          suspendChanged = true;
        }
      } else if (ensureCondition(conds, { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' }, now)) {
        suspendChanged = true;
        deps.recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
        status.startTime = rfc3339(now);
      }
    }
  }
  const needsUpdate = suspendChanged || active !== (status.active ?? 0) || ctx.ready !== status.ready || ctx.terminating !== status.terminating || status.startTime !== cached.status?.startTime;
  status.active = active;
  status.ready = ctx.ready;
  status.terminating = ctx.terminating;
  await trackStatusAndRemoveFinalizers(deps, ctx, needsUpdate);
  if (manageErr) throw manageErr;
  return ctx.requeueAfterMs;
}

/** manageJob: delete surplus pods or create missing ones (after back-off); returns the active count. */
async function manageJob(deps: JobDeps, ctx: SyncCtx, active: number): Promise<number> {
  const job = ctx.job;
  const spec = job.spec ?? {};
  if (suspended(job)) {
    const r = await deletePods(deps, ctx, activePodsForRemoval(job, ctx.activePods, active));
    ctx.terminating += r.deleted;
    ctx.ready -= r.deletedReady;
    if (r.error) throw r.error;
    return active - r.deleted;
  }
  const parallelism = spec.parallelism ?? 1;
  const terminating = onlyReplaceFailedPods(job) ? ctx.terminating : 0;
  let wantActive: number;
  if (spec.completions == null) wantActive = ctx.succeeded > 0 ? active : parallelism;
  else wantActive = Math.max(0, Math.min(spec.completions - ctx.succeeded, parallelism));
  const toDelete = activePodsForRemoval(job, ctx.activePods, Math.max(0, active - wantActive)).slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
  if (toDelete.length) {
    const r = await deletePods(deps, ctx, toDelete);
    ctx.terminating += r.deleted;
    ctx.ready -= r.deletedReady;
    if (r.error) throw r.error;
    return active - r.deleted;
  }
  let diff = wantActive - active - terminating;
  if (diff <= 0) return active;
  const now = deps.now();
  if (!hasBackoffLimitPerIndex(job)) {
    const wait = remainingBackoffMs(ctx.newBackoff.failuresAfterLastSuccess, ctx.newBackoff.lastFailureTime, now);
    if (wait > 0) {
      requeueWithin(ctx, wait);
      return active;
    }
  }
  diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
  let indexes: number[] | undefined;
  if (isIndexed(job)) {
    const taken = ctx.succeededIndexes!.with(ctx.activePods.map(completionIndex).filter((i) => i >= 0));
    const terminatingIx = new Set(onlyReplaceFailedPods(job) ? ctx.pods.filter((p) => p.metadata.deletionTimestamp).map(completionIndex) : []);
    indexes = firstPendingIndexes(diff, spec.completions ?? 0, (ix) => taken.has(ix) || !!ctx.failedIndexes?.has(ix) || terminatingIx.has(ix));
    if (hasBackoffLimitPerIndex(job)) {
      const ready: number[] = [];
      let minWait: number | undefined;
      for (const ix of indexes) {
        const last = ctx.delayedDeletion.get(ix);
        const wait = last ? remainingBackoffMs(indexFailureCount(last) + indexIgnoredFailureCount(last) + 1, finishedTime(last, now), now) : 0;
        if (wait === 0) ready.push(ix);
        else if (minWait === undefined || wait < minWait) minWait = wait;
      }
      if (!ready.length && minWait !== undefined) {
        requeueWithin(ctx, minWait);
        return active;
      }
      indexes = ready;
    }
    diff = indexes.length;
  }
  let created = 0;
  for (let i = 0; i < diff; i++) {
    const ix = indexes?.[i];
    let failureCounts;
    if (ix !== undefined && hasBackoffLimitPerIndex(job)) {
      const last = ctx.delayedDeletion.get(ix);
      if (!last) failureCounts = { failures: 0, ignored: 0 };
      else if (matchPodFailurePolicy(job, last).action === 'Ignore') failureCounts = { failures: indexFailureCount(last), ignored: indexIgnoredFailureCount(last) + 1 };
      else failureCounts = { failures: indexFailureCount(last) + 1, ignored: indexIgnoredFailureCount(last) };
    }
    const pod = jobPod(job, { index: ix, failureCounts });
    try {
      const made = await deps.client.resource('v1', 'pods').create(job.metadata.namespace!, pod);
      deps.expectations.expectCreate(ctx.key, objectKey(made));
      deps.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${made.metadata.name}`);
      created++;
    } catch (e) {
      if (namespaceTerminating(e)) break;
      deps.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
      throw e;
    }
  }
  return active + created;
}

/** Creates in a terminating namespace are refused for good (NamespaceTerminatingCause). */
function namespaceTerminating(e: unknown): boolean {
  if (!(e instanceof StatusError) || e.code !== 403) return false;
  return !!e.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') || e.message.includes('because it is being terminated');
}

/** deleteJobPods: deletes pods (not found counts as deleted) with a SuccessfulDelete event each. */
async function deletePods(deps: JobDeps, ctx: SyncCtx, victims: KObject[]): Promise<{ deleted: number; deletedReady: number; error?: unknown }> {
  let deleted = 0;
  let deletedReady = 0;
  let error: unknown;
  const rc = deps.client.resource('v1', 'pods');
  await Promise.all(
    victims.map(async (p) => {
      deps.expectations.expectDelete(ctx.key, uid(p));
      try {
        await rc.delete(p.metadata.namespace!, p.metadata.name!, { preconditions: { uid: uid(p) } });
        deps.recorder.event(ctx.job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) {
          deps.expectations.forgetDelete(ctx.key, uid(p));
          deps.recorder.event(ctx.job, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
          error ??= e;
          return;
        }
      }
      deleted++;
      if (isPodReady(p)) deletedReady++;
    }),
  );
  return { deleted, deletedReady, error };
}
