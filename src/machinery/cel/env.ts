// A CEL environment as kube-apiserver builds one (k8s.io/apiserver/pkg/cel/environment, 1.33): the standard
// library with optional types, homogeneous aggregate literals and cross-type numeric comparisons, plus the
// Kubernetes libraries (lists, strings v2, sets, regex, URLs, quantity, IP/CIDR, format, two-variable
// comprehensions; semver only for stored expressions, since 1.33 admits it in new expressions only from 1.34).
// The engine is @marcbachmann/cel-js; some of its built-ins differ from cel-go (UTF-16 string indices,
// Unicode lowerAscii, JavaScript regular expressions), so calls to those names are renamed before type checking
// to k1s replacements with cel-go semantics.
import { Environment } from '@marcbachmann/cel-js';
import { celEqual, objectTypes, parseGoDuration, parseTimestamp, typeString, type DeclType } from './types.js';
import { re2ToJs } from './lib-regex.js';
import { compileErrorText, displayError, nodePosition, runtimeErrorText } from './errors.js';
import { registerStrings } from './lib-strings.js';
import { registerLists } from './lib-lists.js';
import { registerRegex } from './lib-regex.js';
import { registerUrls } from './lib-urls.js';
import { registerQuantity } from './lib-quantity.js';
import { registerNet } from './lib-net.js';
import { registerFormat } from './lib-format.js';
import { registerSemver } from './lib-semver.js';
import { registerComprehensions } from './lib-comprehensions.js';
import { registerConversions } from './lib-conversions.js';

export interface CelEnvOptions {
  /** the semver library (kube-apiserver 1.33 accepts it only in stored expressions) */
  semver?: boolean;
}

/** What a library gets to register itself with. */
export interface LibraryRegistrar {
  /** A function or method by signature, e.g. "string.charAt(int): string". */
  fn(signature: string, handler: (...args: never[]) => unknown): void;
  /** An opaque type whose values are instances of ctor, comparable with == when eq is given. */
  type(name: string, ctor: abstract new (...args: never[]) => object, eq?: (a: never, b: never) => boolean): void;
  constant(name: string, type: string, value: unknown): void;
  /** A raw registration on the engine (macros). */
  engine: Environment;
}

/** Method and function names whose engine built-ins are replaced (calls are renamed to __k1s_<name>). */
export const REPLACED = new Set(['charAt', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'substring', 'trim', 'matches', 'split', 'join', 'replace', 'int', 'uint', 'string']);
/** Engine extensions Kubernetes does not have. */
const NOT_IN_KUBERNETES = new Set(['json', 'hex', 'base64', 'at', 'getMilliseconds']);

export interface AstNode {
  op: string;
  args: unknown;
  start: number;
  end: number;
  input: string;
  checkedType?: { name: string };
}

export const isNode = (v: unknown): v is AstNode => v !== null && typeof v === 'object' && 'op' in v && 'args' in v && 'start' in v;

