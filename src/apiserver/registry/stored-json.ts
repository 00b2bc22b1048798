// The JSON text of an object the store has just written, for the response. The stored text is that object less
// metadata.resourceVersion, which create appends as metadata's last key once the write has committed; so the
// response is the stored text with the revision spliced in, not a second JSON.stringify of the whole object
// (for a 2-3 KB pod, each costs as much as the rest of the response).

import type { KObject } from '../../api/types.js';

interface Stored {
  text: string;
  /** index of the `}` that closes metadata in `text` */
  metaEnd: number;
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
export function encodeRemembered(obj: KObject): string {
  const o = obj as unknown as Record<string, unknown>;
  let text = '{';
  let metaEnd = -1;
  for (const k of Object.keys(o)) {
    const v = JSON.stringify(o[k]);
    if (v === undefined) continue; // as JSON.stringify skips undefined members
    if (text.length > 1) text += ',';
    text += JSON.stringify(k) + ':';
    if (k === 'metadata') metaEnd = text.length + v.length - 1;
    text += v;
  }
  text += '}';
  if (metaEnd > 0 && text.charCodeAt(metaEnd) === 0x7d && !Object.prototype.hasOwnProperty.call(obj.metadata, 'resourceVersion')) {
    if (stored.size >= MAX_STORED) stored.delete(stored.keys().next().value!);
    stored.set(obj, { text, metaEnd });
  }
  return text;
}

/** JSON.stringify(v), from the stored text when `v` is an object encodeRemembered wrote and then only got its revision. */
export function jsonOf(v: unknown): string {
  const s = typeof v === 'object' && v !== null ? stored.get(v) : undefined;
  if (s) {
    stored.delete(v!);
    const meta = (v as KObject).metadata as Record<string, unknown>;
    const rv = meta.resourceVersion;
    const keys = Object.keys(meta);
    if (typeof rv === 'string' && keys[keys.length - 1] === 'resourceVersion') {
      const sep = s.text.charCodeAt(s.metaEnd - 1) === 0x7b ? '' : ','; // `{}` before: no comma
      return s.text.slice(0, s.metaEnd) + sep + '"resourceVersion":' + JSON.stringify(rv) + s.text.slice(s.metaEnd);
    }
  }
  return JSON.stringify(v);
}
