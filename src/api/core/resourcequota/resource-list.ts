// ResourceList arithmetic of k8s.io/apiserver/pkg/quota/v1 (Add, Subtract, Mask, LessThanOrEqual, prettyPrint)
// over plain JSON resource lists (name → quantity string), shared by the quota controller and quota admission.
import { Quantity } from '../../../machinery/quantity.js';

export type ResourceList = Record<string, string>;

export function q(v: unknown): Quantity {
  try {
    return Quantity.fromJSON(v ?? '0');
  } catch {
    return Quantity.fromInt(0);
  }
}

/** A plain list from any stored resource list (values may be numbers or strings). */
export function toList(raw: unknown): ResourceList {
  const out: ResourceList = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k] = q(v).toString();
  return out;
}

export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? q(out[k]).add(q(v)).toString() : v;
  return out;
}

/** a - b over the names of a; with nonNegative, results below zero become 0 (SubtractWithNonNegativeResult). */
export function subtract(a: ResourceList, b: ResourceList, opts: { nonNegative?: boolean } = {}): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    let d = k in b ? q(v).sub(q(b[k])) : q(v);
    if (opts.nonNegative && d.sign() < 0) d = Quantity.fromInt(0);
    out[k] = d.toString();
  }
  return out;
}

export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {};
  for (const n of names) if (n in list) out[n] = list[n];
  return out;
}

export function names(list: ResourceList): string[] {
  return Object.keys(list);
}

export function equals(a: ResourceList, b: ResourceList): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => k in b && q(a[k]).cmp(q(b[k])) === 0);
}

/** The names whose value in `a` exceeds `b` (names missing from b are not compared). */
export function exceeded(a: ResourceList, b: ResourceList): string[] {
  return Object.keys(a).filter((k) => k in b && q(a[k]).cmp(q(b[k])) > 0);
}

export function isZero(list: ResourceList): boolean {
  return Object.values(list).every((v) => q(v).isZero());
}

/** "a=1,b=2" in name order, as the quota admission messages print lists. */
export function prettyPrint(list: ResourceList): string {
  return Object.keys(list)
    .sort()
    .map((k) => `${k}=${list[k]}`)
    .join(',');
}

/** Element-wise maximum (maxResourceList). */
export function max(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) if (!(k in out) || q(v).cmp(q(out[k])) > 0) out[k] = v;
  return out;
}

/** A list with every value written in canonical form (what the API server stores). */
export function canonical(list: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(list)) out[k] = q(v).canonical();
  return out;
}
