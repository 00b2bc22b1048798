// ValidateDeployment(Spec|Strategy|Status) of pkg/apis/apps/validation (1.33) and the apps/v1 rule that a
// Deployment's selector never changes. Objects arrive defaulted (SetDefaults_Deployment).
import { FieldError, goQuote } from '../../../machinery/errors.js';
import type { MetaLabelSelector } from '../../../machinery/labels.js';
import {
  asSelector, collisionCountDecremented, goIntOrString, goLabelSelector, intOrPercentValue, nonNegative, notMoreThan100Percent,
  replicaCountErrors, validateImmutableSelector, validatePositiveIntOrPercent, validateRequiredSelector, type IntOrString,
} from '../common.js';
import type { PodTemplateSpec } from '../../core/podtemplate/spec.js';
import { validateReplicaTemplate } from '../../core/podtemplate/validation.js';
import { bare } from '../../core/pod/validation-util.js';
import type { KObject } from '../../types.js';

export interface RollingUpdateDeployment {
  maxUnavailable?: IntOrString | null;
  maxSurge?: IntOrString | null;
}

export interface DeploymentSpec {
  replicas?: number;
  selector?: MetaLabelSelector | null;
  template?: PodTemplateSpec;
  strategy?: { type?: string; rollingUpdate?: RollingUpdateDeployment | null; [k: string]: unknown };
  minReadySeconds?: number;
  revisionHistoryLimit?: number | null;
  paused?: boolean;
  progressDeadlineSeconds?: number | null;
  [k: string]: unknown;
}

export interface Deployment extends KObject {
  spec?: DeploymentSpec;
  status?: Record<string, unknown>;
}

/** A Go pointer field as %#v prints it: typed nil, or an address (which cannot be reproduced, so a fixed one). */
export const goPointer = (type: string, set: boolean): string => `(*${type})(${set ? '0xc000000000' : 'nil'})`;

/** The replica-set part of a ReplicaSet or Deployment spec: replicas, selector, template. */
export function validateReplicaSetLike(spec: { replicas?: number; selector?: MetaLabelSelector | null; template?: PodTemplateSpec }): FieldError[] {
  const errs = validateRequiredSelector(spec.selector, 'spec.selector', 'deployment');
  const selector = asSelector(spec.selector);
  if (!selector) return [...errs, FieldError.invalid('spec.selector', goLabelSelector(spec.selector), 'invalid label selector')];
  // A nil selector selects nothing (and is not "empty"), so the template never matches it.
  const matches = selector.empty ? undefined : (labels: Record<string, string>) => selector.matches(labels);
  return [...errs, ...validateReplicaTemplate(spec.template ?? {}, matches, 'spec.template', 'ReplicaSet')];
}

function validateRollingUpdate(ru: RollingUpdateDeployment, path: string): FieldError[] {
  const errs = [
    ...validatePositiveIntOrPercent(ru.maxUnavailable, `${path}.maxUnavailable`),
    ...validatePositiveIntOrPercent(ru.maxSurge, `${path}.maxSurge`),
  ];
  if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
    errs.push(FieldError.invalid(`${path}.maxUnavailable`, goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
  }
  return [...errs, ...notMoreThan100Percent(ru.maxUnavailable, `${path}.maxUnavailable`)];
}

/** ValidateDeploymentStrategy. */
function validateStrategy(st: DeploymentSpec['strategy'], path: string): FieldError[] {
  const ru = st?.rollingUpdate;
  switch (st?.type) {
    case 'Recreate':
      return ru ? [FieldError.forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")] : [];
    case 'RollingUpdate':
      return ru ? validateRollingUpdate(ru, `${path}.rollingUpdate`) : [FieldError.required(`${path}.rollingUpdate`, 'this should be defaulted and never be nil')];
    default: {
      const value = bare(`apps.DeploymentStrategy{Type:${goQuote(String(st?.type ?? ''))}, RollingUpdate:${goPointer('apps.RollingUpdateDeployment', !!ru)}}`);
      return [FieldError.notSupported(path, value, ['Recreate', 'RollingUpdate'])];
    }
  }
}

/** ValidateDeploymentSpec (metadata is the registry's). */
export function validateDeployment(d: Deployment): FieldError[] {
  const spec = d.spec ?? {};
  const errs = [...nonNegative(spec.replicas ?? 0, 'spec.replicas'), ...validateReplicaSetLike(spec)];
  errs.push(...validateStrategy(spec.strategy, 'spec.strategy'));
  errs.push(...nonNegative(spec.minReadySeconds ?? 0, 'spec.minReadySeconds'));
  // zero is a valid revisionHistoryLimit
  if (typeof spec.revisionHistoryLimit === 'number') errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const pds = spec.progressDeadlineSeconds;
  if (typeof pds === 'number') {
    errs.push(...nonNegative(pds, 'spec.progressDeadlineSeconds'));
    if (pds <= (spec.minReadySeconds ?? 0)) errs.push(FieldError.invalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** The update-only rule (validate runs on updates too): the selector is immutable in apps/v1. */
export function validateDeploymentUpdate(d: Deployment, old: Deployment): FieldError[] {
  return validateImmutableSelector(d.spec?.selector, old.spec?.selector);
}

/** ValidateDeploymentStatusUpdate (metadata is the registry's). */
export function validateDeploymentStatusUpdate(d: Deployment, old: Deployment): FieldError[] {
  const st = d.status ?? {};
  return [
    ...replicaCountErrors(
      st,
      ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'terminatingReplicas', 'collisionCount'],
      ['updatedReplicas', 'readyReplicas', 'availableReplicas'],
    ),
    ...collisionCountDecremented(st, old.status),
  ];
}
