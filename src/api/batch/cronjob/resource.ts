// batch/v1 CronJob: SetDefaults_CronJob, ValidateCronJobCreate/Update (schedule, timeZone, concurrency policy,
// job template), pkg/registry/batch/cronjob/strategy.go and printCronJob. Nothing schedules the jobs yet.
import { FieldError } from '../../../machinery/errors.js';
import { clone } from '../../../machinery/object.js';
import { cronParseError, timeZoneLoadError } from './schedule.js';
import { jobSpecWarnings, isCreate, nameWarning } from '../job/resource.js';
import { nonNegative, validateJobTemplateSpec } from '../job/validation.js';
import { B, batchSchemaDefinitions } from '../schema.js';
import type { CronJob, CronJobSpec } from '../types.js';
import { containerCells, CONTAINERS_DOC, defaultPodTemplateSpec, dropDisabledTemplateFields, IMAGES_DOC, normalizeEmbeddedMeta } from '../../core/podtemplate/spec.js';
import { age, ageColumn, CELL_NONE, formatLabelSelector, nameColumn } from '../../format.js';
import { defineResource, type TableColumn } from '../../types.js';

const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** SetDefaults_CronJob plus the pod template defaults of SetObjectDefaults_CronJob (the job spec gets none). */
export function defaultCronJob(cj: CronJob): void {
  const spec = (cj.spec ??= {});
  if (!isSet(cj.status)) cj.status = {};
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  if (!isSet(spec.suspend)) spec.suspend = false;
  if (!isSet(spec.successfulJobsHistoryLimit)) spec.successfulJobsHistoryLimit = 3;
  if (!isSet(spec.failedJobsHistoryLimit)) spec.failedJobsHistoryLimit = 1;
  const jt = (spec.jobTemplate ??= {});
  normalizeEmbeddedMeta((jt.metadata ??= {}) as Record<string, unknown>);
  const js = (jt.spec ??= {});
  defaultPodTemplateSpec((js.template ??= {}));
}

const TZ_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

