// kubectl-style JSONPath templates (k8s.io/client-go/util/jsonpath) over JSON data, as CRD printer columns use
// them: fields (`.a.b`, escaped dots `a\.b`), `['x']`, indexes and slices (`[0]`, `[-1]`, `[1:3:2]`, `[*]`),
// unions (`[0,1]`), `..` recursive descent, `*`, filters (`[?(@.type=="Ready")]`, `[?(@.x)]`), literals and text
// outside `{}`. `range`/`end` blocks are not supported (they fail to evaluate). Map order is insertion order where
// Go's is random. Parse and evaluation errors are thrown as JSONPathError.
import { compareGoStrings } from '../../../machinery/validation.js';

export class JSONPathError extends Error {
  constructor(message: string, readonly partial: unknown[] = []) {
    super(message);
  }
}

interface Param { value: number; known: boolean; derived: boolean }
type ListNode = { t: 'list'; nodes: Node[] };
type Node = ListNode | { t: 'text'; v: string } | { t: 'field' | 'ident'; name: string } | { t: 'array'; params: [Param, Param, Param] }
  | { t: 'filter'; left: ListNode; right: ListNode; op: string } | { t: 'int' | 'float'; v: number } | { t: 'bool'; v: boolean }
  | { t: 'wildcard' | 'recursive' } | { t: 'union'; nodes: ListNode[] };

/** A parsed template: one list per `{...}` plus the text between them. */
export interface Template { readonly nodes: readonly Node[] }

/** A float literal of the template (Go keeps float64 apart from int in comparisons). */
class GoFloat { constructor(readonly value: number) {} }

const EOF = '';
const list = (): ListNode => ({ t: 'list', nodes: [] });
const isSpace = (r: string) => r === ' ' || r === '\t';
const isEOL = (r: string) => r === '\r' || r === '\n';
const isAlphaNumeric = (r: string) => r !== EOF && /^[\p{L}\p{Nd}_]$/u.test(r);
const isTerminator = (r: string) => r === EOF || isSpace(r) || isEOL(r) || '.,[]$@{}'.includes(r);
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

