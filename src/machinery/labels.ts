// Label selectors: the `labelSelector=` query grammar and metav1.LabelSelector, matching
// apimachinery pkg/labels/selector.go and pkg/apis/meta/v1/helpers.go (1.33), including their error texts.
import { FieldError, StatusError, errors, goQuote } from './errors.js';
import { compareGoStrings, isQualifiedName, isValidLabelValue } from './validation.js';

/** selection.Operator values. */
export type Operator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  /** Sorted and de-duplicated when parsed from a string; as given when built from a metav1.LabelSelector. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  readonly requirements: readonly Requirement[];
  /** True when the selector does not restrict anything (Everything). */
  readonly empty: boolean;
  matches(labels: Record<string, string> | undefined | null): boolean;
  /** The single value the selector requires for `key` (=, == or a one-value in), if any. */
  requiresExactMatch(key: string): string | undefined;
  toString(): string;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

/** metav1.LabelSelector. */
export interface MetaLabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

const has = (labels: Record<string, string>, key: string): boolean => Object.prototype.hasOwnProperty.call(labels, key);

function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const v = BigInt(s);
  return v >= -(2n ** 63n) && v < 2n ** 63n ? v : undefined;
}

function requirementMatches(r: Requirement, labels: Record<string, string>): boolean {
  const present = has(labels, r.key);
  switch (r.operator) {
    case 'in': case '=': case '==':
      return present && r.values.includes(labels[r.key]);
    case 'notin': case '!=':
      return !present || !r.values.includes(labels[r.key]);
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'gt': case 'lt': {
      if (!present || r.values.length !== 1) return false;
      const have = parseInt64(labels[r.key]);
      const want = parseInt64(r.values[0]);
      if (have === undefined || want === undefined) return false;
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

const opText: Record<Operator, string> = {
  '=': '=', '==': '==', '!=': '!=', in: ' in ', notin: ' notin ', gt: '>', lt: '<', exists: '', '!': '',
};

export function requirementString(r: Requirement): string {
  const key = (r.operator === '!' ? '!' : '') + r.key;
  if (r.operator === 'exists' || r.operator === '!') return key;
  const vals = r.values.length === 1 ? r.values[0] : [...r.values].sort(compareGoStrings).join(',');
  const set = r.operator === 'in' || r.operator === 'notin';
  return key + opText[r.operator] + (set ? `(${vals})` : vals);
}

class Selector implements LabelSelector {
  readonly requirements: readonly Requirement[];
  constructor(reqs: Requirement[]) {
    // Sorted by key (stable) so the string form is deterministic, as Kubernetes does.
    this.requirements = Object.freeze([...reqs].sort((a, b) => compareGoStrings(a.key, b.key)));
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels: Record<string, string> | undefined | null): boolean {
    const ls = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, ls));
  }
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((x) => x.key === key);
    if (r && (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

const NOTHING: LabelSelector = Object.freeze({
  requirements: Object.freeze([]) as readonly Requirement[],
  empty: false,
  matches: () => false,
  requiresExactMatch: () => undefined,
  toString: () => '',
});

export function everything(): LabelSelector {
  return new Selector([]);
}

/** Matches nothing (a nil metav1.LabelSelector). */
export function nothing(): LabelSelector {
  return NOTHING;
}

/** Equality requirements for each pair (SelectorFromSet); no validation. */
export function selectorFromSet(set: Record<string, string> | undefined | null): LabelSelector {
  return new Selector(Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=' as const, values: [v] })));
}

export function aggregateMessage(errs: FieldError[]): string {
  const msgs = [...new Set(errs.map(String))];
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
}

// Go's %#v of a []string bad value; a nil slice prints differently from an empty one.
function goStrings(vals: readonly string[] | undefined): unknown {
  return vals === undefined ? { toString: () => '[]string(nil)' } : [...vals];
}

/** labels.NewRequirement's checks; `path` is the PathOption (none: key errors at "key", values at "values[i][key]"). */
export function requirementErrors(key: string, op: string, vals: readonly string[] | undefined, path = ''): FieldError[] {
  const p = (child: string): string => (path ? `${path}.${child}` : child);
  const list = vals ?? [];
  const errs = isQualifiedName(key).length ? [FieldError.invalid(p('key'), key, isQualifiedName(key).join('; '))] : [];
  switch (op) {
    case 'in': case 'notin':
      if (list.length === 0) errs.push(FieldError.invalid(p('values'), goStrings(vals), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=': case '==': case '!=':
      if (list.length !== 1) errs.push(FieldError.invalid(p('values'), goStrings(vals), 'exact-match compatibility requires one single value'));
      break;
    case 'exists': case '!':
      if (list.length !== 0) errs.push(FieldError.invalid(p('values'), goStrings(vals), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt': case 'lt':
      if (list.length !== 1) errs.push(FieldError.invalid(p('values'), goStrings(vals), "for 'Gt', 'Lt' operators, exactly one value is required"));
      list.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(FieldError.invalid(`${p('values')}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(FieldError.notSupported(p('operator'), op, ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!']));
  }
  list.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(FieldError.invalid(`${p('values')}[${i}][${key}]`, v, msgs.join('; ')));
  });
  return errs;
}

// ---- the string grammar -------------------------------------------------------------------------------------

type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
interface Item {
  tok: Tok;
  lit: string;
}

// A Map, not an object literal: identifiers such as "toString" must not hit Object.prototype.
const keywords = new Map<string, Tok>(
  ([')', ',', '!', '==', '=', '>', 'in', '<', '!=', 'notin', '('] as const).map((k) => [k, k]),
);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);
const NUL = '\0'; // end of input, exactly like the Go lexer's 0 byte (so an embedded NUL also ends a token)

function lex(s: string): Item[] {
  let pos = 0;
  const read = (): string => (pos < s.length ? s[pos++] : NUL);
  const items: Item[] = [];
  for (;;) {
    let ch = read();
    while (isSpace(ch)) ch = read();
    if (ch === NUL) {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    pos--;
    let buf = '';
    if (isSpecial(ch)) {
      // Longest run of special characters that still forms an operator ("!=", "==", but "=(" is "=" then "(").
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (c === NUL) break;
        if (!isSpecial(c)) {
          pos--;
          break;
        }
        buf += c;
        const kw = keywords.get(buf);
        if (kw) last = { tok: kw, lit: buf };
        else if (last) {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
    } else {
      for (;;) {
        const c = read();
        if (c === NUL) break;
        if (isSpecial(c) || isSpace(c)) {
          pos--;
          break;
        }
        buf += c;
      }
      items.push({ tok: keywords.get(buf) ?? 'id', lit: buf });
    }
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  // In value context the keywords "in"/"notin" are plain identifiers ("x in (in)").
  private peek(keywordsAsValues = true): Item {
    const it = this.items[this.pos];
    return keywordsAsValues && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id', lit: it.lit } : it;
  }
  private next(keywordsAsValues = true): Item {
    const it = this.peek(keywordsAsValues);
    this.pos++;
    return it;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek();
      if (tok === 'eos') return reqs;
      if (tok !== 'id' && tok !== '!') throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.requirement());
      } catch (e) {
        throw new Error(`unable to parse requirement: ${(e as Error).message}`);
      }
      const after = this.next();
      if (after.tok === 'eos') return reqs;
      if (after.tok !== ',') throw new Error(`found '${after.lit}', expected: ',' or 'end of string'`);
      const t2 = this.peek();
      if (t2.tok !== 'id' && t2.tok !== '!') throw new Error(`found '${t2.lit}', expected: identifier after ','`);
    }
  }

  private requirement(): Requirement {
    let op: Operator | '' = '';
    let it = this.next();
    if (it.tok === '!') {
      op = '!';
      it = this.next();
    }
    if (it.tok !== 'id') throw new Error(`found '${it.lit}', expected: identifier`);
    const key = it.lit;
    const keyErrs = isQualifiedName(key);
    // No PathOption on the list path, so Go prints the nil *field.Path as "<nil>".
    if (keyErrs.length) throw new Error(FieldError.invalid('<nil>', key, keyErrs.join('; ')).toString());
    const t = this.peek().tok;
    if (t === 'eos' || t === ',') return checked(key, op === '!' ? '!' : 'exists', []);
    if (op === '!') return checked(key, op, []); // "!a=b": Go still builds DoesNotExist here
    const o = this.next(false);
    const ops: Partial<Record<Tok, Operator>> = { in: 'in', notin: 'notin', '=': '=', '==': '==', '!=': '!=', '>': 'gt', '<': 'lt' };
    const operator = ops[o.tok];
    if (!operator) throw new Error(`found '${o.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    const values = operator === 'in' || operator === 'notin' ? this.setValues() : this.exactValue();
    return checked(key, operator, [...new Set(values)].sort(compareGoStrings));
  }

  private setValues(): string[] {
    const open = this.next();
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.peek();
    if (tok === ')') {
      this.pos++;
      return ['']; // "()" is the set containing the empty value
    }
    if (tok !== 'id' && tok !== ',') throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    const vals = this.identifierList();
    this.pos++; // the ')' identifierList stopped at
    return vals;
  }

  // Comma-separated, possibly empty identifiers: "(a,,b)", "(,a)" and "(a,)" all include "".
  private identifierList(): string[] {
    const vals: string[] = [];
    for (;;) {
      const it = this.next();
      if (it.tok === 'id') {
        vals.push(it.lit);
        const t2 = this.peek();
        if (t2.tok === ',') continue;
        if (t2.tok === ')') return vals;
        throw new Error(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (it.tok === ',') {
        if (vals.length === 0) vals.push('');
        const t2 = this.peek().tok;
        if (t2 === ')') {
          vals.push('');
          return vals;
        }
        if (t2 === ',') {
          this.pos++;
          vals.push('');
        }
      } else {
        throw new Error(`found '${it.lit}', expected: ',', or identifier`);
      }
    }
  }

  private exactValue(): string[] {
    const t = this.peek().tok;
    if (t === 'eos' || t === ',') return [''];
    const it = this.next();
    if (it.tok === 'id') return [it.lit];
    throw new Error(`found '${it.lit}', expected: identifier`);
  }
}

function checked(key: string, operator: Operator, values: string[]): Requirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length) throw new Error(aggregateMessage(errs));
  return { key, operator, values };
}

/**
 * Parses a `labelSelector` query value. Errors are the 400 BadRequest kube-apiserver returns for
 * `GET ...?labelSelector=<bad>` (the list handler passes the parser's message through unchanged).
 */
export function parseLabelSelector(selector: string): LabelSelector {
  try {
    return new Selector(new Parser(lex(selector)).parse());
  } catch (e) {
    if (e instanceof StatusError) throw e;
    throw errors.badRequest((e as Error).message);
  }
}

/** Alias of parseLabelSelector. */
export const parseSelector = parseLabelSelector;

const metaOps = new Map<string, Operator>([['In', 'in'], ['NotIn', 'notin'], ['Exists', 'exists'], ['DoesNotExist', '!']]);

/**
 * metav1.LabelSelectorAsSelector: undefined/null → nothing(), no terms → everything(). Invalid input throws a
 * 400 StatusError carrying the Go error text (e.g. `"Foo" is not a valid label selector operator`).
 */
export function fromLabelSelector(ls: MetaLabelSelector | undefined | null): LabelSelector {
  if (!ls) return NOTHING;
  const reqs: Requirement[] = [];
  for (const [key, v] of Object.entries(ls.matchLabels ?? {})) {
    const errs = requirementErrors(key, '=', [v]);
    if (errs.length) throw errors.badRequest(aggregateMessage(errs));
    reqs.push({ key, operator: '=', values: [v] });
  }
  for (const expr of ls.matchExpressions ?? []) {
    const op = metaOps.get(expr.operator);
    if (!op) throw errors.badRequest(`${goQuote(expr.operator)} is not a valid label selector operator`);
    const vals = expr.values && expr.values.length ? [...expr.values] : undefined;
    const errs = requirementErrors(expr.key, op, vals);
    if (errs.length) throw errors.badRequest(aggregateMessage(errs));
    reqs.push({ key: expr.key, operator: op, values: vals ?? [] });
  }
  return new Selector(reqs);
}
