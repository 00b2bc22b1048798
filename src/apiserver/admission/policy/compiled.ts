// A ValidatingAdmissionPolicy compiled once per generation: its match conditions, variables, validations, message
// expressions and audit annotations as programs in the admission CEL environment (params declared when the policy
// has a paramKind, `variables.<name>` for each variable). Compile errors stay with the expression they belong to:
// kube reports them when a request reaches that expression, not by refusing every request.
import { admissionEnvWith, compileAdmissionExpression } from '../../../api/admissionregistration/admission-cel.js';
import type { ValidatingAdmissionPolicy } from '../../../api/admissionregistration/policy-validation.js';
import type { DeclType, Program } from '../../../machinery/cel/index.js';

export interface Compiled {
  source: string;
  program?: Program;
  error?: string;
}

export interface CompiledValidation extends Compiled {
  message?: string;
  reason?: string;
  messageExpression?: Compiled;
}

export interface CompiledPolicy {
  name: string;
  /** uid/generation: a new generation compiles again */
  key: string;
  policy: ValidatingAdmissionPolicy;
  matchConditions: Array<Compiled & { name: string }>;
  variables: Array<Compiled & { name: string }>;
  variablesType?: DeclType;
  validations: CompiledValidation[];
  auditAnnotations: Array<Compiled & { key: string }>;
}

const keyOf = (p: ValidatingAdmissionPolicy) => `${p.metadata.uid}/${p.metadata.generation ?? 0}/${p.metadata.resourceVersion ?? ''}`;

function compileWith(source: string, returns: string[] | undefined, opts: Parameters<typeof compileAdmissionExpression>[2]): Compiled {
  const r = returns ? compileAdmissionExpression(source, returns, opts) : (() => {
    const c = admissionEnvWith(opts).env.compile(source);
    return c.error !== undefined ? { error: `compilation failed: ${c.error}` } : { program: c.program };
  })();
  return r.error !== undefined ? { source, error: r.error } : { source, program: r.program };
}

export function compilePolicy(p: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = p.spec ?? {};
  const params = !!spec.paramKind;
  const variableNames = (spec.variables ?? []).map((v) => v?.name ?? '').filter((n) => n);
  const vars = variableNames.length ? variableNames : undefined;
  const opts = { params, variables: vars, stored: true };
  return {
    name: p.metadata.name ?? '',
    key: keyOf(p),
    policy: p,
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: m.name ?? '', ...compileWith(m.expression ?? '', ['bool'], opts) })),
    variables: (spec.variables ?? []).map((v) => ({ name: v?.name ?? '', ...compileWith(v?.expression ?? '', undefined, opts) })),
    variablesType: vars ? admissionEnvWith(opts).variables : undefined,
    validations: (spec.validations ?? []).map((v) => ({
      ...compileWith(v?.expression ?? '', ['bool'], opts),
      message: v?.message,
      reason: v?.reason ?? undefined,
      messageExpression: v?.messageExpression ? compileWith(v.messageExpression, ['string'], { ...opts, authorizer: false }) : undefined,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({
      key: a?.key ?? '',
      ...compileWith(a?.valueExpression ?? '', ['string', 'null_type'], { ...opts, authorizer: false }),
    })),
  };
}

/** Compiled policies by name, compiled again when the policy changes. */
export class PolicyPrograms {
  private readonly byName = new Map<string, CompiledPolicy>();

  get(p: ValidatingAdmissionPolicy): CompiledPolicy {
    const name = p.metadata.name ?? '';
    const known = this.byName.get(name);
    if (known && known.key === keyOf(p)) return known;
    const c = compilePolicy(p);
    this.byName.set(name, c);
    return c;
  }

  /** Forgets policies no longer stored. */
  retain(names: ReadonlySet<string>): void {
    for (const n of this.byName.keys()) if (!names.has(n)) this.byName.delete(n);
  }
}
