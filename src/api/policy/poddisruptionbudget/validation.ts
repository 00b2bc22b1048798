// ValidatePodDisruptionBudgetSpec and ValidatePodDisruptionBudgetStatusUpdate (pkg/apis/policy/validation, 1.33),
// with the apps helpers ValidatePositiveIntOrPercent / IsNotMoreThan100Percent and metav1 ValidateConditions.
import { FieldError } from '../../../machinery/errors.js';
import { type MetaLabelSelector } from '../../../machinery/labels.js';
import { validateLabelSelector } from '../../../machinery/label-selector-validation.js';
import { byteLength, isQualifiedName, regexError } from '../../../machinery/validation.js';
import { bare, goIntOrString, goPtr } from '../../gofmt.js';
import { parseTime } from '../../format.js';

export interface PDBSpec {
  minAvailable?: number | string | null;
  selector?: MetaLabelSelector | null;
  maxUnavailable?: number | string | null;
  unhealthyPodEvictionPolicy?: string | null;
}

export interface Condition {
  type?: string;
  status?: string;
  observedGeneration?: number;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

const set = (v: unknown): boolean => v !== undefined && v !== null;
const NEGATIVE = 'must be greater than or equal to 0';
const PERCENT_FMT = '[0-9]+%';
const PERCENT_RE = /^[0-9]+%$/;
const PERCENT_MSG = regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%');

/** ValidatePositiveIntOrPercent. */
export function positiveIntOrPercent(v: number | string, path: string): FieldError[] {
  if (typeof v === 'string') return PERCENT_RE.test(v) ? [] : [FieldError.invalid(path, bare(goIntOrString(v)), PERCENT_MSG)];
  return v < 0 ? [FieldError.invalid(path, v, NEGATIVE)] : [];
}

/** IsNotMoreThan100Percent. */
export function notMoreThan100Percent(v: number | string, path: string): FieldError[] {
  if (typeof v !== 'string' || !PERCENT_RE.test(v)) return [];
  return Number(v.slice(0, -1)) > 100 ? [FieldError.invalid(path, bare(goIntOrString(v)), 'must not be greater than 100%')] : [];
}

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export function validatePDBSpec(spec: PDBSpec, allowInvalidLabelValueInSelector: boolean, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  if (set(spec.minAvailable) && set(spec.maxUnavailable)) {
    const shown = `policy.PodDisruptionBudgetSpec{MinAvailable:${goPtr('intstr.IntOrString', spec.minAvailable)}, Selector:${goPtr('v1.LabelSelector', spec.selector)}, MaxUnavailable:${goPtr('intstr.IntOrString', spec.maxUnavailable)}, UnhealthyPodEvictionPolicy:${goPtr('policy.UnhealthyPodEvictionPolicyType', spec.unhealthyPodEvictionPolicy)}}`;
    errs.push(FieldError.invalid(path, bare(shown), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const key of ['minAvailable', 'maxUnavailable'] as const) {
    const v = spec[key];
    if (!set(v)) continue;
    errs.push(...positiveIntOrPercent(v!, `${path}.${key}`), ...notMoreThan100Percent(v!, `${path}.${key}`));
  }
  errs.push(...validateLabelSelector(spec.selector, `${path}.selector`, { allowInvalidLabelValueInSelector }));
  const p = spec.unhealthyPodEvictionPolicy;
  if (set(p) && !EVICTION_POLICIES.includes(p!)) errs.push(FieldError.notSupported(`${path}.unhealthyPodEvictionPolicy`, p, EVICTION_POLICIES));
  return errs;
}

const CONDITION_REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const CONDITION_REASON_RE = new RegExp(`^${CONDITION_REASON_FMT}$`);
const CONDITION_REASON_MSG = regexError(
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
  CONDITION_REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB',
);

/** metav1validation.ValidateConditions. */
export function validateConditions(conditions: Condition[] | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    const p = `${path}[${i}]`;
    const type = c?.type ?? '';
    if (seen.has(type)) errs.push(FieldError.duplicate(`${p}.type`, type));
    else seen.add(type);
    for (const m of isQualifiedName(type)) errs.push(FieldError.invalid(`${p}.type`, type, m));
    const status = c?.status ?? '';
    if (!['False', 'True', 'Unknown'].includes(status)) errs.push(FieldError.notSupported(`${p}.status`, status, ['False', 'True', 'Unknown']));
    if ((c?.observedGeneration ?? 0) < 0) errs.push(FieldError.invalid(`${p}.observedGeneration`, c.observedGeneration, 'must be greater than or equal to zero'));
    if (parseTime(c?.lastTransitionTime) === undefined) errs.push(FieldError.required(`${p}.lastTransitionTime`, 'must be set'));
    const reason = c?.reason ?? '';
    if (reason === '') errs.push(FieldError.required(`${p}.reason`, 'must be set'));
    else {
      if (!CONDITION_REASON_RE.test(reason)) errs.push(FieldError.invalid(`${p}.reason`, reason, CONDITION_REASON_MSG));
      if (byteLength(reason) > 1024) errs.push(FieldError.tooLong(`${p}.reason`, reason, 1024));
    }
    if (byteLength(c?.message ?? '') > 32 * 1024) errs.push(FieldError.tooLong(`${p}.message`, c.message, 32 * 1024));
  });
  return errs;
}

export interface PDBStatus {
  conditions?: Condition[] | null;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  [k: string]: unknown;
}

/** ValidatePodDisruptionBudgetStatusUpdate for policy/v1. */
export function validatePDBStatus(status: PDBStatus | undefined, path = 'status'): FieldError[] {
  const s = status ?? {};
  const errs = validateConditions(s.conditions, `${path}.conditions`);
  for (const key of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const) {
    const v = s[key] ?? 0;
    if (v < 0) errs.push(FieldError.invalid(`${path}.${key}`, v, NEGATIVE));
  }
  return errs;
}
