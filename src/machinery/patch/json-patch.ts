// RFC 6902 JSON Patch (application/json-patch+json) as kube-apiserver applies it: with gopkg.in/evanphx/json-patch.v4
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, applyJSPatch). Its v4 quirks are kept because
// clients observe them: negative array indices count from the end, "replace" of a missing object key adds it,
// "copy" from a missing object key copies null, a missing "value" means null, the first path segment is not
// required to be empty, and "test" of a missing location succeeds when the expected value is null/absent.
//
// Errors, as kube-apiserver reports them:
//   - the body is not a list of operations: 400 BadRequest. With fieldValidation Warn (the default) or Strict the
//     handler first decodes into []handlers.jsonPatchOp and prefixes "error decoding patch: "; with Ignore it is
//     jsonpatch.DecodePatch's error alone.
//   - more than 10000 operations: 413.
//   - any operation that does not apply (missing path, failed test, unknown op, ...): 422 Invalid with the generic
//     message of errors.NewGenericServerResponse ("the server rejected our request due to an error in our
//     request"); the json-patch error text itself is not sent to the client.

import { errors } from '../errors.js';
import {
  type JsonObject,
  type PatchOptions,
  asStatusError,
  cloneJson,
  getOwn,
  hasOwn,
  isObject,
  jsonEqual,
  jsonKindName,
  patchNotApplicable,
  setOwn,
} from './common.js';

/** handlers.maxJSONPatchOperations */
export const MAX_JSON_PATCH_OPERATIONS = 10000;
/** GenericAPIServer's default JSONPatchMaxCopyBytes (jsonpatch.AccumulatedCopySizeLimit). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

const OP_FIELDS = ['op', 'path', 'from', 'value'];

/** Raised (internally) when an operation does not apply; surfaces as the generic 422. */
class NotApplicable extends Error {}

type Container = JsonObject | unknown[];

/**
 * Applies a JSON patch document (the decoded request body) to `original` and returns the patched document.
 * Inputs are never modified.
 */
export function applyJsonPatch(original: unknown, patch: unknown, opts: PatchOptions = {}): unknown {
  const ops = decodeJsonPatch(patch, opts);
  try {
    return applyOps(cloneJson(original), ops);
  } catch (e) {
    if (e instanceof NotApplicable) throw patchNotApplicable();
    throw asStatusError(e);
  }
}

/**
 * The strict-decoding findings kube-apiserver collects for a JSON patch when fieldValidation is Warn or Strict:
 * `json patch unknown field "[0].valu"` per unknown operation member. With Warn they become warnings; with
 * Strict they fail the request (422) together with the strict errors of decoding the patched object.
 */
export function jsonPatchStrictErrors(patch: unknown): string[] {
  const out: string[] = [];
  if (!Array.isArray(patch)) return out;
  patch.forEach((op, i) => {
    if (!isObject(op)) return;
    for (const k of Object.keys(op)) {
      if (!OP_FIELDS.includes(k) && out.length < 100) out.push(`json patch unknown field ${JSON.stringify(`[${i}].${k}`)}`);
    }
  });
  return out;
}

