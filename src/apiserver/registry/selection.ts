// Label and field selectors for list and watch, checked against the kind's selectable fields.
import type { KObject, ResourceDefinition } from '../../api/types.js';
import { parseSelector } from '../../machinery/labels.js';
import { parseFieldSelector, checkFieldSelectorFields } from '../../machinery/fields.js';

export interface Predicate {
  /** true when neither selector restricts anything */
  empty: boolean;
  /** the one name a `metadata.name=` field selector allows (SelectionPredicate.MatchesSingle) */
  singleName?: string;
  /** a field the selector pins to one value (`spec.nodeName=X`), by which a watch can be indexed */
  trigger?: { field: string; value: string };
  matches(obj: KObject): boolean;
}

export function selectableFieldNames(def: ResourceDefinition): string[] {
  const names = ['metadata.name'];
  if (def.namespaced) names.push('metadata.namespace');
  return [...names, ...Object.keys(def.selectableFields ?? {})];
}

// Objects handed to watchers are shared and never modified (decodeShared), so one computation serves every watcher
// of a change (e.g. one spec.nodeName watch per kubelet). A memo table, not state: it holds nothing a caller sees.
const fieldMemo = new WeakMap<ResourceDefinition, WeakMap<KObject, Record<string, string>>>();

export function fieldsOf(def: ResourceDefinition, obj: KObject): Record<string, string> {
  let memo = fieldMemo.get(def);
  if (!memo) fieldMemo.set(def, (memo = new WeakMap()));
  let f = memo.get(obj);
  if (!f) memo.set(obj, (f = computeFields(def, obj)));
  return f;
}

function computeFields(def: ResourceDefinition, obj: KObject): Record<string, string> {
  const f: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
  if (def.namespaced) f['metadata.namespace'] = obj.metadata.namespace ?? '';
  for (const [k, fn] of Object.entries(def.selectableFields ?? {})) f[k] = fn(obj) ?? '';
  return f;
}

export function makePredicate(def: ResourceDefinition, labelSelector?: string, fieldSelector?: string): Predicate {
  const ls = labelSelector ? parseSelector(labelSelector) : undefined;
  const fs = fieldSelector ? parseFieldSelector(fieldSelector) : undefined;
  if (fs) checkFieldSelectorFields(fs, selectableFieldNames(def), { group: def.group, version: def.version, resource: def.plural }, labelSelector ?? '', fieldSelector ?? '');
  const lsEmpty = !ls || ls.empty;
  const fsEmpty = !fs || fs.empty;
  if (lsEmpty && fsEmpty) return { empty: true, matches: () => true };
  return {
    empty: false,
    singleName: fs?.requiresExactMatch('metadata.name'),
    trigger: fs ? exactField(def, fs) : undefined,
    matches(obj) {
      if (!lsEmpty && !ls!.matches(obj.metadata.labels ?? {})) return false;
      if (!fsEmpty && !fs!.matches(fieldsOf(def, obj))) return false;
      return true;
    },
  };
}

/** The kind's own selectable fields first (spec.nodeName for pods), then metadata.name. */
function exactField(def: ResourceDefinition, fs: { requiresExactMatch(field: string): string | undefined }): Predicate['trigger'] {
  for (const field of [...Object.keys(def.selectableFields ?? {}), 'metadata.name']) {
    const value = fs.requiresExactMatch(field);
    if (value !== undefined) return { field, value };
  }
  return undefined;
}
