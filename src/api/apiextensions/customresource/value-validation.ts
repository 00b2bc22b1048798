// OpenAPI value validation of custom objects: the checks of k8s.io/kube-openapi/pkg/validation/validate over a CRD's
// schema and their translation into field errors (apiextensions-apiserver/pkg/apiserver/validation, Kubernetes 1.33).
// Messages keep kube-openapi's "<path> in body ..." wording; constraints apply only to values of their JSON type.
import { FieldError } from '../../../machinery/errors.js';
import { deepEqual } from '../../../machinery/object.js';
import { compareGoStrings } from '../../../machinery/validation.js';
import { isObj, type JSP } from '../structural.js';
import { goFloat } from '../../../machinery/gofloat.js';
import { checkFormat } from './formats.js';

const IN = 'body';

/** The JSON type kube-openapi reports for a decoded value. */
function typeOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** The field path of an error name: kube-openapi's names start with "." below the root. */
const fieldOf = (name: string, base: string): string => {
  const n = name.replace(/^\./, '');
  if (!n) return base;
  return base ? `${base}.${n}` : n;
};

/** The schema's declared types, as ConvertJSONSchemaProps sets them (int-or-string becomes integer,string). */
function typesOf(s: JSP): string[] {
  if (s['x-kubernetes-int-or-string'] === true) return ['integer', 'string'];
  return typeof s.type === 'string' && s.type ? [s.type] : [];
}

const sub = (path: string, key: string): string => (path ? `${path}.${key}` : key);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

interface Ctx {
  errs: FieldError[];
  base: string;
}

const msg = (name: string, text: string): string => `${name} in ${IN} ${text}`;

function validateNode(v: unknown, s: JSP, name: string, c: Ctx): void {
  const field = fieldOf(name, c.base);
  const types = typesOf(s);
  const t = typeOf(v);
  if (v === null || v === undefined) {
    if (s.nullable !== true && types.length && !types.includes('null')) {
      c.errs.push(FieldError.typeInvalid(field, 'null', msg(name, `must be of type ${types.join(',')}: "null"`)));
    }
    return;
  }
  if (types.length && !types.includes(t) && !(t === 'integer' && types.includes('number'))) {
    c.errs.push(FieldError.typeInvalid(field, t, msg(name, `must be of type ${types.join(',')}: "${t}"`)));
  }
  composition(v, s, name, c);
  if (typeof v === 'string') stringChecks(v, s, name, field, c);
  if (typeof v === 'number') numberChecks(v, s, name, field, c);
  if (Array.isArray(v)) arrayChecks(v, s, name, field, c);
  if (Array.isArray(s.enum) && s.enum.length && !s.enum.some((e) => deepEqual(e, v))) {
    const values = s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    c.errs.push(FieldError.notSupported(field, v, values));
  }
  if (isObj(v)) objectChecks(v, s, name, field, c);
}

function stringChecks(v: string, s: JSP, name: string, field: string, c: Ctx): void {
  const len = [...v].length;
  const max = num(s.maxLength);
  const min = num(s.minLength);
  if (max !== undefined && len > max) c.errs.push(FieldError.tooLong(field, v, max));
  if (min !== undefined && len < min) c.errs.push(FieldError.invalid(field, v, msg(name, `should be at least ${min} chars long`)));
  if (typeof s.pattern === 'string' && !matches(s.pattern, v)) {
    c.errs.push(FieldError.invalid(field, v, msg(name, `should match '${s.pattern}'`)));
  }
  if (typeof s.format === 'string' && s.format && !checkFormat(s.format, v)) {
    c.errs.push(FieldError.typeInvalid(field, v, msg(name, `must be of type ${s.format}: "${v}"`)));
  }
}

const patterns = new Map<string, RegExp | null>();
function matches(pattern: string, v: string): boolean {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null; // the CRD's validation reports patterns that do not compile
    }
    patterns.set(pattern, re);
  }
  return re ? re.test(v) : true;
}

function numberChecks(v: number, s: JSP, name: string, field: string, c: Ctx): void {
  const max = num(s.maximum);
  const min = num(s.minimum);
  if (max !== undefined) {
    const excl = s.exclusiveMaximum === true;
    if (excl ? v >= max : v > max) {
      c.errs.push(FieldError.invalid(field, v, msg(name, excl ? `should be less than ${goFloat(max)}` : `should be less than or equal to ${goFloat(max)}`)));
    }
  }
  if (min !== undefined) {
    const excl = s.exclusiveMinimum === true;
    if (excl ? v <= min : v < min) {
      c.errs.push(FieldError.invalid(field, v, msg(name, excl ? `should be greater than ${goFloat(min)}` : `should be greater than or equal to ${goFloat(min)}`)));
    }
  }
  const mult = num(s.multipleOf);
  if (mult !== undefined && mult > 0) {
    const q = v / mult;
    if (Math.abs(q - Math.round(q)) > 1e-9 * Math.max(1, Math.abs(q))) {
      c.errs.push(FieldError.invalid(field, v, msg(name, `should be a multiple of ${goFloat(mult)}`)));
    }
  }
}

