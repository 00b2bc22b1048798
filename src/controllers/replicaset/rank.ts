// Which pods a shrinking ReplicaSet deletes first (controller.ActivePodsWithRanks with the 1.33 defaults:
// PodDeletionCost and LogarithmicScaleDown enabled). Pure functions over pod objects.
import type { KObject } from '../../api/types.js';
import { isPodActive, isPodReady, nodeNameOf, podCondition, podPhase } from '../framework/pod-util.js';

const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
const DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

interface Ranked {
  pod: KObject;
  /** active related pods on the same node (pods of sibling ReplicaSets count too) */
  rank: number;
}

/** The first `count` pods to delete, ranked against `related` (the ReplicaSet's and its siblings' pods). */
export function podsToDelete(pods: KObject[], related: KObject[], count: number, now: number): KObject[] {
  if (count >= pods.length) return pods.slice(0, count);
  const onNode = new Map<string, number>();
  for (const p of related) if (isPodActive(p)) onNode.set(nodeNameOf(p), (onNode.get(nodeNameOf(p)) ?? 0) + 1);
  const ranked: Ranked[] = pods.map((pod) => ({ pod, rank: onNode.get(nodeNameOf(pod)) ?? 0 }));
  ranked.sort((a, b) => (deleteFirst(a, b, now) ? -1 : deleteFirst(b, a, now) ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.pod);
}

/** True when `a` should be deleted before `b` (ActivePodsWithRanks.Less). */
export function deleteFirst(a: Ranked, b: Ranked, now: number): boolean {
  const na = nodeNameOf(a.pod);
  const nb = nodeNameOf(b.pod);
  if (na !== nb && (!na || !nb)) return !na;
  const pa = PHASE_ORDINAL[podPhase(a.pod)] ?? 0;
  const pb = PHASE_ORDINAL[podPhase(b.pod)] ?? 0;
  if (pa !== pb) return pa < pb;
  const ra = isPodReady(a.pod);
  const rb = isPodReady(b.pod);
  if (ra !== rb) return !ra;
  const ca = deletionCost(a.pod);
  const cb = deletionCost(b.pod);
  if (ca !== cb) return ca < cb;
  if (a.rank !== b.rank) return a.rank > b.rank;
  if (ra && rb) {
    const ta = readyTime(a.pod);
    const tb = readyTime(b.pod);
    if (ta !== tb) return compareTimes(ta, tb, a.pod, b.pod, now);
  }
  const xa = maxRestarts(a.pod);
  const xb = maxRestarts(b.pod);
  if (xa !== xb) return xa > xb;
  const ta = created(a.pod);
  const tb = created(b.pod);
  if (ta !== tb) return compareTimes(ta, tb, a.pod, b.pod, now);
  return false;
}

/** Zero (unknown) time first, then by log2 of age buckets (newer first), ties broken by uid. */
function compareTimes(t1: number, t2: number, p1: KObject, p2: KObject, now: number): boolean {
  if (!t1 || !t2 || !now) return afterOrZero(t1, t2);
  const diff = logBucket(now - t1) - logBucket(now - t2);
  if (diff === 0) return (p1.metadata.uid ?? '') < (p2.metadata.uid ?? '');
  return diff < 0;
}

function afterOrZero(t1: number, t2: number): boolean {
  if (!t1 || !t2) return !t1;
  return t1 > t2;
}

/** floor(log2(age in nanoseconds)), -1 for no age. */
function logBucket(ageMs: number): number {
  return ageMs > 0 ? Math.floor(Math.log2(ageMs * 1e6)) : -1;
}

function readyTime(pod: KObject): number {
  const c = podCondition(pod, 'Ready');
  return c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : 0;
}

function created(pod: KObject): number {
  return pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp as string) : 0;
}

function deletionCost(pod: KObject): number {
  const v = pod.metadata.annotations?.[DELETION_COST];
  const n = v === undefined ? 0 : Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : 0;
}

function maxRestarts(pod: KObject): number {
  const st = (pod as { status?: { containerStatuses?: { restartCount?: number }[] } }).status;
  return Math.max(0, ...(st?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
}
