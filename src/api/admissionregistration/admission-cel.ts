// The CEL environments of admission expressions (k8s.io/apiserver/pkg/admission/plugin/cel): `object` and
// `oldObject` (dyn), `request` (kubernetes.AdmissionRequest), `namespaceObject` (kubernetes.Namespace), `authorizer`
// with `authorizer.requestResource`, and for policies `params` and `variables`. Used to check expressions when
// configurations are written and to compile the programs admission runs.
import {
  AUTHORIZER_TYPE, CelEnv, T, objectType, registerAuthz, toCel, type DeclType, type Program,
} from '../../machinery/cel/index.js';

export interface AdmissionCelOptions {
  /** `params` is declared (a policy with paramKind) */
  params?: boolean;
  /** `authorizer` is declared (not in messageExpression) */
  authorizer?: boolean;
  /** the names of the policy's variables, declared as `variables.<name>` (dyn) */
  variables?: string[];
  /** stored expressions may use libraries newer expressions may not (the semver library in 1.33) */
  stored?: boolean;
}

const obj = (name: string, fields: Array<[string, DeclType]>): DeclType =>
  objectType(name, new Map(fields), new Map(fields.map(([k]) => [k, k])));

const gvk = () => obj('kubernetes.GroupVersionKind', [['group', T.string()], ['version', T.string()], ['kind', T.string()]]);
const gvr = () => obj('kubernetes.GroupVersionResource', [['group', T.string()], ['version', T.string()], ['resource', T.string()]]);

export const REQUEST_TYPE: DeclType = (() => {
  const k = gvk();
  const r = gvr();
  const user = obj('kubernetes.UserInfo', [['username', T.string()], ['uid', T.string()], ['groups', T.list(T.string())], ['extra', T.map(T.list(T.string()))]]);
  return obj('kubernetes.AdmissionRequest', [
    ['kind', k], ['resource', r], ['subResource', T.string()], ['requestKind', k], ['requestResource', r],
    ['requestSubResource', T.string()], ['name', T.string()], ['namespace', T.string()], ['operation', T.string()],
    ['userInfo', user], ['dryRun', T.bool()], ['options', T.dyn()],
  ]);
})();

export const NAMESPACE_TYPE: DeclType = (() => {
  const strings = T.list(T.string());
  const condition = obj('kubernetes.NamespaceCondition', [['status', T.string()], ['type', T.string()], ['lastTransitionTime', T.timestamp()], ['message', T.string()], ['reason', T.string()]]);
  const metadata = obj('kubernetes.NamespaceMetadata', [
    ['name', T.string()], ['generateName', T.string()], ['namespace', T.string()], ['labels', T.map(T.string())],
    ['annotations', T.map(T.string())], ['UID', T.string()], ['creationTimestamp', T.timestamp()],
    ['deletionGracePeriodSeconds', T.int()], ['deletionTimestamp', T.timestamp()], ['generation', T.int()],
    ['resourceVersion', T.string()], ['finalizers', strings],
  ]);
  const t = obj('kubernetes.Namespace', [
    ['metadata', metadata],
    ['spec', obj('kubernetes.NamespaceSpec', [['finalizers', strings]])],
    ['status', obj('kubernetes.NamespaceStatus', [['conditions', T.list(condition)], ['phase', T.string()]])],
  ]);
  // the JSON name of metadata.UID is uid
  metadata.jsonNames!.set('UID', 'uid');
  return t;
})();

// the authorizer's types belong to its library (no class here: CelEnv registers them with the library)
const RESOURCE_CHECK: DeclType = { kind: 'object', name: 'kubernetes.authorization.ResourceCheck', fields: new Map(), jsonNames: new Map(), maxElements: 1, minSerializedSize: 2 };
const AUTHORIZER: DeclType = { kind: 'object', name: AUTHORIZER_TYPE, fields: new Map([['requestResource', RESOURCE_CHECK]]), jsonNames: new Map(), maxElements: 1, minSerializedSize: 2 };

const envs = new Map<string, { env: CelEnv; variables?: DeclType }>();