function arrayChecks(v: unknown[], s: JSP, name: string, field: string, c: Ctx): void {
  const max = num(s.maxItems);
  const min = num(s.minItems);
  if (min !== undefined && v.length < min) c.errs.push(FieldError.invalid(field, v, msg(name, `should have at least ${min} items`)));
  if (max !== undefined && v.length > max) c.errs.push(FieldError.tooMany(field, v.length, max));
  if (s.uniqueItems === true && v.some((x, i) => v.findIndex((y) => deepEqual(x, y)) !== i)) {
    c.errs.push(FieldError.invalid(field, v, msg(name, `shouldn't contain duplicates`)));
  }
  if (isObj(s.items)) v.forEach((x, i) => validateNode(x, s.items as JSP, `${name}[${i}]`, c));
}

function objectChecks(v: Record<string, unknown>, s: JSP, name: string, field: string, c: Ctx): void {
  const n = Object.keys(v).length;
  const max = num(s.maxProperties);
  const min = num(s.minProperties);
  if (max !== undefined && n > max) c.errs.push(FieldError.tooMany(field, n, max));
  if (min !== undefined && n < min) c.errs.push(FieldError.invalid(field, v, msg(name, `should have at least ${min} properties`)));
  if (Array.isArray(s.required)) {
    for (const r of s.required) if (typeof r === 'string' && !(r in v)) c.errs.push(FieldError.required(fieldOf(sub(name, r), c.base)));
  }
  const props = isObj(s.properties) ? s.properties : {};
  for (const k of Object.keys(v).sort(compareGoStrings)) {
    const ps = props[k];
    if (isObj(ps)) validateNode(v[k], ps, sub(name, k), c);
    else if (isObj(s.additionalProperties)) validateNode(v[k], s.additionalProperties, sub(name, k), c);
    else if (s.additionalProperties === false && !isObj(ps)) {
      c.errs.push(FieldError.invalid(field, v[k], `${sub(name, k)} in ${IN} is a forbidden property`));
    }
  }
}

/** allOf/anyOf/oneOf/not: their failures are plain errors, which the apiserver reports at the object's root. */
function composition(v: unknown, s: JSP, name: string, c: Ctx): void {
  const trial = (schema: unknown): FieldError[] => {
    const t: Ctx = { errs: [], base: c.base };
    if (isObj(schema)) validateNode(v, schema, name, t);
    return t.errs;
  };
  const root = (text: string) => FieldError.invalid(c.base, '', `${name} in ${IN} ${text}`);
  if (Array.isArray(s.allOf) && s.allOf.length) {
    const failed = s.allOf.map(trial).filter((e) => e.length);
    if (failed.length) {
      c.errs.push(...failed.flat());
      c.errs.push(root('must validate all the schemas (allOf)'));
    }
  }
  if (Array.isArray(s.anyOf) && s.anyOf.length) {
    const results = s.anyOf.map(trial);
    if (!results.some((e) => !e.length)) {
      c.errs.push(root('must validate at least one schema (anyOf)'));
      c.errs.push(...best(results));
    }
  }
  if (Array.isArray(s.oneOf) && s.oneOf.length) {
    const results = s.oneOf.map(trial);
    const valid = results.filter((e) => !e.length).length;
    if (valid !== 1) {
      c.errs.push(root(valid > 1 ? `must validate one and only one schema (oneOf). Found ${valid} valid alternatives` : 'must validate one and only one schema (oneOf)'));
      if (!valid) c.errs.push(...best(results));
    }
  }
  if (isObj(s.not) && !trial(s.not).length) c.errs.push(root('must not validate the schema (not)'));
}

/** The failures of the alternative that came closest, as kube-openapi merges its best failing result. */
function best(results: FieldError[][]): FieldError[] {
  return results.reduce((a, b) => (b.length < a.length ? b : a), results[0] ?? []);
}

/** Validates a decoded custom object (or a value below it at `path`) against its version's schema. */
export function validateValue(value: unknown, schema: JSP, path: string): FieldError[] {
  const c: Ctx = { errs: [], base: path };
  validateNode(value, schema, '', c);
  return c.errs;
}
