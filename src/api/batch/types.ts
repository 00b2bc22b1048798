// TypeScript shapes of batch/v1 Job and CronJob (open: unknown fields pass through to schema validation).
import type { ObjectReference } from '../core/common.js';
import type { PodTemplateSpec } from '../core/podtemplate/spec.js';
import type { LabelSelectorLike } from '../format.js';
import type { KObject, ObjectMeta } from '../types.js';

export interface PodFailurePolicyRule {
  action?: string;
  onExitCodes?: { containerName?: string | null; operator?: string; values?: number[] | null } | null;
  onPodConditions?: Array<{ type?: string; status?: string }> | null;
  [k: string]: unknown;
}

export interface SuccessPolicyRule {
  succeededIndexes?: string | null;
  succeededCount?: number | null;
}

export interface JobSpec {
  parallelism?: number | null;
  completions?: number | null;
  activeDeadlineSeconds?: number | null;
  podFailurePolicy?: { rules?: PodFailurePolicyRule[] | null } | null;
  successPolicy?: { rules?: SuccessPolicyRule[] | null } | null;
  backoffLimit?: number | null;
  backoffLimitPerIndex?: number | null;
  maxFailedIndexes?: number | null;
  selector?: LabelSelectorLike | null;
  manualSelector?: boolean | null;
  template?: PodTemplateSpec;
  ttlSecondsAfterFinished?: number | null;
  completionMode?: string | null;
  suspend?: boolean | null;
  podReplacementPolicy?: string | null;
  managedBy?: string | null;
  [k: string]: unknown;
}

export interface JobCondition {
  type?: string;
  status?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface JobStatus {
  conditions?: JobCondition[] | null;
  startTime?: string | null;
  completionTime?: string | null;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number | null;
  completedIndexes?: string;
  failedIndexes?: string | null;
  uncountedTerminatedPods?: { succeeded?: string[] | null; failed?: string[] | null } | null;
  ready?: number | null;
  [k: string]: unknown;
}

export interface Job extends KObject {
  spec?: JobSpec;
  status?: JobStatus;
}

export interface JobTemplateSpec {
  metadata?: ObjectMeta;
  spec?: JobSpec;
}

export interface CronJobSpec {
  schedule?: string;
  timeZone?: string | null;
  startingDeadlineSeconds?: number | null;
  concurrencyPolicy?: string;
  suspend?: boolean | null;
  jobTemplate?: JobTemplateSpec;
  successfulJobsHistoryLimit?: number | null;
  failedJobsHistoryLimit?: number | null;
  [k: string]: unknown;
}

export interface CronJob extends KObject {
  spec?: CronJobSpec;
  status?: { active?: ObjectReference[] | null; lastScheduleTime?: string | null; lastSuccessfulTime?: string | null };
}
