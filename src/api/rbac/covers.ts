// Whether one set of rules grants everything another does (component-helpers' Covers), and the text kube-apiserver
// gives when a role or binding write would grant more than its writer holds (ConfirmNoEscalation): the missing
// rules broken down to one group/resource/verb/name each, merged by group and resource, printed compactly, sorted.
import { goQuote } from '../../machinery/errors.js';
import { compareGoStrings } from '../../machinery/validation.js';
import type { PolicyRule } from './rules.js';

const has = (set: readonly string[] | undefined, v: string) => (set ?? []).includes(v);
const hasAll = (set: readonly string[] | undefined, vs: readonly string[] | undefined) => (vs ?? []).every((v) => has(set, v));

/** Rules with at most one group, resource, verb and name (or one URL and verb) each, together equal to `rule`. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, '*')) return true;
  // "*/scale" held covers every resource's scale subresource
  return (wanted ?? []).every((r) => has(owner, r) || (r.includes('/') && has(owner, `*/${r.slice(r.indexOf('/') + 1)}`)));
}

function urlsCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((path) => (owner ?? []).some((o) => o === path || (o.endsWith('*') && path.startsWith(o.replace(/\*+$/, '')))));
}

/** Whether `owner` covers a broken-down rule (an owner rule limited to names never covers the unnamed one). */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const names = sub.resourceNames?.length ? !owner.resourceNames?.length || hasAll(owner.resourceNames, sub.resourceNames) : !owner.resourceNames?.length;
  return (
    (has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs)) &&
    (has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups)) &&
    resourcesCover(owner.resources, sub.resources) &&
    urlsCover(owner.nonResourceURLs, sub.nonResourceURLs) &&
    names
  );
}

/** The broken-down rules of `wanted` that no rule of `owner` covers ([]: owner holds all of it). */
export function uncoveredRules(owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
}

/** kube's CompactRules: rules of one group and one resource (nothing else) merged into one with all their verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = r.apiGroups?.length === 1 && r.resources?.length === 1 && !r.resourceNames?.length && !r.nonResourceURLs?.length;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0]]);
    const seen = simple.get(key);
    if (seen) seen.verbs = [...(seen.verbs ?? []), ...(r.verbs ?? [])];
    else simple.set(key, { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...(r.verbs ?? [])] });
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
export const goQuotedList = (list: readonly string[] | undefined): string => `[${(list ?? []).map(goQuote).join(' ')}]`;

/** kube's CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`, empty fields left out. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuotedList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuotedList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuotedList(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * ConfirmNoEscalation: undefined when `held` covers `granted`, else kube's reason (the error a 403 wraps).
 * `resolutionErrors`: why some of the user's bindings gave no rules (a missing role), appended as kube does.
 */
export function escalationError(user: { name: string; groups?: string[] }, held: readonly PolicyRule[], granted: readonly PolicyRule[], resolutionErrors: readonly string[] = []): string | undefined {
  const missing = uncoveredRules(held, granted);
  if (!missing.length) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort(compareGoStrings);
  let msg = `user ${goQuote(user.name)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (resolutionErrors.length) msg += `; resolution errors: [${aggregate(resolutionErrors)}]`;
  return msg;
}

/** utilerrors.NewAggregate's text: one error as itself, more as "[a, b]" (repeated texts once). */
function aggregate(errs: readonly string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
