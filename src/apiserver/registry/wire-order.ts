// Objects and lists in the member order kube-apiserver writes them (see machinery/go-order.ts).
import type { KObject } from '../../api/types.js';
import type { GoOrder } from '../../machinery/go-order.js';
import type { ResourceStore } from './store.js';

/** Gives `obj` the members of `ordered` (its own order of them) in that order; the values are not touched. */
export function orderInPlace(obj: KObject, ordered: KObject): void {
  if (ordered === obj) return;
  const o = obj as unknown as Record<string, unknown>;
  for (const k of Object.keys(o)) delete o[k];
  Object.assign(o, ordered);
}

interface List {
  kind: string;
  apiVersion: string;
  metadata: Record<string, unknown>;
  items: KObject[];
}

/**
 * A list of `rs`'s objects as kube writes it: a typed list's items carry no kind and apiVersion (Go encodes the
 * typed items' empty TypeMeta as nothing); a custom resource list is an unstructured map: sorted, its items keep
 * theirs, and its metadata always has `continue` (empty at the list's end).
 */
export function goOrderedList(rs: ResourceStore, order: GoOrder | undefined, list: List): unknown {
  if (!order) return list;
  if (rs.def.custom) {
    const metadata = order.sorted({ continue: '', ...list.metadata });
    return { apiVersion: list.apiVersion, items: list.items.map((i) => rs.goOrdered(i)), kind: list.kind, metadata };
  }
  const items = list.items.map((i) => {
    const { kind: _k, apiVersion: _a, ...rest } = rs.goOrdered(i) as unknown as Record<string, unknown>;
    return rest;
  });
  return { kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata, items };
}
