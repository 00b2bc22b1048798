// The storage objects the volume plugins read (CSINode beside the PV/PVC shapes of the API), the lookups the
// scheduler wires from its informers, and the small rules several plugins share: which claims a pod uses (generic
// ephemeral volumes are claims named <pod>-<volume>) and whether its class delays binding.
import type { KObject } from '../../api/types.js';
import type { FilterStatus } from '../plugins/pod-info.js';
import { claimClass, type PV, type PVC, type StorageClass } from '../../api/core/persistentvolume/matching.js';

export type { ObjectRef, StorageClass, TopologySelectorTerm } from '../../api/core/persistentvolume/types.js';
// the PV/PVC rules the PV controller shares with the volume plugins live with the kinds
export {
  ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, NOT_SUPPORTED_PROVISIONER,
  claimClass, claimFullyBound, pvNodeAffinityMatches, storageBytes, topologyTermsMatch, volumeClass, type PV, type PVC,
} from '../../api/core/persistentvolume/matching.js';

export type CSINode = KObject & { spec?: { drivers?: { name?: string; allocatable?: { count?: number | null } | null }[] | null } };

/** What the volume plugins read of the cluster; the binder's view includes PVs and PVCs assumed in memory. */
export interface VolumeLookups {
  pvc(namespace: string, name: string): PVC | undefined;
  pv(name: string): PV | undefined;
  /** PVs of one storage class ("" for none) */
  pvsOfClass(className: string): PV[];
  storageClass(name: string): StorageClass | undefined;
  csiNode(name: string): CSINode | undefined;
}

export interface PodClaim {
  /** the PVC's name */
  name: string;
  /** a generic ephemeral volume (its PVC is created by the ephemeral volume controller) */
  ephemeral: boolean;
}

interface VolumeShape {
  name?: string;
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean };
  ephemeral?: unknown;
}

/** The claims a pod's volumes use, in volume order. */
export function podClaims(pod: KObject): PodClaim[] {
  const vols = ((pod as { spec?: { volumes?: VolumeShape[] } }).spec?.volumes ?? []) as VolumeShape[];
  const out: PodClaim[] = [];
  for (const v of vols) {
    if (v.persistentVolumeClaim) out.push({ name: v.persistentVolumeClaim.claimName ?? '', ephemeral: false });
    else if (v.ephemeral) out.push({ name: `${pod.metadata.name}-${v.name}`, ephemeral: true });
  }
  return out;
}

/**
 * Whether any volume plugin has something to check for the pod: claims (incl. generic ephemeral), inline CSI volumes
 * or the disks VolumeRestrictions compares. Otherwise their PreFilters all return Skip, as kube's do.
 */
export function usesVolumes(pod: KObject): boolean {
  const vols = ((pod as { spec?: { volumes?: Record<string, unknown>[] } }).spec?.volumes ?? []);
  return vols.some((v) => v.persistentVolumeClaim || v.ephemeral || v.csi || v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi);
}

/** volume.IsDelayBindingMode: a class that waits for the first consumer (an unknown class does not). */
export function delayBinding(pvc: PVC, lookups: VolumeLookups): boolean {
  const cls = claimClass(pvc);
  if (!cls) return false;
  return lookups.storageClass(cls)?.volumeBindingMode === 'WaitForFirstConsumer';
}

export const pvcKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** A PreFilter rejection: every node gets it and the FitError prints its message alone. */
export function preFilterReject(plugin: string, message: string): FilterStatus {
  return { plugin, code: 'UnschedulableAndUnresolvable', reasons: [message], preFilter: true };
}
