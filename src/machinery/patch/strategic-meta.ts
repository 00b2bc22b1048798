// Strategic merge patch building blocks: directive names, patch metadata looked up from the schema (the
// x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key of a field), cleaning of patch values that are put in
// place verbatim, and the errors of k8s.io/apimachinery/pkg/util/{strategicpatch,mergepatch} with the status
// kube-apiserver gives them (handlers/patch.go, interpretStrategicMergePatchError): the mergepatch format errors
// are 400s, lists of lists 422, and everything else is a plain Go error, i.e. a 500 with no reason.

import { errors, type StatusError } from '../errors.js';
import type { Schema, SchemaSet } from '../schema.js';
import {
  type JsonObject,
  goError,
  goString,
  goTypeName,
  goValue,
  hasOwn,
  isObject,
  setOwn,
} from './common.js';

export const DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER = '$setElementOrder';

/** What the list/map merge code needs: the schema set and the map merge (to merge list elements). */
export interface SmpContext {
  set: SchemaSet;
  mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined): JsonObject;
}

export interface PatchMeta {
  /** the field's schema (undefined when unknown: JSON-merge-like fallback, lists replace) */
  schema: Schema | undefined;
  /** the schema of the field's list items */
  items: Schema | undefined;
  /** "merge", "replace" or "" */
  strategy: string;
  retainKeys: boolean;
  mergeKey: string;
}

/** Patch metadata of `key` in an object described by `parent`. */
export function lookupMeta(set: SchemaSet, parent: Schema | undefined, key: string): PatchMeta {
  const raw = parent === undefined ? undefined : set.field(parent, key);
  const resolved = set.resolve(raw);
  const strategies = (raw?.patchStrategy ?? resolved?.patchStrategy ?? '').split(',');
  const [retainKeys, strategy] = splitRetainKeys(strategies);
  const mergeKey = raw?.patchMergeKey ?? resolved?.patchMergeKey ?? '';
  // like kube's struct lookup, an object-typed field used as a list has elements of that type
  const items = set.items(raw) ?? (resolved?.properties ? raw : undefined);
  return { schema: raw, items, strategy, retainKeys, mergeKey };
}

/** extractRetainKeysPatchStrategy */
function splitRetainKeys(strategies: string[]): [boolean, string] {
  if (strategies.length === 1) return strategies[0] === 'retainKeys' ? [true, ''] : [false, strategies[0]];
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return [true, strategies[1]];
    if (strategies[1] === 'retainKeys') return [true, strategies[0]];
  }
  throw goError(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

export function isFreeForm(set: SchemaSet, sc: Schema | undefined): boolean {
  return set.resolve(sc)?.preserveUnknownFields === true;
}

/** Go's == on decoded JSON scalars (composite values never compare equal). */
export function goEq(a: unknown, b: unknown): boolean {
  return (a ?? null) === (b ?? null) && (a === null || a === undefined || typeof a !== 'object');
}

export function isDirectiveKey(k: string): boolean {
  return (
    k === DIRECTIVE ||
    k === RETAIN_KEYS ||
    k.startsWith(SET_ELEMENT_ORDER) ||
    k.startsWith(DELETE_FROM_PRIMITIVE_LIST)
  );
}

/**
 * How a patch value that is put in place as is gets cleaned:
 *  - "new": a field the original lacks. kube runs removeDirectives + discardNullValuesFromPatch: maps carrying a
 *    $patch directive are dropped and null map members removed (null list elements stay), also inside
 *    preserve-unknown-fields content.
 *  - "raw": a replaced map or list, or a new list element. kube stores these verbatim and its typed decoding then
 *    drops nulls and the (unknown) directive keys; we do the same directly, except under preserve-unknown-fields
 *    schemas, whose content is kept verbatim.
 * In both modes the other directive keys ($retainKeys, $setElementOrder/.., $deleteFromPrimitiveList/..) are
 * removed instead of being left behind as unknown fields.
 */
export type CleanMode = 'new' | 'raw';

/** Cleans `v` (an owned copy, mutated); undefined means the value is dropped. */
export function cleanPatchValue(v: unknown, sc: Schema | undefined, set: SchemaSet, mode: CleanMode): unknown {
  if (mode === 'raw' && isFreeForm(set, sc)) return v;
  if (Array.isArray(v)) {
    const items = set.items(sc);
    const out: unknown[] = [];
    for (const x of v) {
      const c = cleanPatchValue(x, items, set, mode);
      if (c !== undefined) out.push(c);
    }
    return out;
  }
  if (!isObject(v)) return v;
  if (mode === 'new' && hasOwn(v, DIRECTIVE) && v[DIRECTIVE] !== null) return undefined;
  for (const k of Object.keys(v)) {
    const x = v[k];
    assign(v, k, x === null || isDirectiveKey(k) ? undefined : cleanPatchValue(x, set.field(sc, k), set, mode));
  }
  return v;
}

/** Sets `o[k]`, or deletes it when `v` is undefined. */
export function assign(o: JsonObject, k: string, v: unknown): void {
  if (v === undefined) delete o[k];
  else setOwn(o, k, v);
}

/** extractKey: "$setElementOrder/containers" -> "containers". */
export function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw errors.badRequest(
      prefix === DELETE_FROM_PRIMITIVE_LIST
        ? 'invalid patch format of primitive list'
        : 'invalid patch format of setElementOrder list',
    );
  }
  return key.slice(slash + 1);
}

export function badRetainKeys(): StatusError {
  return errors.badRequest('invalid patch format of retainKeys');
}

/** mergepatch.ErrNoMergeKey */
export function noMergeKey(m: unknown, key: string): StatusError {
  return goError(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
}

/** mergepatch.ErrBadArgType */
export function badArgType(expected: 'map' | 'slice', actual: unknown): StatusError {
  const want = expected === 'map' ? 'map[string]interface {}' : '[]interface {}';
  return goError(`expected a ${want}, but received a ${goTypeName(actual)}`);
}

/** mergepatch.ErrBadPatchType */
export function badPatchType(directive: unknown, m: JsonObject): StatusError {
  return goError(`unknown patch type: ${goString(directive)} in map: ${goValue(m)}`);
}
