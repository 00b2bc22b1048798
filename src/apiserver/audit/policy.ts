// The audit.k8s.io/v1 Policy (kube-apiserver --audit-policy-file): decoding with kube's checks and messages, and
// the rule matching that gives a request its level, omitted stages and whether managedFields are dropped. The
// first rule that matches wins; no match is level None.
import { readFileSync } from 'node:fs';
import { FieldError, goQuote } from '../../machinery/errors.js';
import { aggregateMessage } from '../../machinery/labels.js';
import { isDNS1123Subdomain } from '../../machinery/validation.js';
import { YAML } from '../../machinery/yaml.js';
import type { RequestAttributes } from '../../api/rbac/rules.js';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const LEVELS: readonly Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: Level;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** What the policy says about one request. */
export interface RequestAuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

/** Who the policy matches: the authenticated user (never the impersonated one), or none for a failed login. */
export interface AuditedUser {
  name: string;
  groups?: string[];
}

/** levelOf(a) ≥ levelOf(b) */
export function levelAtLeast(a: Level, b: Level): boolean {
  return LEVELS.indexOf(a) >= LEVELS.indexOf(b);
}

export class PolicyEvaluator {
  private readonly rules: { rule: PolicyRule; config: RequestAuditConfig }[];
  private readonly fallback: RequestAuditConfig;

  constructor(readonly policy: Policy) {
    this.rules = policy.rules.map((rule) => ({
      rule,
      config: {
        level: rule.level,
        omitStages: new Set([...policy.omitStages, ...rule.omitStages]),
        omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
      },
    }));
    this.fallback = { level: 'None', omitStages: new Set(policy.omitStages), omitManagedFields: policy.omitManagedFields };
  }

  evaluate(user: AuditedUser | undefined, attrs: RequestAttributes): RequestAuditConfig {
    for (const { rule, config } of this.rules) if (ruleMatches(rule, user, attrs)) return config;
    return this.fallback;
  }
}