function decodeJsonPatch(patch: unknown, opts: PatchOptions): (JsonObject | null)[] {
  const fv = opts.fieldValidation ?? 'Warn';
  if (fv !== 'Ignore') {
    const err = strictDecodeError(patch);
    if (err) throw errors.badRequest(`error decoding patch: ${err}`);
  }
  if (patch === null || patch === undefined) return [];
  if (!Array.isArray(patch)) {
    throw errors.badRequest(`json: cannot unmarshal ${jsonKindName(patch)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of patch) {
    if (op !== null && !isObject(op)) {
      throw errors.badRequest(`json: cannot unmarshal ${jsonKindName(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.tooLarge(
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`,
    );
  }
  return patch as (JsonObject | null)[];
}

/** First type error of decoding into []handlers.jsonPatchOp{Op, Path, From string; Value interface{}}. */
function strictDecodeError(patch: unknown): string | undefined {
  if (patch === null || patch === undefined) return undefined;
  if (!Array.isArray(patch)) {
    return `json: cannot unmarshal ${jsonKindName(patch)} into Go value of type []handlers.jsonPatchOp`;
  }
  for (const op of patch) {
    if (op === null) continue;
    if (!isObject(op)) return `json: cannot unmarshal ${jsonKindName(op)} into Go value of type handlers.jsonPatchOp`;
    for (const f of Object.keys(op)) {
      const v = op[f];
      if ((f === 'op' || f === 'path' || f === 'from') && v !== null && typeof v !== 'string') {
        return `json: cannot unmarshal ${jsonKindName(v)} into Go struct field jsonPatchOp.${f} of type string`;
      }
    }
  }
  return undefined;
}

function applyOps(doc: unknown, ops: (JsonObject | null)[]): unknown {
  let root = doc;
  const copied = { bytes: 0 };
  for (const op of ops) {
    const o = op ?? {};
    switch (getOwn(o, 'op')) {
      case 'add':
        add(root, stringField(o, 'path'), valueOf(o));
        break;
      case 'remove':
        remove(root, stringField(o, 'path'));
        break;
      case 'replace':
        root = replace(root, o);
        break;
      case 'move':
        move(root, o);
        break;
      case 'copy':
        copy(root, o, copied);
        break;
      case 'test':
        test(root, o);
        break;
      default:
        throw new NotApplicable(`Unexpected kind: ${String(getOwn(o, 'op'))}`);
    }
  }
  return root;
}

function stringField(op: JsonObject, f: 'path' | 'from'): string {
  const v = getOwn(op, f);
  if (typeof v !== 'string') throw new NotApplicable(`operation missing ${f} field`);
  return v;
}

/** The operation's value; evanphx treats an absent value as null. */
function valueOf(op: JsonObject): unknown {
  const v = getOwn(op, 'value');
  return v === undefined ? null : cloneJson(v);
}

function decodeToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

function isContainer(v: unknown): v is Container {
  return Array.isArray(v) || isObject(v);
}

/** strconv.Atoi */
function atoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** Index of an existing array element; negative indices count from the end. */
function existingIndex(arr: unknown[], key: string): number {
  let i = atoi(key);
  if (i === undefined) throw new NotApplicable(`invalid index: ${key}`);
  if (i < 0) {
    if (i < -arr.length) throw new NotApplicable(`Unable to access invalid index: ${i}`);
    i += arr.length;
  }
  if (i >= arr.length) throw new NotApplicable(`Unable to access invalid index: ${i}`);
  return i;
}

/** Child for path traversal; null and missing both count as absent (a Go nil node). */
function child(con: Container, key: string): unknown {
  if (Array.isArray(con)) {
    try {
      return con[existingIndex(con, key)];
    } catch {
      return undefined;
    }
  }
  return getOwn(con, key);
}

/** findObject: the container holding the last path segment, or undefined. The first segment is skipped. */
function locate(root: unknown, path: string): { con: Container; key: string } | undefined {
  const parts = path.split('/');
  if (parts.length < 2 || !isContainer(root)) return undefined;
  let cur: Container = root;
  for (const part of parts.slice(1, -1)) {
    const next = child(cur, decodeToken(part));
    if (!isContainer(next)) return undefined;
    cur = next;
  }
  return { con: cur, key: decodeToken(parts[parts.length - 1]) };
}

function mustLocate(root: unknown, path: string): { con: Container; key: string } {
  const loc = locate(root, path);
  if (!loc) throw new NotApplicable(`doc is missing path: ${path}`);
  return loc;
}

function addAt(con: Container, key: string, value: unknown): void {
  if (!Array.isArray(con)) {
    setOwn(con, key, value);
    return;
  }
  if (key === '-') {
    con.push(value);
    return;
  }
  let i = atoi(key);
  if (i === undefined) throw new NotApplicable(`value was not a proper array index: '${key}'`);
  const size = con.length + 1;
  if (i >= size) throw new NotApplicable(`Unable to access invalid index: ${i}`);
  if (i < 0) {
    if (i < -size) throw new NotApplicable(`Unable to access invalid index: ${i}`);
    i += size;
  }
  con.splice(i, 0, value);
}

/** Object: value of the key (undefined when missing, which v4 does not treat as an error); array: must exist. */
function getAt(con: Container, key: string): unknown {
  return Array.isArray(con) ? con[existingIndex(con, key)] : getOwn(con, key);
}

function removeAt(con: Container, key: string): void {
  if (Array.isArray(con)) {
    con.splice(existingIndex(con, key), 1);
    return;
  }
  if (!hasOwn(con, key)) throw new NotApplicable(`Unable to remove nonexistent key: ${key}`);
  delete con[key];
}

function add(root: unknown, path: string, value: unknown): void {
  const { con, key } = mustLocate(root, path);
  addAt(con, key, value);
}

function remove(root: unknown, path: string): void {
  const { con, key } = mustLocate(root, path);
  removeAt(con, key);
}

function replace(root: unknown, op: JsonObject): unknown {
  const path = stringField(op, 'path');
  const value = valueOf(op);
  if (path === '') {
    if (!isContainer(value)) throw new NotApplicable('replace operation value must be object or array');
    return value;
  }
  const { con, key } = mustLocate(root, path);
  if (Array.isArray(con)) con[existingIndex(con, key)] = value;
  else setOwn(con, key, value);
  return root;
}

function move(root: unknown, op: JsonObject): void {
  const from = mustLocate(root, stringField(op, 'from'));
  const value = getAt(from.con, from.key);
  removeAt(from.con, from.key);
  const to = mustLocate(root, stringField(op, 'path'));
  addAt(to.con, to.key, value === undefined ? null : value);
}

function copy(root: unknown, op: JsonObject, copied: { bytes: number }): void {
  const from = mustLocate(root, stringField(op, 'from'));
  const value = getAt(from.con, from.key);
  const to = mustLocate(root, stringField(op, 'path'));
  const dup = value === undefined ? null : cloneJson(value);
  copied.bytes += Buffer.byteLength(JSON.stringify(dup));
  if (copied.bytes > MAX_JSON_PATCH_COPY_BYTES) {
    throw new NotApplicable(
      `Unable to complete the copy, the accumulated size increase of copy is ${copied.bytes}, exceeding the limit ${MAX_JSON_PATCH_COPY_BYTES}`,
    );
  }
  addAt(to.con, to.key, dup);
}

function test(root: unknown, op: JsonObject): void {
  const path = stringField(op, 'path');
  const expected = getOwn(op, 'value');
  if (path === '') {
    if (expected === undefined || !jsonEqual(root, expected)) throw new NotApplicable(`testing value ${path} failed`);
    return;
  }
  const { con, key } = mustLocate(root, path);
  const actual = getAt(con, key);
  if (actual === undefined || actual === null) {
    if (expected === undefined || expected === null) return;
    throw new NotApplicable(`testing value ${path} failed`);
  }
  if (expected === undefined || !jsonEqual(actual, expected)) throw new NotApplicable(`testing value ${path} failed`);
}
