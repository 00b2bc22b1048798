// Helpers shared by the three PATCH implementations (patch-json, patch-merge, patch-strategic):
// JSON value plumbing that is safe against "__proto__" keys, Go-style value formatting for the error texts
// kube-apiserver produces (fmt's %v / %s and reflect type names), and the Status errors PATCH can fail with.

import { StatusError, errors } from '../errors.js';
import { goNumber } from '../gofloat.js';

export type JsonObject = Record<string, unknown>;

/** metav1.PatchOptions.fieldValidation; kube-apiserver treats an absent value as "Warn". */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface PatchOptions {
  fieldValidation?: FieldValidation;
  /** the original is the caller's to change in place wherever the patch reaches (see copyAlong), not copied whole */
  originalOwned?: boolean;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasOwn(o: JsonObject, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

export function getOwn(o: JsonObject, k: string): unknown {
  return hasOwn(o, k) ? o[k] : undefined;
}

/** Assignment that treats "__proto__" as an ordinary key. */
export function setOwn(o: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/** Deep copy of a JSON value (undefined stays undefined). */
export function cloneJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => cloneJson(x)) as T;
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) setOwn(out, k, cloneJson(v[k]));
    return out as T;
  }
  return v;
}

/** Structural equality of JSON values (object key order is irrelevant). */
/**
 * A copy of `original` a patch may change in place: the maps on the way to each key the patch names are shallow
 * copies, each value it names (directly, or as the list a `$setElementOrder/` or `$deleteFromPrimitiveList/`
 * directive orders) is a deep copy, and whatever the patch does not reach is shared with `original`. `deep` names
 * top-level keys to copy whole anyway.
 */
export function copyAlong(original: JsonObject, patch: JsonObject, deep: readonly string[] = []): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(original)) setOwn(out, k, deep.includes(k) ? cloneJson(original[k]) : original[k]);
  for (const pk of Object.keys(patch)) {
    const k = pk.startsWith('$') ? listDirectiveTarget(pk) : pk;
    if (k === undefined || deep.includes(k) || !hasOwn(original, k)) continue;
    const ov = original[k];
    const pv = patch[pk];
    setOwn(out, k, k === pk && isObject(ov) && isObject(pv) ? copyAlong(ov, pv) : cloneJson(ov));
  }
  return out;
}

function listDirectiveTarget(key: string): string | undefined {
  for (const prefix of ['$setElementOrder/', '$deleteFromPrimitiveList/']) if (key.startsWith(prefix)) return key.slice(prefix.length);
  return undefined; // $patch, $retainKeys: act on the map itself, which is a copy
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Go's dynamic type of a value decoded by k8s.io/apimachinery's JSON (integers become int64). */
export type GoType = 'map' | 'slice' | 'string' | 'int64' | 'float64' | 'bool' | 'nil';

export function goType(v: unknown): GoType {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

const goTypeNames: Record<GoType, string> = {
  map: 'map[string]interface {}',
  slice: '[]interface {}',
  string: 'string',
  int64: 'int64',
  float64: 'float64',
  bool: 'bool',
  nil: '%!s(<nil>)',
};

/** reflect.TypeOf(v) printed with %s. */
export function goTypeName(v: unknown): string {
  return goTypeNames[goType(v)];
}

/** The JSON kind encoding/json's UnmarshalTypeError reports ("object", "array", "string", "number", "bool"). */
export function jsonKindName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'number' ? 'number' : 'string';
}

/** fmt's %v rendering of a decoded JSON value: map[k:v ...] with sorted keys, [a b], <nil>. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return goNumber(v);
  return String(v);
}

/** fmt's %s rendering: strings verbatim, other scalars as %!s(type=value). */
export function goString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (typeof v === 'object') return goValue(v);
  return `%!s(${goType(v)}=${goValue(v)})`;
}

/**
 * What kube-apiserver answers when applying a patch fails (a JSON patch operation does not apply, a list of
 * lists in a strategic merge patch): errors.NewGenericServerResponse(422, ...), whose message is generic.
 */
export function patchNotApplicable(): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** A plain Go error reaching kube-apiserver's error writer: 500, no reason, the error text as message. */
export function goError(message: string): StatusError {
  return new StatusError(500, '', message);
}

/** Converts anything unexpected (e.g. a stack overflow on absurdly deep input) into a 500 instead of a crash. */
export function asStatusError(e: unknown): StatusError {
  if (e instanceof StatusError) return e;
  return errors.internal(e instanceof Error ? e.message : String(e));
}