function ruleMatches(r: PolicyRule, user: AuditedUser | undefined, attrs: RequestAttributes): boolean {
  if (r.users.length && (!user || !r.users.includes(user.name))) return false;
  if (r.userGroups.length && (!user || !(user.groups ?? []).some((g) => r.userGroups.includes(g)))) return false;
  if (r.verbs.length && !r.verbs.includes(attrs.verb)) return false;
  if (r.namespaces.length || r.resources.length) return resourceMatches(r, attrs);
  if (r.nonResourceURLs.length) return !attrs.resourceRequest && r.nonResourceURLs.some((spec) => pathMatches(attrs.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(r: PolicyRule, attrs: RequestAttributes): boolean {
  if (!attrs.resourceRequest) return false;
  // non-namespaced resources have the namespace ""
  if (r.namespaces.length && !r.namespaces.includes(attrs.namespace)) return false;
  if (!r.resources.length) return true;
  const { resource, subresource, name } = attrs;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of r.resources) {
    if (gr.group !== attrs.apiGroup) continue;
    if (!gr.resources.length) return true;
    if (gr.resourceNames.length && !gr.resourceNames.includes(name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (subresource && res.startsWith('*/') && res.slice(2) === subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}

/** Reads and checks a policy file; the error texts are kube-apiserver's ("…: from file PATH"). */
export function loadPolicyFile(path: string, warn: (line: string) => void = (l) => console.error(l)): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`failed to read file path ${goQuote(path)}: ${(e as Error).message}`);
  }
  try {
    return parsePolicy(text, warn);
  } catch (e) {
    throw new Error(`${(e as Error).message}: from file ${path}`);
  }
}

type Raw = Record<string, unknown>;
const isObj = (v: unknown): v is Raw => !!v && typeof v === 'object' && !Array.isArray(v);

/** A policy document (YAML or JSON) → the policy, or an error with kube's message. */
export function parsePolicy(text: string, warn: (line: string) => void = () => {}): Policy {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    throw new Error(`failed decoding: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw new Error(`failed decoding: Object 'Kind' is missing in '${text.trim()}'`);
  if (typeof doc.kind !== 'string' || !doc.kind) throw new Error(`failed decoding: Object 'Kind' is missing in '${JSON.stringify(doc)}'`);
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  if (apiVersion !== 'audit.k8s.io/v1') {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    throw new Error(`unknown group version field ${group}/${version}, Kind=${doc.kind} in policy`);
  }
  if (doc.kind !== 'Policy') throw new Error(`failed decoding: no kind ${goQuote(doc.kind)} is registered for version "audit.k8s.io/v1" in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"`);
  const unknown: string[] = [];
  const policy = decodePolicy(doc, unknown);
  // kube decodes strictly first and falls back to lenient decoding with a warning
  if (unknown.length) warn(`k1s: audit policy contains errors, falling back to lenient decoding: strict decoding error: ${unknown.map((f) => `unknown field ${goQuote(f)}`).join(', ')}`);
  const errs = validatePolicy(policy);
  if (errs.length) throw new Error(aggregateMessage(errs));
  if (!policy.rules.length) throw new Error('loaded illegal policy with 0 rules');
  return policy;
}

function decodePolicy(doc: Raw, unknown: string[]): Policy {
  noteUnknown(doc, ['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields'], '', unknown);
  const rules = doc.rules === undefined || doc.rules === null ? [] : doc.rules;
  if (!Array.isArray(rules)) throw typeError('rules', 'Policy.rules', '[]v1.PolicyRule', rules);
  return {
    rules: rules.map((r, i) => decodeRule(r, `rules[${i}]`, unknown)),
    omitStages: strings(doc.omitStages, 'Policy.omitStages', '[]v1.Stage') as Stage[],
    omitManagedFields: bool(doc.omitManagedFields, 'Policy.omitManagedFields') ?? false,
  };
}

function decodeRule(r: unknown, at: string, unknown: string[]): PolicyRule {
  if (!isObj(r)) throw typeError('', 'Policy.rules', 'v1.PolicyRule', r);
  noteUnknown(r, ['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields'], at, unknown);
  const resources = r.resources === undefined || r.resources === null ? [] : r.resources;
  if (!Array.isArray(resources)) throw typeError('', 'PolicyRule.rules.resources', '[]v1.GroupResources', resources);
  return {
    level: (r.level === undefined || r.level === null ? '' : str(r.level, 'PolicyRule.rules.level', 'v1.Level')) as Level,
    users: strings(r.users, 'PolicyRule.rules.users', '[]string'),
    userGroups: strings(r.userGroups, 'PolicyRule.rules.userGroups', '[]string'),
    verbs: strings(r.verbs, 'PolicyRule.rules.verbs', '[]string'),
    resources: resources.map((g, j) => {
      if (!isObj(g)) throw typeError('', 'PolicyRule.rules.resources', 'v1.GroupResources', g);
      noteUnknown(g, ['group', 'resources', 'resourceNames'], `${at}.resources[${j}]`, unknown);
      return {
        group: g.group === undefined || g.group === null ? '' : str(g.group, 'GroupResources.rules.resources.group', 'string'),
        resources: strings(g.resources, 'GroupResources.rules.resources.resources', '[]string'),
        resourceNames: strings(g.resourceNames, 'GroupResources.rules.resources.resourceNames', '[]string'),
      };
    }),
    namespaces: strings(r.namespaces, 'PolicyRule.rules.namespaces', '[]string'),
    nonResourceURLs: strings(r.nonResourceURLs, 'PolicyRule.rules.nonResourceURLs', '[]string'),
    omitStages: strings(r.omitStages, 'PolicyRule.rules.omitStages', '[]v1.Stage') as Stage[],
    omitManagedFields: bool(r.omitManagedFields, 'PolicyRule.rules.omitManagedFields'),
  };
}

function noteUnknown(o: Raw, known: string[], at: string, unknown: string[]): void {
  for (const k of Object.keys(o)) if (!known.includes(k)) unknown.push(at ? `${at}.${k}` : k);
}

/** Go's json.UnmarshalTypeError text */
function typeError(_field: string, goField: string, goType: string, v: unknown): Error {
  const kind = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v;
  return new Error(`failed decoding: json: cannot unmarshal ${kind} into Go struct field ${goField} of type ${goType}`);
}

function str(v: unknown, goField: string, goType: string): string {
  if (typeof v !== 'string') throw typeError('', goField, goType, v);
  return v;
}

function strings(v: unknown, goField: string, goType: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw typeError('', goField, goType, v);
  return v.map((x) => str(x, goField, goType.replace(/^\[\]/, '')));
}

function bool(v: unknown, goField: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw typeError('', goField, 'bool', v);
  return v;
}

/** kube's ValidatePolicy: levels, stages, URLs, groups, resourceNames, and resources vs non-resource URLs. */
export function validatePolicy(policy: Policy): FieldError[] {
  const errs: FieldError[] = stageErrors(policy.omitStages, 'omitStages');
  policy.rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!rule.level) errs.push(FieldError.required(`${at}.level`));
    else if (!LEVELS.includes(rule.level)) errs.push(FieldError.notSupported(`${at}.level`, rule.level, [...LEVELS]));
    rule.nonResourceURLs.forEach((url, j) => {
      if (url === '*') return;
      if (!url.startsWith('/')) errs.push(FieldError.invalid(`${at}.nonResourceURLs[${j}]`, url, "non-resource URL rules must begin with a '/' character"));
      if (url !== '' && url.slice(0, -1).includes('*')) errs.push(FieldError.invalid(`${at}.nonResourceURLs[${j}]`, url, "non-resource URL wildcards '*' must be the final character of the rule"));
    });
    for (const gr of rule.resources) {
      if (gr.group) {
        const msgs = isDNS1123Subdomain(gr.group);
        if (msgs.length) errs.push(FieldError.invalid(`${at}.resources.group`, gr.group, msgs.join(',')));
      }
      if (gr.resourceNames.length && !gr.resources.length) errs.push(FieldError.invalid(`${at}.resources.resourceNames`, gr.resourceNames, 'using resourceNames requires at least one resource'));
    }
    errs.push(...stageErrors(rule.omitStages, `${at}.omitStages`));
    if (rule.nonResourceURLs.length && (rule.resources.length || rule.namespaces.length)) {
      errs.push(FieldError.invalid(`${at}.nonResourceURLs`, rule.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
  });
  return errs;
}

function stageErrors(stages: string[], at: string): FieldError[] {
  return stages.flatMap((s, i) => (STAGES.includes(s as Stage) ? [] : [FieldError.invalid(`${at}[${i}]`, s, `allowed stages are ${STAGES.join(',')}`)]));
}
