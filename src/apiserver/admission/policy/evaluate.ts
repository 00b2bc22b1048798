// One policy evaluated for one binding and one param (validating/validator.go): match conditions, then validations
// (with their messages), then audit annotations. Errors become decisions by the policy's failurePolicy.
import { lazyVariables } from '../../../api/admissionregistration/admission-cel.js';
import { dynToCel } from '../../../machinery/cel/index.js';
import type { CompiledPolicy, Compiled } from './compiled.js';

export interface Decision {
  action: 'admit' | 'deny';
  message: string;
  /** the status reason of a denial ('' for evaluation errors: kube answers Invalid) */
  reason: string;
}

export interface EvaluateResult {
  decisions: Decision[];
  /** published audit annotations, key → value */
  audit: Array<{ key: string; value: string }>;
}

/** kube's MaxEvaluatedMessageExpressionSizeBytes */
const MAX_MESSAGE = 5 * 1024;

function run(c: Compiled, act: Record<string, unknown>): { value: unknown } | { error: string } {
  if (!c.program) return { error: c.error ?? 'not compiled' };
  const r = c.program.eval(act);
  if ('error' in r) return { error: `expression '${c.source}' resulted in error: ${r.error}` };
  return r;
}

export function evaluatePolicy(p: CompiledPolicy, base: Record<string, unknown>, param: unknown): EvaluateResult {
  const fail = (p.policy.spec?.failurePolicy ?? 'Fail') !== 'Ignore';
  const onError = (message: string): EvaluateResult => ({ decisions: fail ? [{ action: 'deny', message, reason: '' }] : [], audit: [] });
  const act: Record<string, unknown> = { ...base, params: param === undefined || param === null ? null : dynToCel(param) };
  if (p.variablesType) {
    const byName = new Map(p.variables.map((v) => [v.name, v]));
    act.variables = lazyVariables(p.variablesType, (name) => {
      const v = byName.get(name)!;
      if (!v.program) throw new Error(`composited variable "${name}" fails to compile: ${v.error}`);
      const r = v.program.eval(act);
      if ('error' in r) throw new Error(r.error);
      return r.value;
    });
  }
  // match conditions: any false → nothing to validate; errors (without a false) → the failure policy
  const errs: string[] = [];
  for (const mc of p.matchConditions) {
    const r = run(mc, act);
    if ('error' in r) errs.push(r.error);
    else if (r.value === false) return { decisions: [], audit: [] };
  }
  if (errs.length) return onError(errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);

  const decisions: Decision[] = [];
  for (const v of p.validations) {
    const r = run(v, act);
    if ('error' in r) {
      if (fail) decisions.push({ action: 'deny', message: r.error, reason: '' });
      continue;
    }
    if (r.value === true) continue;
    let message = '';
    if (v.messageExpression?.program) {
      const m = v.messageExpression.program.eval(act);
      if (!('error' in m) && typeof m.value === 'string') {
        message = m.value.trim();
        if (Buffer.byteLength(message) > MAX_MESSAGE || message.includes('\n')) message = '';
      }
    }
    if (!message && v.message) message = v.message.trim();
    if (!message) message = `failed expression: ${v.source.trim()}`;
    decisions.push({ action: 'deny', message, reason: v.reason || 'Invalid' });
  }

  const audit: Array<{ key: string; value: string }> = [];
  for (const a of p.auditAnnotations) {
    const r = run(a, act);
    if ('error' in r) {
      if (fail) decisions.push({ action: 'deny', message: r.error, reason: '' });
      continue;
    }
    if (typeof r.value === 'string') {
      const value = r.value.trim();
      if (value) audit.push({ key: a.key, value: value.slice(0, 10 * 1024) });
    } else if (r.value !== null && fail) {
      decisions.push({ action: 'deny', message: `valueExpression '${a.source}' resulted in unsupported return type: ${typeof r.value}. Return type must be either string or null.`, reason: '' });
    }
  }
  return { decisions, audit };
}
