// ownerReferences helpers shared by the workload controllers (metav1.GetControllerOf, NewControllerRef).
import type { KObject, OwnerReference } from '../../api/types.js';

export type { OwnerReference };

export function ownerReferences(obj: KObject): OwnerReference[] {
  return obj.metadata.ownerReferences ?? [];
}

export function controllerOf(obj: KObject): OwnerReference | undefined {
  return ownerReferences(obj).find((r) => r.controller === true);
}

/** The reference a controller puts on what it creates: controller and blockOwnerDeletion both true. */
export function controllerRef(owner: KObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Index function: the uid of an object's controller, for "objects owned by X" lookups. */
export function controllerUidIndex(obj: KObject): string[] {
  const r = controllerOf(obj);
  return r ? [r.uid] : [];
}

/** Index function: every owner uid. */
export function ownerUidIndex(obj: KObject): string[] {
  return ownerReferences(obj).map((r) => r.uid);
}
