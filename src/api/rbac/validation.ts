// RBAC validation as pkg/apis/rbac/validation/validation.go (Kubernetes 1.33): policy rules, aggregation
// selectors, role references and subjects. Object metadata is validated by the generic server (names are
// path segments: ValidateRBACName).
import { FieldError } from '../../machinery/errors.js';
import { fromLabelSelector, type MetaLabelSelector } from '../../machinery/labels.js';
import { validateLabelSelector } from '../../machinery/label-selector-validation.js';
import { isDNS1123Subdomain } from '../../machinery/validation.js';
import { goStr, goStruct, type GoValue } from './gostring.js';
import type { KObject } from '../types.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface PolicyRule {
  verbs?: string[] | null;
  apiGroups?: string[] | null;
  resources?: string[] | null;
  resourceNames?: string[] | null;
  nonResourceURLs?: string[] | null;
}

export interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

export interface Role extends KObject {
  rules?: PolicyRule[] | null;
}

export interface ClusterRole extends Role {
  aggregationRule?: { clusterRoleSelectors?: MetaLabelSelector[] | null } | null;
}

export interface RoleBinding extends KObject {
  subjects?: Subject[] | null;
  roleRef?: RoleRef;
}

const len = (xs: unknown[] | null | undefined) => xs?.length ?? 0;

/** ValidatePolicyRule: verbs always; either non-resource URLs (cluster roles only) or groups + resources. */
export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (len(rule.verbs) === 0) errs.push(FieldError.required(`${path}.verbs`, 'verbs must contain at least one value'));
  if (len(rule.nonResourceURLs) > 0) {
    if (namespaced)
      errs.push(FieldError.invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (len(rule.apiGroups) > 0 || len(rule.resources) > 0 || len(rule.resourceNames) > 0)
      errs.push(
        FieldError.invalid(`${path}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'),
      );
    return errs;
  }
  if (len(rule.apiGroups) === 0) errs.push(FieldError.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (len(rule.resources) === 0) errs.push(FieldError.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

export function validateRole(role: Role): FieldError[] {
  return (role.rules ?? []).flatMap((r, i) => validatePolicyRule(r ?? {}, true, `rules[${i}]`));
}

export function validateClusterRole(role: ClusterRole): FieldError[] {
  const errs = (role.rules ?? []).flatMap((r, i) => validatePolicyRule(r ?? {}, false, `rules[${i}]`));
  const agg = role.aggregationRule;
  if (agg) {
    const sels = agg.clusterRoleSelectors ?? [];
    if (sels.length === 0)
      errs.push(FieldError.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    sels.forEach((sel, i) => {
      const p = `aggregationRule.clusterRoleSelectors[${i}]`;
      errs.push(...validateLabelSelector(sel, p));
      try {
        fromLabelSelector(sel);
      } catch {
        // Go reports the (nil) converted selector, which prints as "null".
        errs.push(FieldError.invalid(p, null, 'invalid label selector.'));
      }
    });
  }
  return errs;
}

/** The internal rbac.RoleRef as Go's %#v prints it (the bad value of "cannot change roleRef"). */
export function goRoleRef(ref: RoleRef | undefined): GoValue {
  return goStruct('rbac.RoleRef', [
    ['APIGroup', goStr(ref?.apiGroup)],
    ['Kind', goStr(ref?.kind)],
    ['Name', goStr(ref?.name)],
  ]);
}

function validateRoleRef(ref: RoleRef | undefined, kinds: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const r = ref ?? {};
  if ((r.apiGroup ?? '') !== RBAC_GROUP) errs.push(FieldError.notSupported('roleRef.apiGroup', r.apiGroup ?? '', [RBAC_GROUP]));
  if (!kinds.includes(r.kind ?? '')) errs.push(FieldError.notSupported('roleRef.kind', r.kind ?? '', kinds));
  const name = r.name ?? '';
  if (!name) errs.push(FieldError.required('roleRef.name'));
  else for (const m of rbacNameErrors(name)) errs.push(FieldError.invalid('roleRef.name', name, m));
  return errs;
}

/** ValidateRBACName: names only have to be usable as URL path segments. */
export function rbacNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

export function validateSubject(subject: Subject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = subject.name ?? '';
  if (!name) errs.push(FieldError.required(`${path}.name`));
  switch (subject.kind) {
    case 'ServiceAccount':
      // ValidateServiceAccountName is a DNS-1123 subdomain check.
      if (name) for (const m of isDNS1123Subdomain(name)) errs.push(FieldError.invalid(`${path}.name`, name, m));
      if (subject.apiGroup) errs.push(FieldError.notSupported(`${path}.apiGroup`, subject.apiGroup, ['']));
      if (!namespaced && !subject.namespace) errs.push(FieldError.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if ((subject.apiGroup ?? '') !== RBAC_GROUP) errs.push(FieldError.notSupported(`${path}.apiGroup`, subject.apiGroup ?? '', [RBAC_GROUP]));
      break;
    default:
      errs.push(FieldError.notSupported(`${path}.kind`, subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

export function validateBinding(rb: RoleBinding, namespaced: boolean): FieldError[] {
  const errs = validateRoleRef(rb.roleRef, namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole']);
  (rb.subjects ?? []).forEach((s, i) => errs.push(...validateSubject(s ?? {}, namespaced, `subjects[${i}]`)));
  return errs;
}

/** ValidateRoleBindingUpdate / ValidateClusterRoleBindingUpdate's own check. */
export function validateRoleRefUnchanged(rb: RoleBinding, old: RoleBinding): FieldError[] {
  const a = rb.roleRef ?? {};
  const b = old.roleRef ?? {};
  const same = (a.apiGroup ?? '') === (b.apiGroup ?? '') && (a.kind ?? '') === (b.kind ?? '') && (a.name ?? '') === (b.name ?? '');
  return same ? [] : [FieldError.invalid('roleRef', goRoleRef(a), 'cannot change roleRef')];
}

/** SetDefaults_RoleBinding / ClusterRoleBinding / Subject (pkg/apis/rbac/v1/defaults.go). */
export function defaultBinding(rb: RoleBinding): void {
  // roleRef is a struct value in Go, so its group is defaulted even when the body has no roleRef.
  if (!rb.roleRef || typeof rb.roleRef !== 'object') rb.roleRef = {};
  if (!rb.roleRef.apiGroup) rb.roleRef.apiGroup = RBAC_GROUP;
  // ServiceAccount subjects default to "", which omitempty leaves out of the stored form.
  for (const s of rb.subjects ?? []) {
    if (s && typeof s === 'object' && !s.apiGroup && (s.kind === 'User' || s.kind === 'Group')) s.apiGroup = RBAC_GROUP;
  }
}
