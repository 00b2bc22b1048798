// The storage objects the volume plugins read (PVC, PV, StorageClass, CSINode) as the shapes they need, the
// lookups the scheduler wires from its informers, and the small rules several plugins share: which claims a pod
// uses (generic ephemeral volumes are claims named <pod>-<volume>), a claim's class, PV node affinity and a
// class's allowedTopologies against a node's labels.
import type { KObject } from '../../api/types.js';
import type { FilterStatus } from '../plugins/filters.js';
import { nodeSelectorTermMatches } from '../../api/core/scheduling-match.js';
import { quantityOf, storageClassOf } from '../../api/core/persistentvolume/util.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass, TopologySelectorTerm } from '../../api/core/persistentvolume/types.js';

export type { ObjectRef, StorageClass, TopologySelectorTerm } from '../../api/core/persistentvolume/types.js';
export type PVC = PersistentVolumeClaim;
export type PV = PersistentVolume;

export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
/** a class with this provisioner never provisions (local volumes are created by hand) */
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';






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

/** GetPersistentVolumeClaimClass / GetPersistentVolumeClass: the beta annotation wins over the field. */
export const claimClass = (pvc: PVC): string => storageClassOf(pvc, pvc.spec?.storageClassName);
export const volumeClass = (pv: PV): string => storageClassOf(pv, pv.spec?.storageClassName);

/** A claim is bound once it names its volume and the PV controller has marked the binding complete. */
export function claimFullyBound(pvc: PVC): boolean {
  return !!pvc.spec?.volumeName && !!pvc.metadata.annotations && ANN_BIND_COMPLETED in pvc.metadata.annotations;
}

/** volume.IsDelayBindingMode: a class that waits for the first consumer (an unknown class does not). */
export function delayBinding(pvc: PVC, lookups: VolumeLookups): boolean {
  const cls = claimClass(pvc);
  if (!cls) return false;
  return lookups.storageClass(cls)?.volumeBindingMode === 'WaitForFirstConsumer';
}

/** volume.CheckNodeAffinity: the PV's required terms against the node's labels only (no fields). */
export function pvNodeAffinityMatches(pv: PV, nodeLabels: Record<string, string>): boolean {
  const req = pv.spec?.nodeAffinity?.required;
  if (!req) return true;
  return (req.nodeSelectorTerms ?? []).some((t) => nodeSelectorTermMatches(t, nodeLabels, ''));
}

/** v1helper.MatchTopologySelectorTerms: no terms match everything; an empty term matches nothing. */
export function topologyTermsMatch(terms: TopologySelectorTerm[] | null | undefined, labels: Record<string, string>): boolean {
  if (!terms?.length) return true;
  return terms.some((t) => {
    const exprs = t.matchLabelExpressions ?? [];
    if (!exprs.length) return false;
    return exprs.every((e) => {
      const v = labels[e.key ?? ''];
      return v !== undefined && (e.values ?? []).includes(v);
    });
  });
}

export function storageBytes(list: Record<string, string> | undefined): number {
  return quantityOf(list?.storage).value();
}

export const pvcKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** A PreFilter rejection: every node gets it and the FitError prints its message alone. */
export function preFilterReject(plugin: string, message: string): FilterStatus {
  return { plugin, code: 'UnschedulableAndUnresolvable', reasons: [message], preFilter: true };
}
