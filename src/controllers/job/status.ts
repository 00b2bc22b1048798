// Job constants and condition helpers (pkg/apis/batch, pkg/controller/job/util): the labels, annotations and
// finalizer the controller puts on pods, condition reasons, and the "finished" tests every batch controller shares.
import type { Job, JobCondition } from '../../api/batch/types.js';
import { rfc3339 } from '../../machinery/object.js';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
export const INDEX_FAILURE_COUNT = 'batch.kubernetes.io/job-index-failure-count';
export const INDEX_IGNORED_FAILURE_COUNT = 'batch.kubernetes.io/job-index-ignored-failure-count';
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
export const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';
/** Pods created or deleted per sync at most (MaxPodCreateDeletePerSync). */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
/** UIDs kept in status.uncountedTerminatedPods before a flush (MaxUncountedPods). */
export const MAX_UNCOUNTED_PODS = 500;
export const DEFAULT_POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 360_000;

export const REASON = {
  backoffLimitExceeded: 'BackoffLimitExceeded',
  deadlineExceeded: 'DeadlineExceeded',
  podFailurePolicy: 'PodFailurePolicy',
  maxFailedIndexesExceeded: 'MaxFailedIndexesExceeded',
  failedIndexes: 'FailedIndexes',
  successPolicy: 'SuccessPolicy',
  completionsReached: 'CompletionsReached',
} as const;

export const MESSAGE = {
  backoffLimitExceeded: 'Job has reached the specified backoff limit',
  deadlineExceeded: 'Job was active longer than specified deadline',
  maxFailedIndexesExceeded: 'Job has exceeded the specified maximal number of failed indexes',
  failedIndexes: 'Job has failed indexes',
  completionsReached: 'Reached expected number of succeeded pods',
} as const;

export function newCondition(type: string, status: string, reason: string, message: string, now: number): JobCondition {
  const t = rfc3339(now);
  return { type, status, lastProbeTime: t, lastTransitionTime: t, reason, message };
}

export function findCondition(job: Job, type: string): JobCondition | undefined {
  return (job.status?.conditions ?? []).find((c) => c.type === type);
}

export function hasTrueCondition(job: Job, type: string): boolean {
  return findCondition(job, type)?.status === 'True';
}

/** The Complete or Failed condition with status True, if any (FinishedCondition). */
export function finishedConditionType(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

export const isJobFinished = (job: Job): boolean => finishedConditionType(job) !== undefined;

/**
 * ensureJobConditionStatus: set a condition's status, reason and message, touching lastTransitionTime only when
 * the status flips; a False condition that does not exist yet is not added. Returns whether anything changed.
 */
export function ensureCondition(conds: JobCondition[], cond: JobCondition, now: number): boolean {
  const t = rfc3339(now);
  const cur = conds.find((c) => c.type === cond.type);
  if (!cur) {
    if (cond.status === 'False') return false;
    conds.push({ ...cond, lastProbeTime: t, lastTransitionTime: t });
    return true;
  }
  if (cur.status === cond.status && cur.reason === cond.reason && cur.message === cond.message) return false;
  if (cur.status !== cond.status) cur.lastTransitionTime = t;
  cur.status = cond.status;
  cur.reason = cond.reason;
  cur.message = cond.message;
  cur.lastProbeTime = t;
  return true;
}

export const isIndexed = (job: Job): boolean => job.spec?.completionMode === 'Indexed';
export const hasBackoffLimitPerIndex = (job: Job): boolean => isIndexed(job) && job.spec?.backoffLimitPerIndex != null;
/** Replacement pods wait for the old ones to be Failed, not just terminating (onlyReplaceFailedPods). */
export const onlyReplaceFailedPods = (job: Job): boolean => job.spec?.podReplacementPolicy === 'Failed' || job.spec?.podFailurePolicy != null;
