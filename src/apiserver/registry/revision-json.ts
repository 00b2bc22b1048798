// The JSON text of a stored revision as clients see it, built from the stored text instead of a JSON.stringify of
// the decoded object. Decoding a revision (ResourceStore.parse) sets apiVersion and kind, which the stored text
// already holds, and adds metadata.resourceVersion; so when the text has both with the store's values and no
// resourceVersion, the object's JSON is the text with `"resourceVersion":"<rev>"` spliced in where kube writes it.
// A watch event per watcher and change then costs a scan of the text up to metadata's end, not a serialisation.

import type { KeyValue } from '../../storage/types.js';
import type { FollowsResourceVersion } from './resource-version-place.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** The index just past the JSON string starting at `i` (its opening quote). */
function skipString(s: string, i: number): number {
  for (let j = i + 1; ; ) {
    const q = s.indexOf('"', j);
    if (q < 0) return -1;
    // a quote preceded by an odd number of backslashes is escaped
    let n = 0;
    for (let k = q - 1; s.charCodeAt(k) === BACKSLASH; k--) n++;
    if (n % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** The index just past the JSON value starting at `i` (compact JSON, as JSON.stringify writes it). */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    let j = i;
    for (let d = s.charCodeAt(j); j < s.length && d !== COMMA && d !== CLOSE_BRACE && d !== CLOSE_BRACKET; d = s.charCodeAt(++j));
    return j;
  }
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const d = s.charCodeAt(j);
    if (d === QUOTE) {
      j = skipString(s, j) - 1;
      if (j < 0) return -1;
    } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
      if (--depth === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * Calls `each(key, valueStart, valueEnd, keyStart)` for the members of the object at `i` until it returns true; the
 * index past the object, or -1.
 */
function members(s: string, i: number, each: (key: string, start: number, end: number, keyStart: number) => boolean): number {
  if (s.charCodeAt(i) !== OPEN_BRACE) return -1;
  let j = i + 1;
  if (s.charCodeAt(j) === CLOSE_BRACE) return j + 1;
  for (;;) {
    if (s.charCodeAt(j) !== QUOTE) return -1;
    const keyEnd = skipString(s, j);
    if (keyEnd < 0 || s.charCodeAt(keyEnd) !== COLON) return -1;
    const start = keyEnd + 1;
    const end = skipValue(s, start);
    if (end < 0) return -1;
    if (each(s.slice(j + 1, keyEnd - 1), start, end, j)) return end;
    const d = s.charCodeAt(end);
    if (d === CLOSE_BRACE) return end + 1;
    if (d !== COMMA) return -1;
    j = end + 1;
  }
}

/**
 * JSON.stringify of the object `kv` decodes to in a store of `apiVersion`/`kind` (its metadata.resourceVersion set
 * to the revision), or undefined when the stored text is not one this splice reproduces exactly.
 */
export function revisionJSON(kv: KeyValue, apiVersion: string, kind: string, follows: FollowsResourceVersion): string | undefined {
  const s = kv.value;
  const wantApiVersion = JSON.stringify(apiVersion);
  const wantKind = JSON.stringify(kind);
  let seen = 0;
  let metaEnd = -1;
  /** the metadata member resourceVersion goes before (-1: last) */
  let before = -1;
  let ok = true;
  members(s, 0, (key, start, end) => {
    if (key === 'apiVersion') {
      ok = s.slice(start, end) === wantApiVersion;
      seen |= 1;
    } else if (key === 'kind') {
      ok = s.slice(start, end) === wantKind;
      seen |= 2;
    } else if (key === 'metadata') {
      // metadata must be an object without resourceVersion (decoding would set it in place, not append it)
      const close = members(s, start, (k, _s, _e, keyStart) => {
        if (k === 'resourceVersion') return true;
        if (before < 0 && follows(k)) before = keyStart;
        return false;
      });
      ok = close === end && s.charCodeAt(end - 1) === CLOSE_BRACE;
      metaEnd = end - 1;
      seen |= 4;
    }
    return !ok || seen === 7;
  });
  if (!ok || seen !== 7) return undefined;
  if (before > 0) return `${s.slice(0, before)}"resourceVersion":"${kv.modRevision}",${s.slice(before)}`;
  const sep = s.charCodeAt(metaEnd - 1) === OPEN_BRACE ? '' : ',';
  return `${s.slice(0, metaEnd)}${sep}"resourceVersion":"${kv.modRevision}"${s.slice(metaEnd)}`;
}
