// Field selectors (`fieldSelector=` query): apimachinery pkg/fields/selector.go (1.33) grammar and errors, plus
// the per-kind field-label conversion the list handler applies (unsupported field → 400 BadRequest).
import { errors, goQuote } from './errors.js';
import { compareGoStrings } from './validation.js';

export interface FieldRequirement {
  readonly field: string;
  /** "==" parses to "=" (Kubernetes keeps only equality and inequality terms). */
  readonly operator: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  /** A missing field reads as "" (fields.Set.Get), so `a=` matches objects without `a`. */
  matches(fields: Record<string, string>): boolean;
  requiresExactMatch(field: string): string | undefined;
  toString(): string;
}

/** (field, value) → [newField, newValue]; throw to reject. Both returned empty drops the term. */
export type FieldTransform = (field: string, value: string) => readonly [string, string];

/** Escapes `\`, `,` and `=` in a value (fields.EscapeValue). */
export function escapeValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => '\\' + c);
}

class Selector implements FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  constructor(reqs: FieldRequirement[]) {
    this.requirements = Object.freeze(reqs);
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(fields: Record<string, string>): boolean {
    const get = (f: string): string => (Object.prototype.hasOwnProperty.call(fields, f) ? fields[f] : '');
    return this.requirements.every((r) => (get(r.field) === r.value) === (r.operator === '='));
  }
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.operator === '=' && r.field === field)?.value;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(',');
  }
}

export function everything(): FieldSelector {
  return new Selector([]);
}

/** A one-term `field=value` selector (fields.OneTermEqualSelector). */
export function oneTermEqual(field: string, value: string): FieldSelector {
  return new Selector([{ field, operator: '=', value }]);
}

/** Splits on unescaped commas; escaped ones stay in the term with their backslash. */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

// The first operator occurrence splits the term; "!=" and "==" are tried before "=" at each position.
function splitTerm(term: string): [string, '=' | '==' | '!=', string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go formats the rune with %v, i.e. as its code point number ("61" for '=').
      throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Applies `fn` to every term, dropping terms whose field and value both become empty (Selector.Transform). */
export function transformFieldSelector(sel: FieldSelector, fn: FieldTransform): FieldSelector {
  const out: FieldRequirement[] = [];
  for (const r of sel.requirements) {
    const [field, value] = fn(r.field, r.value);
    if (field !== '' || value !== '') out.push({ field, operator: r.operator, value });
  }
  return new Selector(out);
}

/**
 * Parses a `fieldSelector` query value (fields.ParseSelector). Terms are sorted; a term with an empty field and
 * value ("=") is dropped. Errors are kube-apiserver's 400 BadRequest texts.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort(compareGoStrings);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw errors.badRequest(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [field, op, rhs] = split;
    let value: string;
    try {
      value = unescapeValue(rhs);
    } catch (e) {
      throw errors.badRequest((e as Error).message);
    }
    reqs.push({ field, operator: op === '!=' ? '!=' : '=', value });
  }
  return transformFieldSelector(new Selector(reqs), (f, v) => [f, v]);
}

export interface FieldLabelOptions {
  /** Deprecated aliases accepted and rewritten, e.g. pods: { 'spec.host': 'spec.nodeName' }. */
  aliases?: Record<string, string>;
  /**
   * 'notSupported' (default): the per-kind conversion funcs and custom resources —
   *   `field label not supported: foo`.
   * 'defaultMeta': kinds with no conversion func registered (runtime.DefaultMetaV1FieldSelectorConversion) —
   *   `"foo" is not a known field selector: only "metadata.name", "metadata.namespace"`.
   */
  style?: 'notSupported' | 'defaultMeta';
}

export function fieldLabelError(label: string, style: FieldLabelOptions['style'] = 'notSupported'): Error {
  return style === 'defaultMeta'
    ? errors.badRequest(`${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`)
    : errors.badRequest(`field label not supported: ${label}`);
}

/**
 * What the list/watch handler does with a parsed selector: converts each term through the kind's field-label
 * conversion, failing on the first unsupported field (in the selector's sorted term order) with a 400
 * BadRequest. kubectl prints it as `Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match
 * label selector "", field selector "foo=bar": field label not supported: foo` (the prefix is kubectl's own).
 */
export function restrictFieldSelector(
  sel: FieldSelector,
  allowed: Iterable<string>,
  opts: FieldLabelOptions = {},
): FieldSelector {
  const ok = new Set(allowed);
  const aliases = new Map(Object.entries(opts.aliases ?? {}));
  return transformFieldSelector(sel, (field, value) => {
    const alias = aliases.get(field);
    if (alias !== undefined) return [alias, value];
    if (!ok.has(field)) throw fieldLabelError(field, opts.style);
    return [field, value];
  });
}

/**
 * Check-only form of restrictFieldSelector for list/watch handlers. Extra arguments (resource, selector strings)
 * are accepted and ignored: the "Unable to find ... that match label selector ..." prefix is added by kubectl
 * (cli-runtime), never by the server, so a server that added it would make kubectl print it twice.
 */
export function checkFieldSelectorFields(sel: FieldSelector, allowed: Iterable<string>, ..._context: unknown[]): void {
  restrictFieldSelector(sel, allowed);
}
