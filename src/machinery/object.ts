// Small helpers over plain JSON objects shared by the API machinery.
import { randomBytes, randomUUID } from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
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
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

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
  const bytes = randomBytes(n);
  let out = '';
  for (let i = 0; i < n; i++) out += nameAlphabet[bytes[i] % nameAlphabet.length];
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
