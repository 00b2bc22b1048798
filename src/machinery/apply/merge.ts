// Merging an applied configuration into a live object (structured-merge-diff typed.Merge with "keep the
// right-hand side" at leaves): scalars and atomic lists/maps are replaced, granular maps merge key by key,
// map lists merge item by item on their keys and sets are unioned, keeping a stable item order.

import { atomFor, fieldType, listItemElement, type Atom, type TypeRef } from './schema.js';
import { clone, isObj, type Obj } from './values.js';
import { serializePathElement } from './path.js';
import type { Schema, SchemaSet } from '../schema.js';

/**
 * Merges `applied` into `live`. Neither input is modified. An explicit null in `applied` removes a scalar or
 * atomic field (Kubernetes turns it into the zero value when converting back to the typed object); for a
 * granular map or list it leaves the live entries in place, as structured-merge-diff does.
 */
export function mergeObjects(live: unknown, applied: unknown, schema: Schema | undefined, set: SchemaSet): Obj {
  const out = mergeValue(live, applied, schema, set);
  return isObj(out) ? out : {};
}

function mergeValue(l: unknown, r: unknown, tr: TypeRef, set: SchemaSet): unknown {
  if (r === undefined) return clone(l);
  const ra = atomFor(tr, set, r);
  if (ra.kind === 'scalar' || ra.atomic) return clone(r);
  if (l !== undefined && l !== null && atomFor(tr, set, l).kind !== ra.kind) return clone(r);
  if (ra.kind === 'map') {
    const lm = isObj(l) ? l : {};
    const rm = isObj(r) ? r : {};
    if (Object.keys(lm).length === 0 && Object.keys(rm).length === 0) return clone(r);
    const out: Obj = {};
    for (const k of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
      if (rm[k] === null) {
        // null clears scalars and atomic values; a granular map or list keeps its live entries.
        const ka = atomFor(fieldType(ra, k), set, null);
        const lv = lm[k];
        const nonEmpty = Array.isArray(lv) ? lv.length > 0 : isObj(lv) && Object.keys(lv).length > 0;
        if (ka.kind !== 'scalar' && !ka.atomic && nonEmpty) out[k] = clone(lv);
        continue;
      }
      const v = mergeValue(lm[k], rm[k], fieldType(ra, k), set);
      if (v !== undefined) out[k] = v;
    }
    return out;
  }
  const ll = Array.isArray(l) ? l : [];
  const rl = Array.isArray(r) ? r : [];
  if (ll.length === 0 && rl.length === 0) return clone(r);
  return mergeList(ra, ll, rl, set);
}

interface Indexed {
  keys: string[];
  /** item by key; null for keys that occur more than once on the live side */
  byKey: Map<string, unknown>;
}

function index(atom: Atom, list: readonly unknown[], set: SchemaSet, side: string): Indexed {
  const keys: string[] = [];
  const byKey = new Map<string, unknown>();
  list.forEach((item, i) => {
    const pe = listItemElement(atom, item, set);
    // Items that cannot be keyed (only possible on the live side) keep their place and never match.
    const k = typeof pe === 'string' ? `#${side}${i}` : serializePathElement(pe);
    byKey.set(k, byKey.has(k) ? null : item);
    keys.push(k);
  });
  return { keys, byKey };
}

/**
 * Item order follows structured-merge-diff: live items keep their relative order, items present on both
 * sides follow the applied order, and new applied items go right after the applied item before them.
 */
function mergeList(atom: Atom, live: readonly unknown[], applied: readonly unknown[], set: SchemaSet): unknown[] {
  const elem = atom.kind === 'list' ? atom.elem : undefined;
  const L = index(atom, live, set, 'l');
  const R = index(atom, applied, set, 'r');
  const out: unknown[] = [];
  const emit = (l: unknown, r: unknown): void => {
    const v = mergeValue(l ?? undefined, r, elem, set);
    if (v !== undefined) out.push(v);
  };
  const shared = R.keys.filter((k) => L.byKey.has(k));
  let si = 0;
  let nextShared: string | undefined = shared[si++];
  const advance = (): void => {
    nextShared = shared[si++];
  };
  const merged = new Set<string>();
  let li = 0;
  let ri = 0;
  while (li < L.keys.length || ri < R.keys.length) {
    if (li < L.keys.length && ri < R.keys.length) {
      const k = L.keys[li];
      if (k === R.keys[ri]) {
        merged.add(k);
        emit(L.byKey.get(k), R.byKey.get(k));
        li++;
        ri++;
        advance();
        continue;
      }
      if (R.byKey.has(k) && nextShared !== undefined && nextShared !== k) {
        li++;
        continue;
      }
    }
    if (li < L.keys.length) {
      const k = L.keys[li];
      if (!R.byKey.has(k)) {
        emit(live[li], undefined);
        li++;
        continue;
      } else if (merged.has(k)) li++;
    }
    if (ri < R.keys.length) {
      const k = R.keys[ri];
      merged.add(k);
      emit(L.byKey.get(k), R.byKey.get(k));
      ri++;
      if (nextShared === k) advance();
    }
  }
  return out;
}
