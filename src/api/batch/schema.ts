// OpenAPI schema of batch/v1 Job and CronJob. Field names, required fields, list types and patch metadata follow
// the Go struct tags and markers of k8s.io/api/batch/v1/types.go (1.33); descriptions are short summaries.
import { s, type Definitions, type Schema } from '../../machinery/schema.js';
import { CORE } from '../core/common.js';
import { podTemplateSpecDefinitions } from '../core/podtemplate/spec.js';
import { kindHeader, listDefinition, META } from '../meta.js';

export const B = 'io.k8s.api.batch.v1.';
const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
const r = (name: string, description?: string, extra: Partial<Schema> = {}): Schema => s.ref(B + name, description, extra);
const reqStr = (description: string) => s.str(description, { default: '' });

const jobSpecFields: Record<string, Schema> = {
  parallelism: s.int32('Maximum number of pods the job should run at any time. Defaults to 1; 0 pauses the job. More info: https://kubernetes.io/docs/concepts/workloads/controllers/jobs-run-to-completion/'),
  completions: s.int32('Number of successfully finished pods the job needs. Unset means any pod success ends the job (only when parallelism is also unset, both default to 1).'),
  activeDeadlineSeconds: s.int64('Seconds, counted from the job start, after which the system terminates the job. Positive integer.'),
  podFailurePolicy: r('PodFailurePolicy', 'Rules that decide how failed pods count towards backoffLimit; a matching rule may fail the job or ignore the failure. Requires restartPolicy Never.'),
  successPolicy: r('SuccessPolicy', 'Rules that declare an Indexed job succeeded before all indexes finish. Only for Indexed jobs.'),
  backoffLimit: s.int32('Number of retries before the job is marked failed. Defaults to 6 (to 2147483647 when backoffLimitPerIndex is set).'),
  backoffLimitPerIndex: s.int32('Retries allowed per index of an Indexed job before that index is marked failed. Immutable.'),
  maxFailedIndexes: s.int32('Number of failed indexes after which an Indexed job with backoffLimitPerIndex fails as a whole.'),
  selector: s.ref(META.LabelSelector, 'Label query over the pods of the job. Generated from the job uid unless manualSelector is true. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors'),
  manualSelector: s.bool('Whether the selector is set by hand. Default false: the system generates a unique selector and template labels.'),
  template: s.ref(CORE + 'PodTemplateSpec', 'The pod the job runs. restartPolicy must be Never or OnFailure. More info: https://kubernetes.io/docs/concepts/workloads/controllers/jobs-run-to-completion/', { default: {} }),
  ttlSecondsAfterFinished: s.int32('Seconds after the job finishes (Complete or Failed) before it is deleted automatically. 0 deletes it right away; unset keeps it.'),
  completionMode: s.str('How pod completions are tracked: NonIndexed (default, any `completions` successes) or Indexed (each index 0..completions-1 must succeed once).'),
  suspend: s.bool('Whether the job controller should create pods. Suspending a running job terminates its active pods. Defaults to false.'),
  podReplacementPolicy: s.str('When a replacement pod is created: TerminatingOrFailed (default, as soon as the old pod terminates) or Failed (once it is fully failed). Must be Failed with a podFailurePolicy.'),
  managedBy: s.str('Controller that manages the job; "kubernetes.io/job-controller" or empty means the built-in one. Immutable, at most 63 characters.'),
};

const jobStatusFields: Record<string, Schema> = {
  conditions: s.arr(r('JobCondition', undefined, { default: {} }), {
    mergeKey: 'type',
    listType: 'atomic',
    description: 'Latest observations of the job state: Complete and Failed are terminal; Suspended, FailureTarget and SuccessCriteriaMet are set on the way. More info: https://kubernetes.io/docs/concepts/workloads/controllers/jobs-run-to-completion/',
  }),
  startTime: s.time('When the job controller started processing the job (reset when a suspended job resumes).'),
  completionTime: s.time('When the job completed. Only set for successful jobs.'),
  active: s.int32('Number of pending and running pods that are not terminating.'),
  succeeded: s.int32('Number of pods which reached phase Succeeded.'),
  failed: s.int32('Number of pods which reached phase Failed.'),
  terminating: s.int32('Number of pods which are terminating (have a deletionTimestamp).'),
  completedIndexes: s.str('Completed indexes of an Indexed job, as a compressed list such as "1,3-5,7".'),
  failedIndexes: s.str('Failed indexes of an Indexed job with backoffLimitPerIndex, as a compressed list such as "1,3-5,7".'),
  uncountedTerminatedPods: r('UncountedTerminatedPods', 'UIDs of terminated pods the controller has not yet counted in the status counters.'),
  ready: s.int32('Number of active pods that have a Ready condition.'),
};

