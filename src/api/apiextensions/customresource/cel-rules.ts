// x-kubernetes-validations: compiled when a CRD is written (the CEL part of validateCustomResourceDefinition-
// OpenAPISchema, Kubernetes 1.33) and evaluated against custom objects (schema/cel/validation.go), with
// transition rules, optionalOldSelf, messageExpression, reason, fieldPath, CRD validation ratcheting (an unchanged
// value's failures become warnings) and the cost limits. Costs are estimates (see machinery/cel/cost.ts).
import { FieldError } from '../../../machinery/errors.js';
import { deepEqual } from '../../../machinery/object.js';
import { Optional, T, estimateCost, measured, toCel, type DeclType } from '../../../machinery/cel/index.js';
import { isObj, str, type JSP } from '../structural.js';
import { goPtr, goStr, goStruct, type GoValue } from '../../rbac/gostring.js';
import { PER_CALL_LIMIT, maxCardinality, rootRuleNode, rulesOf, type CompiledRule, type RuleNode } from './cel-compile.js';

const STATIC_EXPRESSION_LIMIT = 10_000_000;
const STATIC_CRD_LIMIT = 100_000_000;
const RUNTIME_BUDGET = 10_000_000;
const MAX_MESSAGE_BYTES = 5 * 1024;

const compiledForWrite = new WeakMap<JSP, RuleNode | null>();
const compiledForRead = new WeakMap<JSP, RuleNode | null>();

function cached(cache: WeakMap<JSP, RuleNode | null>, schema: JSP, semver: boolean): RuleNode | undefined {
  let n = cache.get(schema);
  if (n === undefined) {
    try {
      n = rootRuleNode(schema, { semver }) ?? null;
    } catch {
      n = null;
    }
    cache.set(schema, n);
  }
  return n ?? undefined;
}

/** %#v of the internal apiextensions.ValidationRule, the bad value of compile errors. */
function goRule(r: JSP): GoValue {
  return goStruct('apiextensions.ValidationRule', [
    ['Rule', goStr(r.rule)],
    ['Message', goStr(r.message)],
    ['MessageExpression', goStr(r.messageExpression)],
    ['Reason', goPtr('apiextensions.FieldValueErrorReason', r.reason != null)],
    ['FieldPath', goStr(r.fieldPath)],
    ['OptionalOldSelf', goPtr('bool', typeof r.optionalOldSelf === 'boolean')],
  ]);
}

