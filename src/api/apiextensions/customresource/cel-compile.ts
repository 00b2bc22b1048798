// The CEL side of a structural schema, as k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel builds it
// (Kubernetes 1.33): the schema→CEL type mapping (model.SchemaDeclType, with kind/apiVersion/metadata.name and
// metadata.generateName at resource roots), and each x-kubernetes-validations rule compiled against `self` (and
// `oldSelf`, optional when optionalOldSelf) of its node's type, with its messageExpression and static cost.
import { CelEnv, MAX_REQUEST_SIZE, T, escapeName, estimateCost, measured, objectType, type DeclType, type Program } from '../../../machinery/cel/index.js';
import { isObj, str, type JSP } from '../structural.js';

export const PER_CALL_LIMIT = 1_000_000;

export interface CompiledRule {
  rule: JSP;
  /** the rule's compile error detail, as the CRD validation reports it */
  error?: { detail: string; required?: boolean };
  program?: Program;
  usesOldSelf: boolean;
  optionalOldSelf: boolean;
  messageExpression?: Program;
  messageExpressionError?: string;
  maxCost: number;
  messageExpressionMaxCost: number;
  /** the cost when it does not depend on the data's sizes (then no per-evaluation estimate is needed) */
  constantCost?: number;
  messageExpressionConstantCost?: number;
  /** the rule's fieldPath in field.Path form, when valid */
  fieldPath?: string;
}

/** One schema node carrying rules itself or below. */
export interface RuleNode {
  schema: JSP;
  type?: DeclType;
  rules: CompiledRule[];
  /** why the node's rules could not be compiled at all */
  initError?: string;
  properties: Map<string, RuleNode>;
  additionalProperties?: RuleNode;
  items?: RuleNode;
}

const props = (s: JSP): Record<string, JSP> => (isObj(s.properties) ? (s.properties as Record<string, JSP>) : {});
const addl = (s: JSP): JSP | undefined => (isObj(s.additionalProperties) ? s.additionalProperties : undefined);
const itemsOf = (s: JSP): JSP | undefined => (isObj(s.items) ? s.items : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? Math.max(0, v) : undefined);
export const rulesOf = (s: JSP): JSP[] => (Array.isArray(s['x-kubernetes-validations']) ? (s['x-kubernetes-validations'] as unknown[]).map((r) => (isObj(r) ? r : {})) : []);

