// ValidatingAdmissionPolicy(Binding) validation as pkg/apis/admissionregistration/validation/validation.go
// (Kubernetes 1.33): the structure, and every CEL expression compiled in the environment it runs in (params when
// the policy has a paramKind, the variables declared before, no authorizer in messages and audit annotations).
import { FieldError } from '../../machinery/errors.js';
import { type MetaLabelSelector } from '../../machinery/labels.js';
import { validateLabelSelector } from '../../machinery/label-selector-validation.js';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from '../../machinery/validation.js';
import {
  FAILURE_POLICIES,
  MATCH_POLICIES,
  validateMatchConditions,
  validateRuleWithOperations,
  type MatchCondition,
  type RuleWithOperations,
} from './webhook-validation.js';
import { compileAdmissionExpression } from './admission-cel.js';
import { goTypedStrings } from '../rbac/gostring.js';
import type { KObject } from '../types.js';

export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[] | null;
}

export interface MatchResources {
  namespaceSelector?: MetaLabelSelector | null;
  objectSelector?: MetaLabelSelector | null;
  resourceRules?: NamedRuleWithOperations[] | null;
  excludeResourceRules?: NamedRuleWithOperations[] | null;
  matchPolicy?: string | null;
}

export interface ValidatingAdmissionPolicySpec {
  paramKind?: { apiVersion?: string; kind?: string } | null;
  matchConstraints?: MatchResources | null;
  validations?: Array<{ expression?: string; message?: string; reason?: string | null; messageExpression?: string }> | null;
  failurePolicy?: string | null;
  auditAnnotations?: Array<{ key?: string; valueExpression?: string }> | null;
  matchConditions?: MatchCondition[] | null;
  variables?: Array<{ name?: string; expression?: string }> | null;
}

export interface ValidatingAdmissionPolicy extends KObject {
  spec?: ValidatingAdmissionPolicySpec;
  status?: Record<string, unknown>;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: MetaLabelSelector | null;
  parameterNotFoundAction?: string | null;
}

export interface ValidatingAdmissionPolicyBinding extends KObject {
  spec?: { policyName?: string; paramRef?: ParamRef | null; matchResources?: MatchResources | null; validationActions?: string[] | null };
}

const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const POLICY_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION = 5 * 1024;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

