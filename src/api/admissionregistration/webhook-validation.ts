// Webhook configuration validation as pkg/apis/admissionregistration/validation/validation.go (Kubernetes 1.33),
// with create-time options (no side effects, recognized review versions, unique names). CEL match conditions are
// checked for presence and names only: k1s stores expressions without compiling them.
import { compileAdmissionExpression } from './admission-cel.js';
import { FieldError } from '../../machinery/errors.js';
import { type MetaLabelSelector } from '../../machinery/labels.js';
import { validateLabelSelector } from '../../machinery/label-selector-validation.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from '../../machinery/validation.js';
import { validateClientConfig, type ClientConfig } from './webhook-client.js';
import { goTypedStrings } from '../rbac/gostring.js';
import type { KObject } from '../types.js';

export interface Rule {
  apiGroups?: string[] | null;
  apiVersions?: string[] | null;
  resources?: string[] | null;
  scope?: string | null;
}

export interface RuleWithOperations extends Rule {
  operations?: string[] | null;
}

export interface MatchCondition {
  name?: string;
  expression?: string;
}

export interface Webhook {
  name?: string;
  clientConfig?: ClientConfig;
  rules?: RuleWithOperations[] | null;
  failurePolicy?: string | null;
  matchPolicy?: string | null;
  namespaceSelector?: MetaLabelSelector | null;
  objectSelector?: MetaLabelSelector | null;
  sideEffects?: string | null;
  timeoutSeconds?: number | null;
  admissionReviewVersions?: string[] | null;
  reinvocationPolicy?: string | null;
  matchConditions?: MatchCondition[] | null;
}

export interface WebhookConfiguration extends KObject {
  webhooks?: Webhook[] | null;
}

// sets.List() order (sorted), as the Unsupported messages print them.
export const FAILURE_POLICIES = ['Fail', 'Ignore'];
export const MATCH_POLICIES = ['Equivalent', 'Exact'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];

const len = (xs: unknown[] | null | undefined) => xs?.length ?? 0;
const hasWildcard = (xs: string[] | null | undefined) => (xs ?? []).includes('*');