/** model.WithTypeAndObjectMeta: kind, apiVersion, metadata.name and metadata.generateName are always there. */
function withTypeAndObjectMeta(s: JSP): JSP {
  const p = props(s);
  const meta = isObj(p.metadata) ? p.metadata : undefined;
  const mp = meta ? props(meta) : {};
  const isType = (x: unknown, t: string) => isObj(x) && x.type === t;
  if (isType(p.kind, 'string') && isType(p.apiVersion, 'string') && isType(meta, 'object') && isType(mp.name, 'string') && isType(mp.generateName, 'string')) return s;
  return {
    ...s,
    properties: {
      ...p,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}

function stringType(s: JSP): DeclType {
  const maxLen = num(s.maxLength);
  switch (str(s.format)) {
    case 'byte':
      return T.bytes(maxLen ?? MAX_REQUEST_SIZE - 2);
    case 'duration':
      return T.duration();
    case 'date':
    case 'date-time':
      return { ...T.timestamp(), minSerializedSize: str(s.format) === 'date' ? 12 : 21 };
  }
  if (maxLen !== undefined) return T.string(maxLen * 4);
  const en = Array.isArray(s.enum) ? s.enum.filter((e): e is string => typeof e === 'string') : [];
  return T.string(en.length ? Math.max(0, ...en.map((e) => e.length)) : MAX_REQUEST_SIZE - 2);
}

/** model.SchemaDeclType; undefined where Kubernetes has no CEL type (and omits the field). */
export function schemaDeclType(s0: JSP, isResourceRoot: boolean, name: string): DeclType | undefined {
  if (s0['x-kubernetes-int-or-string'] === true) return { ...T.dyn(), minSerializedSize: 1 };
  const s = isResourceRoot ? withTypeAndObjectMeta(s0) : s0;
  switch (str(s.type)) {
    case 'array': {
      const it = itemsOf(s);
      if (!it) return undefined;
      const et = schemaDeclType(it, it['x-kubernetes-embedded-resource'] === true, `${name}.__idx__`);
      return et && T.list(et, num(s.maxItems));
    }
    case 'object': {
      const ap = addl(s);
      if (ap) {
        const vt = schemaDeclType(ap, ap['x-kubernetes-embedded-resource'] === true, `${name}.__elem__`);
        return vt && T.map(vt, num(s.maxProperties));
      }
      if (s.additionalProperties !== undefined && s.additionalProperties !== false && s.additionalProperties !== null && !isObj(s.additionalProperties)) return undefined;
      const fields = new Map<string, DeclType>();
      const json = new Map<string, string>();
      const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
      let minSize = 2;
      for (const [k, p] of Object.entries(props(s))) {
        if (!isObj(p)) continue;
        const esc = escapeName(k);
        const ft = schemaDeclType(p, p['x-kubernetes-embedded-resource'] === true, `${name}.${esc ?? k}`);
        if (!ft) continue;
        if (esc) {
          fields.set(esc, ft);
          json.set(esc, k);
        }
        if (required.has(k) && p.default === undefined) minSize += k.length + ft.minSerializedSize + 4;
      }
      return objectType(name, fields, json, minSize);
    }
    case 'string':
      return stringType(s);
    case 'boolean':
      return T.bool();
    case 'number':
      return T.double();
    case 'integer':
      return T.int();
  }
  return undefined;
}

let typeCounter = 0;

/** ValidFieldPath: a relative JSON path of field and ['key'] accessors, in field.Path form; undefined if invalid. */
export function validFieldPath(jsonPath: string, schema: JSP): string | undefined {
  const toks = jsonPath.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]']+/g) ?? [];
  let out = '';
  let s: JSP | undefined = schema;
  const append = (name: string): boolean => {
    if (!s) return false;
    if (isObj(s.properties)) {
      const p: unknown = (s.properties as JSP)[name];
      if (!isObj(p)) return false;
      out = out ? `${out}.${name}` : name;
      s = p;
    } else if (s.additionalProperties != null) {
      out = `${out}[${name}]`;
      s = addl(s);
    } else return false;
    return true;
  };
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t === '.') {
      const name = toks[++i];
      if (name === undefined || name === '.' || name === '[' || name === ']' || !append(name)) return undefined;
    } else if (t === '[') {
      const q = toks[++i];
      if (!q || q.length < 2 || q[0] !== "'" || q[q.length - 1] !== "'" || toks[++i] !== ']') return undefined;
      let bad = false;
      const name = q.slice(1, -1).replace(/\\(.)/g, (_m, c: string) => {
        const m: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };
        if (m[c] === undefined) bad = true;
        return m[c] ?? '';
      });
      if (bad || !append(name)) return undefined;
    } else return undefined;
  }
  return out;
}