/** Children of a node, macro arguments included (the engine's own expansion is not walked). */
export function children(n: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const visit = (v: unknown): void => {
    if (isNode(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach(visit);
  };
  visit(n.args);
  return out;
}

function walk(n: AstNode, f: (n: AstNode) => void): void {
  f(n);
  for (const c of children(n)) walk(c, f);
}

export interface Program {
  readonly source: string;
  readonly ast: AstNode;
  /** The checked output type in the engine's spelling ("bool", "string", ...). */
  readonly outputType: string;
  /** Whether the expression refers to the variable (not shadowed by a comprehension variable of that name). */
  references(name: string): boolean;
  /** Evaluates; engine failures come back as cel-go's error text. */
  eval(activation: Record<string, unknown>): { value: unknown } | { error: string };
}

export type CompileResult = { program: Program; error?: undefined } | { program?: undefined; error: string };

const baseEnvs = new Map<string, CelEnv>();

function registrar(engine: Environment, names: Set<string>): LibraryRegistrar {
  return {
    engine,
    fn(signature, handler) {
      engine.registerFunction(signature, handler as (...a: unknown[]) => unknown);
      const name = /^(?:[\w.<>, ]+\.)?([\w]+)\(/.exec(signature.replace(/<[^()]*>/g, ''))?.[1];
      if (name) names.add(name.replace(/^__k1s_/, ''));
    },
    type(name, ctor, eq) {
      engine.registerType(name, ctor as unknown as new () => object);
      if (eq) engine.registerOperator(`${name} == ${name}`, eq as (a: unknown, b: unknown) => boolean);
    },
    constant(name, type, value) {
      engine.registerConstant(name, type, value);
    },
  };
}

export class CelEnv {
  private constructor(
    private readonly engine: Environment,
    private readonly knownFunctions: ReadonlySet<string>,
    private readonly declared: ReadonlyMap<string, DeclType>,
  ) {}

  /** The shared environment with every library; never registered on, only cloned. */
  static base(opts: CelEnvOptions = {}): CelEnv {
    const key = opts.semver ? 'semver' : '';
    let env = baseEnvs.get(key);
    if (env) return env;
    // The engine cannot hold two independently built roots (registrations collide), so the semver
    // environment extends the plain one.
    const parent = opts.semver ? CelEnv.base({}) : undefined;
    const engine = parent ? parent.engine.clone() : new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true, unlistedVariablesAreDyn: false });
    const names = new Set<string>(parent ? parent.knownFunctions : engine.getDefinitions().functions.map((f: { name: string }) => f.name));
    for (const n of NOT_IN_KUBERNETES) names.delete(n);
    const reg = registrar(engine, names);
    if (parent) registerSemver(reg);
    else {
      registerConversions(reg);
      registerStrings(reg);
      registerLists(reg);
      registerRegex(reg);
      registerUrls(reg);
      registerQuantity(reg);
      registerNet(reg);
      registerFormat(reg);
      registerComprehensions(reg);
    }
    env = new CelEnv(engine, names, new Map());
    baseEnvs.set(key, env);
    return env;
  }

  /** A child environment declaring the variables and every object type they reach. */
  withVariables(vars: Record<string, DeclType>): CelEnv {
    const engine = this.engine.clone();
    const declared = new Map(this.declared);
    const seen = new Set<DeclType>();
    for (const t of Object.values(vars)) {
      for (const o of objectTypes(t, [], seen)) {
        // types without a class are a library's own (registered with it), e.g. the authorizer's
        if (declared.has(o.name!) || !o.ctor) continue;
        declared.set(o.name!, o);
        const fields: Record<string, string> = {};
        for (const [k, ft] of o.fields!) fields[k] = typeString(ft);
        engine.registerType(o.name!, { ctor: o.ctor!, fields });
        engine.registerOperator(`${o.name} == ${o.name}`, (a: unknown, b: unknown) => celEqual(a, b));
      }
    }
    for (const [name, t] of Object.entries(vars)) engine.registerVariable(name, typeString(t));
    return new CelEnv(engine, this.knownFunctions, declared);
  }

  /** A child environment with one more library (e.g. the authorizer library of admission expressions). */
  withLibrary(register: (reg: LibraryRegistrar) => void): CelEnv {
    const engine = this.engine.clone();
    const names = new Set(this.knownFunctions);
    register(registrar(engine, names));
    return new CelEnv(engine, names, this.declared);
  }

  /** The declared object type of that name (for walking has() chains and costs). */
  objectType(name: string): DeclType | undefined {
    return this.declared.get(name);
  }

  compile(source: string): CompileResult {
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = this.engine.parse(source);
    } catch (e) {
      return { error: compileErrorText(e, source, this.knownFunctions) };
    }
    const ast = parsed.ast as unknown as AstNode;
    const early = this.preCheck(ast, source);
    if (early) return { error: early };
    let checked: { valid: boolean; type?: string; error?: unknown };
    try {
      checked = parsed.check();
    } catch (e) {
      checked = { valid: false, error: e };
    }
    if (!checked.valid) return { error: compileErrorText(checked.error, source, this.knownFunctions) };
    const late = this.postCheck(ast, source);
    if (late) return { error: late };
    const fn = parsed as unknown as (ctx: Record<string, unknown>) => unknown;
    const outputType = checked.type ?? 'dyn';
    return {
      program: {
        source,
        ast,
        outputType,
        references: (name) => references(ast, name),
        eval(activation) {
          try {
            return { value: fn(activation) };
          } catch (e) {
            return { error: runtimeErrorText(e) };
          }
        },
      },
    };
  }

  /** Renames calls of replaced built-ins and rejects engine-only functions, before type checking. */
  private preCheck(ast: AstNode, source: string): string | undefined {
    let err: string | undefined;
    walk(ast, (n) => {
      if (err || (n.op !== 'rcall' && n.op !== 'call')) return;
      const args = n.args as unknown[];
      const name = String(args[0]);
      if (NOT_IN_KUBERNETES.has(name)) err = displayError(source, nodePosition(n, source), `undeclared reference to '${name}' (in container '')`);
      else if (REPLACED.has(name)) args[0] = `__k1s_${name}`;
    });
    return err;
  }

  /**
   * What cel-go rejects after type checking and the engine does not: has() on a field the declared object type
   * lacks, and invalid literal arguments of matches, duration and timestamp (Kubernetes' AST validators).
   */
  private postCheck(ast: AstNode, source: string): string | undefined {
    let err: string | undefined;
    walk(ast, (n) => {
      if (err || (n.op !== 'call' && n.op !== 'rcall')) return;
      const args = n.args as unknown[];
      const lit = ((n.op === 'rcall' ? args[2] : args[1]) as AstNode[])[0];
      if (lit?.op !== 'value' || typeof lit.args !== 'string') return;
      const fn = n.op === 'rcall' && args[0] === '__k1s_matches' ? 'matches' : n.op === 'call' ? String(args[0]) : '';
      const bad =
        fn === 'matches' ? re2ToJs(lit.args) instanceof Error
        : fn === 'duration' ? parseGoDuration(lit.args) === undefined
        : fn === 'timestamp' ? parseTimestamp(lit.args) === undefined
        : false;
      if (bad) err = displayError(source, lit.start, `invalid ${fn} argument`);
    });
    if (err) return err;
    walk(ast, (n) => {
      if (err || n.op !== 'call' || (n.args as unknown[])[0] !== 'has') return;
      const sel = ((n.args as unknown[])[1] as AstNode[])[0];
      const chain: AstNode[] = [];
      let cur: AstNode | undefined = sel;
      while (cur && (cur.op === '.' || cur.op === '.?')) {
        chain.unshift(cur);
        cur = (cur.args as AstNode[])[0];
      }
      let t = cur?.checkedType ? this.declared.get(cur.checkedType.name) : undefined;
      for (const s of chain) {
        if (!t) return;
        const field = String((s.args as unknown[])[1]);
        if (t.kind === 'object') {
          const ft = t.fields!.get(field);
          if (!ft) {
            err = displayError(source, nodePosition(s, source), `undefined field '${field}'`);
            return;
          }
          t = ft;
        } else if (t.kind === 'map') t = t.elem;
        else return;
      }
    });
    return err;
  }
}

