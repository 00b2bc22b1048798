// batch/v1 Job: SetDefaults_Job (pkg/apis/batch/v1/defaults.go), pkg/registry/batch/job/strategy.go (selector
// generation, status reset, update and status validation options, warnings, field selectors) and printJob in
// pkg/printers/internalversion/printers.go. Nothing runs jobs yet: they are only stored.
import { clone } from '../../../machinery/object.js';
import { compareGoStrings, isDNS1123Label, isValidLabelValue } from '../../../machinery/validation.js';
import { B, batchSchemaDefinitions } from '../schema.js';
import type { Job, JobCondition, JobSpec } from '../types.js';
import {
  CONTROLLER_UID, JOB_NAME, LEGACY_CONTROLLER_UID, LEGACY_JOB_NAME, validateJob, type JobValidationOptions,
} from './validation.js';
import { validateJobSpecUpdate, validateJobStatusUpdate } from './validation-update.js';
import { containerCells, CONTAINERS_DOC, defaultPodTemplateSpec, dropDisabledTemplateFields, IMAGES_DOC } from '../../core/podtemplate/spec.js';
import { ageColumn, formatLabelSelector, humanDuration, nameColumn, parseTime, type LabelSelectorLike } from '../../format.js';
import { defineResource, type KObject, type TableColumn } from '../../types.js';

const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;
const MAX_INT32 = 2147483647;

/** A create has no resourceVersion yet; every update carries the stored one (the generic store sets it). */
export const isCreate = (o: KObject): boolean => !o.metadata.resourceVersion;

/** Map keys in Go's order (json.Marshal sorts map keys). */
export function sortedMap(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(m).sort(compareGoStrings).map((k) => [k, m[k]]));
}

