// An approximation of cel-go's cost model (checker/cost.go with Kubernetes' library costs): identifiers and field
// selections cost 1, literals 0, calls 1 plus a string-traversal factor of 0.1 per character (regexes 0.25 per
// pattern character per string step), comprehensions the range size times the loop body. Sizes come from the
// declared types (maxLength, maxItems, maxProperties, else what fits in a 3 MiB request) for the static estimate,
// and from the actual value for the per-call runtime bound: k1s bounds an evaluation before running it, where
// cel-go counts while it runs, so a runtime limit can trip on an expression that would short-circuit.
import { T, type DeclType } from './types.js';
import { children, type AstNode } from './env.js';

export const MAX_COST = 18446744073709551615;

interface Est {
  c: number;
  t?: DeclType;
}

type Scope = ReadonlyMap<string, DeclType | undefined>;

const strCost = (t: DeclType | undefined): number => Math.ceil(0.1 * (t?.maxElements ?? 0));
const size = (t: DeclType | undefined): number => t?.maxElements ?? 0;
const add = (...xs: number[]): number => Math.min(MAX_COST, xs.reduce((a, b) => a + b, 0));
const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : Math.min(MAX_COST, a * b));

const STRING_FNS = new Set(['contains', 'startsWith', 'endsWith', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'replace',
  'split', 'substring', 'trim', 'charAt', 'format', 'quote', 'url', 'isURL', 'ip', 'isIP', 'cidr', 'isCIDR', 'quantity', 'isQuantity',
  'semver', 'isSemver', 'containsIP', 'containsCIDR', 'isCanonical', 'string', 'int', 'double', 'uint', 'bytes', 'timestamp', 'duration']);
const REGEX_FNS = new Set(['matches', 'find', 'findAll']);
const LIST_FNS = new Set(['isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf', 'join']);
const QUANTIFIERS = new Set(['all', 'exists', 'exists_one', 'existsOne']);
const TRANSFORMS = new Set(['map', 'filter', 'transformList', 'transformMap', 'transformMapEntry']);

function literalType(v: unknown): DeclType | undefined {
  if (typeof v === 'string') return T.string(v.length);
  if (typeof v === 'bigint') return T.int();
  if (typeof v === 'number') return T.double();
  if (typeof v === 'boolean') return T.bool();
  if (v instanceof Uint8Array) return T.bytes(v.length);
  return undefined;
}

function rangeVars(t: DeclType | undefined, nvars: number): Array<DeclType | undefined> {
  if (!t) return [undefined, undefined];
  if (t.kind === 'list') return nvars === 2 ? [T.int(), t.elem] : [t.elem];
  if (t.kind === 'map') return [T.string(), t.elem];
  return [T.dyn(), T.dyn()];
}

function estimate(n: AstNode, scope: Scope, objects: (name: string) => DeclType | undefined): Est {
  const est = (x: AstNode, s: Scope = scope): Est => estimate(x, s, objects);
  const args = n.args as unknown[];
  switch (n.op) {
    case 'value':
      return { c: 0, t: literalType(n.args) };
    case 'id': {
      const name = String(n.args);
      if (scope.has(name)) return { c: 1, t: scope.get(name) };
      return { c: 1, t: n.checkedType ? objects(n.checkedType.name) : undefined };
    }
    case '.': case '.?': {
      const o = est(args[0] as AstNode);
      const f = String(args[1]);
      const t = o.t?.kind === 'object' ? o.t.fields?.get(f) : o.t?.kind === 'map' || o.t?.kind === 'optional' ? o.t.elem : undefined;
      return { c: add(o.c, 1), t };
    }
    case '[]': case '[?]': {
      const o = est(args[0] as AstNode);
      const i = est(args[1] as AstNode);
      return { c: add(o.c, i.c, 1), t: o.t?.elem };
    }
    case 'list': {
      const els = (args as AstNode[]).map((x) => est(x));
      return { c: add(10, ...els.map((e) => e.c)), t: T.list(els[0]?.t ?? T.dyn(), els.length) };
    }
    case 'map':
      return { c: add(30, ...children(n).map((x) => est(x).c)), t: T.map(T.dyn(), (args as unknown[]).length) };
    case 'call': case 'rcall':
      return call(n, scope, est);
    default: {
      const kids = children(n).map((x) => est(x));
      const [l, r] = kids;
      let c = add(...kids.map((k) => k.c));
      let t: DeclType | undefined;
      if (n.op in { '==': 1, '!=': 1, '<': 1, '<=': 1, '>': 1, '>=': 1 }) {
        const k = l?.t?.kind;
        c = add(c, 1, k === 'string' || k === 'bytes' ? Math.ceil(0.1 * Math.min(size(l.t), size(r?.t))) : k === 'list' || k === 'map' ? Math.min(size(l.t), size(r?.t)) : 0);
        t = T.bool();
      } else if (n.op === '+' && (l?.t?.kind === 'string' || l?.t?.kind === 'list' || l?.t?.kind === 'bytes')) {
        c = add(c, 1, Math.ceil(0.1 * (size(l.t) + size(r?.t))));
        t = { ...l.t, maxElements: size(l.t) + size(r?.t) };
      } else if (n.op === 'in') {
        c = add(c, 1, r?.t?.kind === 'list' ? size(r.t) : 1);
        t = T.bool();
      } else if (n.op !== '&&' && n.op !== '||' && n.op !== '?:') {
        c = add(c, 1);
        t = l?.t;
      } else if (n.op === '?:') t = kids[1]?.t;
      return { c, t };
    }
  }
}

