// Which webhooks a request goes to (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates and matchconditions):
// rules by operation, group, version, resource/subresource and scope; the namespace and object selectors; the CEL
// match conditions. The webhook and policy configurations themselves are never sent to webhooks, so a broken
// webhook can always be removed.
import { compileAdmissionExpression, namespaceValue, requestValue } from '../../../api/admissionregistration/admission-cel.js';
import { celAuthorizer, dynToCel, type AuthzFunction, type Program } from '../../../machinery/cel/index.js';
import { fromLabelSelector, type LabelSelector, type MetaLabelSelector } from '../../../machinery/labels.js';
import type { RequestAttributes, RuleWithOperations, Webhook } from './types.js';

const EXEMPT = new Set([
  'validatingwebhookconfigurations', 'mutatingwebhookconfigurations',
  'validatingadmissionpolicies', 'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings',
]);

export function isExempt(attrs: Pick<RequestAttributes, 'resource'>): boolean {
  return attrs.resource.group === 'admissionregistration.k8s.io' && EXEMPT.has(attrs.resource.resource);
}

const listed = (list: readonly string[] | undefined, v: string): boolean => !!list && (list.includes('*') || list.includes(v));

function resourceMatches(patterns: readonly string[] | undefined, resource: string, sub: string): boolean {
  for (const p of patterns ?? []) {
    if (p === '*/*') return true;
    const i = p.indexOf('/');
    const [res, s] = i < 0 ? [p, ''] : [p.slice(0, i), p.slice(i + 1)];
    if ((res === '*' || res === resource) && (s === '*' || s === sub)) return true;
  }
  return false;
}

function scopeMatches(scope: RuleWithOperations['scope'], attrs: Pick<RequestAttributes, 'resource' | 'namespace' | 'namespaced'>): boolean {
  if (!scope || scope === '*') return true;
  // a Namespace is cluster-scoped even though its requests carry its own name as the namespace
  const isNamespace = attrs.resource.group === '' && attrs.resource.resource === 'namespaces';
  const namespaced = attrs.namespaced && !isNamespace;
  return scope === 'Namespaced' ? namespaced : !namespaced;
}

/** One rule against the request (operation, group, version, resource/subresource, scope). */
export function ruleMatches(rule: RuleWithOperations, attrs: Pick<RequestAttributes, 'operation' | 'resource' | 'subResource' | 'namespace' | 'namespaced'>): boolean {
  return listed(rule.operations, attrs.operation)
    && listed(rule.apiGroups, attrs.resource.group)
    && listed(rule.apiVersions, attrs.resource.version)
    && resourceMatches(rule.resources, attrs.resource.resource, attrs.subResource)
    && scopeMatches(rule.scope, attrs);
}

export function matchesRules(rules: readonly RuleWithOperations[], attrs: Pick<RequestAttributes, 'operation' | 'resource' | 'subResource' | 'namespace' | 'namespaced'>): boolean {
  return rules.some((r) => ruleMatches(r, attrs));
}

const selectors = new WeakMap<MetaLabelSelector, LabelSelector>();
function selector(s: MetaLabelSelector | undefined): LabelSelector | undefined {
  if (!s) return undefined;
  let sel = selectors.get(s);
  if (!sel) {
    // an invalid selector (validation refuses them; stored ones may predate that) matches nothing
    try {
      sel = fromLabelSelector(s);
    } catch {
      sel = { requirements: [], empty: false, matches: () => false, requiresExactMatch: () => undefined, toString: () => '<invalid>' };
    }
    selectors.set(s, sel);
  }
  return sel;
}

/**
 * The namespace and object selectors. `nsLabels` are the labels of the request's namespace (undefined when it has
 * none, e.g. a cluster-scoped request); a Namespace request is matched by its own labels.
 */
