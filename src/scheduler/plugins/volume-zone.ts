// VolumeZone (kube-scheduler 1.33): a pod's bound PVs labelled with a zone or region (GA or beta keys, several
// zones joined by "__") only fit nodes carrying a matching label; nodes with no zone/region label at all accept
// anything. Unbound claims of WaitForFirstConsumer classes are skipped (VolumeBinding places them); other unbound
// claims and missing objects reject the pod in PreFilter with kube's messages.
import type { FilterStatus, PodInfo } from './pod-info.js';
import type { NodeInfo } from '../node-info.js';
import { claimClass, podClaims, preFilterReject } from '../volume-binding/types.js';

export const VOLUME_ZONE = 'VolumeZone';
export const REASON_ZONE_CONFLICT = 'node(s) had no available volume zone';

const GA_ZONE = 'topology.kubernetes.io/zone';
const GA_REGION = 'topology.kubernetes.io/region';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
export const TOPOLOGY_LABELS = [BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION] as const;
const TO_GA: Record<string, string> = { [BETA_ZONE]: GA_ZONE, [BETA_REGION]: GA_REGION };

interface PvTopology {
  key: string;
  values: Set<string>;
}

interface ZoneState {
  rejected?: FilterStatus;
  topologies: PvTopology[];
}

const STATE_KEY = 'VolumeZone';

/** LabelZonesToSet: "a__b" → {a, b}. */
export function zonesOf(value: string): Set<string> {
  return new Set(value.split('__').filter((z) => z !== ''));
}

function computeState(p: PodInfo, ni: NodeInfo): ZoneState {
  const st: ZoneState = { topologies: [] };
  const lookups = ni.cluster?.lookups.volumes;
  if (!lookups) return st;
  const ns = p.pod.metadata.namespace ?? '';
  const reject = (msg: string): ZoneState => ({ ...st, rejected: preFilterReject(VOLUME_ZONE, msg) });
  for (const claim of podClaims(p.pod)) {
    if (!claim.name) return reject('PersistentVolumeClaim had no name');
    const pvc = lookups.pvc(ns, claim.name);
    if (!pvc) return reject(`persistentvolumeclaim "${claim.name}" not found`);
    const pvName = pvc.spec?.volumeName;
    if (!pvName) {
      const cls = claimClass(pvc);
      if (!cls) return reject('PersistentVolumeClaim had no pv name and storageClass name');
      const sc = lookups.storageClass(cls);
      if (!sc) return reject(`storageclass.storage.k8s.io "${cls}" not found`);
      if (!sc.volumeBindingMode) return reject(`VolumeBindingMode not set for StorageClass "${cls}"`);
      if (sc.volumeBindingMode === 'WaitForFirstConsumer') continue;
      return reject('PersistentVolume had no name');
    }
    const pv = lookups.pv(pvName);
    if (!pv) return reject(`persistentvolume "${pvName}" not found`);
    const labels = pv.metadata.labels ?? {};
    for (const key of TOPOLOGY_LABELS) if (labels[key] !== undefined) st.topologies.push({ key, values: zonesOf(labels[key]) });
  }
  return st;
}

function stateOf(p: PodInfo, ni: NodeInfo): ZoneState {
  let st = p.cycle.get(STATE_KEY) as ZoneState | undefined;
  if (!st) p.cycle.set(STATE_KEY, (st = computeState(p, ni)));
  return st;
}

export function volumeZonePreFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  return stateOf(p, ni).rejected;
}

export function volumeZoneFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  const st = stateOf(p, ni);
  if (st.rejected) return st.rejected;
  if (!st.topologies.length) return undefined;
  const labels = ni.node?.metadata.labels ?? {};
  if (!TOPOLOGY_LABELS.some((k) => labels[k] !== undefined)) return undefined;
  for (const t of st.topologies) {
    // a beta label on the PV may be matched by the node's GA label
    const v = labels[t.key] ?? (TO_GA[t.key] ? labels[TO_GA[t.key]] : undefined);
    if (v === undefined || !t.values.has(v)) return { plugin: VOLUME_ZONE, code: 'UnschedulableAndUnresolvable', reasons: [REASON_ZONE_CONFLICT] };
  }
  return undefined;
}