function call(n: AstNode, scope: Scope, est: (x: AstNode, s?: Scope) => Est): Est {
  const args = n.args as unknown[];
  const name = String(args[0]).replace(/^__k1s_/, '');
  const fnArgs = (n.op === 'rcall' ? args[2] : args[1]) as AstNode[];
  const recv = n.op === 'rcall' ? est(args[1] as AstNode) : undefined;
  if (n.op === 'call' && name === 'has') return { c: est(fnArgs[0]).c - 1 >= 0 ? est(fnArgs[0]).c - 1 : 0, t: T.bool() };
  if (n.op === 'rcall' && name === 'bind' && (args[1] as AstNode).op === 'id' && fnArgs.length === 3) {
    const init = est(fnArgs[1]);
    const body = est(fnArgs[2], new Map([...scope, [String(fnArgs[0].args), init.t]]));
    return { c: add(init.c, body.c), t: body.t };
  }
  const nvars = QUANTIFIERS.has(name) ? fnArgs.length - 1 : name === 'map' || name === 'filter' ? 1 : TRANSFORMS.has(name) ? 2 : 0;
  if (recv && nvars > 0 && fnArgs.slice(0, nvars).every((a) => a.op === 'id')) {
    const vars = rangeVars(recv.t, nvars);
    const inner = new Map(scope);
    fnArgs.slice(0, nvars).forEach((a, i) => inner.set(String(a.args), vars[i]));
    const bodies = fnArgs.slice(nvars).map((a) => est(a, inner));
    const per = add(1, ...bodies.map((b) => b.c), TRANSFORMS.has(name) ? 1 : 0);
    const n2 = size(recv.t);
    const out = TRANSFORMS.has(name)
      ? name === 'filter' ? recv.t : T.list(bodies[bodies.length - 1]?.t ?? T.dyn(), n2)
      : T.bool();
    return { c: add(recv.c, mul(n2, per)), t: out };
  }
  const argEst = fnArgs.map((a) => est(a));
  let c = add(1, recv?.c ?? 0, ...argEst.map((a) => a.c));
  const target = recv?.t ?? argEst[0]?.t;
  let t: DeclType | undefined;
  if (REGEX_FNS.has(name)) {
    const pattern = recv ? argEst[0]?.t : argEst[1]?.t;
    c = add(c, mul(strCost(target), Math.ceil(0.25 * size(pattern))));
    t = name === 'findAll' ? T.list(T.string(size(target)), size(target)) : name === 'find' ? T.string(size(target)) : T.bool();
  } else if (LIST_FNS.has(name) && target?.kind === 'list') {
    const el = target.elem;
    c = add(c, mul(size(target), el?.kind === 'string' ? Math.max(1, strCost(el)) : 1));
    t = name === 'join' ? T.string(size(target) * size(el)) : ['min', 'max', 'sum'].includes(name) ? el : T.int();
  } else if (name === 'contains' || name === 'equivalent' || name === 'intersects') {
    const [a, b] = recv ? [recv.t, argEst[0]?.t] : [argEst[0]?.t, argEst[1]?.t];
    c = a?.kind === 'list' ? add(c, mul(size(a), Math.max(1, size(b)))) : add(c, strCost(target));
    t = T.bool();
  } else if (STRING_FNS.has(name)) {
    c = add(c, strCost(target));
    t = name === 'split' ? T.list(T.string(size(target)), size(target)) : target?.kind === 'string' ? target : undefined;
  } else if (name === 'validate') {
    c = add(c, mul(strCost(argEst[0]?.t), 8));
  }
  return { c, t };
}

/** The estimated worst-case cost of an expression over variables of the given (sized) types. */
export function estimateCost(ast: AstNode, vars: Record<string, DeclType>, objects: (name: string) => DeclType | undefined = () => undefined): number {
  try {
    return Math.ceil(estimate(ast, new Map(Object.entries(vars)), objects).c);
  } catch {
    return MAX_COST;
  }
}
