// VolumeBinding (kube-scheduler 1.33) as PreFilter + Filter over the volume lookups. PreFilter checks the pod's
// claims exist, are not being deleted, belong to the pod (ephemeral) and that claims of immediate-binding classes are
// already bound; any failure rejects every node with the same message. Filter, per node: bound claims' PVs must
// exist and accept the node (node affinity); unbound WaitForFirstConsumer claims need an available matching PV there
// or a class that can provision on that node (allowedTopologies). What was found per node is kept for Reserve.
import type { KObject } from '../../api/types.js';
import type { FilterStatus, PodInfo } from './pod-info.js';
import type { NodeInfo } from '../node-info.js';
import { bySize, findMatchingVolume } from '../../api/core/persistentvolume/matching.js';
import { volumeRestrictionsFilter, volumeRestrictionsPreFilter } from './volume-restrictions.js';
import { volumeZoneFilter, volumeZonePreFilter } from './volume-zone.js';
import { nodeVolumeLimitsFilter } from './node-volume-limits.js';
import {
  ANN_SELECTED_NODE,
  NOT_SUPPORTED_PROVISIONER,
  claimClass,
  claimFullyBound,
  delayBinding,
  podClaims,
  preFilterReject,
  pvNodeAffinityMatches,
  topologyTermsMatch,
  type PV,
  type PVC,
  type VolumeLookups,
} from '../volume-binding/types.js';

export const VOLUME_BINDING = 'VolumeBinding';
export const REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

/** What a node needs done for the pod's unbound claims (kube's PodVolumes). */
export interface PodVolumes {
  /** existing PVs chosen for unbound claims */
  staticBindings: { pvc: PVC; pv: PV }[];
  /** claims a provisioner must create a PV for on the node */
  dynamicProvisions: PVC[];
}

interface BindingState {
  /** the PreFilter rejection, if any (same for every node) */
  rejected?: FilterStatus;
  bound: PVC[];
  delayed: PVC[];
  byNode: Map<string, PodVolumes>;
}

const STATE_KEY = 'VolumeBinding';

export const volumeLookupsOf = (ni: NodeInfo): VolumeLookups | undefined => ni.cluster?.lookups.volumes;

/** ephemeral.VolumeIsForPod: the claim of a generic ephemeral volume must be controlled by the pod. */
function claimOwnedByPod(pod: KObject, pvc: PVC): boolean {
  return (pvc.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === pod.metadata.uid);
}

/** podHasPVCs' checks of one claim; the error text is kube's. */
export function claimProblem(pod: KObject, claim: { name: string; ephemeral: boolean }, pvc: PVC | undefined): string | undefined {
  if (!pvc) {
    return claim.ephemeral
      ? `waiting for ephemeral volume controller to create the persistentvolumeclaim "${claim.name}"`
      : `persistentvolumeclaim "${claim.name}" not found`;
  }
  if (pvc.metadata.deletionTimestamp) return `persistentvolumeclaim "${claim.name}" is being deleted`;
  if (claim.ephemeral && !claimOwnedByPod(pod, pvc)) {
    return `PVC ${pvc.metadata.namespace}/${pvc.metadata.name} was not created for pod ${pod.metadata.namespace}/${pod.metadata.name} (pod is not owner)`;
  }
  return undefined;
}

function computeState(p: PodInfo, lookups: VolumeLookups): BindingState {
  const st: BindingState = { bound: [], delayed: [], byNode: new Map() };
  const ns = p.pod.metadata.namespace ?? '';
  const immediate: PVC[] = [];
  for (const claim of podClaims(p.pod)) {
    const pvc = lookups.pvc(ns, claim.name);
    const problem = claimProblem(p.pod, claim, pvc);
    if (problem) return { ...st, rejected: preFilterReject(VOLUME_BINDING, problem) };
    if (claimFullyBound(pvc!)) st.bound.push(pvc!);
    // a claim pre-bound by volumeName waits for the PV controller like an immediate one
    else if (delayBinding(pvc!, lookups) && !pvc!.spec?.volumeName) st.delayed.push(pvc!);
    else immediate.push(pvc!);
  }
  if (immediate.length) st.rejected = preFilterReject(VOLUME_BINDING, REASON_UNBOUND_IMMEDIATE);
  return st;
}

function stateOf(p: PodInfo, lookups: VolumeLookups): BindingState {
  let st = p.cycle.get(STATE_KEY) as BindingState | undefined;
  if (!st) p.cycle.set(STATE_KEY, (st = computeState(p, lookups)));
  return st;
}