export function matchesSelectors(
  hook: Pick<Webhook, 'namespaceSelector' | 'objectSelector'>,
  attrs: Pick<RequestAttributes, 'resource' | 'namespace' | 'namespaced' | 'object' | 'oldObject'>,
  nsLabels: Record<string, string> | undefined,
): boolean {
  const ns = selector(hook.namespaceSelector);
  if (ns && !ns.empty) {
    const isNamespace = attrs.resource.group === '' && attrs.resource.resource === 'namespaces';
    if (isNamespace) {
      const own = attrs.object?.metadata?.labels ?? attrs.oldObject?.metadata?.labels ?? {};
      if (!ns.matches(own)) return false;
    } else if (attrs.namespaced && attrs.namespace) {
      if (!ns.matches(nsLabels ?? {})) return false;
    }
  }
  const os = selector(hook.objectSelector);
  if (os && !os.empty) {
    // matches when either the new or the old object does
    const labels = [attrs.object, attrs.oldObject].filter((o) => o).map((o) => o!.metadata?.labels ?? {});
    if (!labels.some((l) => os.matches(l))) return false;
  }
  return true;
}

const compiled = new Map<string, { program?: Program; error?: string }>();
function compileCondition(expression: string): { program?: Program; error?: string } {
  let c = compiled.get(expression);
  if (!c) {
    c = compileAdmissionExpression(expression, ['bool'], { stored: true });
    if (compiled.size > 4096) compiled.clear();
    compiled.set(expression, c);
  }
  return c;
}

/** The AdmissionRequest fields the `request` variable carries. */
export function requestJson(attrs: RequestAttributes): Record<string, unknown> {
  const u = attrs.userInfo;
  return {
    kind: attrs.kind, resource: attrs.resource, subResource: attrs.subResource,
    requestKind: attrs.requestKind ?? attrs.kind, requestResource: attrs.requestResource ?? attrs.resource,
    requestSubResource: attrs.requestSubResource ?? attrs.subResource, name: attrs.name, namespace: attrs.namespace,
    operation: attrs.operation, userInfo: { username: u.username, uid: u.uid ?? '', groups: u.groups ?? [], extra: u.extra ?? {} },
    dryRun: attrs.dryRun, options: attrs.options ?? null,
  };
}

/** The activation of admission expressions for one request. */
export function activation(attrs: RequestAttributes, authorize: AuthzFunction, namespaceObject?: unknown): Record<string, unknown> {
  const u = attrs.userInfo;
  return {
    object: attrs.object ? dynToCel(attrs.object) : null,
    oldObject: attrs.oldObject ? dynToCel(attrs.oldObject) : null,
    request: requestValue(requestJson(attrs)),
    namespaceObject: namespaceValue(namespaceObject),
    authorizer: celAuthorizer(authorize, { name: u.username, uid: u.uid, groups: u.groups, extra: u.extra }, {
      group: attrs.resource.group, resource: attrs.resource.resource, subresource: attrs.subResource,
      namespace: attrs.namespace, name: attrs.name,
    }),
  };
}

/**
 * The match conditions (matchconditions.Matcher): any false → no match; all true → match; otherwise the errors,
 * aggregated as kube aggregates them (one error as itself, several as "[a, b]").
 */
export function evaluateMatchConditions(hook: Pick<Webhook, 'matchConditions'>, vars: () => Record<string, unknown>): { matched: boolean } | { error: string } {
  const errs: string[] = [];
  let act: Record<string, unknown> | undefined;
  for (const mc of hook.matchConditions ?? []) {
    const c = compileCondition(mc.expression);
    if (!c.program) {
      errs.push(`compilation error: ${c.error}`);
      continue;
    }
    const r = c.program.eval((act ??= vars()));
    if ('error' in r) errs.push(`expression '${mc.expression}' resulted in error: ${r.error}`);
    else if (r.value === false) return { matched: false };
    else if (r.value !== true) errs.push(`expression '${mc.expression}' resulted in error: no such overload`);
  }
  if (!errs.length) return { matched: true };
  return { error: errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]` };
}
