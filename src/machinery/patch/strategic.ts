// Strategic merge patch (application/strategic-merge-patch+json), driven by the schema's patch metadata
// (patchStrategy / patchMergeKey, i.e. x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key), with the
// semantics of k8s.io/apimachinery/pkg/util/strategicpatch as kube-apiserver runs it (StrategicMergeMapPatch:
// parallel lists merged, unmatched nulls ignored). This is what kubectl apply (client-side), edit, label,
// annotate, set and patch (default type) send.
//
// Maps merge key by key: null deletes; a key the original lacks, or whose value changes JSON type, takes the patch
// value (with nulls and directive maps removed); maps recurse unless the field's strategy is "replace"; lists merge
// per strategic-lists.ts. Directives:
//   $patch: replace | delete        in a map: replace it by the rest of the patch map / by {}. Anything else
//                                   (including "merge") is an error, as in kube.
//   $patch: delete | replace        in a merged list of maps: delete elements by merge key / replace the list
//                                   ("$patch: merge" there is "merging lists cannot yet be specified in the patch")
//   $deleteFromPrimitiveList/<f>    remove these values from the primitive list f
//   $setElementOrder/<f>            final order of list f (see strategic-lists.ts)
//   $retainKeys: [..]               drop the original's keys that are not listed; every non-null patch key must be
//                                   listed (else 400 "invalid patch format of retainKeys")
// Fields without schema, and preserve-unknown-fields content, have no patch metadata: maps merge, lists replace
// (kube's typed structs would reject unknown fields with "unable to find api field ..."; we do not).

import type { Schema, SchemaSet } from '../schema.js';
import { errors } from '../errors.js';
import { type JsonObject, asStatusError, cloneJson, getOwn, goType, hasOwn, isObject, jsonKindName } from './common.js';
import {
  DELETE_FROM_PRIMITIVE_LIST,
  DIRECTIVE,
  RETAIN_KEYS,
  SET_ELEMENT_ORDER,
  type SmpContext,
  assign,
  badPatchType,
  badRetainKeys,
  cleanPatchValue,
  directiveTarget,
  lookupMeta,
} from './strategic-meta.js';
import { applyElementOrders, mergeList } from './strategic-lists.js';

/**
 * Applies a strategic merge patch (the decoded request body) to `original`, an object described by `schema`.
 * Inputs are never modified. Errors are StatusErrors with kube-apiserver's codes and messages.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema, set: SchemaSet, opts: { originalOwned?: boolean } = {}): unknown {
  if (patch !== null && patch !== undefined && !isObject(patch)) {
    throw errors.badRequest(`json: cannot unmarshal ${jsonKindName(patch)} into Go value of type map[string]interface {}`);
  }
  const base = !isObject(original) ? {} : opts.originalOwned ? original : cloneJson(original);
  if (!isObject(patch)) return base; // a null patch changes nothing
  const ctx: SmpContext = {
    set,
    mergeMap: (o, p, sc) => mergeMap(o, p, sc, ctx),
  };
  try {
    return mergeMap(base, cloneJson(patch), schema, ctx);
  } catch (e) {
    throw asStatusError(e);
  }
}

/** Merges `patch` into `original` (both owned copies, mutated) and returns the result. */
function mergeMap(original: JsonObject, patch: JsonObject, sc: Schema | undefined, ctx: SmpContext): JsonObject {
  if (hasOwn(patch, DIRECTIVE)) {
    const directive = patch[DIRECTIVE];
    if (directive === 'replace') {
      delete patch[DIRECTIVE];
      return cleanPatchValue(patch, sc, ctx.set, 'raw') as JsonObject;
    }
    if (directive === 'delete') return {};
    throw badPatchType(directive, patch);
  }
  applyRetainKeys(original, patch);
  applyElementOrders(original, patch, sc, ctx);

  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    let key = k;
    const isDeleteList = k.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    if (isDeleteList) key = directiveTarget(k, DELETE_FROM_PRIMITIVE_LIST);
    if (pv === null) {
      delete original[key];
      continue;
    }
    const ov = getOwn(original, key);
    if (ov === undefined || goType(ov) !== goType(pv)) {
      // a field the original lacks (or of another type) takes the patch value; a deletion list adds nothing
      if (!isDeleteList) assign(original, key, cleanPatchValue(pv, undefined, ctx.set, 'new'));
      continue;
    }
    if (isObject(ov)) {
      const meta = lookupMeta(ctx.set, sc, key);
      const merged =
        meta.strategy === 'replace'
          ? cleanPatchValue(pv, meta.schema, ctx.set, 'raw')
          : mergeMap(ov, pv as JsonObject, meta.schema, ctx);
      assign(original, key, merged);
    } else if (Array.isArray(ov)) {
      assign(original, key, mergeList(ov, pv as unknown[], lookupMeta(ctx.set, sc, key), isDeleteList, ctx));
    } else {
      assign(original, key, pv);
    }
  }
  return original;
}

/** applyRetainKeysDirective */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw badRetainKeys();
  const retained = new Set(list);
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retained.has(k)) throw badRetainKeys();
  }
  for (const k of Object.keys(original)) {
    if (!retained.has(k)) delete original[k];
  }
}
