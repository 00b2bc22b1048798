// Strategic merge patch: lists. Lists whose strategy is "merge" are merged (objects by their merge key, primitives
// as a union), other lists are replaced. Element order follows k8s.io/apimachinery's strategicpatch rules
// (design: "preserve-order-in-strategic-merge-patch"): patch elements keep the patch's relative order, elements
// only on the server keep theirs, and the two are interleaved using the server order, where an element new to the
// list goes before the server-only elements not placed yet (so [a b] + [c] gives [c a b]). $setElementOrder/<field>
// overrides the patch order (and the patch list must follow it).

import type { Schema } from '../schema.js';
import {
  type GoType,
  type JsonObject,
  getOwn,
  goError,
  goType,
  goValue,
  hasOwn,
  isObject,
  patchNotApplicable,
  setOwn,
} from './common.js';
import {
  DIRECTIVE,
  SET_ELEMENT_ORDER,
  type PatchMeta,
  type SmpContext,
  badArgType,
  badPatchType,
  cleanPatchValue,
  directiveTarget,
  goEq,
  lookupMeta,
  noMergeKey,
} from './strategic-meta.js';

/**
 * kube merges lists in place in Go slices: "$patch: delete" shifts the live list's elements left within its backing
 * array and new elements are then appended into the freed tail. The $setElementOrder step afterwards orders
 * elements by the live list *as seen through that shared array* (same length as the live list), so new elements
 * that landed in the tail count as server elements placed after the kept ones. This records that view.
 */
interface BackingArray {
  buf: unknown[];
  n: number;
}

/** mergeSliceHandler: merge when the strategy says so (or for a $deleteFromPrimitiveList list), else replace. */
export function mergeList(
  original: unknown[],
  patch: unknown[],
  meta: PatchMeta,
  isDeleteList: boolean,
  ctx: SmpContext,
  view: BackingArray = { buf: original.slice(), n: original.length },
): unknown[] {
  if (meta.strategy !== 'merge' && !isDeleteList) {
    return cleanPatchValue(patch, meta.schema, ctx.set, 'raw') as unknown[];
  }
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementType([original, patch]);
  const mergeKey = meta.mergeKey;
  let serverOrder = original;
  let patchOrder = patch;
  let merged: unknown[];
  if (kind !== 'map') {
    if (isDeleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    merged = [...new Set([...original, ...patch])];
  } else {
    if (!mergeKey) throw goError('cannot merge lists without merge key for struct');
    let replaced: boolean;
    [serverOrder, patchOrder, replaced] = applyListDirectives(patch, mergeKey, meta.items, ctx, view);
    merged = mergeByKey(serverOrder, patchOrder, mergeKey, meta.items, ctx, replaced ? undefined : view);
  }
  const [patchItems, serverOnly] = partition(merged, patchOrder, mergeKey);
  return normalizeOrder(patchItems, serverOnly, patchOrder, serverOrder, mergeKey, kind);
}

/**
 * $setElementOrder/<field> directives of one map (mergePatchIntoOriginal): merges each such field's patch list
 * into the original and orders the result. Consumes the directives and those lists from `patch`.
 */
export function applyElementOrders(original: JsonObject, patch: JsonObject, sc: Schema | undefined, ctx: SmpContext): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('slice', order);
    const field = directiveTarget(key, SET_ELEMENT_ORDER);
    const foundOriginal = hasOwn(original, field);
    const foundPatch = hasOwn(patch, field);
    const ov = getOwn(original, field);
    const pv = getOwn(patch, field);
    if (foundOriginal && !Array.isArray(ov)) throw badArgType('slice', ov);
    if (foundPatch && !Array.isArray(pv)) throw badArgType('slice', pv);
    const originalList = (ov ?? []) as unknown[];
    const patchList = (pv ?? []) as unknown[];
    const meta = lookupMeta(ctx.set, sc, field);
    validateAgainstOrder(patchList, order, meta.mergeKey);
    let merged: unknown[];
    const view: BackingArray = { buf: originalList.slice(), n: originalList.length };
    if (foundOriginal && foundPatch) merged = mergeList(originalList, patchList, meta, false, ctx, view);
    else if (foundOriginal) merged = originalList;
    else if (foundPatch) merged = cleanPatchValue(patchList, meta.schema, ctx.set, 'new') as unknown[];
    else continue;
    const [patchItems, serverOnly] = partition(merged, order, meta.mergeKey);
    const kind = elementType([originalList, patchList]);
    setOwn(original, field, normalizeOrder(patchItems, serverOnly, order, view.buf, meta.mergeKey, kind));
    delete patch[field];
  }
}

