// RFC 7386 JSON merge patch (application/merge-patch+json) as kube-apiserver applies it: with
// gopkg.in/evanphx/json-patch.v4's MergePatch (handlers/patch.go, applyJSPatch). Objects merge recursively,
// null deletes, anything else (arrays included) replaces; nulls inside values that are put in place are pruned
// from objects (also objects nested in arrays), but null array elements are kept.
//
// Errors, as kube-apiserver reports them:
//   - with fieldValidation Warn (the default) or Strict the body is first decoded into map[string]interface{}:
//     a non-object body is 400 "error decoding patch: json: cannot unmarshal array into Go value of type
//     map[string]interface {}";
//   - a null body (and with Ignore any non-object, non-array body) is 400 "Invalid JSON Patch";
//   - with Ignore an array body replaces the whole document (the caller's decoding of the result then fails).

import { errors } from '../errors.js';
import {
  type JsonObject,
  type PatchOptions,
  asStatusError,
  cloneJson,
  hasOwn,
  isObject,
  jsonKindName,
  setOwn,
} from './common.js';

/** Applies a JSON merge patch (the decoded request body) to `original`; inputs are never modified. */
export function applyMergePatch(original: unknown, patch: unknown, opts: PatchOptions = {}): unknown {
  const fv = opts.fieldValidation ?? 'Warn';
  if (fv !== 'Ignore' && patch !== null && !isObject(patch)) {
    throw errors.badRequest(
      `error decoding patch: json: cannot unmarshal ${jsonKindName(patch)} into Go value of type map[string]interface {}`,
    );
  }
  if (patch === null || patch === undefined || (!isObject(patch) && !Array.isArray(patch))) {
    throw errors.badRequest('Invalid JSON Patch');
  }
  try {
    if (Array.isArray(patch)) return pruneNulls(cloneJson(patch));
    if (!isObject(original)) return pruneNulls(cloneJson(patch));
    return mergeObjects(opts.originalOwned ? original : cloneJson(original), cloneJson(patch));
  } catch (e) {
    throw asStatusError(e);
  }
}

/** Merges `patch` into `doc` (both owned copies) and returns `doc`. */
function mergeObjects(doc: JsonObject, patch: JsonObject): JsonObject {
  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    if (pv === null) {
      delete doc[k];
      continue;
    }
    const cur = hasOwn(doc, k) ? doc[k] : null;
    setOwn(doc, k, cur === null ? pruneNulls(pv) : mergeValue(cur, pv));
  }
  return doc;
}

function mergeValue(cur: unknown, patch: unknown): unknown {
  if (!isObject(cur)) return pruneNulls(patch);
  if (!isObject(patch)) return patch;
  return mergeObjects(cur, patch);
}

/** Drops null-valued object members, recursively (through arrays too); null array elements stay. */
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = pruneNulls(v[i]);
    return v;
  }
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else setOwn(v, k, pruneNulls(v[k]));
    }
  }
  return v;
}
