// A policy's matchConstraints and a binding's matchResources (k8s.io/apiserver/pkg/admission/plugin/policy/matching):
// excluded rules first, then the namespace and object selectors, then the resource rules with their resourceNames.
import type { MatchResources, NamedRuleWithOperations } from '../../../api/admissionregistration/policy-validation.js';
import { matchesSelectors, ruleMatches } from '../webhook/matching.js';
import type { RequestAttributes } from '../webhook/types.js';

function namedRuleMatches(r: NamedRuleWithOperations, attrs: RequestAttributes): boolean {
  if (!ruleMatches(r as never, attrs)) return false;
  const names = r.resourceNames ?? [];
  return names.length === 0 || names.includes(attrs.name);
}

export function matchResources(mr: MatchResources | null | undefined, attrs: RequestAttributes, nsLabels: Record<string, string> | undefined): boolean {
  if (!mr) return true;
  if ((mr.excludeResourceRules ?? []).some((r) => namedRuleMatches(r, attrs))) return false;
  const selectors = { namespaceSelector: mr.namespaceSelector ?? undefined, objectSelector: mr.objectSelector ?? undefined };
  if (!matchesSelectors(selectors, attrs, nsLabels)) return false;
  const rules = mr.resourceRules ?? [];
  // a binding without resourceRules matches what its policy matches
  return rules.length === 0 || rules.some((r) => namedRuleMatches(r, attrs));
}

/** Whether any rule could match requests of this resource at all (to skip the namespace lookup early). */
export function mayMatch(mr: MatchResources | null | undefined, attrs: RequestAttributes): boolean {
  const rules = mr?.resourceRules ?? [];
  return rules.length === 0 || rules.some((r) => ruleMatches(r as never, attrs));
}