class Parser {
  readonly root = list();
  private pos = 0;
  private start = 0;
  private width = 0;
  constructor(private readonly input: string) {
    this.parseText(this.root);
  }
  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = r.length;
    this.pos += r.length;
    return r;
  }
  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }
  private backup(): void { this.pos -= this.width; }
  private consume(): string {
    const v = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return v;
  }
  private parseText(cur: ListNode): void {
    for (;;) {
      if (this.input.startsWith('{', this.pos)) {
        if (this.pos > this.start) cur.nodes.push({ t: 'text', v: this.consume() });
        this.pos += 1;
        this.consume();
        const n = list();
        cur.nodes.push(n);
        return this.parseInsideAction(n);
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) cur.nodes.push({ t: 'text', v: this.consume() });
  }
  private parseInsideAction(cur: ListNode): void {
    for (;;) {
      const rest = this.input.slice(this.pos);
      if (rest.startsWith('}')) {
        this.pos += 1;
        this.consume();
        return this.parseText(this.root);
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        if (cur.nodes[cur.nodes.length - 1]?.t === 'recursive') throw new JSONPathError('invalid multiple recursive descent');
        this.pos += 2;
        this.consume();
        cur.nodes.push({ t: 'recursive' });
        if (isAlphaNumeric(this.peek())) this.parseField(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || isEOL(r)) throw new JSONPathError('unclosed action');
      if (r === ' ' || r === '@' || r === '$') this.consume();
      else if (r === '[') this.parseArray(cur);
      else if (r === '"' || r === "'") this.parseQuote(cur, r);
      else if (r === '.') this.parseField(cur);
      else if (r === '+' || r === '-' || /^\p{Nd}$/u.test(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        while (!isTerminator(this.next()));
        this.backup();
        const v = this.consume();
        cur.nodes.push(v === 'true' || v === 'false' ? { t: 'bool', v: v === 'true' } : { t: 'ident', name: v });
      } else throw new JSONPathError(`unrecognized character in action: ${JSON.stringify(r)}`);
    }
  }
  private parseField(cur: ListNode): void {
    this.consume();
    for (;;) {
      const r = this.next();
      if (r === '\\') this.next();
      else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const v = this.consume();
    cur.nodes.push(v === '*' ? { t: 'wildcard' } : { t: 'field', name: v.replaceAll('\\', '') });
  }
  private parseNumber(cur: ListNode): void {
    const r = this.peek();
    if (r === '+' || r === '-') this.next();
    for (;;) {
      const c = this.next();
      if (c !== '.' && !/^\p{Nd}$/u.test(c)) {
        this.backup();
        break;
      }
    }
    const v = this.consume();
    if (/^[+-]?\d+$/.test(v)) cur.nodes.push({ t: 'int', v: Number(v) });
    else if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(v)) cur.nodes.push({ t: 'float', v: Number(v) });
    else throw new JSONPathError(`cannot parse number ${v}`);
  }
  private parseArray(cur: ListNode): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathError('unterminated array');
      if (r === ']') break;
    }
    let text = this.consume().slice(1, -1);
    if (text === '*') text = ':';
    const parts = text.split(',');
    if (parts.length > 1) {
      cur.nodes.push({ t: 'union', nodes: parts.map((p) => parseAction(`[${p.trim()}]`)) });
      return;
    }
    const key = DICT_KEY.exec(text);
    // as in client-go, the key is parsed as a field path: ['a.b'] means .a.b
    if (key) return void cur.nodes.push(...parseAction(`.${key[1]}`).nodes);
    const m = SLICE.exec(text);
    if (!m) throw new JSONPathError(`invalid array index ${text}`);
    const params: [Param, Param, Param] = [0, 1, 2].map(() => ({ value: 0, known: false, derived: false })) as [Param, Param, Param];
    for (let i = 0; i < 3; i++) {
      let v = m[i + 1] ?? '';
      if (v !== '') {
        if (i > 0) v = v.slice(1);
        if (i > 0 && v === '') continue;
        if (!/^-?\d+$/.test(v)) throw new JSONPathError(`array index ${v} is not a number`);
        params[i] = { value: Number(v), known: true, derived: false };
      } else if (i === 1) params[1] = { value: params[0].value + 1, known: true, derived: true };
    }
    cur.nodes.push({ t: 'array', params });
  }
  private parseFilter(cur: ListNode): void {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathError('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === ')' && begin === end) break;
    }
    if (this.next() !== ']') throw new JSONPathError('unclosed array expect ]');
    const text = this.consume().slice(0, -2);
    const m = FILTER.exec(text);
    if (!m) cur.nodes.push({ t: 'filter', left: parseAction(text), right: list(), op: 'exists' });
    else cur.nodes.push({ t: 'filter', left: parseAction(m[1]), right: parseAction(m[3]), op: m[2] });
  }
  private parseQuote(cur: ListNode, quote: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathError('unterminated quoted string');
      if (r === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const v = this.consume();
    cur.nodes.push({ t: 'text', v: unquote(v) });
  }
}

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** UnquoteExtend: strconv.Unquote for "..." and '...' strings. */
function unquote(s: string): string {
  const q = s[0];
  const body = s.slice(1, -1);
  if (s.length < 2 || s[s.length - 1] !== q) throw new JSONPathError(`unquote string ${s} error invalid syntax`);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === q) throw new JSONPathError(`unquote string ${s} error invalid syntax`);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const hex = (n: number) => {
      const h = body.slice(i + 1, i + 1 + n);
      if (!new RegExp(`^[0-9a-fA-F]{${n}}$`).test(h)) throw new JSONPathError(`unquote string ${s} error invalid syntax`);
      i += n;
      return parseInt(h, 16);
    };
    if (e in ESCAPES) out += ESCAPES[e];
    else if (e === q) out += q;
    else if (e === 'x') out += String.fromCharCode(hex(2));
    else if (e === 'u') out += String.fromCodePoint(hex(4));
    else if (e === 'U') out += String.fromCodePoint(hex(8));
    else if (e >= '0' && e <= '7' && /^[0-7]{3}$/.test(body.slice(i, i + 3))) {
      out += String.fromCharCode(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else throw new JSONPathError(`unquote string ${s} error invalid syntax`);
  }
  return out;
}

function parseAction(text: string): ListNode {
  return new Parser(`{${text}}`).root.nodes[0] as ListNode;
}

/** Parses a template such as `{.status.replicas}`; throws JSONPathError on a syntax error. */
export function parseJSONPath(text: string): Template {
  return { nodes: new Parser(text).root.nodes };
}

// ---- evaluation ----

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoFloat);
const isNil = (v: unknown) => v === null || v === undefined;

function children(v: unknown): unknown[] {
  if (isMap(v)) return Object.values(v);
  if (Array.isArray(v)) return v;
  // a Go string ranges over its bytes
  if (typeof v === 'string') return [...Buffer.from(v, 'utf8')];
  return [];
}

function walk(input: unknown[], node: Node, allowMissing: boolean): unknown[] {
  switch (node.t) {
    case 'list': {
      let cur = input;
      for (const n of node.nodes) {
        try {
          cur = walk(cur, n, allowMissing);
        } catch (e) {
          throw e instanceof JSONPathError ? e : new JSONPathError(String(e), cur);
        }
      }
      return cur;
    }
    case 'text': return [node.v];
    case 'int': case 'bool': return input.map(() => node.v);
    case 'float': return input.map(() => new GoFloat(node.v));
    case 'field': {
      const out: unknown[] = [];
      for (const v of input) if (isMap(v) && Object.prototype.hasOwnProperty.call(v, node.name)) out.push(v[node.name]);
      if (!out.length && input.length && !allowMissing) throw new JSONPathError(`${node.name} is not found`);
      return out;
    }
    case 'array': return evalArray(input, node.params);
    case 'filter': return evalFilter(input, node, allowMissing);
    case 'wildcard': return input.flatMap((v) => (isNil(v) ? [] : children(v)));
    case 'recursive': return recursive(input);
    case 'union': return node.nodes.flatMap((n) => walk(input, n, allowMissing));
    case 'ident': throw new JSONPathError(node.name === 'range' || node.name === 'end' ? `${node.name} is not supported here` : `unrecognized identifier ${node.name}`, input);
  }
}