/** The environment, and the object type of `variables` when the policy has some (its values are built lazily). */
export function admissionEnvWith(opts: AdmissionCelOptions = {}): { env: CelEnv; variables?: DeclType } {
  const key = JSON.stringify([!!opts.params, opts.authorizer !== false, opts.variables ?? [], !!opts.stored]);
  const known = envs.get(key);
  if (known) return known;
  const vars: Record<string, DeclType> = { object: T.dyn(), oldObject: T.dyn(), request: REQUEST_TYPE, namespaceObject: NAMESPACE_TYPE };
  if (opts.params) vars.params = T.dyn();
  if (opts.authorizer !== false) vars.authorizer = AUTHORIZER;
  if (opts.variables) vars.variables = obj(`kubernetes.variables.${envs.size}`, opts.variables.map((n) => [n, T.dyn()]));
  let base = CelEnv.base({ semver: opts.stored });
  if (opts.authorizer !== false) base = base.withLibrary(registerAuthz);
  const out = { env: base.withVariables(vars), variables: vars.variables };
  if (envs.size > 1000) envs.clear();
  envs.set(key, out);
  return out;
}

/**
 * An environment for type checking (not cached): `object`/`oldObject` and `params` typed by the kinds' schemas
 * instead of dyn, and `variables.<name>` by the types the variables compiled to.
 */
export function typedAdmissionEnv(opts: AdmissionCelOptions, types: { object?: DeclType; params?: DeclType; variables?: Array<[string, DeclType]> }): CelEnv {
  const vars: Record<string, DeclType> = {
    object: types.object ?? T.dyn(), oldObject: types.object ?? T.dyn(), request: REQUEST_TYPE, namespaceObject: NAMESPACE_TYPE,
  };
  if (opts.params) vars.params = types.params ?? T.dyn();
  if (opts.authorizer !== false) vars.authorizer = AUTHORIZER;
  if (types.variables?.length) vars.variables = obj(`kubernetes.variables.typed${++typedCount}`, types.variables);
  let base = CelEnv.base({ semver: true });
  if (opts.authorizer !== false) base = base.withLibrary(registerAuthz);
  return base.withVariables(vars);
}
let typedCount = 0;

export function admissionEnv(opts: AdmissionCelOptions = {}): CelEnv {
  return admissionEnvWith(opts).env;
}

/** A `variables` value whose fields are computed on first use, once (kube's lazy composition). */
export function lazyVariables(t: DeclType, compute: (name: string) => unknown): object {
  const o = new t.ctor!();
  for (const name of t.fields!.keys()) {
    let done = false;
    let value: unknown;
    Object.defineProperty(o, name, {
      enumerable: true,
      get: () => {
        if (!done) {
          value = compute(name);
          done = true;
        }
        return value;
      },
    });
  }
  return o;
}

export type CompiledExpression = { program: Program; error?: undefined } | { program?: undefined; error: string };

/**
 * Compiles an expression that must evaluate to one of `returns` (kube's CompileCELExpression): errors read
 * `compilation failed: ERROR: <input>:…` or `must evaluate to bool but got string`.
 */
export function compileAdmissionExpression(source: string, returns: string[], opts: AdmissionCelOptions = {}, anyType = false): CompiledExpression {
  const r = admissionEnv(opts).compile(source);
  if (r.error !== undefined) return { error: `compilation failed: ${r.error}` };
  if (anyType) return { program: r.program };
  const out = r.program.outputType;
  const got = out === 'null' ? 'null_type' : out;
  if (out !== 'dyn' && !returns.includes(got)) {
    return { error: returns.length === 1 ? `must evaluate to ${returns[0]} but got ${got}` : `must evaluate to one of [${returns.join(' ')}] but got ${got}` };
  }
  return { program: r.program };
}

/** The AdmissionRequest as the `request` variable sees it (object and oldObject are variables of their own). */
export function requestValue(request: Record<string, unknown>): unknown {
  return toCel(request, REQUEST_TYPE);
}

export function namespaceValue(ns: unknown): unknown {
  return ns ? toCel(ns, NAMESPACE_TYPE) : null;
}
