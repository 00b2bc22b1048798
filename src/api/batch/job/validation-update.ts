// Job update rules: ValidateJobSpecUpdate (immutable selector, template, completion mode, ...; elastic Indexed
// completions; scheduling directives of never-started suspended jobs) and ValidateJobUpdateStatus with the
// strict status checks kube-apiserver 1.33 runs (JobManagedBy on), each only when the fields involved change.
import { FieldError } from '../../../machinery/errors.js';
import { bare, goLabelSelector } from '../../gofmt.js';
import {
  immutable, nonNegative, OMIT, parseIndexes, semanticEqual, validateJobSpecWithSelector, type JobValidationOptions,
} from './validation.js';
import type { Job, JobCondition, JobSpec, JobStatus } from '../types.js';
import type { PodTemplateSpec } from '../../core/podtemplate/spec.js';
import { parseTime } from '../../format.js';

const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

// Struct bad values (PodTemplateSpec, PodFailurePolicy) cannot be printed as Go does (%#v with pointers): a short
// stand-in keeps the message shape.
const TEMPLATE_VALUE = bare('core.PodTemplateSpec{ObjectMeta:v1.ObjectMeta{...}, Spec:core.PodSpec{...}}');
const goStructPtr = (type: string, v: unknown) => (isSet(v) ? bare(`&batch.${type}{...}`) : null);

function validateCompletions(spec: JobSpec, old: JobSpec, path: string): FieldError[] {
  // ElasticIndexedJob (GA): Indexed jobs may change completions together with parallelism.
  if (spec.completionMode !== 'Indexed') return immutable(spec.completions, old.completions, path);
  if (semanticEqual(spec.completions, old.completions) || !isSet(spec.completions)) return [];
  return spec.completions !== spec.parallelism ? [FieldError.invalid(path, spec.completions, 'can only be modified in tandem with spec.parallelism')] : [];
}

/** validatePodTemplateUpdate: scheduling directives of a suspended job that never started may change. */
function validateTemplateUpdate(spec: JobSpec, old: JobSpec, path: string, opts: JobValidationOptions): FieldError[] {
  const tpl: PodTemplateSpec = spec.template ?? {};
  let oldTpl: PodTemplateSpec = old.template ?? {};
  if (opts.allowMutableSchedulingDirectives) {
    oldTpl = structuredClone(oldTpl);
    const os = (oldTpl.spec ??= {});
    const ns = tpl.spec ?? {};
    const oldAff = os.affinity as Record<string, unknown> | undefined;
    const newAff = ns.affinity as Record<string, unknown> | undefined;
    if (!isSet(newAff) && isSet(oldAff)) {
      // the affinity may be cleared when node affinity was all it had
      delete oldAff.nodeAffinity;
      if (Object.values(oldAff).every((v) => !isSet(v))) delete os.affinity;
    } else if (isSet(newAff) && !isSet(oldAff)) {
      os.affinity = isSet(newAff.nodeAffinity) ? { nodeAffinity: newAff.nodeAffinity } : {};
    } else if (isSet(newAff) && isSet(oldAff)) {
      oldAff.nodeAffinity = newAff.nodeAffinity;
    }
    os.nodeSelector = ns.nodeSelector;
    os.tolerations = ns.tolerations;
    os.schedulingGates = ns.schedulingGates;
    const om = (oldTpl.metadata ??= {});
    om.annotations = tpl.metadata?.annotations;
    om.labels = tpl.metadata?.labels;
  }
  return immutable(tpl, oldTpl, `${path}.template`, TEMPLATE_VALUE);
}

/** ValidateJobUpdate without the metadata part (the generic registry runs it). */
export function validateJobSpecUpdate(job: Job, old: Job, opts: JobValidationOptions): FieldError[] {
  const spec = job.spec ?? {};
  const o = old.spec ?? {};
  const p = 'spec';
  return [
    ...validateJobSpecWithSelector(spec, p, opts),
    ...validateCompletions(spec, o, `${p}.completions`),
    ...immutable(spec.selector, o.selector, `${p}.selector`, isSet(spec.selector) ? bare(goLabelSelector(spec.selector)) : null),
    ...validateTemplateUpdate(spec, o, p, opts),
    ...immutable(spec.completionMode, o.completionMode, `${p}.completionMode`),
    ...immutable(spec.podFailurePolicy, o.podFailurePolicy, `${p}.podFailurePolicy`, goStructPtr('PodFailurePolicy', spec.podFailurePolicy)),
    ...immutable(spec.backoffLimitPerIndex, o.backoffLimitPerIndex, `${p}.backoffLimitPerIndex`),
    ...immutable(spec.managedBy, o.managedBy, `${p}.managedBy`),
    ...immutable(spec.successPolicy, o.successPolicy, `${p}.successPolicy`, goStructPtr('SuccessPolicy', spec.successPolicy)),
  ];
}

