// Access review validation as pkg/apis/authorization/validation/validation.go (Kubernetes 1.33).
import { FieldError } from '../../machinery/errors.js';
import { validateLabelName, isValidLabelValue } from '../../machinery/validation.js';
import { goObjectMeta, goStr, goStruct, type GoValue } from '../rbac/gostring.js';
import type { KObject, ObjectMeta } from '../types.js';

export interface Requirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

export interface SelectorAttributes {
  rawSelector?: string;
  requirements?: Requirement[] | null;
}

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: SelectorAttributes | null;
  labelSelector?: SelectorAttributes | null;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes | null;
  nonResourceAttributes?: NonResourceAttributes | null;
  user?: string;
  groups?: string[] | null;
  extra?: Record<string, string[]> | null;
  uid?: string;
}

export interface AccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

export interface AccessReview extends KObject {
  spec?: AccessReviewSpec;
  status?: AccessReviewStatus;
}

/** The internal NonResourceAttributes as %#v prints it. */
function goNonResource(a: NonResourceAttributes): GoValue {
  return goStruct('authorization.NonResourceAttributes', [
    ['Path', goStr(a.path)],
    ['Verb', goStr(a.verb)],
  ]);
}

function validateSelector(sel: SelectorAttributes | null | undefined, path: string, label: boolean): FieldError[] {
  if (!sel) return [];
  const errs: FieldError[] = [];
  const reqs = sel.requirements ?? [];
  if (sel.rawSelector && reqs.length > 0)
    errs.push(FieldError.invalid(`${path}.rawSelector`, sel.rawSelector, 'may not specified at the same time as requirements'));
  if (!sel.rawSelector && reqs.length === 0)
    errs.push(FieldError.required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  // Unknown operators are allowed, for reviews from newer clients.
  reqs.forEach((r0, i) => {
    const r = r0 ?? {};
    const p = `${path}.requirements[${i}]`;
    const values = r.values ?? [];
    if (!label && !r.key) errs.push(FieldError.required(`${p}.key`, 'must be specified'));
    if (r.operator === 'In' || r.operator === 'NotIn') {
      if (values.length === 0) errs.push(FieldError.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
      if (values.length > 0) errs.push(FieldError.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
    if (label) {
      errs.push(...validateLabelName(r.key ?? '', `${p}.key`));
      values.forEach((v, j) => errs.push(...isValidLabelValue(v).map((m) => FieldError.invalid(`${p}.values[${j}]`, v, m))));
    }
  });
  return errs;
}

function validateAttributes(spec: AccessReviewSpec): FieldError[] {
  const errs: FieldError[] = [];
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  if (ra && nra) errs.push(FieldError.invalid('spec.nonResourceAttributes', goNonResource(nra), 'cannot be specified in combination with resourceAttributes'));
  // Kubernetes reports the (nil) nonResourceAttributes as the bad value, which prints as "null".
  if (!ra && !nra) errs.push(FieldError.invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  return errs;
}

function selectorErrors(spec: AccessReviewSpec): FieldError[] {
  const ra = spec.resourceAttributes;
  if (!ra) return [];
  return [
    ...validateSelector(ra.fieldSelector, 'spec.resourceAttributes.fieldSelector', false),
    ...validateSelector(ra.labelSelector, 'spec.resourceAttributes.labelSelector', true),
  ];
}

/** Semantic emptiness of ObjectMeta (nil and empty maps and lists are equal), ignoring managedFields and `except`. */
function metaIsEmpty(meta: ObjectMeta | undefined, except: string[] = []): boolean {
  for (const [k, v] of Object.entries(meta ?? {})) {
    if (k === 'managedFields' || except.includes(k)) continue;
    if (v === undefined || v === null || v === '' || v === 0) continue;
    if (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as object).length === 0) continue;
    return false;
  }
  return true;
}

export function validateSubjectAccessReview(sar: AccessReview): FieldError[] {
  const spec = sar.spec ?? {};
  const errs = validateAttributes(spec);
  if (!spec.user && (spec.groups ?? []).length === 0) errs.push(FieldError.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  errs.push(...selectorErrors(spec));
  if (!metaIsEmpty(sar.metadata)) errs.push(FieldError.invalid('metadata', goObjectMeta(sar.metadata), 'must be empty'));
  return errs;
}

export function validateSelfSubjectAccessReview(sar: AccessReview): FieldError[] {
  const errs = [...validateAttributes(sar.spec ?? {}), ...selectorErrors(sar.spec ?? {})];
  if (!metaIsEmpty(sar.metadata)) errs.push(FieldError.invalid('metadata', goObjectMeta(sar.metadata), 'must be empty'));
  return errs;
}

/** ValidateLocalSubjectAccessReview, once metadata.namespace holds the namespace of the request. */
export function validateLocalSubjectAccessReview(sar: AccessReview): FieldError[] {
  const spec = sar.spec ?? {};
  const errs = validateSubjectAccessReview({ ...sar, metadata: {} });
  if (!metaIsEmpty(sar.metadata, ['namespace'])) errs.push(FieldError.invalid('metadata', goObjectMeta(sar.metadata), 'must be empty except for namespace'));
  const ra = spec.resourceAttributes;
  if (ra && (ra.namespace ?? '') !== (sar.metadata.namespace ?? ''))
    errs.push(FieldError.invalid('spec.resourceAttributes.namespace', ra.namespace ?? '', 'must match metadata.namespace'));
  if (spec.nonResourceAttributes) errs.push(FieldError.invalid('spec.nonResourceAttributes', goNonResource(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  return errs;
}
