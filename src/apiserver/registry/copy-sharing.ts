// Copies that share a stored revision's values instead of copying them. A stored revision's decoded objects are
// read-only plain JSON, so what a written object took over from the revision it replaces (a status update's spec,
// the labels) need not be copied for watchers, and is copied only for a caller that may change its result.
import type { KObject } from '../../api/types.js';
import { clone, isPlainObject } from '../../machinery/object.js';

/**
 * A deep copy of `obj` (as clone gives) in which the top-level and metadata values that are `current`'s own objects
 * (a status update's spec, labels, owner references) are shared instead: they belong to a stored revision, so they
 * are plain JSON already and nobody changes them. Undefined when `obj` has a key a plain copy cannot take over.
 */
export function copySharing(obj: KObject, current: KObject): KObject | undefined {
  const meta = obj.metadata as unknown as Record<string, unknown>;
  if (!isPlainObject(meta)) return undefined;
  const out = copyLevel(obj as unknown as Record<string, unknown>, current as unknown as Record<string, unknown>, 'metadata');
  const m = out && copyLevel(meta, current.metadata as unknown as Record<string, unknown>);
  if (!out || !m) return undefined;
  out.metadata = m;
  return out as unknown as KObject;
}

/** One level of copySharing; the key `skip` is left for the caller. */
function copyLevel(src: Record<string, unknown>, shared: Record<string, unknown>, skip?: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const k in src) {
    if (!Object.prototype.hasOwnProperty.call(src, k)) continue;
    const v = src[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue; // JSON drops these
    if (k === '__proto__') return undefined; // JSON.parse makes it an own key, an assignment the prototype
    if (k === skip) out[k] = undefined; // the key's place
    else out[k] = typeof v === 'object' && v !== null && v === shared[k] ? v : clone(v);
  }
  return out;
}

/** `obj` with copies of the top-level and metadata values it shares with `current` (read-only ones). */
export function unshare(obj: KObject, current: KObject): KObject {
  unshareLevel(obj as unknown as Record<string, unknown>, current as unknown as Record<string, unknown>);
  const meta = obj.metadata as unknown as Record<string, unknown>;
  const cm = current.metadata as unknown as Record<string, unknown>;
  if (isPlainObject(meta) && isPlainObject(cm)) unshareLevel(meta, cm);
  return obj;
}

function unshareLevel(o: Record<string, unknown>, cur: Record<string, unknown>): void {
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'object' && v !== null && v === cur[k] && Object.prototype.hasOwnProperty.call(o, k)) o[k] = clone(v);
  }
}