/** FindPodVolumes for one node: the conflict reasons in kube's order, and what Reserve would do there. */
export function findPodVolumes(st: BindingState, nodeName: string, nodeLabels: Record<string, string>, lookups: VolumeLookups): { reasons: string[]; volumes: PodVolumes } {
  const volumes: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
  let boundOk = true;
  let pvsFound = true;
  let unboundOk = true;
  for (const pvc of st.bound) {
    const pv = lookups.pv(pvc.spec!.volumeName!);
    if (!pv) {
      pvsFound = false;
      break;
    }
    if (!pvNodeAffinityMatches(pv, nodeLabels)) {
      boundOk = false;
      break;
    }
  }
  const toProvision: PVC[] = [];
  const toMatch: PVC[] = [];
  for (const pvc of st.delayed) {
    const selected = pvc.metadata.annotations?.[ANN_SELECTED_NODE];
    if (selected === undefined) toMatch.push(pvc);
    else if (selected !== nodeName) unboundOk = false;
    else toProvision.push(pvc);
  }
  if (unboundOk && toMatch.length) {
    const chosen = new Set<string>();
    for (const pvc of bySize(toMatch)) {
      const pv = findMatchingVolume(pvc, lookups.pvsOfClass(claimClass(pvc)), nodeLabels, chosen);
      if (!pv) {
        toProvision.push(pvc);
        continue;
      }
      chosen.add(pv.metadata.name!);
      volumes.staticBindings.push({ pvc, pv });
    }
  }
  if (unboundOk) {
    for (const pvc of toProvision) {
      const cls = lookups.storageClass(claimClass(pvc));
      const provisioner = cls?.provisioner ?? '';
      if (!cls || !provisioner || provisioner === NOT_SUPPORTED_PROVISIONER || !topologyTermsMatch(cls.allowedTopologies, nodeLabels)) {
        unboundOk = false;
        break;
      }
      volumes.dynamicProvisions.push(pvc);
    }
  }
  const reasons: string[] = [];
  if (!boundOk) reasons.push(REASON_NODE_CONFLICT);
  if (!unboundOk) reasons.push(REASON_BIND_CONFLICT);
  if (!pvsFound) reasons.push(REASON_PV_NOT_EXIST);
  return { reasons, volumes };
}

/** VolumeBinding's PreFilter: the claims' problems and unbound immediate claims, the same for every node. */
export function volumeBindingPreFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  const lookups = volumeLookupsOf(ni);
  return lookups ? stateOf(p, lookups).rejected : undefined;
}

/** The VolumeBinding filter (PreFilter folded in, computed once per attempt). */
export function volumeBindingFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  const lookups = volumeLookupsOf(ni);
  if (!lookups) return undefined;
  const st = stateOf(p, lookups);
  if (st.rejected) return st.rejected;
  if (!st.bound.length && !st.delayed.length) return undefined;
  const { reasons, volumes } = findPodVolumes(st, ni.name, ni.node?.metadata.labels ?? {}, lookups);
  if (reasons.length) return { plugin: VOLUME_BINDING, code: 'UnschedulableAndUnresolvable', reasons };
  st.byNode.set(ni.name, volumes);
  return undefined;
}

/** What Filter found for `nodeName` in this attempt (undefined when the pod has no unbound claims). */
export function podVolumesOn(p: PodInfo, nodeName: string): PodVolumes | undefined {
  const st = p.cycle.get(STATE_KEY) as BindingState | undefined;
  const v = st?.byNode.get(nodeName);
  if (!v || (!v.staticBindings.length && !v.dynamicProvisions.length)) return undefined;
  return v;
}

/**
 * The volume plugins' PreFilters in the default profile's order (VolumeRestrictions, VolumeBinding, VolumeZone):
 * the first rejection applies to every node. Cheap for pods without volumes.
 */
export function volumePreFilters(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  return volumeRestrictionsPreFilter(p, ni) ?? volumeBindingPreFilter(p, ni) ?? volumeZonePreFilter(p, ni);
}

/**
 * VolumeRestrictions, NodeVolumeLimits, VolumeBinding and VolumeZone, adjacent in the default profile's filter
 * order, as one entry so pods without volumes (nearly all) pay a single check per node.
 */
export function volumeFilters(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  if (!p.spec.volumes?.length) return undefined;
  return volumeRestrictionsFilter(p, ni) ?? nodeVolumeLimitsFilter(p, ni) ?? volumeBindingFilter(p, ni) ?? volumeZoneFilter(p, ni);
}