function compileRule(rule: JSP, node: JSP, envs: { plain: CelEnv; optional: CelEnv }, selfType: DeclType): CompiledRule {
  const optionalOldSelf = rule.optionalOldSelf === true;
  const out: CompiledRule = { rule, usesOldSelf: false, optionalOldSelf, maxCost: 0, messageExpressionMaxCost: 0 };
  const text = str(rule.rule);
  if (!text.trim()) return out;
  const env = optionalOldSelf ? envs.optional : envs.plain;
  const vars = { self: selfType, oldSelf: optionalOldSelf ? T.optional(selfType) : selfType };
  const res = env.compile(text);
  if (res.error !== undefined) {
    out.error = { detail: `compilation failed: ${res.error}` };
    return out;
  }
  if (res.program.outputType !== 'bool') {
    out.error = { detail: 'cel expression must evaluate to a bool' };
    return out;
  }
  out.program = res.program;
  out.usesOldSelf = res.program.references('oldSelf');
  out.maxCost = estimateCost(res.program.ast, vars, (n) => env.objectType(n));
  const empty = { self: measured(selfType, null), oldSelf: optionalOldSelf ? T.optional(measured(selfType, null)) : measured(selfType, null) };
  if (estimateCost(res.program.ast, empty) === out.maxCost) out.constantCost = out.maxCost;
  const me = str(rule.messageExpression);
  if (me) {
    const m = env.compile(me);
    if (m.error !== undefined) out.messageExpressionError = `messageExpression compilation failed: ${m.error}`;
    else if (m.program.outputType !== 'string') out.messageExpressionError = 'messageExpression must evaluate to a string';
    else {
      out.messageExpression = m.program;
      out.messageExpressionMaxCost = estimateCost(m.program.ast, vars, (n) => env.objectType(n));
      if (estimateCost(m.program.ast, empty) === out.messageExpressionMaxCost) out.messageExpressionConstantCost = out.messageExpressionMaxCost;
    }
  }
  if (str(rule.fieldPath)) out.fieldPath = validFieldPath(str(rule.fieldPath), node);
  return out;
}

function hasRulesBelow(s: JSP): boolean {
  if (rulesOf(s).length) return true;
  const it = itemsOf(s);
  const ap = addl(s);
  return (!!it && hasRulesBelow(it)) || (!!ap && hasRulesBelow(ap)) || Object.values(props(s)).some((p) => isObj(p) && hasRulesBelow(p));
}

/** The rule tree of a schema node (undefined where no rules are at or below it). */
export function buildRuleNode(s: JSP, type: DeclType | undefined, opts: { semver: boolean }): RuleNode | undefined {
  if (!hasRulesBelow(s)) return undefined;
  const node: RuleNode = { schema: s, type, rules: [], properties: new Map() };
  const rules = rulesOf(s);
  if (rules.length) {
    if (!type) node.initError = 'failed to convert to declType for CEL validation rules';
    else {
      try {
        const base = CelEnv.base({ semver: opts.semver });
        const envs = {
          plain: base.withVariables({ self: type, oldSelf: type }),
          optional: base.withVariables({ self: type, oldSelf: T.optional(type) }),
        };
        node.rules = rules.map((r) => compileRule(r, s, envs, type));
      } catch (e) {
        node.initError = (e as Error).message;
      }
    }
  }
  const own = (c: JSP) => schemaDeclType(c, c['x-kubernetes-embedded-resource'] === true, `selfType${++typeCounter}`);
  const it = itemsOf(s);
  if (it) node.items = buildRuleNode(it, type?.kind === 'list' ? type.elem : own(it), opts);
  const ap = addl(s);
  if (ap) node.additionalProperties = buildRuleNode(ap, type?.kind === 'map' ? type.elem : own(ap), opts);
  for (const [k, p] of Object.entries(props(s))) {
    if (!isObj(p)) continue;
    const esc = escapeName(k);
    let ft: DeclType | undefined;
    if (esc && type?.kind === 'object') {
      ft = type.fields!.get(esc);
      if (!ft) continue; // fields of unknown type are left out of CEL validation
    } else ft = own(p);
    const child = buildRuleNode(p, ft, opts);
    if (child) node.properties.set(k, child);
  }
  return node;
}

/** The root's rule tree: the resource root has kind, apiVersion and metadata name/generateName. */
export function rootRuleNode(schema: JSP, opts: { semver: boolean }): RuleNode | undefined {
  if (!hasRulesBelow(schema)) return undefined;
  return buildRuleNode(schema, schemaDeclType(schema, true, `selfType${++typeCounter}`), opts);
}

export const maxCardinality = (minSize: number): number => Math.floor(MAX_REQUEST_SIZE / (minSize + 1));
