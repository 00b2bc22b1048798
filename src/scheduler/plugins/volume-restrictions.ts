// VolumeRestrictions (kube-scheduler 1.33). Disk conflicts: the same GCE PD (unless every mount is read-only), AWS
// EBS volume, RBD image (shared monitor, same pool and image, unless all read-only) or iSCSI IQN (unless all
// read-only) cannot be used by two pods on one node. ReadWriteOncePod: a claim with that access mode used by any pod
// in the cluster makes the pod unschedulable everywhere (Unschedulable, so preemption may evict the user: in its dry
// run the node's own pods are counted from the trimmed node, which is kube's AddPod/RemovePod nuance).
import type { KObject } from '../../api/types.js';
import type { FilterStatus, PodInfo } from './pod-info.js';
import type { NodeInfo } from '../node-info.js';
import { podClaims, preFilterReject, pvcKey } from '../volume-binding/types.js';

export const VOLUME_RESTRICTIONS = 'VolumeRestrictions';
export const REASON_DISK_CONFLICT = 'node(s) had no available disk';
export const REASON_RWOP_CONFLICT = 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';

interface DiskVolume {
  gcePersistentDisk?: { pdName?: string; readOnly?: boolean };
  awsElasticBlockStore?: { volumeID?: string };
  rbd?: { monitors?: string[]; pool?: string; image?: string; readOnly?: boolean };
  iscsi?: { iqn?: string; readOnly?: boolean };
  persistentVolumeClaim?: { claimName?: string };
}

const volumesOf = (pod: KObject): DiskVolume[] => ((pod as { spec?: { volumes?: DiskVolume[] } }).spec?.volumes ?? []) as DiskVolume[];
const hasDisk = (v: DiskVolume) => !!(v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi);

/** isVolumeConflict: `v` of the incoming pod against every volume of an existing pod. */
export function diskConflict(v: DiskVolume, existing: KObject): boolean {
  if (!hasDisk(v)) return false;
  for (const e of volumesOf(existing)) {
    const g = v.gcePersistentDisk;
    const eg = e.gcePersistentDisk;
    if (g && eg && g.pdName === eg.pdName && !(g.readOnly && eg.readOnly)) return true;
    if (v.awsElasticBlockStore && e.awsElasticBlockStore && v.awsElasticBlockStore.volumeID === e.awsElasticBlockStore.volumeID) return true;
    const i = v.iscsi;
    const ei = e.iscsi;
    if (i && ei && i.iqn === ei.iqn && !(i.readOnly && ei.readOnly)) return true;
    const r = v.rbd;
    const er = e.rbd;
    if (r && er && (r.monitors ?? []).some((m) => (er.monitors ?? []).includes(m)) && (r.pool || 'rbd') === (er.pool || 'rbd') && r.image === er.image && !(r.readOnly && er.readOnly)) {
      return true;
    }
  }
  return false;
}

interface RestrictionState {
  rejected?: FilterStatus;
  disks: DiskVolume[];
  /** keys ("ns/name") of the pod's ReadWriteOncePod claims */
  rwop: string[];
  /** per node, how many of its pods use one of those claims */
  usersByNode?: Map<string, number>;
  totalUsers: number;
}

const STATE_KEY = 'VolumeRestrictions';

function podUses(pod: KObject, keys: string[]): boolean {
  const ns = pod.metadata.namespace ?? '';
  return podClaims(pod).some((c) => keys.includes(pvcKey(ns, c.name)));
}

function computeState(p: PodInfo, ni: NodeInfo): RestrictionState {
  const st: RestrictionState = { disks: (p.spec.volumes as DiskVolume[]).filter(hasDisk), rwop: [], totalUsers: 0 };
  const lookups = ni.cluster?.lookups.volumes;
  if (!lookups) return st;
  const ns = p.pod.metadata.namespace ?? '';
  // only persistentVolumeClaim volumes (readWriteOncePodPVCsForPod); a missing claim can never be resolved here
  for (const v of p.spec.volumes as DiskVolume[]) {
    const name = v.persistentVolumeClaim?.claimName;
    if (name === undefined) continue;
    const pvc = lookups.pvc(ns, name);
    if (!pvc) return { ...st, rejected: preFilterReject(VOLUME_RESTRICTIONS, `persistentvolumeclaim "${name}" not found`) };
    if (pvc.spec?.accessModes?.includes('ReadWriteOncePod')) st.rwop.push(pvcKey(ns, name));
  }
  if (st.rwop.length && ni.cluster) {
    st.usersByNode = new Map();
    for (const n of ni.cluster.nodes()) {
      let count = 0;
      for (const e of n.pods.values()) if (podUses(e.pod, st.rwop)) count++;
      if (count) st.usersByNode.set(n.name, count);
      st.totalUsers += count;
    }
  }
  return st;
}

function stateOf(p: PodInfo, ni: NodeInfo): RestrictionState {
  let st = p.cycle.get(STATE_KEY) as RestrictionState | undefined;
  if (!st) p.cycle.set(STATE_KEY, (st = computeState(p, ni)));
  return st;
}

export function volumeRestrictionsPreFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  return stateOf(p, ni).rejected;
}

export function volumeRestrictionsFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  const st = stateOf(p, ni);
  if (st.rejected) return st.rejected;
  for (const v of st.disks) {
    for (const e of ni.pods.values()) {
      if (diskConflict(v, e.pod)) return { plugin: VOLUME_RESTRICTIONS, code: 'Unschedulable', reasons: [REASON_DISK_CONFLICT] };
    }
  }
  if (st.rwop.length) {
    // users elsewhere, plus those on this (possibly trimmed) node
    let here = 0;
    for (const e of ni.pods.values()) if (podUses(e.pod, st.rwop)) here++;
    const users = st.totalUsers - (st.usersByNode?.get(ni.name) ?? 0) + here;
    if (users > 0) return { plugin: VOLUME_RESTRICTIONS, code: 'Unschedulable', reasons: [REASON_RWOP_CONFLICT] };
  }
  return undefined;
}