function validateParamKind(pk: { apiVersion?: string; kind?: string }, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const av = pk.apiVersion ?? '';
  if (!av) errs.push(FieldError.required(`${path}.apiVersion`));
  else {
    const slashes = av.split('/').length - 1;
    if (slashes > 1) errs.push(FieldError.invalid(`${path}.apiVersion`, av, `unexpected GroupVersion string: ${av}`));
    else {
      const [group, version] = av === '/' ? ['', ''] : slashes === 0 ? ['', av] : av.split('/');
      if (group) {
        const ge = isDNS1123Subdomain(group);
        if (ge.length) errs.push(FieldError.invalid(`${path}.apiVersion`, group, ge.join(',')));
      }
      if (!version) errs.push(FieldError.invalid(`${path}.apiVersion`, av, 'version must be specified'));
      else {
        const ve = isDNS1035Label(version);
        if (ve.length) errs.push(FieldError.invalid(`${path}.apiVersion`, version, ve.join(',')));
      }
    }
  }
  const kind = pk.kind ?? '';
  if (!kind) errs.push(FieldError.required(`${path}.kind`));
  else {
    const ke = isDNS1035Label(kind.toLowerCase());
    if (ke.length) errs.push(FieldError.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${ke.join(',')}`));
  }
  return errs;
}

function validateNamedRule(rule: NamedRuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (rule.resourceNames ?? []).forEach((n, i) => {
    const p = `${path}.resourceNames[${i}]`;
    if (n === '.' || n === '..') errs.push(FieldError.invalid(p, n, `may not be '${n}'`));
    else for (const c of ['/', '%']) if (n.includes(c)) errs.push(FieldError.invalid(p, n, `may not contain '${c}'`));
    if (seen.has(n)) errs.push(FieldError.duplicate(p, n));
    else seen.add(n);
  });
  return [...errs, ...validateRuleWithOperations(rule, path)];
}

export function validateMatchResources(mc: MatchResources | null | undefined, path: string): FieldError[] {
  if (!mc) return [];
  const errs: FieldError[] = [];
  if (mc.matchPolicy == null) errs.push(FieldError.required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(mc.matchPolicy)) errs.push(FieldError.notSupported(`${path}.matchPolicy`, mc.matchPolicy, MATCH_POLICIES));
  if (!mc.namespaceSelector) errs.push(FieldError.required(`${path}.namespaceSelector`));
  else errs.push(...validateLabelSelector(mc.namespaceSelector, `${path}.namespaceSelector`));
  if (!mc.objectSelector) errs.push(FieldError.required(`${path}.objectSelector`));
  else errs.push(...validateLabelSelector(mc.objectSelector, `${path}.objectSelector`));
  (mc.resourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRule(r ?? {}, `${path}.resourceRules[${i}]`)));
  (mc.excludeResourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRule(r ?? {}, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

export function validatePolicy(p: ValidatingAdmissionPolicy): FieldError[] {
  const spec = p.spec ?? {};
  const errs: FieldError[] = [];
  if (spec.failurePolicy == null) errs.push(FieldError.required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy)) errs.push(FieldError.notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  if (spec.paramKind) errs.push(...validateParamKind(spec.paramKind, 'spec.paramKind'));
  if (!spec.matchConstraints) errs.push(FieldError.required('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'));
    // At least one resource rule gives the expressions their type information.
    if ((spec.matchConstraints.resourceRules ?? []).length === 0) errs.push(FieldError.required('spec.matchConstraints.resourceRules'));
  }
  const params = !!spec.paramKind;
  errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions', { params }));
  const declared: string[] = [];
  const celOpts = () => ({ params, variables: declared.length ? [...declared] : undefined });
  const compile = (path: string, source: string, returns: string[] | undefined, authorizer = true) => {
    const r = compileAdmissionExpression(source, returns ?? [], { ...celOpts(), authorizer }, !returns);
    if (r.error !== undefined) errs.push(FieldError.invalid(path, source, r.error));
  };
  (spec.variables ?? []).forEach((v, i) => {
    const path = `spec.variables[${i}]`;
    const name = v?.name ?? '';
    if (!name.trim()) errs.push(FieldError.required(`${path}.name`, 'name is not specified'));
    else if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) || CEL_RESERVED.has(name))
      errs.push(FieldError.invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
    if (!(v?.expression ?? '').trim()) errs.push(FieldError.required(`${path}.expression`, 'expression is not specified'));
    else compile(`${path}.expression`, v!.expression!, undefined);
    if (name) declared.push(name);
  });
  const validations = spec.validations ?? [];
  const audits = spec.auditAnnotations ?? [];
  if (validations.length === 0 && audits.length === 0) {
    const msg = 'validations or auditAnnotations must contain at least one item';
    errs.push(FieldError.required('spec.validations', msg), FieldError.required('spec.auditAnnotations', msg));
    return errs;
  }
  validations.forEach((v, i) => {
    const path = `spec.validations[${i}]`;
    errs.push(...validateValidation(v ?? {}, path));
    if ((v?.expression ?? '').trim()) compile(`${path}.expression`, v!.expression!, ['bool']);
    if ((v?.messageExpression ?? '').trim()) compile(`${path}.messageExpression`, v!.messageExpression!, ['string'], false);
  });
  if (audits.length > MAX_AUDIT_ANNOTATIONS)
    errs.push(FieldError.invalid('spec.auditAnnotations', audits, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  const keys = new Set<string>();
  audits.forEach((a, i) => {
    const path = `spec.auditAnnotations[${i}]`;
    const key = a?.key ?? '';
    const policyName = p.metadata.name ?? '';
    if (policyName) for (const m of isQualifiedName(`${policyName}/${key}`)) errs.push(FieldError.invalid(`${path}.key`, `${policyName}/${key}`, m));
    else errs.push(FieldError.invalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
    const ve = (a?.valueExpression ?? '').trim();
    if (!ve) errs.push(FieldError.required(`${path}.valueExpression`, 'valueExpression is not specified'));
    else if (Buffer.byteLength(ve) > MAX_AUDIT_VALUE_EXPRESSION)
      errs.push(FieldError.required(`${path}.valueExpression`, `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION} bytes in length`));
    else compile(`${path}.valueExpression`, a!.valueExpression!, ['string', 'null_type'], false);
    if (keys.has(key)) errs.push(FieldError.duplicate(`${path}.key`, key));
    keys.add(key);
  });
  return errs;
}

function validateValidation(v: { expression?: string; message?: string; reason?: string | null; messageExpression?: string }, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!(v.expression ?? '').trim()) errs.push(FieldError.required(`${path}.expression`, 'expression is not specified'));
  const me = v.messageExpression ?? '';
  if (me.length > 0 && !me.trim()) errs.push(FieldError.invalid(`${path}.messageExpression`, me, 'must be non-empty if specified'));
  const msg = v.message ?? '';
  if (msg.length > 0 && !msg.trim()) errs.push(FieldError.invalid(`${path}.message`, msg, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(msg.trim())) errs.push(FieldError.invalid(`${path}.message`, msg, 'message must not contain line breaks'));
  if (v.reason != null && !POLICY_REASONS.includes(v.reason)) errs.push(FieldError.notSupported(`${path}.reason`, v.reason, POLICY_REASONS));
  return errs;
}

function validateParamRef(pr: ParamRef | null | undefined, path: string): FieldError[] {
  if (!pr) return [];
  const errs: FieldError[] = [];
  const name = pr.name ?? '';
  if (name) {
    if (name === '.' || name === '..') errs.push(FieldError.invalid(`${path}.name`, name, `may not be '${name}'`));
    else for (const c of ['/', '%']) if (name.includes(c)) errs.push(FieldError.invalid(`${path}.name`, name, `may not contain '${c}'`));
    if (pr.selector) errs.push(FieldError.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (pr.selector) {
    errs.push(...validateLabelSelector(pr.selector, `${path}.selector`));
    if (name) errs.push(FieldError.forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (!name && !pr.selector) errs.push(FieldError.required(path, 'one of name or selector must be specified'));
  const action = pr.parameterNotFoundAction;
  if (!action) errs.push(FieldError.required(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(FieldError.notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

export function validatePolicyBinding(b: ValidatingAdmissionPolicyBinding): FieldError[] {
  const spec = b.spec ?? {};
  const errs: FieldError[] = [];
  const policy = spec.policyName ?? '';
  if (!policy) errs.push(FieldError.required('spec.policyName'));
  else for (const m of nameIsDNSSubdomain(policy, false)) errs.push(FieldError.invalid('spec.policyName', policy, m));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // "matchResouces" is Kubernetes' own spelling of this path.
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  const actions = spec.validationActions ?? [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(FieldError.notSupported(`spec.validationActions[${i}]`, a, VALIDATION_ACTIONS));
    if (seen.has(a)) errs.push(FieldError.duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    errs.push(
      FieldError.invalid(
        'spec.validationActions',
        goTypedStrings('admissionregistration.ValidationAction', actions),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  if (seen.size === 0) errs.push(FieldError.required('spec.validationActions', 'at least one validation action is required'));
  return errs;
}

/** SetDefaults_MatchResources and _Rule for each resource rule. */
function defaultMatchResources(mc: MatchResources | null | undefined): void {
  if (!mc || typeof mc !== 'object') return;
  mc.matchPolicy ??= 'Equivalent';
  mc.namespaceSelector ??= {};
  mc.objectSelector ??= {};
  for (const r of [...(mc.resourceRules ?? []), ...(mc.excludeResourceRules ?? [])]) if (r && typeof r === 'object') r.scope ??= '*';
}

export function defaultPolicy(p: ValidatingAdmissionPolicy): void {
  p.spec ??= {};
  p.spec.failurePolicy ??= 'Fail';
  defaultMatchResources(p.spec.matchConstraints);
}

export function defaultPolicyBinding(b: ValidatingAdmissionPolicyBinding): void {
  b.spec ??= {};
  defaultMatchResources(b.spec.matchResources);
}