/** SetDefaults_Job plus the pod template defaults of SetObjectDefaults_Job. */
export function defaultJob(job: Job): void {
  const spec = (job.spec ??= {});
  if (!isSet(job.status)) job.status = {};
  if (!isSet(spec.completions) && !isSet(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (!isSet(spec.parallelism)) spec.parallelism = 1;
  if (!isSet(spec.backoffLimit)) spec.backoffLimit = isSet(spec.backoffLimitPerIndex) ? MAX_INT32 : 6;
  const tplLabels = spec.template?.metadata?.labels;
  if (isSet(tplLabels) && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...tplLabels };
  if (!isSet(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (!isSet(spec.suspend)) spec.suspend = false;
  for (const rule of spec.podFailurePolicy?.rules ?? []) {
    for (const pattern of rule?.onPodConditions ?? []) if (pattern && !pattern.status) pattern.status = 'True';
  }
  if (!isSet(spec.podReplacementPolicy)) spec.podReplacementPolicy = isSet(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (!isSet(spec.manualSelector)) spec.manualSelector = false;
  spec.template ??= {};
  defaultPodTemplateSpec(spec.template);
}

/** generateSelector: name and uid labels on the template (unless set), the uid label in the selector. */
function generateSelector(job: Job): void {
  const spec = (job.spec ??= {});
  const tpl = (spec.template ??= {});
  const meta = (tpl.metadata ??= {});
  const labels = { ...(meta.labels ?? {}) };
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  for (const key of [LEGACY_JOB_NAME, JOB_NAME]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID, CONTROLLER_UID]) if (!(key in labels)) labels[key] = uid;
  meta.labels = sortedMap(labels);
  const sel = (spec.selector ??= {});
  const matchLabels = { ...(sel.matchLabels ?? {}) };
  if (!(CONTROLLER_UID in matchLabels)) matchLabels[CONTROLLER_UID] = uid;
  sel.matchLabels = sortedMap(matchLabels);
}

function hasInvalidLabelValue(sel: LabelSelectorLike | null | undefined): boolean {
  if (!sel) return false;
  const values = [...Object.values(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).flatMap((e) => e.values ?? [])];
  return values.some((v) => isValidLabelValue(v).length > 0);
}

function validationOptions(old?: Job): JobValidationOptions {
  if (!old) return { requirePrefixedLabels: true, allowInvalidLabelValueInSelector: false, allowMutableSchedulingDirectives: false };
  const oldLabels = old.spec?.template?.metadata?.labels ?? {};
  return {
    // Jobs created before 1.27 lack the prefixed labels; they stay valid.
    requirePrefixedLabels: JOB_NAME in oldLabels && CONTROLLER_UID in oldLabels,
    allowInvalidLabelValueInSelector: hasInvalidLabelValue(old.spec?.selector),
    allowMutableSchedulingDirectives: old.spec?.suspend === true && !isSet(old.status?.startTime),
  };
}

const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_SOFT_LIMIT = 10_000;

/** WarningsForJobSpec (the pod template part is not reproduced). */
export function jobSpecWarnings(spec: JobSpec, path: string): string[] {
  if (spec.completionMode !== 'Indexed') return [];
  if ((spec.completions ?? 0) > COMPLETIONS_SOFT_LIMIT && (spec.parallelism ?? 0) > PARALLELISM_SOFT_LIMIT) {
    return [`${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`];
  }
  return [];
}

export function nameWarning(name: string | undefined): string[] {
  const msgs = isDNS1123Label(name ?? '');
  return name && msgs.length
    ? [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${msgs.join(' ')}]`]
    : [];
}

/** hasJobCondition as the printer has it: the first condition of the type decides. */
function hasCondition(conds: JobCondition[] | null | undefined, type: string): boolean {
  const c = (conds ?? []).find((x) => x.type === type);
  return c?.status === 'True';
}

export function jobStatusCell(job: Job): string {
  const conds = job.status?.conditions;
  if (hasCondition(conds, 'Complete')) return 'Complete';
  if (hasCondition(conds, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp) return 'Terminating';
  if (hasCondition(conds, 'Suspended')) return 'Suspended';
  if (hasCondition(conds, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

export function jobCompletionsCell(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  const spec = job.spec ?? {};
  if (isSet(spec.completions)) return `${succeeded}/${spec.completions}`;
  const parallelism = spec.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

export function jobDurationCell(job: Job, now: number): string {
  const start = parseTime(job.status?.startTime);
  if (start === undefined) return '';
  const end = parseTime(job.status?.completionTime);
  return humanDuration((end ?? now) - start);
}

const schema = batchSchemaDefinitions;
const jobColumns: TableColumn<Job>[] = [
  nameColumn(),
  { name: 'Status', type: 'string', description: 'Status of the job.', cell: jobStatusCell },
  { name: 'Completions', type: 'string', description: schema[B + 'JobStatus'].properties!.succeeded.description!, cell: jobCompletionsCell },
  { name: 'Duration', type: 'string', description: 'Time required to complete the job.', cell: (o, ctx) => jobDurationCell(o, ctx.now) },
  ageColumn(),
  { name: 'Containers', type: 'string', priority: 1, description: CONTAINERS_DOC, cell: (o) => containerCells(o.spec?.template?.spec?.containers).names },
  { name: 'Images', type: 'string', priority: 1, description: IMAGES_DOC, cell: (o) => containerCells(o.spec?.template?.spec?.containers).images },
  { name: 'Selector', type: 'string', priority: 1, description: schema[B + 'JobSpec'].properties!.selector.description!, cell: (o) => formatLabelSelector(o.spec?.selector) },
];

export const jobResource = defineResource<Job>({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  plural: 'jobs',
  singular: 'job',
  categories: ['all'],
  namespaced: true,
  schemaRef: B + 'Job',
  definitions: batchSchemaDefinitions,
  hasGeneration: true,
  subresources: { status: true },
  columns: jobColumns,
  selectableFields: { 'status.successful': (j) => String(j.status?.succeeded ?? 0) },
  strategy: {
    defaults: defaultJob,
    prepareForCreate(job) {
      if (job.spec?.manualSelector !== true) generateSelector(job);
      job.status = {};
      dropDisabledTemplateFields(job.spec?.template);
      // Kubernetes defaults job labels from the template again whenever it reads the stored job, by which time
      // the generated labels are on the template.
      const tplLabels = job.spec?.template?.metadata?.labels;
      if (tplLabels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...tplLabels };
    },
    prepareForUpdate(job, old) {
      job.status = clone(old.status) ?? {};
      dropDisabledTemplateFields(job.spec?.template, old.spec?.template);
    },
    // ValidateJob on create; on update every check needs the old object, so validateUpdate runs them all.
    validate: (job) => (isCreate(job) ? validateJob(job, validationOptions()) : []),
    validateUpdate(job, old) {
      const opts = validationOptions(old);
      return [...validateJob(job, opts), ...validateJobSpecUpdate(job, old, opts)];
    },
    validateStatusUpdate: validateJobStatusUpdate,
    warnings(job, old) {
      if (!old) return [...nameWarning(job.metadata.name), ...jobSpecWarnings(job.spec ?? {}, 'spec')];
      return job.metadata.generation !== old.metadata.generation ? jobSpecWarnings(job.spec ?? {}, 'spec') : [];
    },
    // batch/v1 keeps orphaning a deleted job's pods unless the client asks otherwise.
    defaultGCPolicy: 'OrphanDependents',
    allowCreateOnUpdate: false,
  },
});
