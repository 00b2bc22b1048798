// Small helpers over plain JSON objects shared by the API machinery.
import { randomUUID } from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy with JSON semantics (as JSON.parse(JSON.stringify(v))). */
export function clone<T>(v: T): T {
  if (v === undefined) return v;
  const copy = copyJson(v, 0);
  return (copy === NOT_PLAIN ? JSON.parse(JSON.stringify(v)) : copy) as T;
}

// Plain JSON data (what JSON.parse made, the usual input) is copied directly, several times faster than a JSON
// round trip; anything a round trip would change or reject (undefined in arrays, NaN, -0, Dates, class
// instances, toJSON, "__proto__" keys, very deep or cyclic values) takes the round trip instead.
const NOT_PLAIN = Symbol('not plain JSON');

function copyJson(v: unknown, depth: number): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : NOT_PLAIN;
  if (typeof v !== 'object' || depth > 100 || 'toJSON' in v) return NOT_PLAIN;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const c = copyJson(v[i], depth + 1);
      if (c === NOT_PLAIN) return NOT_PLAIN;
      out[i] = c;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const k in v) {
    if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue; // JSON drops these
    if (k === '__proto__') return NOT_PLAIN;
    const c = copyJson(x, depth + 1);
    if (c === NOT_PLAIN) return NOT_PLAIN;
    out[k] = c;
  }
  return out;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => deepEqual(ao[k], bo[k]));
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function rfc3339(ms: number = Date.now()): string {
  // the text of the second last asked for: a create asks three times (creation, pod start condition, managedFields)
  const sec = Math.floor(ms / 1000);
  if (sec === lastSecond) return lastText;
  const iso = new Date(ms).toISOString();
  // Cutting the fraction off "YYYY-MM-DDTHH:MM:SS.sssZ" floors to the second; other shapes (years past 9999) take the long way.
  const text = iso.length === 24 ? `${iso.slice(0, 19)}Z` : new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
  lastSecond = sec;
  lastText = text;
  return text;
}
let lastSecond = NaN;
let lastText = '';

/** RFC 3339 with microseconds, as metav1.MicroTime serialises. */
export function rfc3339Micro(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function newUid(): string {
  return randomUUID();
}

// The alphabet apiserver's names.SimpleNameGenerator uses: no vowels, no confusable characters.
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(n = 5): string {
  // math/rand, as apiserver's utilrand.String: names need no cryptographic randomness, and a small
  // crypto.randomBytes per name (every generateName and every pod's token volume) cost more than the rest of it
  let out = '';
  for (let i = 0; i < n; i++) out += nameAlphabet[Math.floor(Math.random() * nameAlphabet.length)];
  return out;
}

/** generateName + random suffix, trimmed so the result fits in 63 characters as Kubernetes does. */
export function generateName(base: string): string {
  const maxGeneratedNameLength = 63 - 5;
  const b = base.length > maxGeneratedNameLength ? base.slice(0, maxGeneratedNameLength) : base;
  return b + randomSuffix(5);
}

/** Reads a dotted path such as "spec.nodeName" from an object. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}