/** validateTimeZone: IANA naming rules, not "Local", and a zone time.LoadLocation knows. */
export function validateTimeZone(tz: string | null | undefined, path: string): FieldError[] {
  if (!isSet(tz)) return [];
  if (tz === '') return [FieldError.invalid(path, tz, 'timeZone must be nil or non-empty string')];
  for (const part of tz.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TZ_PART.test(part)) return [FieldError.invalid(path, tz, `unknown time zone ${tz}`)];
  }
  const errs: FieldError[] = [];
  if (tz.toLowerCase() === 'local') errs.push(FieldError.invalid(path, tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  const loadErr = timeZoneLoadError(tz);
  if (loadErr) errs.push(FieldError.invalid(path, tz, loadErr));
  return errs;
}

function validateSchedule(schedule: string, allowTZ: boolean, timeZone: string | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const parseErr = cronParseError(schedule);
  if (parseErr) errs.push(FieldError.invalid(path, schedule, parseErr));
  if (allowTZ && schedule.includes('TZ') && isSet(timeZone)) errs.push(FieldError.invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  else if (!allowTZ && schedule.includes('TZ')) errs.push(FieldError.invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  return errs;
}

const CONCURRENCY = ['Allow', 'Forbid', 'Replace'];

/** validateCronJobSpec; `old` is the stored spec on updates (TZ kept in a schedule stays allowed). */
export function validateCronJobSpec(spec: CronJobSpec, old: CronJobSpec | undefined, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = spec.schedule ?? '';
  if (schedule === '') errs.push(FieldError.required(`${path}.schedule`));
  else errs.push(...validateSchedule(schedule, old ? (old.schedule ?? '').includes('TZ') : false, spec.timeZone, `${path}.schedule`));
  errs.push(...nonNegative(spec.startingDeadlineSeconds, `${path}.startingDeadlineSeconds`));
  if (!old || (old.timeZone ?? null) !== (spec.timeZone ?? null)) errs.push(...validateTimeZone(spec.timeZone, `${path}.timeZone`));
  const cp = spec.concurrencyPolicy ?? '';
  if (cp === '') errs.push(FieldError.required(`${path}.concurrencyPolicy`));
  else if (!CONCURRENCY.includes(cp)) errs.push(FieldError.notSupported(`${path}.concurrencyPolicy`, cp, CONCURRENCY));
  errs.push(...validateJobTemplateSpec(spec.jobTemplate ?? {}, `${path}.jobTemplate`));
  errs.push(...nonNegative(spec.successfulJobsHistoryLimit, `${path}.successfulJobsHistoryLimit`));
  errs.push(...nonNegative(spec.failedJobsHistoryLimit, `${path}.failedJobsHistoryLimit`));
  return errs;
}

/** The controller appends an 11-character suffix to job names, which must stay within 63 characters. */
const MAX_CRONJOB_NAME = 63 - 11;

export function validateCronJobCreate(cj: CronJob): FieldError[] {
  const errs = validateCronJobSpec(cj.spec ?? {}, undefined);
  const name = cj.metadata.name ?? '';
  if (name.length > MAX_CRONJOB_NAME) errs.push(FieldError.invalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME} characters`));
  return errs;
}

const desc = (def: string, field: string) => batchSchemaDefinitions[B + def].properties![field].description!;
const cronJobColumns: TableColumn<CronJob>[] = [
  nameColumn(),
  { name: 'Schedule', type: 'string', description: desc('CronJobSpec', 'schedule'), cell: (o) => o.spec?.schedule ?? '' },
  { name: 'Timezone', type: 'string', description: desc('CronJobSpec', 'timeZone'), cell: (o) => o.spec?.timeZone ?? CELL_NONE },
  {
    name: 'Suspend',
    type: 'boolean',
    description: desc('CronJobSpec', 'suspend'),
    // printBoolPtr: a string even though the column says boolean.
    cell: (o) => (isSet(o.spec?.suspend) ? (o.spec.suspend ? 'True' : 'False') : '<unset>'),
  },
  { name: 'Active', type: 'integer', description: desc('CronJobStatus', 'active'), cell: (o) => o.status?.active?.length ?? 0 },
  {
    name: 'Last Schedule',
    type: 'string',
    description: desc('CronJobStatus', 'lastScheduleTime'),
    cell: (o, ctx) => (isSet(o.status?.lastScheduleTime) ? age(o.status.lastScheduleTime, ctx.now) : CELL_NONE),
  },
  ageColumn(),
  { name: 'Containers', type: 'string', priority: 1, description: CONTAINERS_DOC, cell: (o) => containerCells(o.spec?.jobTemplate?.spec?.template?.spec?.containers).names },
  { name: 'Images', type: 'string', priority: 1, description: IMAGES_DOC, cell: (o) => containerCells(o.spec?.jobTemplate?.spec?.template?.spec?.containers).images },
  { name: 'Selector', type: 'string', priority: 1, description: desc('JobSpec', 'selector'), cell: (o) => formatLabelSelector(o.spec?.jobTemplate?.spec?.selector) },
];

export const cronJobResource = defineResource<CronJob>({
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  singular: 'cronjob',
  shortNames: ['cj'],
  categories: ['all'],
  namespaced: true,
  schemaRef: B + 'CronJob',
  definitions: batchSchemaDefinitions,
  hasGeneration: true,
  subresources: { status: true },
  columns: cronJobColumns,
  strategy: {
    defaults: defaultCronJob,
    prepareForCreate(cj) {
      cj.status = {};
      dropDisabledTemplateFields(cj.spec?.jobTemplate?.spec?.template);
    },
    prepareForUpdate(cj, old) {
      cj.status = clone(old.status) ?? {};
      dropDisabledTemplateFields(cj.spec?.jobTemplate?.spec?.template, old.spec?.jobTemplate?.spec?.template);
    },
    // The create and update forms differ (TZ in schedule, timeZone only when changed, name length on create).
    validate: (cj) => (isCreate(cj) ? validateCronJobCreate(cj) : []),
    validateUpdate: (cj, old) => validateCronJobSpec(cj.spec ?? {}, old.spec ?? {}),
    validateStatusUpdate: () => [],
    warnings(cj, old) {
      const jobPath = 'spec.jobTemplate.spec';
      if (!old) return [...nameWarning(cj.metadata.name), ...jobSpecWarnings(cj.spec?.jobTemplate?.spec ?? {}, jobPath)];
      const w = cj.metadata.generation !== old.metadata.generation ? jobSpecWarnings(cj.spec?.jobTemplate?.spec ?? {}, jobPath) : [];
      // Kubernetes names the field "spec.spec.schedule" in this warning; kept as is.
      if ((cj.spec?.schedule ?? '').includes('TZ')) {
        w.push('cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details');
      }
      return w;
    },
    allowCreateOnUpdate: false,
  },
});
