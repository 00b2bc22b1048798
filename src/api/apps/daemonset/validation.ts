// ValidateDaemonSetSpec / ValidateDaemonSetUpdateStrategy / ValidateRollingUpdateDaemonSet / ValidateDaemonSetStatus
// (pkg/apis/apps/validation, 1.33) and the apps/v1 selector immutability of the daemonset strategy. A missing
// selector is not reported as such: it selects nothing, so the template labels "do not match" it.
import { FieldError, goQuote } from '../../../machinery/errors.js';
import { type MetaLabelSelector } from '../../../machinery/labels.js';
import { validateLabelSelector } from '../../../machinery/label-selector-validation.js';
import {
  asSelector, collisionCountDecremented, goIntOrString, goLabelSelector, intOrPercentValue, nonNegative, notMoreThan100Percent,
  validateImmutableSelector, validatePositiveIntOrPercent, type IntOrString,
} from '../common.js';
import { goPointer } from '../deployment/validation.js';
import type { PodTemplateSpec } from '../../core/podtemplate/spec.js';
import { selectorMismatch, validatePodTemplateSpec, workloadTemplateRules } from '../../core/podtemplate/validation.js';
import { bare } from '../../core/pod/validation-util.js';
import type { KObject } from '../../types.js';

export interface RollingUpdateDaemonSet {
  maxUnavailable?: IntOrString | null;
  maxSurge?: IntOrString | null;
}

export interface DaemonSetSpec {
  selector?: MetaLabelSelector | null;
  template?: PodTemplateSpec;
  updateStrategy?: { type?: string; rollingUpdate?: RollingUpdateDaemonSet | null; [k: string]: unknown };
  minReadySeconds?: number;
  revisionHistoryLimit?: number | null;
  [k: string]: unknown;
}

export interface DaemonSet extends KObject {
  spec?: DaemonSetSpec;
  status?: Record<string, unknown>;
}

function validateRollingUpdate(ru: RollingUpdateDaemonSet, path: string): FieldError[] {
  const mu = ru.maxUnavailable;
  const ms = ru.maxSurge;
  const errs = [
    ...validatePositiveIntOrPercent(mu, `${path}.maxUnavailable`),
    ...validatePositiveIntOrPercent(ms, `${path}.maxSurge`),
    ...notMoreThan100Percent(mu, `${path}.maxUnavailable`),
    ...notMoreThan100Percent(ms, `${path}.maxSurge`),
  ];
  // Exactly one of them must be non-zero.
  const hasUnavailable = intOrPercentValue(mu) !== 0;
  const hasSurge = intOrPercentValue(ms) !== 0;
  if (hasUnavailable && hasSurge) errs.push(FieldError.invalid(`${path}.maxSurge`, goIntOrString(ms), 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) errs.push(FieldError.required(`${path}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  return errs;
}

function validateUpdateStrategy(us: DaemonSetSpec['updateStrategy'], path: string): FieldError[] {
  const ru = us?.rollingUpdate;
  switch (us?.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate':
      return ru ? validateRollingUpdate(ru, `${path}.rollingUpdate`) : [FieldError.required(`${path}.rollingUpdate`)];
    default: {
      const value = `apps.DaemonSetUpdateStrategy{Type:${goQuote(String(us?.type ?? ''))}, RollingUpdate:${goPointer('apps.RollingUpdateDaemonSet', !!ru)}}`;
      return [FieldError.notSupported(path, bare(value), ['RollingUpdate', 'OnDelete'])];
    }
  }
}

/** ValidateDaemonSetSpec (metadata is the registry's). */
export function validateDaemonSet(ds: DaemonSet): FieldError[] {
  const spec = ds.spec ?? {};
  const tpl = spec.template ?? {};
  const errs = validateLabelSelector(spec.selector, 'spec.selector');
  const selector = asSelector(spec.selector);
  if (selector && !selector.matches(tpl.metadata?.labels ?? {})) errs.push(selectorMismatch(tpl, 'spec.template'));
  if (spec.selector && Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length === 0) {
    errs.push(FieldError.invalid('spec.selector', goLabelSelector(spec.selector), 'empty selector is invalid for daemonset'));
  }
  errs.push(...validatePodTemplateSpec(tpl, 'spec.template'), ...workloadTemplateRules(tpl, 'spec.template', 'DaemonSet'));
  errs.push(...nonNegative(spec.minReadySeconds ?? 0, 'spec.minReadySeconds'));
  errs.push(...validateUpdateStrategy(spec.updateStrategy, 'spec.updateStrategy'));
  // zero is a valid revisionHistoryLimit
  if (typeof spec.revisionHistoryLimit === 'number') errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return errs;
}

/** The update-only rule: an apps/v1 DaemonSet's selector cannot change. */
export function validateDaemonSetUpdate(ds: DaemonSet, old: DaemonSet): FieldError[] {
  return validateImmutableSelector(ds.spec?.selector, old.spec?.selector);
}

/** validateDaemonSetStatus plus the collisionCount rule of ValidateDaemonSetStatusUpdate. */
export function validateDaemonSetStatusUpdate(ds: DaemonSet, old: DaemonSet): FieldError[] {
  const st = ds.status ?? {};
  const counts = [
    'currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled',
    'numberAvailable', 'numberUnavailable', 'collisionCount',
  ];
  return [...counts.flatMap((f) => nonNegative(st[f], `status.${f}`)), ...collisionCountDecremented(st, old.status)];
}
