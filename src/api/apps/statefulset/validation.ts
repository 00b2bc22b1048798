// ValidateStatefulSetSpec / ValidateStatefulSetUpdate / ValidateStatefulSetStatus (pkg/apis/apps/validation, 1.33).
// Unlike the other workloads, a StatefulSet's pod template is not validated as a pod (only its labels and
// annotations: Kubernetes leaves a TODO there), and most of its spec is frozen after creation.
import { FieldError, goQuote } from '../../../machinery/errors.js';
import type { MetaLabelSelector } from '../../../machinery/labels.js';
import {
  asSelector, collisionCountDecremented, goIntOrString, goLabelSelector, intOrPercentValue, nonNegative, notMoreThan100Percent,
  replicaCountErrors, validatePositiveIntOrPercent, validateRequiredSelector, type IntOrString,
} from '../common.js';
import { goPointer } from '../deployment/validation.js';
import type { PodTemplateSpec } from '../../core/podtemplate/spec.js';
import { selectorMismatch, workloadTemplateRules } from '../../core/podtemplate/validation.js';
import { bare } from '../../core/pod/validation-util.js';
import { validatePodAnnotations } from '../../core/pod/validation.js';
import { jsonEqual } from '../../format.js';
import { validateAnnotations, validateLabels } from '../../../machinery/validation.js';
import type { KObject } from '../../types.js';

export interface RollingUpdateStatefulSet {
  partition?: number | null;
  maxUnavailable?: IntOrString | null;
}

export interface StatefulSetSpec {
  replicas?: number;
  selector?: MetaLabelSelector | null;
  template?: PodTemplateSpec;
  volumeClaimTemplates?: Record<string, unknown>[];
  serviceName?: string;
  podManagementPolicy?: string;
  updateStrategy?: { type?: string; rollingUpdate?: RollingUpdateStatefulSet | null; [k: string]: unknown };
  revisionHistoryLimit?: number | null;
  minReadySeconds?: number;
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string; [k: string]: unknown } | null;
  ordinals?: { start?: number; [k: string]: unknown } | null;
  [k: string]: unknown;
}

export interface StatefulSet extends KObject {
  spec?: StatefulSetSpec;
  status?: Record<string, unknown>;
}

const goRollingUpdate = (ru: RollingUpdateStatefulSet) =>
  `apps.RollingUpdateStatefulSetStrategy{Partition:${ru.partition ?? 0}, MaxUnavailable:${goPointer('intstr.IntOrString', ru.maxUnavailable !== undefined && ru.maxUnavailable !== null)}}`;

function validateRollingUpdate(ru: RollingUpdateStatefulSet, path: string): FieldError[] {
  const errs = nonNegative(ru.partition ?? 0, `${path}.partition`);
  const mu = ru.maxUnavailable;
  if (mu !== undefined && mu !== null) {
    errs.push(...validatePositiveIntOrPercent(mu, `${path}.maxUnavailable`));
    if (intOrPercentValue(mu) === 0) errs.push(FieldError.invalid(`${path}.maxUnavailable`, goIntOrString(mu), 'cannot be 0'));
    errs.push(...notMoreThan100Percent(mu, `${path}.maxUnavailable`));
  }
  return errs;
}

function validateUpdateStrategy(us: StatefulSetSpec['updateStrategy'], path: string): FieldError[] {
  const ru = us?.rollingUpdate;
  switch (us?.type ?? '') {
    case '':
      return [FieldError.required(path)];
    case 'OnDelete':
      return ru ? [FieldError.invalid(`${path}.rollingUpdate`, bare(goRollingUpdate(ru)), "only allowed for updateStrategy 'RollingUpdate'")] : [];
    case 'RollingUpdate':
      return ru ? validateRollingUpdate(ru, `${path}.rollingUpdate`) : [];
    default: {
      const value = `apps.StatefulSetUpdateStrategy{Type:${goQuote(String(us?.type))}, RollingUpdate:${goPointer('apps.RollingUpdateStatefulSetStrategy', !!ru)}}`;
      return [FieldError.invalid(path, bare(value), "must be 'RollingUpdate' or 'OnDelete'")];
    }
  }
}

const RETENTION = ['Retain', 'Delete'];

/** ValidateStatefulSetSpec (metadata is the registry's; the name must be a DNS label). */
export function validateStatefulSet(ss: StatefulSet): FieldError[] {
  const spec = ss.spec ?? {};
  const errs: FieldError[] = [];
  const pmp = spec.podManagementPolicy ?? '';
  if (pmp === '') errs.push(FieldError.required('spec.podManagementPolicy'));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') errs.push(FieldError.invalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'"));
  errs.push(...validateUpdateStrategy(spec.updateStrategy, 'spec.updateStrategy'));
  const policy = spec.persistentVolumeClaimRetentionPolicy;
  if (policy) {
    for (const k of ['whenDeleted', 'whenScaled'] as const) {
      const v = policy[k] ?? '';
      if (!RETENTION.includes(v)) errs.push(FieldError.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${k}`, v, RETENTION));
    }
  }
  errs.push(...nonNegative(spec.replicas ?? 0, 'spec.replicas'), ...nonNegative(spec.minReadySeconds ?? 0, 'spec.minReadySeconds'));
  if (spec.ordinals) errs.push(...nonNegative(spec.ordinals.start ?? 0, 'spec.ordinals.start'));
  errs.push(...validateRequiredSelector(spec.selector, 'spec.selector', 'statefulset'));
  const selector = asSelector(spec.selector);
  const tpl = spec.template ?? {};
  if (!selector) errs.push(FieldError.invalid('spec.selector', goLabelSelector(spec.selector), ''));
  else {
    // ValidatePodTemplateSpecForStatefulSet: labels and annotations only, no pod spec validation.
    if (!selector.empty && !selector.matches(tpl.metadata?.labels ?? {})) errs.push(selectorMismatch(tpl, 'spec.template'));
    errs.push(...validateLabels(tpl.metadata?.labels, 'spec.template.labels'));
    errs.push(...validateAnnotations(tpl.metadata?.annotations, 'spec.template.annotations'));
    errs.push(...validatePodAnnotations({ metadata: tpl.metadata ?? {}, spec: tpl.spec ?? {} }, 'spec.template.annotations'));
  }
  return [...errs, ...workloadTemplateRules(tpl, 'spec.template', 'StatefulSet')];
}

const MUTABLE = ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy'];

/** The update-only part of ValidateStatefulSetUpdate: only a few spec fields may change. */
export function validateStatefulSetUpdate(ss: StatefulSet, old: StatefulSet): FieldError[] {
  const strip = (spec: StatefulSetSpec | undefined) => Object.fromEntries(Object.entries(spec ?? {}).filter(([k]) => !MUTABLE.includes(k)));
  if (jsonEqual(strip(ss.spec), strip(old.spec))) return [];
  return [
    FieldError.forbidden(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

/** ValidateStatefulSetStatusUpdate (metadata is the registry's). */
export function validateStatefulSetStatusUpdate(ss: StatefulSet, old: StatefulSet): FieldError[] {
  const st = ss.status ?? {};
  return [
    ...replicaCountErrors(
      st,
      ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'],
      ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'],
      'cannot be greater than status.readyReplicas',
    ),
    ...collisionCountDecremented(st, old.status),
  ];
}