function evalArray(input: unknown[], p: readonly Param[]): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    if (isNil(v)) continue;
    if (!Array.isArray(v)) throw new JSONPathError(`${goTypeName(v)} is not array or slice`, input);
    const len = v.length;
    let start = p[0].known ? p[0].value : 0;
    if (start < 0) start += len;
    let end = p[1].known ? p[1].value : len;
    if (end < 0 || (end === 0 && p[1].derived)) end += len;
    if (end === start) return out; // client-go stops here, skipping the remaining inputs
    if (start >= len || start < 0) throw new JSONPathError(`array index out of bounds: index ${start}, length ${len}`, input);
    if (end > len || end < 0) throw new JSONPathError(`array index out of bounds: index ${end - 1}, length ${len}`, input);
    if (start > end) throw new JSONPathError(`starting index ${start} is greater than ending index ${end}`, input);
    if (p[2].known && p[2].value <= 0) throw new JSONPathError('step must be > 0', input);
    const step = p[2].known ? p[2].value : 1;
    for (let i = start; i < end; i += step) out.push(v[i]);
  }
  return out;
}

function recursive(input: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    if (isNil(v)) continue;
    const kids = children(v);
    if (!kids.length) continue;
    out.push(v, ...recursive(kids));
  }
  return out;
}

function evalFilter(input: unknown[], node: Extract<Node, { t: 'filter' }>, allowMissing: boolean): unknown[] {
  const out: unknown[] = [];
  for (const v of input) {
    if (!Array.isArray(v)) throw new JSONPathError(`${goTypeName(v)} is not array or slice and cannot be filtered`, input);
    for (const item of v) {
      let lefts: unknown[];
      try {
        lefts = walk([item], node.left, allowMissing);
      } catch (e) {
        if (node.op !== 'exists') throw e;
        lefts = e instanceof JSONPathError ? e.partial : [];
      }
      if (node.op === 'exists') {
        if (lefts.length) out.push(item);
        continue;
      }
      if (!lefts.length) continue;
      if (lefts.length > 1) throw new JSONPathError('can only compare one element at a time', input);
      const rights = walk([item], node.right, allowMissing);
      if (!rights.length) continue;
      if (rights.length > 1) throw new JSONPathError('can only compare one element at a time', input);
      if (compare(lefts[0], rights[0], node.op, out)) out.push(item);
    }
  }
  return out;
}

function kindOf(v: unknown, partial: unknown[]): 'bool' | 'int' | 'float' | 'string' {
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof GoFloat) return 'float';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'string';
  throw new JSONPathError('invalid type for comparison', partial);
}

const num = (v: unknown): number => (v instanceof GoFloat ? v.value : (v as number));

/** The comparisons of client-go's forked text/template: same basic kinds only, no ordering of booleans. */
function compare(a: unknown, b: unknown, op: string, partial: unknown[]): boolean {
  const ka = kindOf(a, partial);
  if (ka !== kindOf(b, partial)) throw new JSONPathError('incompatible types for comparison', partial);
  const eq = () => (ka === 'int' || ka === 'float' ? num(a) === num(b) : a === b);
  const less = () => {
    if (ka === 'bool') throw new JSONPathError('invalid type for comparison', partial);
    return ka === 'string' ? compareGoStrings(a as string, b as string) < 0 : num(a) < num(b);
  };
  const ops: Record<string, () => boolean> = {
    '==': eq,
    '!=': () => !eq(),
    '<': less,
    '<=': () => less() || eq(),
    '>': () => !(less() || eq()),
    '>=': () => !less(),
  };
  if (!ops[op]) throw new JSONPathError(`unrecognized filter operator ${op}`, partial);
  return ops[op]();
}

const goTypeName = (v: unknown): string =>
  isMap(v) ? 'map[string]interface {}' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'int64' : 'float64';

const unwrap = (v: unknown): unknown => (v instanceof GoFloat ? v.value : v);

/**
 * FindResults: the values of each top-level node against `data`. `allowMissingKeys` (what printer columns use):
 * a missing field gives no value instead of an error.
 */
export function findResults(t: Template, data: unknown, allowMissingKeys = true): unknown[][] {
  return t.nodes.map((n) => walk([data], n, allowMissingKeys).map(unwrap));
}
