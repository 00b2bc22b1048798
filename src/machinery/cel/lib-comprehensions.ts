// cel-go's two-variable comprehensions (ext.TwoVarComprehensions, in Kubernetes since 1.32): all, exists and
// existsOne with (index|key, value) variables, transformList, transformMap and transformMapEntry; as engine
// macros (the engine only has the one-variable forms).
import { CelRuntimeError } from './errors.js';
import { celEqual } from './types.js';
import type { LibraryRegistrar } from './env.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Any = any;

function entries(coll: unknown): Array<[unknown, unknown]> {
  if (Array.isArray(coll)) return coll.map((v, i) => [BigInt(i), v]);
  if (coll instanceof Map) return [...coll.entries()];
  if (coll && typeof coll === 'object') return Object.entries(coll);
  throw new CelRuntimeError('no such overload');
}

function varName(n: Any, what: string): string {
  if (n?.op === 'id') return n.args;
  throw Object.assign(new Error(`${what} invalid iteration variable`), { name: 'ParseError' });
}

interface Macro {
  receiver: Any;
  v1: string;
  v2: string;
  filter?: Any;
  body: Any;
  ctx1?: Any;
  ctx2?: Any;
}

function typeCheckVars(chk: Any, m: Macro, ctx: Any): void {
  const rt = chk.check(m.receiver, ctx);
  let kt = chk.getType('dyn');
  let vt = kt;
  if (rt.kind === 'list') {
    kt = chk.getType('int');
    vt = rt.valueType;
  } else if (rt.kind === 'map') {
    kt = rt.keyType;
    vt = rt.valueType;
  } else if (rt.kind !== 'dyn') {
    throw chk.createError('invalid_comprehension_range', `Expression of type '${rt.name}' cannot be range of a comprehension`, m.receiver);
  }
  m.ctx1 = ctx.forkWithVariable(m.v1, kt);
  m.ctx2 = m.ctx1.forkWithVariable(m.v2, vt);
}

function checkBool(chk: Any, node: Any, ctx: Any): void {
  const t = chk.check(node, ctx);
  if (t.kind !== 'dyn' && t.name !== 'bool') throw chk.createError('no_matching_overload', `found no matching overload for 'bool(${t.name})'`, node);
}

function* iterate(ev: Any, m: Macro, ctx: Any): Generator<Any> {
  for (const [k, v] of entries(ev.run(m.receiver, ctx))) {
    const c1 = m.ctx1.reuse(ctx).setIterValue(k, ev);
    yield m.ctx2.reuse(c1).setIterValue(v, ev);
  }
}

function quantifier(kind: 'all' | 'exists' | 'existsOne') {
  return ({ args, receiver }: Any) => {
    const m: Macro = { receiver, v1: varName(args[0], kind), v2: varName(args[1], kind), body: args[2] };
    return {
      async: false,
      typeCheck(chk: Any, _macro: unknown, ctx: Any) {
        typeCheckVars(chk, m, ctx);
        checkBool(chk, m.body, m.ctx2);
        return chk.getType('bool');
      },
      evaluate(ev: Any, _macro: unknown, ctx: Any) {
        let count = 0;
        let firstErr: unknown;
        for (const c of iterate(ev, m, ctx)) {
          let r: unknown;
          try {
            r = ev.run(m.body, c);
          } catch (e) {
            if (kind === 'existsOne') throw e;
            firstErr ??= e;
            continue;
          }
          if (kind === 'all' && r === false) return false;
          if (kind === 'exists' && r === true) return true;
          if (r === true) count++;
        }
        if (firstErr) throw firstErr;
        return kind === 'all' ? true : kind === 'exists' ? false : count === 1;
      },
    };
  };
}

function transform(kind: 'list' | 'map' | 'entry', withFilter: boolean) {
  return ({ args, receiver }: Any) => {
    const m: Macro = {
      receiver,
      v1: varName(args[0], 'transform'),
      v2: varName(args[1], 'transform'),
      filter: withFilter ? args[2] : undefined,
      body: withFilter ? args[3] : args[2],
    };
    return {
      async: false,
      typeCheck(chk: Any, _macro: unknown, ctx: Any) {
        typeCheckVars(chk, m, ctx);
        if (m.filter) checkBool(chk, m.filter, m.ctx2);
        const bt = chk.check(m.body, m.ctx2);
        if (kind === 'list') return chk.registry.getListType(bt);
        if (kind === 'map') return chk.registry.getMapType(m.ctx1.iterType, bt);
        return bt.kind === 'map' ? bt : chk.getType('map');
      },
      evaluate(ev: Any, _macro: unknown, ctx: Any) {
        const list: unknown[] = [];
        const map = new Map<unknown, unknown>();
        for (const c of iterate(ev, m, ctx)) {
          if (m.filter && ev.run(m.filter, c) !== true) continue;
          const r = ev.run(m.body, c);
          if (kind === 'list') list.push(r);
          else if (kind === 'map') map.set(m.ctx1.iterValue, r);
          else {
            for (const [k, v] of entries(r)) {
              if ([...map.keys()].some((x) => celEqual(x, k))) throw new CelRuntimeError(`insert failed: key ${String(k)} already exists`);
              map.set(k, v);
            }
          }
        }
        return kind === 'list' ? list : map;
      },
    };
  };
}

export function registerComprehensions(reg: LibraryRegistrar): void {
  const e = reg.engine as Any;
  e.registerFunction('list.all(ast, ast, ast): bool', quantifier('all'));
  e.registerFunction('list.exists(ast, ast, ast): bool', quantifier('exists'));
  e.registerFunction('list.existsOne(ast, ast, ast): bool', quantifier('existsOne'));
  e.registerFunction('list.transformList(ast, ast, ast): list<dyn>', transform('list', false));
  e.registerFunction('list.transformList(ast, ast, ast, ast): list<dyn>', transform('list', true));
  e.registerFunction('list.transformMap(ast, ast, ast): map<dyn, dyn>', transform('map', false));
  e.registerFunction('list.transformMap(ast, ast, ast, ast): map<dyn, dyn>', transform('map', true));
  e.registerFunction('list.transformMapEntry(ast, ast, ast): map<dyn, dyn>', transform('entry', false));
  e.registerFunction('list.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>', transform('entry', true));
}
