// Matching an unbound claim to an existing PV for one node (component-helpers volume.FindMatchingVolume as the
// scheduler calls it): a PV pre-bound to the claim wins if its node affinity fits; otherwise the smallest Available
// PV of the claim's class that is big enough, has the claim's volume mode and access modes, matches its selector
// and whose node affinity the node satisfies. Pure functions.
import { fromLabelSelector, type LabelSelector } from '../../../machinery/labels.js';
import { claimClass, pvNodeAffinityMatches, storageBytes, volumeClass, type PV, type PVC } from '../../../scheduler/volume-binding/types.js';

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
