// The JSON text of an object the store has just written, for the response. The stored text is that object less
// metadata.resourceVersion, which create appends as metadata's last key once the write has committed; so the
// response is the stored text with the revision spliced in where kube writes it, not a second JSON.stringify of
// the whole object (for a 2-3 KB pod, each costs as much as the rest of the response).

import type { KObject } from '../../api/types.js';
import type { FollowsResourceVersion } from './resource-version-place.js';

interface Stored {
  text: string;
  /** where `"resourceVersion":…` goes in `text`: before the metadata member at this index, or before metadata's `}` */
  at: number;
  /** true when `at` is metadata's closing brace */
  atEnd: boolean;
  /** how many members metadata had */
  metaKeys: number;
}

/**
 * The texts of the objects encodeRemembered wrote, until their response takes them (jsonOf, once). Not a WeakMap:
 * the object lives on as the key's kept revision, and so would its text, copied into the old generation at every
 * create; entries a response never takes (a create that failed) are dropped oldest first.
 */
const stored = new Map<object, Stored>();
const MAX_STORED = 1024;

/**
 * JSON.stringify(obj), written key by key to learn where metadata ends; remembered for jsonOf. Only for an object
 * nobody changes afterwards except by adding metadata.resourceVersion (a create's read-only result).
 */
export function encodeRemembered(obj: KObject, follows: FollowsResourceVersion): string {
  const o = obj as unknown as Record<string, unknown>;
  let text = '{';
  let at = -1;
  let atEnd = false;
  let metaKeys = 0;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (k === 'metadata' && typeof v === 'object' && v !== null && !Array.isArray(v)) {
      if (text.length > 1) text += ',';
      text += '"metadata":{';
      const m = v as Record<string, unknown>;
      let first = true;
      for (const mk of Object.keys(m)) {
        const mv = JSON.stringify(m[mk]);
        if (mv === undefined) continue;
        metaKeys++;
        if (!first) text += ',';
        if (at < 0 && follows(mk)) at = text.length;
        text += JSON.stringify(mk) + ':' + mv;
        first = false;
      }
      if (at < 0) {
        at = text.length;
        atEnd = true;
      }
      text += '}';
      continue;
    }
    const t = JSON.stringify(v);
    if (t === undefined) continue; // as JSON.stringify skips undefined members
    if (text.length > 1) text += ',';
    text += JSON.stringify(k) + ':' + t;
  }
  text += '}';
  if (at > 0 && !Object.prototype.hasOwnProperty.call(obj.metadata, 'resourceVersion')) {
    if (stored.size >= MAX_STORED) stored.delete(stored.keys().next().value!);
    stored.set(obj, { text, at, atEnd, metaKeys });
  }
  return text;
}

/**
 * JSON.stringify(v), from the stored text when `v` is an object encodeRemembered wrote and then only got its
 * revision; else of `order(v)` (the member order kube writes).
 */
export function jsonOf(v: unknown, order: (v: unknown) => unknown = (x) => x): string {
  const s = typeof v === 'object' && v !== null ? stored.get(v) : undefined;
  if (s) {
    stored.delete(v!);
    const meta = (v as KObject).metadata as Record<string, unknown>;
    const rv = meta.resourceVersion;
    // nothing but resourceVersion added since (appended, or put in its place by a watcher's decode)
    let n = 0;
    for (const k in meta) if (meta[k] !== undefined) n++;
    if (typeof rv === 'string' && n === s.metaKeys + 1) {
      const member = '"resourceVersion":' + JSON.stringify(rv);
      if (!s.atEnd) return s.text.slice(0, s.at) + member + ',' + s.text.slice(s.at);
      const sep = s.text.charCodeAt(s.at - 1) === 0x7b ? '' : ','; // `{}` before: no comma
      return s.text.slice(0, s.at) + sep + member + s.text.slice(s.at);
    }
  }
  return JSON.stringify(order(v));
}
