// NodeVolumeLimits (kube-scheduler 1.33's CSI limits): each CSI driver on a node may attach at most the
// `allocatable.count` its CSINode entry declares. The pod's new CSI volumes (bound PVs with spec.csi, unbound claims
// counted against their class's provisioner, inline CSI volumes) plus the distinct ones already used by the node's
// pods must stay within that count; a volume shared with a pod already there is counted once.
import type { KObject } from '../../api/types.js';
import type { FilterStatus, PodInfo } from './pod-info.js';
import type { NodeInfo } from '../node-info.js';
import { claimClass, podClaims, type CSINode, type VolumeLookups } from '../volume-binding/types.js';

export const NODE_VOLUME_LIMITS = 'NodeVolumeLimits';
export const REASON_MAX_VOLUME_COUNT = 'node(s) exceed max volume count';

/** The per-driver limits a CSINode declares (getVolumeLimits). */
export function csiLimits(csiNode: CSINode | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of csiNode?.spec?.drivers ?? []) {
    const count = d.allocatable?.count;
    if (d.name && typeof count === 'number') out.set(d.name, count);
  }
  return out;
}

/**
 * The CSI volumes `pod` uses as unique name → driver (filterAttachableVolumes). A missing claim is an error for the
 * incoming pod (returned as its name) and ignored for pods already placed.
 */
export function attachableVolumes(pod: KObject, lookups: VolumeLookups, out: Map<string, string>): { missing?: string } {
  const ns = pod.metadata.namespace ?? '';
  const vols = ((pod as { spec?: { volumes?: { name?: string; csi?: { driver?: string } }[] } }).spec?.volumes ?? []);
  for (const v of vols) {
    if (v.csi?.driver) out.set(`${v.csi.driver}/${pod.metadata.uid ?? pod.metadata.name}-${v.name}`, v.csi.driver);
  }
  for (const claim of podClaims(pod)) {
    const pvc = lookups.pvc(ns, claim.name);
    if (!pvc) {
      if (!claim.ephemeral) return { missing: claim.name };
      continue;
    }
    const pv = pvc.spec?.volumeName ? lookups.pv(pvc.spec.volumeName) : undefined;
    if (pv) {
      const csi = pv.spec?.csi;
      if (csi?.driver && csi.volumeHandle) out.set(`${csi.driver}/${csi.volumeHandle}`, csi.driver);
      continue;
    }
    // not provisioned yet: count it against the class's provisioner under a placeholder handle
    const cls = claimClass(pvc);
    const provisioner = cls ? lookups.storageClass(cls)?.provisioner : undefined;
    if (provisioner) out.set(`${provisioner}/unbound-${ns}/${claim.name}`, provisioner);
  }
  return {};
}

export function nodeVolumeLimitsFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  const lookups = ni.cluster?.lookups.volumes;
  if (!lookups) return undefined;
  const fresh = new Map<string, string>();
  const { missing } = attachableVolumes(p.pod, lookups, fresh);
  if (missing) return { plugin: NODE_VOLUME_LIMITS, code: 'UnschedulableAndUnresolvable', reasons: [`persistentvolumeclaim "${missing}" not found`] };
  if (!fresh.size) return undefined;
  const limits = csiLimits(lookups.csiNode(ni.name));
  if (!limits.size) return undefined;
  const attached = new Map<string, string>();
  for (const e of ni.pods.values()) attachableVolumes(e.pod, lookups, attached);
  const used = new Map<string, number>();
  for (const [unique, driver] of attached) {
    fresh.delete(unique);
    used.set(driver, (used.get(driver) ?? 0) + 1);
  }
  const wanted = new Map<string, number>();
  for (const driver of fresh.values()) wanted.set(driver, (wanted.get(driver) ?? 0) + 1);
  for (const [driver, n] of wanted) {
    const max = limits.get(driver);
    if (max !== undefined && (used.get(driver) ?? 0) + n > max) {
      return { plugin: NODE_VOLUME_LIMITS, code: 'Unschedulable', reasons: [REASON_MAX_VOLUME_COUNT] };
    }
  }
  return undefined;
}