/** sliceElementType: the one Go type of all elements; lists of lists are rejected (422). */
function elementType(lists: unknown[][]): GoType {
  let prev: GoType | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = goType(v);
      if (prev === undefined) {
        if (t === 'slice') throw patchNotApplicable(); // mergepatch.ErrNoListOfLists
        prev = t;
      } else if (prev !== t) {
        throw goError(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  if (prev === undefined) throw goError('no elements in any of the given slices');
  return prev;
}

/**
 * mergeSliceWithSpecialElements: "$patch: delete" elements remove every original element with that merge key,
 * "$patch: replace" discards the original list. Returns the (possibly reduced or replaced) original and the patch
 * elements without directives.
 */
function applyListDirectives(
  patch: unknown[],
  mergeKey: string,
  items: Schema | undefined,
  ctx: SmpContext,
  view: BackingArray,
): [unknown[], unknown[], boolean] {
  const rest: unknown[] = [];
  let replace = false;
  for (const v of patch as JsonObject[]) {
    if (!hasOwn(v, DIRECTIVE)) {
      rest.push(v);
      continue;
    }
    const directive = v[DIRECTIVE];
    if (directive === 'delete') {
      if (!hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
      for (let k = findByKey(view.buf.slice(0, view.n), mergeKey, v[mergeKey]); k >= 0; ) {
        view.buf.copyWithin(k, k + 1, view.n);
        view.n--;
        k = findByKey(view.buf.slice(0, view.n), mergeKey, v[mergeKey]);
      }
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw goError('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, v);
    }
  }
  if (replace) return [rest.map((v) => cleanPatchValue(v, items, ctx.set, 'raw')), [], true];
  return [view.buf.slice(0, view.n), rest, false];
}

function findByKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) throw goError(`value for key ${i} is not a map`);
    if (hasOwn(v, mergeKey) && goEq(v[mergeKey], value)) return i;
  }
  return -1;
}

/** mergeSliceWithoutSpecialElements: merge each patch element into the first original with its key, or append. */
function mergeByKey(
  original: unknown[],
  patch: unknown[],
  mergeKey: string,
  items: Schema | undefined,
  ctx: SmpContext,
  view?: BackingArray,
): unknown[] {
  const out = original.slice();
  for (const v of patch as JsonObject[]) {
    if (!hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    const i = findByKey(out, mergeKey, v[mergeKey]);
    if (i >= 0) out[i] = ctx.mergeMap(out[i] as JsonObject, v, items);
    else {
      const added = cleanPatchValue(v, items, ctx.set, 'raw');
      out.push(added);
      if (view && view.n < view.buf.length) view.buf[view.n++] = added;
    }
  }
  return out;
}

/** Splits `list` into the elements present in `by` and the others (by merge key, or by value for primitives). */
function partition(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inBy: unknown[] = [];
  const others: unknown[] = [];
  if (!mergeKey) {
    const set = new Set(by);
    for (const v of list) (set.has(v) ? inBy : others).push(v);
    return [inBy, others];
  }
  for (const v of list) {
    if (!isObject(v)) throw badArgType('map', v);
    if (!hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (findByKey(by, mergeKey, v[mergeKey]) >= 0 ? inBy : others).push(v);
  }
  return [inBy, others];
}

/** validatePatchWithSetOrderList: the patch list must follow the $setElementOrder list's order. */
function validateAgainstOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? splitDeletions(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isObject(item) && hasOwn(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (sameKey(item, order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw goError(
      `The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(order)}\n`,
    );
  }
}

/** mergeKeyValueEqual */
function sameKey(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return goEq(left, right);
  if (!isObject(left)) throw badArgType('map', left);
  if (!isObject(right)) throw badArgType('map', right);
  if (!hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return goEq(left[mergeKey], right[mergeKey]);
}

/** extractToDeleteItems: [elements, "$patch: delete" elements]. */
function splitDeletions(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const del: unknown[] = [];
  for (const v of list) {
    if (!isObject(v)) throw badArgType('map', v);
    (v[DIRECTIVE] === 'delete' ? del : keep).push(v);
  }
  return [keep, del];
}

/** Position of `item` in `list`, by merge key for maps and by value otherwise; -1 when absent. */
function indexIn(list: unknown[], item: unknown, mergeKey: string, kind: GoType): number {
  const val = (x: unknown): unknown => (kind === 'map' ? (isObject(x) ? getOwn(x, mergeKey) : undefined) : x);
  const target = val(item);
  return list.findIndex((x) => goEq(val(x), target));
}

/** normalizeElementOrder: sort both parts by their reference order, then interleave them by the server order. */
function normalizeOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: GoType,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      out.push(li >= 0 && ri >= 0 && li < ri ? left[i++] : right[j++]);
    }
  }
  return out;
}

/** normalizeSliceOrder: stable sort by position in `order`; "$patch: delete" elements go last. */
function sortByOrder(list: unknown[], order: unknown[], mergeKey: string, kind: GoType): unknown[] {
  let items = list;
  let deletions: unknown[] = [];
  if (kind === 'map') {
    for (const l of [list, order]) {
      for (const v of l) {
        if (!isObject(v)) throw badArgType('map', v);
        if (!hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
      }
    }
    [items, deletions] = splitDeletions(list);
  }
  const keyed = items.map((v, i) => ({ v, i, at: indexIn(order, v, mergeKey, kind) }));
  keyed.sort((a, b) => a.at - b.at || a.i - b.i);
  return [...keyed.map((k) => k.v), ...deletions];
}