// ---- status ----

const condTrue = (conds: JobCondition[] | null | undefined, type: string): boolean =>
  (conds ?? []).some((c) => c.type === type && c.status === 'True');
const complete = (j: Job) => condTrue(j.status?.conditions, 'Complete');
const failed = (j: Job) => condTrue(j.status?.conditions, 'Failed');
const finished = (j: Job) => (j.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
const criteriaMet = (j: Job) => condTrue(j.status?.conditions, 'SuccessCriteriaMet');
const failureTarget = (j: Job) => condTrue(j.status?.conditions, 'FailureTarget');
const time = (v: string | null | undefined) => parseTime(v);
const goTimeValue = (v: string | null | undefined) => (isSet(v) ? bare(goTime(v)) : null);

/** Go's time.Time String() in UTC (a *metav1.Time bad value prints through it). */
function goTime(ts: string): string {
  const ms = Date.parse(ts);
  if (Number.isNaN(ms)) return ts;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000 UTC`;
}

/** failedIndexes and completedIndexes must not overlap (validateFailedIndexesNotOverlapCompleted). */
function overlap(completed: string, failedIdx: string, completions: number): string | undefined {
  const expand = (text: string): Set<number> => {
    const out = new Set<number>();
    for (const part of text ? text.split(',') : []) {
      const [a, b = a] = part.split('-').map(Number);
      if (!Number.isInteger(a) || !Number.isInteger(b) || a >= completions || b >= completions) continue;
      for (let i = a; i <= b && i - a < 1e6; i++) out.add(i);
    }
    return out;
  };
  const c = expand(completed);
  const hits = [...expand(failedIdx)].filter((i) => c.has(i)).sort((x, y) => x - y);
  return hits.length ? `failedIndexes and completedIndexes overlap at index: ${hits[0]}` : undefined;
}

/** ValidateJobUpdateStatus without the metadata part. */
export function validateJobStatusUpdate(job: Job, old: Job): FieldError[] {
  const st: JobStatus = job.status ?? {};
  const os: JobStatus = old.status ?? {};
  const spec = job.spec ?? {};
  const p = 'status';
  const errs: FieldError[] = [];
  const indexed = spec.completionMode === 'Indexed';
  const changed = {
    finished: finished(old) !== finished(job),
    complete: complete(old) !== complete(job),
    failed: failed(old) !== failed(job),
    failureTarget: failureTarget(old) !== failureTarget(job),
    completedIndexes: (os.completedIndexes ?? '') !== (st.completedIndexes ?? ''),
    failedIndexes: (os.failedIndexes ?? null) !== (st.failedIndexes ?? null),
    active: (os.active ?? 0) !== (st.active ?? 0),
    startTime: time(os.startTime) !== time(st.startTime),
    completionTime: time(os.completionTime) !== time(st.completionTime),
    uncounted: !semanticEqual(os.uncountedTerminatedPods, st.uncountedTerminatedPods),
  };
  const invalidOmit = (path: string, detail: string) => new FieldError('FieldValueInvalid', path, OMIT, detail);
  errs.push(...nonNegative(st.active ?? 0, `${p}.active`), ...nonNegative(st.succeeded ?? 0, `${p}.succeeded`), ...nonNegative(st.failed ?? 0, `${p}.failed`));
  errs.push(...nonNegative(st.ready, `${p}.ready`), ...nonNegative(st.terminating, `${p}.terminating`));
  if (isSet(st.uncountedTerminatedPods)) {
    const seen = new Set<string>();
    for (const kind of ['succeeded', 'failed'] as const) {
      (st.uncountedTerminatedPods[kind] ?? []).forEach((uid, i) => {
        const path = `${p}.uncountedTerminatedPods.${kind}[${i}]`;
        if (uid === '') errs.push(FieldError.invalid(path, uid, 'must not be empty'));
        else if (seen.has(uid)) errs.push(FieldError.duplicate(path, uid));
        else seen.add(uid);
      });
    }
  }
  const cond = `${p}.conditions`;
  if ((changed.complete || changed.failed) && complete(job) && failed(job)) errs.push(invalidOmit(cond, 'cannot set Complete=True and Failed=true conditions'));
  if ((changed.complete || changed.failureTarget) && complete(job) && failureTarget(job)) errs.push(invalidOmit(cond, 'cannot set Complete=True and FailureTarget=true conditions'));
  if ((changed.complete || changed.completionTime) && isSet(st.completionTime) && !complete(job)) {
    errs.push(FieldError.invalid(`${p}.completionTime`, goTimeValue(st.completionTime), 'cannot set completionTime when there is no Complete=True condition'));
  }
  if ((changed.complete || changed.completionTime) && !isSet(st.completionTime) && complete(job)) {
    errs.push(FieldError.required(`${p}.completionTime`, 'completionTime is required for Complete jobs'));
  }
  if (changed.startTime || changed.completionTime) {
    const s = time(st.startTime);
    const c = time(st.completionTime);
    if (s !== undefined && c !== undefined && c < s) errs.push(FieldError.invalid(`${p}.completionTime`, goTimeValue(st.completionTime), 'completionTime cannot be set before startTime'));
  }
  if (finished(job) && (changed.finished || changed.active) && (st.active ?? 0) > 0) errs.push(FieldError.invalid(`${p}.active`, st.active, 'active>0 is invalid for finished job'));
  if (finished(job) && (changed.finished || changed.startTime) && !isSet(st.startTime)) errs.push(FieldError.required(`${p}.startTime`, 'startTime is required for finished job'));
  const uncounted = st.uncountedTerminatedPods;
  if (finished(job) && (changed.finished || changed.uncounted) && isSet(uncounted) && (uncounted.failed?.length ?? 0) + (uncounted.succeeded?.length ?? 0) > 0) {
    errs.push(FieldError.invalid(`${p}.uncountedTerminatedPods`, bare(`&batch.UncountedTerminatedPods{...}`), 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  if (changed.completedIndexes && isSet(spec.completions)) {
    const r = parseIndexes(st.completedIndexes ?? '', spec.completions);
    if (typeof r === 'string') errs.push(FieldError.invalid(`${p}.completedIndexes`, st.completedIndexes ?? '', `error parsing completedIndexes: ${r}`));
  }
  if (changed.failedIndexes && isSet(spec.completions) && isSet(spec.backoffLimitPerIndex) && isSet(st.failedIndexes)) {
    const r = parseIndexes(st.failedIndexes, spec.completions);
    if (typeof r === 'string') errs.push(FieldError.invalid(`${p}.failedIndexes`, st.failedIndexes, `error parsing failedIndexes: ${r}`));
  }
  if (changed.completedIndexes && (st.completedIndexes ?? '') !== '' && !indexed) {
    errs.push(FieldError.invalid(`${p}.completedIndexes`, st.completedIndexes, 'cannot set non-empty completedIndexes when non-indexed completion mode'));
  }
  if (changed.failedIndexes && !isSet(spec.backoffLimitPerIndex) && isSet(st.failedIndexes)) {
    errs.push(FieldError.invalid(`${p}.failedIndexes`, st.failedIndexes, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if ((changed.failedIndexes || changed.completedIndexes) && isSet(spec.completions) && isSet(st.failedIndexes)) {
    const msg = overlap(st.completedIndexes ?? '', st.failedIndexes, spec.completions);
    if (msg) errs.push(FieldError.invalid(`${p}.failedIndexes`, st.failedIndexes, msg));
  }
  if (criteriaMet(job) && failed(job)) errs.push(invalidOmit(cond, 'cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (criteriaMet(job) && failureTarget(job)) errs.push(invalidOmit(cond, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  if (isSet(spec.successPolicy) && !criteriaMet(job) && complete(job)) errs.push(invalidOmit(cond, 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  // ValidateJobStatusUpdate's transition rules.
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (condTrue(os.conditions, type) && !condTrue(st.conditions, type)) errs.push(invalidOmit(cond, `cannot disable the terminal ${type}=True condition`));
  }
  if ((st.failed ?? 0) < (os.failed ?? 0)) errs.push(FieldError.invalid(`${p}.failed`, st.failed ?? 0, 'cannot decrease the failed counter'));
  const scaledDown = indexed && spec.completions === spec.parallelism;
  if (!scaledDown && (st.succeeded ?? 0) < (os.succeeded ?? 0)) errs.push(FieldError.invalid(`${p}.succeeded`, st.succeeded ?? 0, 'cannot decrease the succeeded counter'));
  if (isSet(st.completionTime) && isSet(os.completionTime) && time(st.completionTime) !== time(os.completionTime)) {
    errs.push(FieldError.invalid(`${p}.completionTime`, goTimeValue(st.completionTime), 'completionTime cannot be mutated'));
  }
  if (changed.startTime && isSet(os.startTime) && spec.suspend !== true) errs.push(FieldError.required(`${p}.startTime`, 'startTime cannot be removed for unsuspended job'));
  if (criteriaMet(old) && !criteriaMet(job)) errs.push(invalidOmit(cond, 'cannot disable the SuccessCriteriaMet=True condition'));
  if (complete(old) && !criteriaMet(old) && criteriaMet(job)) errs.push(invalidOmit(cond, 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  return errs;
}