/** validateResources: resource/subresource wildcards may not overlap. */
function validateResources(resources: string[] | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = resources ?? [];
  if (list.length === 0) errs.push(FieldError.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  list.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(FieldError.required(`${path}[${i}]`));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // Go keeps only the last entry's answer here.
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(FieldError.invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(FieldError.invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (list.length > 1 && doubleWildcard) errs.push(FieldError.invalid(path, list, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(FieldError.invalid(path, list, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

export function validateRule(rule: Rule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (len(rule.apiGroups) === 0) errs.push(FieldError.required(`${path}.apiGroups`));
  if (len(rule.apiGroups) > 1 && hasWildcard(rule.apiGroups))
    errs.push(FieldError.invalid(`${path}.apiGroups`, rule.apiGroups, "if '*' is present, must not specify other API groups"));
  if (len(rule.apiVersions) === 0) errs.push(FieldError.required(`${path}.apiVersions`));
  if (len(rule.apiVersions) > 1 && hasWildcard(rule.apiVersions))
    errs.push(FieldError.invalid(`${path}.apiVersions`, rule.apiVersions, "if '*' is present, must not specify other API versions"));
  (rule.apiVersions ?? []).forEach((v, i) => {
    if (v === '') errs.push(FieldError.required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(rule.resources, `${path}.resources`));
  if (rule.scope !== undefined && rule.scope !== null && !SCOPES.includes(rule.scope))
    errs.push(FieldError.notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

export function validateRuleWithOperations(rule: RuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = rule.operations ?? [];
  if (ops.length === 0) errs.push(FieldError.required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*'))
    errs.push(
      FieldError.invalid(`${path}.operations`, goTypedStrings('admissionregistration.OperationType', ops), "if '*' is present, must not specify other operations"),
    );
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(FieldError.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  return [...errs, ...validateRule(rule, path)];
}

function validateAdmissionReviewVersions(versions: string[] | null | undefined, path: string): FieldError[] {
  const list = versions ?? [];
  if (list.length === 0) return [FieldError.required(path, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(FieldError.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(FieldError.invalid(`${path}[${i}]`, v, m));
    if (REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (!accepted) errs.push(FieldError.invalid(path, list, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

/** validateMatchConditions: names, and expressions that compile to bool (with params when the policy has them). */
export function validateMatchConditions(conds: MatchCondition[] | null | undefined, path: string, opts: { params?: boolean } = {}): FieldError[] {
  const list = conds ?? [];
  const errs: FieldError[] = [];
  if (list.length > 64) errs.push(FieldError.tooMany(path, list.length, 64));
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const expr = (c?.expression ?? '').trim();
    if (!expr) errs.push(FieldError.required(`${p}.expression`));
    else {
      const r = compileAdmissionExpression(expr, ['bool'], { params: opts.params });
      if (r.error !== undefined) errs.push(FieldError.invalid(`${p}.expression`, expr, r.error));
    }
    const name = c?.name ?? '';
    if (!name) errs.push(FieldError.required(`${p}.name`));
    else for (const m of isQualifiedName(name)) errs.push(FieldError.invalid(`${p}.name`, name, m));
    if (name) {
      if (names.has(name)) errs.push(FieldError.duplicate(`${p}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}

/** utilvalidation.IsFullyQualifiedName. */
export function validateFullyQualifiedName(name: string, path: string): FieldError[] {
  if (!name) return [FieldError.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [FieldError.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [FieldError.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateWebhook(hook: Webhook, mutating: boolean, path: string): FieldError[] {
  const errs = validateFullyQualifiedName(hook.name ?? '', `${path}.name`);
  (hook.rules ?? []).forEach((r, i) => errs.push(...validateRuleWithOperations(r ?? {}, `${path}.rules[${i}]`)));
  if (hook.failurePolicy != null && !FAILURE_POLICIES.includes(hook.failurePolicy))
    errs.push(FieldError.notSupported(`${path}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  if (hook.matchPolicy != null && !MATCH_POLICIES.includes(hook.matchPolicy))
    errs.push(FieldError.notSupported(`${path}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  if (hook.sideEffects == null) errs.push(FieldError.required(`${path}.sideEffects`, `must specify one of ${NO_SIDE_EFFECTS.join(', ')}`));
  else if (!NO_SIDE_EFFECTS.includes(hook.sideEffects)) errs.push(FieldError.notSupported(`${path}.sideEffects`, hook.sideEffects, NO_SIDE_EFFECTS));
  const t = hook.timeoutSeconds;
  if (t != null && (t > 30 || t < 1)) errs.push(FieldError.invalid(`${path}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds'));
  if (hook.namespaceSelector) errs.push(...validateLabelSelector(hook.namespaceSelector, `${path}.namespaceSelector`));
  if (hook.objectSelector) errs.push(...validateLabelSelector(hook.objectSelector, `${path}.objectSelector`));
  if (mutating && hook.reinvocationPolicy != null && !REINVOCATION_POLICIES.includes(hook.reinvocationPolicy))
    errs.push(FieldError.notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION_POLICIES));
  errs.push(...validateClientConfig(`${path}.clientConfig`, hook.clientConfig));
  errs.push(...validateMatchConditions(hook.matchConditions, `${path}.matchConditions`));
  return errs;
}

export function validateWebhookConfiguration(cfg: WebhookConfiguration, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (cfg.webhooks ?? []).forEach((hook, i) => {
    const h = hook ?? {};
    const p = `webhooks[${i}]`;
    errs.push(...validateWebhook(h, mutating, p));
    errs.push(...validateAdmissionReviewVersions(h.admissionReviewVersions, `${p}.admissionReviewVersions`));
    if (h.name) {
      if (names.has(h.name)) errs.push(FieldError.duplicate(`${p}.name`, h.name));
      else names.add(h.name);
    }
  });
  return errs;
}

/** SetDefaults_ValidatingWebhook / MutatingWebhook, _Rule and _ServiceReference (pkg/apis/admissionregistration/v1). */
export function defaultWebhooks(cfg: WebhookConfiguration, mutating: boolean): void {
  for (const h of cfg.webhooks ?? []) {
    if (!h || typeof h !== 'object') continue;
    h.failurePolicy ??= 'Fail';
    h.matchPolicy ??= 'Equivalent';
    h.namespaceSelector ??= {};
    h.objectSelector ??= {};
    h.timeoutSeconds ??= 10;
    if (mutating) h.reinvocationPolicy ??= 'Never';
    const svc = h.clientConfig?.service;
    if (svc && typeof svc === 'object') svc.port ??= 443;
    for (const r of h.rules ?? []) if (r && typeof r === 'object') r.scope ??= '*';
  }
}