const batchOwn: Definitions = {
  [B + 'Job']: s.obj(
    {
      ...kindHeader(),
      spec: r('JobSpec', `Specification of the desired behavior of the job. More info: ${CONVENTIONS}#spec-and-status`),
      status: r('JobStatus', `Current status of the job. More info: ${CONVENTIONS}#spec-and-status`),
    },
    { description: 'Job represents the configuration of a single job.' },
  ),
  [B + 'JobList']: listDefinition(B + 'Job', 'JobList is a collection of jobs.', 'items is the list of Jobs.'),
  [B + 'JobSpec']: s.obj(jobSpecFields, { required: ['template'], description: 'JobSpec describes how the job execution will look like.' }),
  [B + 'JobStatus']: s.obj(jobStatusFields, { description: 'JobStatus represents the current state of a Job.' }),
  [B + 'JobCondition']: s.obj(
    {
      type: reqStr('Type of job condition, Complete or Failed.'),
      status: reqStr('Status of the condition, one of True, False, Unknown.'),
      lastProbeTime: s.time('Last time the condition was checked.'),
      lastTransitionTime: s.time('Last time the condition transitioned from one status to another.'),
      reason: s.str("(brief) reason for the condition's last transition."),
      message: s.str('Human readable message indicating details about last transition.'),
    },
    { required: ['type', 'status'], description: 'JobCondition describes current state of a job.' },
  ),
  [B + 'UncountedTerminatedPods']: s.obj(
    {
      succeeded: s.strSet('UIDs of succeeded pods.'),
      failed: s.strSet('UIDs of failed pods.'),
    },
    { description: "UncountedTerminatedPods holds UIDs of Pods that have terminated but haven't been accounted in Job status counters." },
  ),
  [B + 'PodFailurePolicy']: s.obj(
    {
      rules: s.arr(r('PodFailurePolicyRule', undefined, { default: {} }), {
        description: 'Rules evaluated in order; the first one matching a failed pod applies. At most 20.',
      }),
    },
    { required: ['rules'], description: 'PodFailurePolicy describes how failed pods influence the backoffLimit.' },
  ),
  [B + 'PodFailurePolicyRule']: s.obj(
    {
      action: reqStr('What to do when the rule matches: FailJob, FailIndex, Ignore or Count.'),
      onExitCodes: r('PodFailurePolicyOnExitCodesRequirement', 'Requirement on the container exit codes.'),
      onPodConditions: s.arr(r('PodFailurePolicyOnPodConditionsPattern', undefined, { default: {} }), {
        description: 'Requirement on the pod conditions; the rule matches when any pattern matches. At most 20.',
      }),
    },
    { required: ['action'], description: 'PodFailurePolicyRule describes how a pod failure is handled when the requirements are met. One of onExitCodes and onPodConditions must be set.' },
  ),
  [B + 'PodFailurePolicyOnExitCodesRequirement']: s.obj(
    {
      containerName: s.str('Restricts the check to the container of this name; unset checks every container.'),
      operator: reqStr('In or NotIn: whether the exit code must or must not be in values.'),
      values: { type: 'array', items: s.int32(undefined, { default: 0 }), listType: 'set', description: 'Exit codes to check, ordered and without duplicates. 0 is not allowed with In. At most 255.' },
    },
    { required: ['operator', 'values'], description: 'PodFailurePolicyOnExitCodesRequirement describes the requirement for handling a failed pod based on its container exit codes.' },
  ),
  [B + 'PodFailurePolicyOnPodConditionsPattern']: s.obj(
    {
      type: reqStr('Pod condition type to match.'),
      status: reqStr('Required status of the condition: True (default), False or Unknown.'),
    },
    { required: ['type'], description: 'PodFailurePolicyOnPodConditionsPattern describes a pattern for matching an actual pod condition type.' },
  ),
  [B + 'SuccessPolicy']: s.obj(
    {
      rules: s.arr(r('SuccessPolicyRule', undefined, { default: {} }), {
        description: 'Rules evaluated in order; the job succeeds as soon as one is satisfied. 1 to 20 rules.',
      }),
    },
    { required: ['rules'], description: 'SuccessPolicy describes when a Job can be declared as succeeded based on the success of some indexes.' },
  ),
  [B + 'SuccessPolicyRule']: s.obj(
    {
      succeededIndexes: s.str('Indexes that must all succeed, as a list of ascending intervals such as "1,3-5,7".'),
      succeededCount: s.int32('Minimum number of succeeded indexes (among succeededIndexes when set).'),
    },
    { description: 'SuccessPolicyRule describes rule for declaring a Job as succeeded. At least one of succeededIndexes and succeededCount must be set.' },
  ),
  [B + 'JobTemplateSpec']: s.obj(
    {
      metadata: s.ref(META.ObjectMeta, `Standard object's metadata of the jobs created from this template. More info: ${CONVENTIONS}#metadata`, { default: {} }),
      spec: r('JobSpec', `Specification of the desired behavior of the job. More info: ${CONVENTIONS}#spec-and-status`, { default: {} }),
    },
    { description: 'JobTemplateSpec describes the data a Job should have when created from a template' },
  ),
  [B + 'CronJob']: s.obj(
    {
      ...kindHeader(),
      spec: r('CronJobSpec', `Specification of the desired behavior of a cron job, including the schedule. More info: ${CONVENTIONS}#spec-and-status`),
      status: r('CronJobStatus', `Current status of a cron job. More info: ${CONVENTIONS}#spec-and-status`),
    },
    { description: 'CronJob represents the configuration of a single cron job.' },
  ),
  [B + 'CronJobList']: listDefinition(B + 'CronJob', 'CronJobList is a collection of cron jobs.', 'items is the list of CronJobs.'),
  [B + 'CronJobSpec']: s.obj(
    {
      schedule: reqStr('The schedule in Cron format (five fields, or a descriptor such as @hourly), see https://en.wikipedia.org/wiki/Cron.'),
      timeZone: s.str('IANA time zone name the schedule is interpreted in, e.g. "Etc/UTC"; unset uses the time zone of the controller manager.'),
      startingDeadlineSeconds: s.int64('Deadline in seconds for starting the job if it misses its scheduled time; missed runs past it count as failed.'),
      concurrencyPolicy: s.str('How to treat concurrent runs: Allow (default), Forbid (skip the new run) or Replace (cancel the running job).'),
      suspend: s.bool('Whether the controller should suspend subsequent runs; running jobs are not affected. Defaults to false.'),
      jobTemplate: r('JobTemplateSpec', 'The job that is created when the schedule fires.', { default: {} }),
      successfulJobsHistoryLimit: s.int32('Number of successful finished jobs to keep. Defaults to 3.'),
      failedJobsHistoryLimit: s.int32('Number of failed finished jobs to keep. Defaults to 1.'),
    },
    { required: ['schedule', 'jobTemplate'], description: 'CronJobSpec describes how the job execution will look like and when it will actually run.' },
  ),
  [B + 'CronJobStatus']: s.obj(
    {
      active: s.arr(s.ref(CORE + 'ObjectReference', undefined, { default: {} }), { description: 'References to the currently running jobs.' }),
      lastScheduleTime: s.time('The last time the job was successfully scheduled.'),
      lastSuccessfulTime: s.time('The last time the job successfully completed.'),
    },
    { description: 'CronJobStatus represents the current state of a cron job.' },
  ),
};

/** batch/v1 definitions plus the core PodTemplateSpec (and PodSpec) they embed. */
export const batchSchemaDefinitions: Definitions = { ...podTemplateSpecDefinitions, ...batchOwn };
