// ValidateJob / ValidateJobSpec / ValidateJobUpdate and the job template checks of pkg/apis/batch/validation
// (1.33, with JobPodFailurePolicy, JobBackoffLimitPerIndex, JobSuccessPolicy, JobManagedBy, JobPodReplacementPolicy
// and ElasticIndexedJob all enabled). Messages, paths and order as Kubernetes reports them.
import { FieldError } from '../../../machinery/errors.js';
import { fromLabelSelector, type MetaLabelSelector } from '../../../machinery/labels.js';
import { validateLabelSelector } from '../../../machinery/label-selector-validation.js';
import { byteLength, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, regexError } from '../../../machinery/validation.js';
import { bare, goLabelSelector, goPtr, goStringMap } from '../../gofmt.js';
import type { Job, JobSpec, JobTemplateSpec, PodFailurePolicyRule } from '../types.js';
import { validatePodTemplateSpec } from '../../core/podtemplate/validation.js';
import { jsonEqual } from '../../format.js';

export const LEGACY_CONTROLLER_UID = 'controller-uid';
export const LEGACY_JOB_NAME = 'job-name';
export const CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME = 'batch.kubernetes.io/job-name';

const MAX_PARALLELISM_INDEXED = 100000;
const MAX_FAILED_INDEXES = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10_000;
const MAX_PFP_RULES = 20;
const MAX_EXIT_CODES = 255;
const MAX_POD_CONDITION_PATTERNS = 20;
const MAX_MANAGED_BY = 63;
const MAX_SUCCEEDED_INDEXES = 64 * 1024;
const MAX_SUCCESS_RULES = 20;
const NEGATIVE = 'must be greater than or equal to 0';
export const FIELD_IMMUTABLE = 'field is immutable';

/** The omitted bad value (field.OmitValueType{}): "Invalid value: <detail>". */
export const OMIT = FieldError.required('').badValue;

export interface JobValidationOptions {
  requirePrefixedLabels: boolean;
  allowInvalidLabelValueInSelector: boolean;
  allowMutableSchedulingDirectives: boolean;
}

const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

export function nonNegative(v: number | null | undefined, path: string): FieldError[] {
  return isSet(v) && v < 0 ? [FieldError.invalid(path, v, NEGATIVE)] : [];
}

/** ValidateHasLabel: the generated labels must be on the pod template with the expected value. */
function hasLabel(labels: Record<string, string> | undefined, path: string, key: string, want: string): FieldError[] {
  const p = `${path}.labels[${key}]`;
  if (!labels || !(key in labels)) return [FieldError.required(p, `must be '${want}'`)];
  return labels[key] === want ? [] : [FieldError.invalid(p, bare(goStringMap(labels)), `must be '${want}'`)];
}

/** validateGeneratedSelector: a generated selector must select this job's uid and name. */
function validateGeneratedSelector(job: Job, requirePrefixed: boolean): FieldError[] {
  const spec = job.spec ?? {};
  if (spec.manualSelector === true || !isSet(spec.selector)) return [];
  const errs: FieldError[] = [];
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  if (!uid) errs.push(FieldError.required('metadata.uid'));
  const labels = spec.template?.metadata?.labels;
  const path = 'spec.template.metadata';
  errs.push(...hasLabel(labels, path, LEGACY_CONTROLLER_UID, uid), ...hasLabel(labels, path, LEGACY_JOB_NAME, name));
  const expected: Record<string, string> = {};
  if (requirePrefixed) {
    errs.push(...hasLabel(labels, path, CONTROLLER_UID, uid), ...hasLabel(labels, path, JOB_NAME, name));
    expected[CONTROLLER_UID] = uid;
    expected[JOB_NAME] = name;
  }
  expected[LEGACY_CONTROLLER_UID] = uid;
  expected[LEGACY_JOB_NAME] = name;
  const sel = selectorOf(spec.selector);
  if (sel && !sel.matches(expected)) errs.push(FieldError.invalid('spec.selector', bare(goLabelSelector(spec.selector)), '`selector` not auto-generated'));
  return errs;
}

