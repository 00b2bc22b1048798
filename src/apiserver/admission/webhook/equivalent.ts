// matchPolicy Equivalent: a webhook whose rules name another served version of the request's resource (a CRD's
// v1 when the request is for v2, autoscaling/v1 for an autoscaling/v2 HPA) is called with the request converted
// to that version, as kube's webhook dispatcher converts VersionedAttributes.
import type { KObject } from '../../../api/types.js';
import { clone } from '../../../machinery/object.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceStore } from '../../registry/store.js';
import type { RequestAttributes } from './types.js';

/** The other served versions of the request's group and resource, in the registry's order. */
export function equivalentStores(registry: Registry, from: ResourceStore): ResourceStore[] {
  const d = from.def;
  return registry.all().filter((s) => s !== from && s.def.group === d.group && s.def.plural === d.plural && s.def.kind === d.kind);
}

/** An object of one version as another version of the same resource sees it (through the storage version). */
export function convertObject(obj: KObject | undefined, from: ResourceStore, to: ResourceStore): KObject | undefined {
  if (!obj) return obj;
  let o = clone(obj);
  if (from.def.storedAs) o = from.def.storedAs.toStored(o);
  if (to.def.storedAs) o = to.def.storedAs.fromStored(o);
  o.apiVersion = to.apiVersion;
  o.kind = to.def.kind;
  return o;
}

/** The request as it would be in `to`'s version; requestKind/requestResource keep the original. */
export function convertAttributes(attrs: RequestAttributes, from: ResourceStore, to: ResourceStore): RequestAttributes {
  const d = to.def;
  return {
    ...attrs,
    kind: { group: d.group, version: d.version, kind: attrs.kind.kind },
    resource: { group: d.group, version: d.version, resource: d.plural },
    requestKind: attrs.requestKind ?? attrs.kind,
    requestResource: attrs.requestResource ?? attrs.resource,
    object: convertObject(attrs.object, from, to),
    oldObject: convertObject(attrs.oldObject, from, to),
  };
}
