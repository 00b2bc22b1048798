// A StatefulSet's pods and claims as pure data (pkg/controller/statefulset/stateful_set_utils.go, 1.33): ordinal
// names, identity labels, hostname/subdomain, claim names, and the ownerReferences a claim should carry under the
// set's persistentVolumeClaimRetentionPolicy.
import type { KObject, OwnerReference } from '../../api/types.js';
import type { StatefulSet } from '../../api/apps/statefulset/validation.js';
import { clone } from '../../machinery/object.js';
import { controllerRef, ownerReferences } from '../framework/owner.js';
import { podFromTemplate, type PodTemplate } from '../framework/pod-util.js';
import { POD_REVISION_LABEL } from '../framework/revision-history.js';

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

export type Pod = KObject & {
  spec?: { volumes?: Volume[]; hostname?: string; subdomain?: string; nodeName?: string; [k: string]: unknown };
  status?: { phase?: string; conditions?: { type: string; status: string; lastTransitionTime?: string }[]; [k: string]: unknown };
};
interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  [k: string]: unknown;
}
export type Claim = KObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

const ORDINAL_RE = /^(.*)-([0-9]+)$/;

/** getParentNameAndOrdinal: `<parent>-<n>`, else parent '' and ordinal -1. */
export function parentAndOrdinal(pod: KObject): { parent: string; ordinal: number } {
  const m = ORDINAL_RE.exec(pod.metadata.name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return { parent: m[1], ordinal: n <= 2147483647 ? n : -1 };
}

export const ordinalOf = (pod: KObject): number => parentAndOrdinal(pod).ordinal;
export const startOrdinal = (set: StatefulSet): number => set.spec?.ordinals?.start ?? 0;
export const replicasOf = (set: StatefulSet): number => set.spec?.replicas ?? 1;
export const endOrdinal = (set: StatefulSet): number => startOrdinal(set) + replicasOf(set) - 1;
export const podName = (set: StatefulSet, ordinal: number): string => `${set.metadata.name}-${ordinal}`;
export const isMemberOf = (set: StatefulSet, pod: KObject): boolean => parentAndOrdinal(pod).parent === set.metadata.name;

export function inOrdinalRange(pod: KObject, set: StatefulSet): boolean {
  const o = ordinalOf(pod);
  return o >= startOrdinal(set) && o <= endOrdinal(set);
}

export const phaseOf = (pod: Pod): string => pod.status?.phase ?? '';
export const isCreated = (pod: Pod): boolean => phaseOf(pod) !== '';
export const isTerminating = (pod: KObject): boolean => !!pod.metadata.deletionTimestamp;
export const podRevision = (pod: KObject): string => pod.metadata.labels?.[POD_REVISION_LABEL] ?? '';

export function isRunningAndReady(pod: Pod): boolean {
  return phaseOf(pod) === 'Running' && pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** Running, ready, and ready for minReadySeconds (isRunningAndAvailable). */
export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isRunningAndReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const c = pod.status?.conditions?.find((x) => x.type === 'Ready');
  const since = c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : 0;
  return since > 0 && since + minReadySeconds * 1000 <= now;
}

/** isUnavailable: not yet available, or on its way out. */
export const isUnavailable = (pod: Pod, minReadySeconds: number, now: number): boolean =>
  !isRunningAndAvailable(pod, minReadySeconds, now) || isTerminating(pod);

export function claimName(set: StatefulSet, template: KObject, ordinal: number): string {
  return `${template.metadata?.name}-${set.metadata.name}-${ordinal}`;
}

function claimTemplates(set: StatefulSet): KObject[] {
  return (set.spec?.volumeClaimTemplates ?? []) as unknown as KObject[];
}

/** getPersistentVolumeClaims: the claims `ordinal` needs, by template name, labelled with the selector's matchLabels. */
export function claimsFor(set: StatefulSet, ordinal: number): Map<string, Claim> {
  const out = new Map<string, Claim>();
  for (const tpl of claimTemplates(set)) {
    const c = clone(tpl) as Claim;
    c.metadata = { ...c.metadata, name: claimName(set, tpl, ordinal), namespace: set.metadata.namespace };
    delete c.metadata.creationTimestamp;
    c.metadata.labels = { ...(c.metadata.labels ?? {}), ...(set.spec?.selector?.matchLabels ?? {}) };
    delete c.status;
    out.set(tpl.metadata.name!, c);
  }
  return out;
}

/** identityMatches: the name, namespace and pod-name label are those of a member of set. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return ordinal >= 0 && parent === set.metadata.name && pod.metadata.name === podName(set, ordinal) &&
    pod.metadata.namespace === set.metadata.namespace && pod.metadata.labels?.[POD_NAME_LABEL] === pod.metadata.name;
}

/** storageMatches: every claim template is mounted as the claim for this ordinal. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const vols = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  return claimTemplates(set).every((t) => vols.get(t.metadata.name!)?.persistentVolumeClaim?.claimName === claimName(set, t, ordinal));
}

/** updateIdentity: name, namespace, pod-name and pod-index labels. */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = ordinalOf(pod);
  pod.metadata.name = podName(set, ordinal);
  pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [POD_NAME_LABEL]: pod.metadata.name, [POD_INDEX_LABEL]: String(ordinal) };
}

