// RBAC's matching rules (plugin/pkg/auth/authorizer/rbac: rbac.go, and the v1 helpers): which PolicyRule allows a
// request, which binding subject is the requesting user, and kube-apiserver's 403 texts
// (apiserver/pkg/endpoints/handlers/responsewriters: forbiddenMessage, and NewForbidden's "is forbidden").
import type { RequestUser } from '../types.js';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
  apiGroup?: string;
}

/** Decides requests (the API server's authorizer), as the access-review kinds ask it. */
export interface AccessDecider {
  authorize(user: RequestUser, attrs: RequestAttributes): { allowed: boolean; reason: string };
  rulesFor(user: RequestUser, namespace: string): PolicyRule[];
  /** rulesFor with why some bindings gave none (a missing role), as the escalation check reports them */
  resolveRules?(user: RequestUser, namespace: string): { rules: PolicyRule[]; errors: string[] };
}

/** What a request asks for, as kube's authorizer.Attributes. */
export interface RequestAttributes {
  verb: string;
  /** resource requests */
  resourceRequest: boolean;
  apiGroup: string;
  apiVersion?: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** non-resource requests */
  path: string;
  /** a list or watch's field selector as sent (the Node authorizer scopes a node's pod list by spec.nodeName) */
  fieldSelector?: string;
}

const has = (list: readonly string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    // "*/scale" matches the scale subresource of every resource
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one rule allows the request (kube's RuleAllows). */
export function ruleAllows(attrs: RequestAttributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, attrs.verb)) return false;
  if (!attrs.resourceRequest) return nonResourceURLMatches(rule, attrs.path);
  if (!has(rule.apiGroups, attrs.apiGroup)) return false;
  if (!resourceMatches(rule, attrs.resource, attrs.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (attrs.name !== '' && names.includes(attrs.name));
}

export function rulesAllow(attrs: RequestAttributes, rules: readonly PolicyRule[] | undefined): boolean {
  return (rules ?? []).some((r) => ruleAllows(attrs, r));
}

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** what system:masters (or AlwaysAllow) may do, as a rules review lists it */
export const ALL_RULES: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** Whether a binding's subject names this user (ServiceAccounts default to the binding's namespace). */
export function subjectMatches(subject: Subject, user: RequestUser, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return (user.groups ?? []).includes(subject.name ?? '');
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return !!ns && user.name === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** How a binding reads in an "allowed by" reason: `User "alice"`, `Group "dev"`, `ServiceAccount "ns/sa"`. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `ServiceAccount "${subject.namespace || bindingNamespace}/${subject.name}"`;
  return `${subject.kind} "${subject.name}"`;
}

/** kube's forbiddenMessage */
export function forbiddenMessage(userName: string, attrs: RequestAttributes): string {
  if (!attrs.resourceRequest) return `User "${userName}" cannot ${attrs.verb} path "${attrs.path}"`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  if (attrs.namespace) return `User "${userName}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" in the namespace "${attrs.namespace}"`;
  return `User "${userName}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" at the cluster scope`;
}

/** The Status message and details of a 403, as apierrors.NewForbidden builds them from the attributes. */
export function forbiddenStatus(userName: string, attrs: RequestAttributes, reason = ''): { message: string; details: Record<string, string> } {
  const msg = forbiddenMessage(userName, attrs) + (reason ? `: ${reason}` : '');
  if (!attrs.resourceRequest || !attrs.resource) return { message: `forbidden: ${msg}`, details: {} };
  const qualified = attrs.apiGroup ? `${attrs.resource}.${attrs.apiGroup}` : attrs.resource;
  const details: Record<string, string> = {};
  if (attrs.name) details.name = attrs.name;
  if (attrs.apiGroup) details.group = attrs.apiGroup;
  details.kind = attrs.resource;
  return { message: attrs.name ? `${qualified} "${attrs.name}" is forbidden: ${msg}` : `${qualified} is forbidden: ${msg}`, details };
}
