// Matching an unbound claim to an existing PV for one node (component-helpers volume.FindMatchingVolume as the
// scheduler calls it): a PV pre-bound to the claim wins if its node affinity fits; otherwise the smallest Available
// PV of the claim's class that is big enough, has the claim's volume mode and access modes, matches its selector
// and whose node affinity the node satisfies; with the binding annotations and class and affinity rules the PV
// controller and the scheduler's volume plugins share. Pure functions.
import { fromLabelSelector, type LabelSelector } from '../../../machinery/labels.js';
import { nodeSelectorTermMatches } from '../scheduling-match.js';
import { quantityOf, storageClassOf } from './util.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass, TopologySelectorTerm } from './types.js';

export type { StorageClass } from './types.js';
export type PVC = PersistentVolumeClaim;
export type PV = PersistentVolume;

export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
/** a class with this provisioner never provisions (local volumes are created by hand) */
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';

/** GetPersistentVolumeClaimClass / GetPersistentVolumeClass: the beta annotation wins over the field. */
export const claimClass = (pvc: PVC): string => storageClassOf(pvc, pvc.spec?.storageClassName);
export const volumeClass = (pv: PV): string => storageClassOf(pv, pv.spec?.storageClassName);

/** A claim is bound once it names its volume and the PV controller has marked the binding complete. */
export function claimFullyBound(pvc: PVC): boolean {
  return !!pvc.spec?.volumeName && !!pvc.metadata.annotations && ANN_BIND_COMPLETED in pvc.metadata.annotations;
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

/** IsVolumeBoundToClaim: the PV's claimRef names the claim (and its uid when the ref has one). */
export function volumeBoundToClaim(pv: PV, pvc: PVC): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== pvc.metadata.name || ref.namespace !== pvc.metadata.namespace) return false;
  return !ref.uid || ref.uid === pvc.metadata.uid;
}

/** Every access mode the claim asks for is offered by the PV. */
export function accessModesSatisfied(pvc: PVC, pv: PV): boolean {
  const offered = new Set(pv.spec?.accessModes ?? []);
  return (pvc.spec?.accessModes ?? []).every((m) => offered.has(m));
}

const modeOf = (m: string | undefined) => m || 'Filesystem';

function claimSelector(pvc: PVC): LabelSelector | undefined | 'invalid' {
  const sel = pvc.spec?.selector;
  if (!sel) return undefined;
  try {
    return fromLabelSelector(sel);
  } catch {
    return 'invalid';
  }
}

/**
 * The PV `pvc` would bind to on a node with `nodeLabels`, skipping `excluded` (PVs already chosen for the pod's
 * other claims); undefined when none fits.
 */
export function findMatchingVolume(pvc: PVC, pvs: PV[], nodeLabels: Record<string, string>, excluded: ReadonlySet<string>): PV | undefined {
  const requested = storageBytes(pvc.spec?.resources?.requests);
  const cls = claimClass(pvc);
  const selector = claimSelector(pvc);
  if (selector === 'invalid') return undefined;
  let best: PV | undefined;
  let bestSize = 0;
  for (const pv of pvs) {
    const name = pv.metadata.name!;
    if (excluded.has(name)) continue;
    const bound = volumeBoundToClaim(pv, pvc);
    if (pv.spec?.claimRef && !bound) continue;
    const size = storageBytes(pv.spec?.capacity);
    if (size < requested) continue;
    if (modeOf(pvc.spec?.volumeMode) !== modeOf(pv.spec?.volumeMode)) continue;
    if (pv.metadata.deletionTimestamp) continue;
    const affinityOk = pvNodeAffinityMatches(pv, nodeLabels);
    // a PV pre-bound to this claim is the only candidate: it fits this node or nothing does
    if (bound) return affinityOk ? pv : undefined;
    if (pv.status?.phase !== 'Available') continue;
    if (selector && !selector.matches(pv.metadata.labels ?? {})) continue;
    if (volumeClass(pv) !== cls) continue;
    if (!affinityOk || !accessModesSatisfied(pvc, pv)) continue;
    if (!best || size < bestSize) {
      best = pv;
      bestSize = size;
    }
  }
  return best;
}

/** Claims in ascending order of requested storage (byPVCSize), so small claims do not take big PVs first. */
export function bySize(claims: PVC[]): PVC[] {
  return claims
    .map((c, i) => ({ c, i, s: storageBytes(c.spec?.resources?.requests) }))
    .sort((a, b) => a.s - b.s || a.i - b.i)
    .map((x) => x.c);
}