/** updateStorage: claim volumes first (template order), then the pod's other volumes. */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = claimsFor(set, ordinalOf(pod));
  const vols: Volume[] = [...claims].map(([name, c]) => ({ name, persistentVolumeClaim: { claimName: c.metadata.name! } }));
  for (const v of pod.spec?.volumes ?? []) if (!claims.has(v.name)) vols.push(v);
  pod.spec = { ...(pod.spec ?? {}), volumes: vols };
  if (!vols.length) delete pod.spec.volumes;
}

/** newStatefulSetPod: the template with the set's identity; hostname/subdomain only at creation. */
export function newStatefulSetPod(set: StatefulSet, template: PodTemplate, ordinal: number, revision: string): Pod {
  const pod = podFromTemplate(template, set, { name: podName(set, ordinal) }) as Pod;
  // GetPodFromTemplate always sets generateName to the controller's prefix as well.
  pod.metadata.generateName = `${set.metadata.name}-`;
  updateIdentity(set, pod);
  pod.spec = { ...(pod.spec ?? {}), hostname: pod.metadata.name };
  if (set.spec?.serviceName) pod.spec.subdomain = set.spec.serviceName;
  updateStorage(set, pod);
  pod.metadata.labels![POD_REVISION_LABEL] = revision;
  return pod;
}

// ---------------------------------------------------------------------------------------------------------------
// Claim ownership under persistentVolumeClaimRetentionPolicy

export function retentionPolicy(set: StatefulSet): { whenDeleted: string; whenScaled: string } {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted || 'Retain', whenScaled: p?.whenScaled || 'Retain' };
}

const matchesRef = (ref: OwnerReference, obj: KObject, apiVersion: string, kind: string) =>
  ref.apiVersion === apiVersion && ref.kind === kind && ref.name === obj.metadata.name;
const matchesSet = (ref: OwnerReference, set: KObject) => matchesRef(ref, set, 'apps/v1', 'StatefulSet');
const matchesPod = (ref: OwnerReference, pod: KObject) => matchesRef(ref, pod, 'v1', 'Pod');
const hasOwnerRef = (claim: KObject, owner: KObject) => !!owner.metadata.uid && ownerReferences(claim).some((r) => r.uid === owner.metadata.uid);

function hasStaleOwnerRef(claim: KObject, owner: KObject, matches: (r: OwnerReference, o: KObject) => boolean): boolean {
  const r = ownerReferences(claim).find((x) => matches(x, owner));
  return !!r && r.uid !== owner.metadata.uid;
}

function hasUnexpectedController(claim: KObject, set: StatefulSet, pod: KObject): boolean {
  const p = retentionPolicy(set);
  if (p.whenScaled === 'Retain' && p.whenDeleted === 'Retain') return false;
  for (const r of ownerReferences(claim)) {
    if (matchesSet(r, set)) {
      if (r.uid !== set.metadata.uid) return true;
      continue;
    }
    if (matchesPod(r, pod)) {
      if (r.uid !== pod.metadata.uid) return true;
      continue;
    }
    if (r.controller) return true;
  }
  return false;
}

/** PodClaimIsStale: a claim still owned by an earlier pod of the same name (wait for the garbage collector). */
export function claimIsStale(claim: KObject, pod: KObject): boolean {
  return hasStaleOwnerRef(claim, pod, matchesPod);
}

/** isClaimOwnerUpToDate: whether the claim's references to set and pod already follow the policy. */
export function claimOwnerUpToDate(claim: KObject, set: StatefulSet, pod: KObject): boolean {
  if (hasStaleOwnerRef(claim, set, matchesSet) || hasStaleOwnerRef(claim, pod, matchesPod)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (ownerReferences(claim).some((r) => (r.uid === set.metadata.uid || r.uid === pod.metadata.uid) && !r.controller)) return false;
  const want = wantedOwners(set, pod);
  return hasOwnerRef(claim, set) === want.set && hasOwnerRef(claim, pod) === want.pod;
}

/** Who should own a claim: the set when whenDeleted=Delete and the pod is in range, the condemned pod when whenScaled=Delete. */
function wantedOwners(set: StatefulSet, pod: KObject): { set: boolean; pod: boolean } {
  const p = retentionPolicy(set);
  const scaledDown = !inOrdinalRange(pod, set);
  const del = (v: string) => v === 'Delete';
  if (del(p.whenScaled) && del(p.whenDeleted)) return { set: !scaledDown, pod: scaledDown };
  if (del(p.whenScaled)) return { set: false, pod: scaledDown };
  if (del(p.whenDeleted)) return { set: true, pod: false };
  return { set: false, pod: false };
}

/** updateClaimOwnerRefForSetAndPod: the claim's ownerReferences rewritten to follow the policy. */
export function claimOwnersForPolicy(claim: KObject, set: StatefulSet, pod: KObject): OwnerReference[] {
  const unexpected = hasUnexpectedController(claim, set, pod);
  const refs = ownerReferences(claim).filter((r) => !matchesSet(r, set) && !matchesPod(r, pod));
  if (unexpected) return refs;
  const want = wantedOwners(set, pod);
  if (want.set) refs.push(controllerRef(set));
  if (want.pod && pod.metadata.uid) refs.push(controllerRef({ ...pod, apiVersion: 'v1', kind: 'Pod' }));
  return refs;
}