const MACRO_VARS: Record<string, (argc: number) => number> = {
  all: (n) => n - 1, exists: (n) => n - 1, exists_one: (n) => n - 1, existsOne: (n) => n - 1,
  map: () => 1, filter: () => 1, transformList: () => 2, transformMap: () => 2, transformMapEntry: () => 2,
};

/** Whether an identifier is referred to outside comprehensions that rebind it. */
function references(ast: AstNode, name: string): boolean {
  const visit = (n: AstNode, bound: boolean): boolean => {
    if (n.op === 'id') return n.args === name && !bound;
    if (n.op !== 'rcall' && n.op !== 'call') return children(n).some((c) => visit(c, bound));
    const args = n.args as unknown[];
    const fn = String(args[0]);
    const fnArgs = (n.op === 'rcall' ? args[2] : args[1]) as AstNode[];
    if (n.op === 'rcall' && visit(args[1] as AstNode, bound)) return true;
    const isBind = n.op === 'rcall' && fn === 'bind' && (args[1] as AstNode).op === 'id' && (args[1] as AstNode).args === 'cel';
    const nvars = isBind ? 1 : n.op === 'rcall' && MACRO_VARS[fn] ? MACRO_VARS[fn](fnArgs.length) : 0;
    if (nvars === 0) return fnArgs.some((a) => visit(a, bound));
    const vars = fnArgs.slice(0, nvars).map((a) => String(a.args));
    const rebinds = bound || vars.includes(name);
    return fnArgs.slice(nvars).some((a, i) => visit(a, isBind && i === 0 ? bound : rebinds));
  };
  return visit(ast, false);
}