function costMessage(name: string, cost: number, limit: number): string {
  const f = cost / limit;
  const factor = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** extractMaxElements: how many times a child's data can repeat per parent value (undefined: unbounded). */
function maxElements(s: JSP): number | undefined {
  const n = (v: unknown) => (typeof v === 'number' ? Math.max(0, v) : undefined);
  if (s.type === 'object') return s.additionalProperties != null ? n(s.maxProperties) : 1;
  if (s.type === 'array') return n(s.maxItems);
  return 1;
}

interface CompileCtx {
  errs: FieldError[];
  total: number;
  expensive: Array<{ path: string; cost: number }>;
}

function observe(ctx: CompileCtx, path: string, cost: number): void {
  ctx.total = Math.min(Number.MAX_VALUE, ctx.total + cost);
  if (cost < STATIC_CRD_LIMIT / 100) return;
  ctx.expensive.push({ path, cost });
  ctx.expensive.sort((a, b) => b.cost - a.cost);
  ctx.expensive.length = Math.min(ctx.expensive.length, 4);
}

function compileNode(s: JSP, node: RuleNode | undefined, path: string, card: number | undefined, uncorrelatable: string | undefined, ctx: CompileCtx): void {
  const child = (c: JSP, n: RuleNode | undefined, p: string, unc: string | undefined) => {
    const m = maxElements(s);
    compileNode(c, n, p, card === undefined || m === undefined ? undefined : card * m, unc, ctx);
  };
  if (isObj(s.additionalProperties)) child(s.additionalProperties, node?.additionalProperties, `${path}.additionalProperties`, uncorrelatable);
  const props = isObj(s.properties) ? (s.properties as Record<string, unknown>) : {};
  for (const k of Object.keys(props).sort()) {
    if (isObj(props[k])) child(props[k] as JSP, node?.properties.get(k), `${path}.properties[${k}]`, uncorrelatable);
  }
  if (isObj(s.items)) {
    const unc = uncorrelatable ?? (s['x-kubernetes-list-type'] !== 'map' ? path : undefined);
    child(s.items, node?.items, `${path}.items`, unc);
  }
  const rules = rulesOf(s);
  if (!rules.length) return;
  const vpath = `${path}.x-kubernetes-validations`;
  if (!node?.type) {
    ctx.errs.push(FieldError.internal(vpath, 'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations'));
    return;
  }
  const cardinality = card ?? maxCardinality(node.type.minSerializedSize);
  node.rules.forEach((cr: CompiledRule, i) => {
    const rp = `${vpath}[${i}]`;
    const cost = Math.min(Number.MAX_VALUE, cr.maxCost * cardinality);
    if (cost > STATIC_EXPRESSION_LIMIT) ctx.errs.push(FieldError.forbidden(`${rp}.rule`, costMessage('estimated rule cost', cost, STATIC_EXPRESSION_LIMIT)));
    observe(ctx, `${rp}.rule`, cost);
    if (cr.error) ctx.errs.push(FieldError.invalid(`${rp}.rule`, goRule(cr.rule), cr.error.detail));
    if (cr.messageExpressionError) ctx.errs.push(FieldError.invalid(`${rp}.messageExpression`, goRule(cr.rule), cr.messageExpressionError));
    else if (cr.messageExpression) {
      if (cr.messageExpressionMaxCost > STATIC_EXPRESSION_LIMIT)
        ctx.errs.push(FieldError.forbidden(`${rp}.messageExpression`, costMessage('estimated messageExpression cost', cr.messageExpressionMaxCost, STATIC_EXPRESSION_LIMIT)));
      observe(ctx, `${rp}.messageExpression`, cr.messageExpressionMaxCost);
    }
    if (cr.usesOldSelf) {
      if (uncorrelatable) ctx.errs.push(FieldError.invalid(`${rp}.rule`, str(cr.rule.rule), `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`));
    } else if (typeof cr.rule.optionalOldSelf === 'boolean') {
      ctx.errs.push(FieldError.invalid(`${rp}.optionalOldSelf`, cr.rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
}

/**
 * Compiles every x-kubernetes-validations rule in a structural schema as the CRD validation does; `path` is the
 * openAPIV3Schema's path (e.g. "spec.validation.openAPIV3Schema"). Callers skip it when the schema has errors.
 */
export function compileSchemaRules(schema: JSP, path: string): FieldError[] {
  const ctx: CompileCtx = { errs: [], total: 0, expensive: [] };
  try {
    compileNode(schema, cached(compiledForWrite, schema, false), path, 1, undefined, ctx);
  } catch (e) {
    ctx.errs.push(FieldError.internal(`${path}.x-kubernetes-validations`, `internal error: ${(e as Error).message}`));
  }
  if (ctx.total > STATIC_CRD_LIMIT) {
    for (const x of ctx.expensive) ctx.errs.push(FieldError.forbidden(x.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    ctx.errs.push(FieldError.forbidden(path, costMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', ctx.total, STATIC_CRD_LIMIT)));
  }
  return ctx.errs;
}

interface Walk {
  errs: FieldError[];
  warnings: string[];
  /** the runtime budget left, once `deferred` is settled */
  budget: number;
  /**
   * The budget left if every rule cost its compile-time maximum. While that stays positive no limit can be hit,
   * so the (costlier than the rule itself) estimate over the actual data waits in `deferred` until it matters.
   * Only sound when the data is within the schema's bounds.
   */
  upper: number;
  deferred: Array<() => number>;
  withinBounds: boolean;
}

function settle(w: Walk): void {
  for (const cost of w.deferred) w.budget -= cost();
  w.deferred = [];
  w.upper = -1;
}

/** Whether errors at a node are ratcheted: its correlated old value (else its nearest correlated ancestor's) is unchanged. */
type Ratchet = () => boolean;
const memo = (f: () => boolean): Ratchet => {
  let v: boolean | undefined;
  return () => (v ??= f());
};

const at = (path: string): string => path || '<nil>';
const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);

function ruleText(r: JSP): string {
  return str(r.message) ? str(r.message).trim() : str(r.rule).trim();
}

function failure(path: string, type: string, detail: string, reason: unknown): FieldError {
  switch (reason) {
    case 'FieldValueForbidden': return FieldError.forbidden(path, detail);
    case 'FieldValueRequired': return FieldError.required(path, detail);
    case 'FieldValueDuplicate': return FieldError.duplicate(path, type);
    default: return FieldError.invalid(path, type, detail);
  }
}

/** The sizes of self and oldSelf, measured once per node and shared by its rules. */
type Sizes = () => { self: DeclType; oldSelf: DeclType };

function sizesOf(self: unknown, old: unknown, t: DeclType): Sizes {
  let v: { self: DeclType; oldSelf: DeclType } | undefined;
  return () => {
    if (v) return v;
    const m = measured(t, self);
    return (v = { self: m, oldSelf: old === undefined ? m : measured(t, old) });
  };
}

function runtimeCost(cr: CompiledRule, expr: 'rule' | 'message', sizes: Sizes): number {
  const constant = expr === 'rule' ? cr.constantCost : cr.messageExpressionConstantCost;
  if (constant !== undefined) return constant;
  const p = expr === 'rule' ? cr.program! : cr.messageExpression!;
  const { self, oldSelf } = sizes();
  return estimateCost(p.ast, { self, oldSelf: cr.optionalOldSelf ? T.optional(oldSelf) : oldSelf });
}

/** validateExpressions for one node; false when no further rules may run. */
function validateNode(n: RuleNode, path: string, value: unknown, old: unknown, ratchet: Ratchet, w: Walk): boolean {
  const type = str(n.schema.type);
  if (n.initError) {
    w.errs.push(FieldError.invalid(at(path), type, `rule compiler initialization error: ${n.initError}`));
    return true;
  }
  if (!n.rules.length) return true;
  if (w.budget <= 0) {
    w.errs.push(FieldError.invalid(at(path), type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
    return false;
  }
  const t = n.type!;
  const self = toCel(value, t);
  const oldSelf = old === undefined ? undefined : toCel(old, t);
  const plain: Record<string, unknown> = oldSelf === undefined ? { self } : { self, oldSelf };
  const optional = { self, oldSelf: oldSelf === undefined ? Optional.none() : Optional.of(oldSelf) };
  const sizes = sizesOf(value, old, t);
  for (const cr of n.rules) {
    const rule = cr.rule;
    if (cr.error) {
      w.errs.push(FieldError.invalid(at(path), type, `rule compile error: ${cr.error.detail}`));
      continue;
    }
    if (!cr.program) continue;
    if (cr.usesOldSelf && old === undefined && !cr.optionalOldSelf) continue;
    if (w.withinBounds && w.upper >= cr.maxCost && cr.maxCost <= PER_CALL_LIMIT) {
      w.upper -= cr.maxCost;
      w.deferred.push(() => runtimeCost(cr, 'rule', sizes));
    } else {
    settle(w);
    const cost = runtimeCost(cr, 'rule', sizes);
    if (cost > PER_CALL_LIMIT) {
      w.errs.push(FieldError.invalid(at(path), type, `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`));
      return false;
    }
    if (cost > w.budget) {
      w.errs.push(FieldError.invalid(at(path), type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
      return false;
    }
    w.budget -= cost;
    }
    const res = cr.program.eval(cr.optionalOldSelf ? optional : plain);
    if ('error' in res) {
      w.errs.push(FieldError.invalid(at(path), type, res.error.startsWith('no such overload')
        ? `'${res.error}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText(rule)}`
        : `${res.error} evaluating rule: ${ruleText(rule)}`));
      continue;
    }
    if (res.value === true) continue;
    const fpath = cr.fieldPath ? child(path, cr.fieldPath) : path;
    const add = (e: FieldError) => {
      if (!cr.usesOldSelf && ratchet()) w.warnings.push(e.toString());
      else w.errs.push(e);
    };
    const fallback = str(rule.message) ? str(rule.message).trim() : `failed rule: ${ruleText(rule)}`;
    if (!cr.messageExpression) {
      add(failure(at(fpath), type, fallback, rule.reason));
      continue;
    }
    settle(w);
    const mcost = runtimeCost(cr, 'message', sizes);
    if (mcost > w.budget) {
      add(FieldError.invalid(at(fpath), type, 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'));
      return false;
    }
    if (mcost > PER_CALL_LIMIT) {
      add(FieldError.invalid(at(fpath), type, `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(str(rule.messageExpression))}`));
      return false;
    }
    w.budget -= mcost;
    const m = cr.messageExpression.eval(plain);
    const msg = 'value' in m && typeof m.value === 'string' ? m.value.trim() : undefined;
    const okMsg = msg !== undefined && msg.length > 0 && Buffer.byteLength(msg) <= MAX_MESSAGE_BYTES && !msg.includes('\n');
    add(failure(at(fpath), type, okMsg ? msg : fallback, rule.reason));
  }
  return true;
}

/** The old item a map-list item correlates with (same values for every list-map key). */
function correlatedItem(s: JSP, item: unknown, oldList: unknown): unknown {
  if (s['x-kubernetes-list-type'] !== 'map' || !Array.isArray(oldList) || !isObj(item)) return undefined;
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [];
  return oldList.find((o) => isObj(o) && keys.every((k) => deepEqual(o[k], item[k])));
}

function walk(n: RuleNode, path: string, value: unknown, old: unknown, correlated: boolean, nearest: Ratchet, w: Walk): boolean {
  if (value === null || value === undefined) return true;
  const ratchet: Ratchet = correlated ? memo(() => deepEqual(value, old)) : nearest;
  if (!validateNode(n, path, value, old, ratchet, w)) return false;
  const forChildren = correlated ? ratchet : nearest;
  if (Array.isArray(value)) {
    if (!n.items) return true;
    for (let i = 0; i < value.length; i++) {
      const o = correlated || old !== undefined ? correlatedItem(n.schema, value[i], old) : undefined;
      if (!walk(n.items, `${at(path)}[${i}]`, value[i], o, o !== undefined && correlated, forChildren, w)) return false;
    }
  } else if (isObj(value)) {
    const oldObj = isObj(old) ? old : undefined;
    for (const [k, v] of Object.entries(value)) {
      if (!n.additionalProperties) break;
      const o = oldObj?.[k];
      if (!walk(n.additionalProperties, `${at(path)}[${k}]`, v, o, correlated && o !== undefined, forChildren, w)) return false;
    }
    for (const [k, v] of Object.entries(value)) {
      const p = n.properties.get(k);
      if (!p) continue;
      const o = oldObj?.[k];
      const rootTypeField = path === '' && (k === 'apiVersion' || k === 'kind');
      if (!walk(p, child(path, k), v, o, correlated && o !== undefined && !rootTypeField, rootTypeField ? () => false : forChildren, w)) return false;
    }
  }
  return true;
}

/** validateRules with the ratcheting warnings Kubernetes returns for failures of unchanged values. */
export function validateRulesWithWarnings(obj: unknown, old: unknown | undefined, schema: JSP, opts: RuleOptions = {}): { errors: FieldError[]; warnings: string[] } {
  const w: Walk = { errs: [], warnings: [], budget: RUNTIME_BUDGET, upper: RUNTIME_BUDGET, deferred: [], withinBounds: opts.withinBounds === true };
  const root = cached(compiledForRead, schema, true);
  if (!root) return { errors: [], warnings: [] };
  try {
    walk(root, '', obj, old, old !== undefined, () => false, w);
  } catch (e) {
    w.errs.push(FieldError.internal('<nil>', `CEL validation failed: ${(e as Error).message}`));
  }
  return { errors: w.errs, warnings: w.warnings };
}

/**
 * Evaluates the rules against a custom object (and its old version on update), returning the field errors
 * kube-apiserver reports; failures on values equal to their old value are ratcheted away.
 */
export function validateRules(obj: unknown, old: unknown | undefined, schema: JSP, opts: RuleOptions = {}): FieldError[] {
  return validateRulesWithWarnings(obj, old, schema, opts).errors;
}

export interface RuleOptions {
  /** the object passed the schema's validation: no string, list or map is larger than its schema allows */
  withinBounds?: boolean;
}
