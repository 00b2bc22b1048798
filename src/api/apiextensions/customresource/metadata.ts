// A custom object's metadata is decoded as ObjectMeta (schemaobjectmeta.Coerce): fields ObjectMeta lacks are dropped
// and reported like any other unknown field.
import { isPlainObject } from '../../../machinery/object.js';
import type { KObject } from '../../types.js';

const OBJECT_META_FIELDS = new Set([
  'annotations', 'creationTimestamp', 'deletionGracePeriodSeconds', 'deletionTimestamp', 'finalizers', 'generateName',
  'generation', 'labels', 'managedFields', 'name', 'namespace', 'ownerReferences', 'resourceVersion', 'selfLink', 'uid',
]);

export function pruneRootMetadata(obj: KObject): string[] {
  const m = obj.metadata;
  if (!isPlainObject(m)) return [];
  const pruned: string[] = [];
  for (const k of Object.keys(m)) {
    if (OBJECT_META_FIELDS.has(k)) continue;
    delete m[k];
    pruned.push(`metadata.${k}`);
  }
  return pruned;
}