function selectorOf(sel: JobSpec['selector']): ReturnType<typeof fromLabelSelector> | undefined {
  try {
    return fromLabelSelector(sel as MetaLabelSelector | undefined);
  } catch {
    return undefined; // LabelSelectorAsSelector failed: Kubernetes skips the match checks
  }
}

/** ValidateJob (create and, with the old object's options, update). */
export function validateJob(job: Job, opts: JobValidationOptions): FieldError[] {
  const spec = job.spec ?? {};
  const errs = [...validateGeneratedSelector(job, opts.requirePrefixedLabels), ...validateJobSpecWithSelector(spec, 'spec', opts)];
  if (spec.completionMode === 'Indexed' && isSet(spec.completions) && spec.completions > 0) {
    // The controller names pods <job>-<index>: the highest hostname must still be a DNS label.
    const hostname = `${job.metadata.name ?? ''}-${spec.completions - 1}`;
    if (isDNS1123Label(hostname).length) {
      errs.push(FieldError.invalid('metadata.name', job.metadata.name ?? '', `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errs;
}

/** ValidateJobSpec: validateJobSpec plus the selector (required, and matching the template labels). */
export function validateJobSpecWithSelector(spec: JobSpec, path: string, opts: JobValidationOptions): FieldError[] {
  const errs = validateJobSpec(spec, path);
  if (!isSet(spec.selector)) errs.push(FieldError.required(`${path}.selector`));
  else {
    errs.push(...validateLabelSelector(spec.selector as MetaLabelSelector, `${path}.selector`, { allowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector }));
  }
  const sel = selectorOf(spec.selector);
  const labels = spec.template?.metadata?.labels;
  if (sel && !sel.matches(labels ?? {})) {
    errs.push(FieldError.invalid(`${path}.template.metadata.labels`, bare(goStringMap(labels)), '`selector` does not match template `labels`'));
  }
  return errs;
}

const DOMAIN_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const domainPathRe = new RegExp(`^${DOMAIN_PATH_FMT}$`);

/** IsDomainPrefixedPath (apimachinery util/validation). */
function domainPrefixedPath(value: string, path: string): FieldError[] {
  if (!value) return [FieldError.required(path)];
  const i = value.indexOf('/');
  const host = i < 0 ? value : value.slice(0, i);
  const rest = i < 0 ? '' : value.slice(i + 1);
  if (i < 0 || !host || !rest) return [FieldError.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((m) => FieldError.invalid(path, host, m));
  if (!domainPathRe.test(rest)) errs.push(FieldError.invalid(path, rest, regexError('must be a valid path', DOMAIN_PATH_FMT)));
  return errs;
}

/** validateJobSpec: everything but the selector (shared with CronJob job templates). */
export function validateJobSpec(spec: JobSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.parallelism, `${path}.parallelism`));
  errs.push(...nonNegative(spec.completions, `${path}.completions`));
  errs.push(...nonNegative(spec.activeDeadlineSeconds, `${path}.activeDeadlineSeconds`));
  errs.push(...nonNegative(spec.backoffLimit, `${path}.backoffLimit`));
  errs.push(...nonNegative(spec.ttlSecondsAfterFinished, `${path}.ttlSecondsAfterFinished`));
  errs.push(...nonNegative(spec.backoffLimitPerIndex, `${path}.backoffLimitPerIndex`));
  if (isSet(spec.maxFailedIndexes)) {
    errs.push(...nonNegative(spec.maxFailedIndexes, `${path}.maxFailedIndexes`));
    if (!isSet(spec.backoffLimitPerIndex)) errs.push(FieldError.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  if (isSet(spec.managedBy)) {
    errs.push(...domainPrefixedPath(spec.managedBy, `${path}.managedBy`));
    if (byteLength(spec.managedBy) > MAX_MANAGED_BY) errs.push(FieldError.tooLong(`${path}.managedBy`, spec.managedBy, MAX_MANAGED_BY));
  }
  const indexed = spec.completionMode === 'Indexed';
  if (isSet(spec.completionMode)) {
    if (spec.completionMode !== 'NonIndexed' && !indexed) {
      errs.push(FieldError.notSupported(`${path}.completionMode`, spec.completionMode, ['NonIndexed', 'Indexed']));
    }
    if (indexed) errs.push(...indexedLimits(spec, path));
  }
  if (!indexed) {
    if (isSet(spec.backoffLimitPerIndex)) errs.push(FieldError.invalid(`${path}.backoffLimitPerIndex`, spec.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (isSet(spec.maxFailedIndexes)) errs.push(FieldError.invalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (isSet(spec.podFailurePolicy)) errs.push(...validatePodFailurePolicy(spec, `${path}.podFailurePolicy`));
  if (isSet(spec.successPolicy)) {
    if (!indexed) errs.push(FieldError.invalid(`${path}.successPolicy`, bare(goSuccessPolicy(spec)), 'requires indexed completion mode'));
    else errs.push(...validateSuccessPolicy(spec, `${path}.successPolicy`));
  }
  errs.push(...validatePodReplacementPolicy(spec, `${path}.podReplacementPolicy`));
  errs.push(...validatePodTemplateSpec(spec.template ?? {}, `${path}.template`));
  const rp = spec.template?.spec?.restartPolicy ?? '';
  const rpPath = `${path}.template.spec.restartPolicy`;
  if (rp === 'Always' || rp === '') errs.push(FieldError.required(rpPath, 'valid values: "OnFailure", "Never"'));
  else if (rp !== 'OnFailure' && rp !== 'Never') errs.push(FieldError.notSupported(rpPath, rp, ['OnFailure', 'Never']));
  else if (isSet(spec.podFailurePolicy) && rp !== 'Never') errs.push(FieldError.invalid(rpPath, rp, 'only "Never" is supported when podFailurePolicy is specified'));
  return errs;
}

function indexedLimits(spec: JobSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const { completions, parallelism, maxFailedIndexes: mfi } = spec;
  if (!isSet(completions)) errs.push(FieldError.required(`${path}.completions`, 'when completion mode is Indexed'));
  if (isSet(parallelism) && parallelism > MAX_PARALLELISM_INDEXED) {
    errs.push(FieldError.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
  }
  if (isSet(completions) && isSet(mfi) && mfi > completions) errs.push(FieldError.invalid(`${path}.maxFailedIndexes`, mfi, 'must be less than or equal to completions'));
  if (isSet(mfi) && mfi > MAX_FAILED_INDEXES) errs.push(FieldError.invalid(`${path}.maxFailedIndexes`, mfi, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
  if (isSet(completions) && completions > COMPLETIONS_SOFT_LIMIT && isSet(spec.backoffLimitPerIndex)) {
    const tail = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
    if (!isSet(mfi)) errs.push(FieldError.required(`${path}.maxFailedIndexes`, `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
    if (isSet(parallelism) && parallelism > PARALLELISM_HIGH_COMPLETIONS) {
      errs.push(FieldError.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${PARALLELISM_HIGH_COMPLETIONS} ${tail}`));
    }
    if (isSet(mfi) && mfi > MAX_FAILED_INDEXES_HIGH_COMPLETIONS) {
      errs.push(FieldError.invalid(`${path}.maxFailedIndexes`, mfi, `must be less than or equal to ${MAX_FAILED_INDEXES_HIGH_COMPLETIONS} ${tail}`));
    }
  }
  return errs;
}

const PFP_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const EXIT_OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
/** Go's %q of a []string: ["a" "b"]. */
const goQuotedList = (xs: string[]): string => `[${xs.map((x) => JSON.stringify(x)).join(' ')}]`;

function validatePodFailurePolicy(spec: JobSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = spec.podFailurePolicy?.rules ?? [];
  if (rules.length > MAX_PFP_RULES) errs.push(FieldError.tooMany(`${path}.rules`, rules.length, MAX_PFP_RULES));
  const tspec = spec.template?.spec ?? {};
  const names = new Set([...(tspec.containers ?? []), ...(tspec.initContainers ?? [])].map((c) => c.name ?? ''));
  rules.forEach((rule, i) => errs.push(...validatePodFailurePolicyRule(spec, rule ?? {}, `${path}.rules[${i}]`, names)));
  return errs;
}

function validatePodFailurePolicyRule(spec: JobSpec, rule: PodFailurePolicyRule, path: string, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const action = rule.action ?? '';
  if (action === '') errs.push(FieldError.required(`${path}.action`, `valid values: ${goQuotedList(PFP_ACTIONS)}`));
  else if (action === 'FailIndex') {
    if (!isSet(spec.backoffLimitPerIndex)) errs.push(FieldError.invalid(`${path}.action`, action, 'requires the backoffLimitPerIndex to be set'));
  } else if (!PFP_ACTIONS.includes(action)) errs.push(FieldError.notSupported(`${path}.action`, action, PFP_ACTIONS));
  const onExit = rule.onExitCodes;
  const onConds = rule.onPodConditions ?? [];
  if (isSet(onExit)) errs.push(...validateOnExitCodes(onExit, `${path}.onExitCodes`, names));
  if (onConds.length) {
    const p = `${path}.onPodConditions`;
    if (onConds.length > MAX_POD_CONDITION_PATTERNS) errs.push(FieldError.tooMany(p, onConds.length, MAX_POD_CONDITION_PATTERNS));
    onConds.forEach((c, j) => {
      const type = c?.type ?? '';
      for (const m of isQualifiedName(type)) errs.push(FieldError.invalid(`${p}[${j}].type`, type, m));
      const status = c?.status ?? '';
      if (status === '') errs.push(FieldError.required(`${p}[${j}].status`, `valid values: ${goQuotedList(CONDITION_STATUSES)}`));
      else if (!CONDITION_STATUSES.includes(status)) errs.push(FieldError.notSupported(`${p}[${j}].status`, status, CONDITION_STATUSES));
    });
  }
  if (isSet(onExit) && onConds.length) errs.push(new FieldError('FieldValueInvalid', path, OMIT, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!isSet(onExit) && !onConds.length) errs.push(new FieldError('FieldValueInvalid', path, OMIT, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

const goInt32s = (v: number[] | null | undefined): { toString(): string } => bare(v === undefined || v === null ? '[]int32(nil)' : `[]int32{${v.join(', ')}}`);

function validateOnExitCodes(req: NonNullable<PodFailurePolicyRule['onExitCodes']>, path: string, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const op = req.operator ?? '';
  if (op === '') errs.push(FieldError.required(`${path}.operator`, `valid values: ${goQuotedList(EXIT_OPERATORS)}`));
  else if (!EXIT_OPERATORS.includes(op)) errs.push(FieldError.notSupported(`${path}.operator`, op, EXIT_OPERATORS));
  if (isSet(req.containerName) && !names.has(req.containerName)) {
    errs.push(FieldError.invalid(`${path}.containerName`, req.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const values = req.values ?? [];
  const vp = `${path}.values`;
  if (values.length === 0) errs.push(FieldError.invalid(vp, goInt32s(req.values), 'at least one value is required'));
  else if (values.length > MAX_EXIT_CODES) errs.push(FieldError.tooMany(vp, values.length, MAX_EXIT_CODES));
  let ordered = true;
  const seen = new Set<number>();
  values.forEach((v, j) => {
    if (op === 'In' && v === 0) errs.push(FieldError.invalid(`${vp}[${j}]`, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(FieldError.duplicate(`${vp}[${j}]`, v));
    else seen.add(v);
    if (j > 0 && values[j - 1] > v) ordered = false;
  });
  if (!ordered) errs.push(FieldError.invalid(vp, goInt32s(values), 'must be ordered'));
  return errs;
}

function goSuccessPolicy(spec: JobSpec): string {
  const rules = spec.successPolicy?.rules;
  const list = isSet(rules)
    ? `[]batch.SuccessPolicyRule{${rules.map((r) => `batch.SuccessPolicyRule{SucceededIndexes:${goPtr('string', r?.succeededIndexes)}, SucceededCount:${goPtr('int32', r?.succeededCount)}}`).join(', ')}}`
    : '[]batch.SuccessPolicyRule(nil)';
  return `batch.SuccessPolicy{Rules:${list}}`;
}

function validateSuccessPolicy(spec: JobSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = spec.successPolicy?.rules ?? [];
  const rp = `${path}.rules`;
  if (rules.length === 0) errs.push(FieldError.required(rp, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_RULES) errs.push(FieldError.tooMany(rp, rules.length, MAX_SUCCESS_RULES));
  const completions = spec.completions ?? 0;
  rules.forEach((rule, i) => {
    const p = `${rp}[${i}]`;
    const { succeededIndexes: idx, succeededCount: count } = rule ?? {};
    if (!isSet(idx) && !isSet(count)) errs.push(FieldError.required(p, 'at least one of succeededCount or succeededIndexes must be specified'));
    let total = 0;
    if (isSet(idx)) {
      if (byteLength(idx) > MAX_SUCCEEDED_INDEXES) errs.push(FieldError.tooLong(`${p}.succeededIndexes`, idx, MAX_SUCCEEDED_INDEXES));
      const parsed = parseIndexes(idx, completions);
      if (typeof parsed === 'string') errs.push(FieldError.invalid(`${p}.succeededIndexes`, idx, `error parsing succeededIndexes: ${parsed}`));
      else total = parsed;
    }
    if (isSet(count)) {
      const cp = `${p}.succeededCount`;
      errs.push(...nonNegative(count, cp));
      if (count > completions) errs.push(FieldError.invalid(cp, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (isSet(idx) && count > total) {
        errs.push(FieldError.invalid(cp, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return errs;
}

function validatePodReplacementPolicy(spec: JobSpec, path: string): FieldError[] {
  const v = spec.podReplacementPolicy;
  if (!isSet(v)) return [];
  if (isSet(spec.podFailurePolicy)) return v === 'Failed' ? [] : [FieldError.notSupported(path, v, ['Failed'])];
  return v === 'Failed' || v === 'TerminatingOrFailed' ? [] : [FieldError.notSupported(path, v, ['Failed', 'TerminatingOrFailed'])];
}

/** strconv.Atoi (base 10, optional sign); undefined when Go would fail. */
export function goAtoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** parseIndexInterval: "x" or "x-y" below `completions`, as [x, y] or an error message. */
function parseInterval(text: string, completions: number): [number, number] | string {
  const parts = text.split('-');
  if (parts.length > 2) return `the fragment ${JSON.stringify(text)} violates the requirement that an index interval can have at most two parts separated by '-'`;
  const bounds: number[] = [];
  for (const part of parts) {
    const n = goAtoi(part);
    if (n === undefined) return `cannot convert string to integer for index: ${JSON.stringify(part)}`;
    if (n >= completions) return `too large index: ${JSON.stringify(part)}`;
    bounds.push(n);
  }
  const [x, y = x] = bounds;
  if (parts.length === 2 && x >= y) return `non-increasing order, previous: ${x}, current: ${y}`;
  return [x, y];
}

/** validateIndexesFormat: the number of indexes, or an error message. */
export function parseIndexes(text: string, completions: number): number | string {
  if (!text) return 0;
  let last: number | undefined;
  let total = 0;
  for (const part of text.split(',')) {
    const iv = parseInterval(part, completions);
    if (typeof iv === 'string') return iv;
    if (last !== undefined && last >= iv[0]) return `non-increasing order, previous: ${last}, current: ${iv[0]}`;
    total += iv[1] - iv[0] + 1;
    last = iv[1];
  }
  return total;
}

/** ValidateJobTemplateSpec (CronJob): the job spec without selector rules, and a selector may not be given. */
export function validateJobTemplateSpec(tpl: JobTemplateSpec, path: string): FieldError[] {
  const spec = tpl.spec ?? {};
  const errs = validateJobSpec(spec, `${path}.spec`);
  if (isSet(spec.selector)) errs.push(FieldError.invalid(`${path}.spec.selector`, bare(goLabelSelector(spec.selector)), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(FieldError.notSupported(`${path}.spec.manualSelector`, true, ['nil', 'false']));
  return errs;
}

/** apiequality.Semantic.DeepEqual over JSON: null, absent and empty lists are the same. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.length ? v.map(norm) : undefined;
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const n = norm(x);
        if (n !== undefined) out[k] = n;
      }
      return out;
    }
    return v === null ? undefined : v;
  };
  return jsonEqual(norm(a) ?? null, norm(b) ?? null);
}

export function immutable(newVal: unknown, oldVal: unknown, path: string, shown: unknown = newVal ?? null): FieldError[] {
  return semanticEqual(newVal, oldVal) ? [] : [FieldError.invalid(path, shown, FIELD_IMMUTABLE)];
}
