// Deployment facts shared by the rollout strategies (pkg/controller/deployment/util): annotations, revisions,
// fenceposts, replica counts, conditions and ReplicaSet orderings. Pure functions over plain objects.
import type { KObject } from '../../api/types.js';
import { deepEqual, rfc3339 } from '../../machinery/object.js';
import type { PodTemplate } from '../framework/pod-util.js';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const HASH_LABEL = 'pod-template-hash';
const MAX_REV_HISTORY_CHARS = 2000;
const MAX_INT32 = 2147483647;
/** annotations of a Deployment that are never copied onto its ReplicaSets */
const SKIP_COPY = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

export interface Condition {
  type: string;
  status: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  collisionCount?: number;
  conditions?: Condition[];
}

export interface Deployment extends KObject {
  spec: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
    template?: PodTemplate;
    strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
  };
  status?: DeploymentStatus;
}

export interface RS extends KObject {
  spec: { replicas?: number; minReadySeconds?: number; selector?: Deployment['spec']['selector']; template?: PodTemplate };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number; observedGeneration?: number; conditions?: Condition[] };
}

export const replicasOf = (o: { spec: { replicas?: number } }): number => o.spec.replicas ?? 0;
export const desired = (d: Deployment): number => d.spec.replicas ?? 1;

export function revisionOf(o: KObject): number {
  const v = o.metadata.annotations?.[REVISION];
  const n = v === undefined ? 0 : Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : 0;
}

export function maxRevision(rss: RS[]): number {
  return rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined) return 0;
  if (typeof v === 'number') return v;
  const pct = Number.parseInt(v.replace(/%$/, ''), 10);
  const x = (pct * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

export const isRollingUpdate = (d: Deployment): boolean => (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/** ResolveFenceposts: maxSurge rounded up, maxUnavailable down, never both zero. */
export function fenceposts(d: Deployment): { surge: number; unavailable: number } {
  const ru = d.spec.strategy?.rollingUpdate ?? {};
  const n = desired(d);
  const surge = scaledValue(ru.maxSurge ?? '25%', n, true);
  let unavailable = scaledValue(ru.maxUnavailable ?? '25%', n, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? fenceposts(d).surge : 0;
}

export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || desired(d) === 0) return 0;
  return Math.min(fenceposts(d).unavailable, desired(d));
}

export const hasProgressDeadline = (d: Deployment): boolean =>
  d.spec.progressDeadlineSeconds !== undefined && d.spec.progressDeadlineSeconds !== MAX_INT32;

export const sumSpec = (rss: (RS | undefined)[]): number => rss.reduce((n, rs) => n + (rs ? replicasOf(rs) : 0), 0);
export const sumStatus = (rss: (RS | undefined)[], f: 'replicas' | 'readyReplicas' | 'availableReplicas'): number =>
  rss.reduce((n, rs) => n + (rs?.status?.[f] ?? 0), 0);

export const activeRSs = (rss: (RS | undefined)[]): RS[] => rss.filter((r): r is RS => !!r && replicasOf(r) > 0);

const created = (o: KObject): number => Date.parse((o.metadata.creationTimestamp as string | undefined) ?? '') || 0;

/** ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: RS, b: RS): number {
  return created(a) - created(b) || (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);
}

/** ReplicaSetsBySizeNewer (larger first, then newer) and BySizeOlder (larger first, then older). */
export function bySize(newerFirst: boolean): (a: RS, b: RS) => number {
  return (a, b) => replicasOf(b) - replicasOf(a) || (newerFirst ? byCreation(b, a) : byCreation(a, b));
}

/** ReplicaSetsByRevision: lowest revision first, then oldest. */
export function byRevision(a: RS, b: RS): number {
  return revisionOf(a) - revisionOf(b) || byCreation(a, b);
}

/** Semantic equality of two templates ignoring the pod-template-hash label (nil and empty lists/maps are equal). */
export function equalIgnoreHash(t1: PodTemplate | undefined, t2: PodTemplate | undefined): boolean {
  const strip = (t: PodTemplate | undefined) => {
    const labels = { ...(t?.metadata?.labels ?? {}) };
    delete labels[HASH_LABEL];
    return normalize({ ...t, metadata: { ...t?.metadata, labels } });
  };
  return deepEqual(strip(t1), strip(t2));
}

function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? v.map(normalize) : undefined;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const n = normalize(x);
      if (n === undefined || n === null) continue;
      if ((k === 'labels' || k === 'annotations' || k === 'nodeSelector') && typeof n === 'object' && !Object.keys(n as object).length) continue;
      out[k] = n;
    }
    return out;
  }
  return v;
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template equals the Deployment's. */
export function findNewRS(d: Deployment, rss: RS[]): RS | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template));
}

export function newCondition(type: string, status: string, reason: string, message: string, now: number): Condition {
  const t = rfc3339(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function getCondition(st: DeploymentStatus | undefined, type: string): Condition | undefined {
  return st?.conditions?.find((c) => c.type === type);
}

/** SetDeploymentCondition: no change for the same status and reason; a new entry goes last. */
export function setCondition(st: DeploymentStatus, c: Condition): void {
  const cur = getCondition(st, c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return;
  if (cur && cur.status === c.status) c = { ...c, lastTransitionTime: cur.lastTransitionTime };
  st.conditions = [...(st.conditions ?? []).filter((x) => x.type !== c.type), c];
}

export function removeCondition(st: DeploymentStatus, type: string): void {
  if (!st.conditions) return;
  st.conditions = st.conditions.filter((c) => c.type !== type);
}

/** SetReplicasAnnotations: desired-replicas and max-replicas; true when something changed. */
export function setReplicasAnnotations(rs: RS, want: number, max: number): boolean {
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  if (a[DESIRED_REPLICAS] !== String(want)) (a[DESIRED_REPLICAS] = String(want)), (changed = true);
  if (a[MAX_REPLICAS] !== String(max)) (a[MAX_REPLICAS] = String(max)), (changed = true);
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: RS, want: number, max: number): boolean {
  const a = rs.metadata.annotations ?? {};
  return a[DESIRED_REPLICAS] !== String(want) || a[MAX_REPLICAS] !== String(max);
}

export function desiredReplicasAnnotation(rs: RS): number | undefined {
  const v = rs.metadata.annotations?.[DESIRED_REPLICAS];
  const n = v === undefined ? NaN : Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : undefined;
}

/** SetNewReplicaSetAnnotations: copy the Deployment's annotations, raise the revision, keep revision history. */
export function setNewRSAnnotations(d: Deployment, rs: RS, newRevision: number, opts: { exists: boolean }): boolean {
  const a = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (SKIP_COPY.has(k) || a[k] === v) continue;
    a[k] = v;
    changed = true;
  }
  const oldRev = a[REVISION];
  const oldRevInt = oldRev === undefined || oldRev === '' ? 0 : Number.parseInt(oldRev, 10);
  if (!Number.isFinite(oldRevInt)) return false;
  if (oldRevInt < newRevision) {
    a[REVISION] = String(newRevision);
    changed = true;
    if (oldRev !== undefined) {
      // the ReplicaSet is being rolled back to: keep the revisions it had
      const history = a[REVISION_HISTORY] ?? '';
      if (!history) a[REVISION_HISTORY] = oldRev;
      else {
        let revs = history.split(',');
        let total = history.length + oldRev.length + 1;
        let start = 0;
        while (total > MAX_REV_HISTORY_CHARS && start < revs.length) total -= revs[start++].length + 1;
        if (total <= MAX_REV_HISTORY_CHARS) {
          revs = [...revs.slice(start), oldRev];
          a[REVISION_HISTORY] = revs.join(',');
        }
      }
    }
  }
  if (!opts.exists && setReplicasAnnotations(rs, desired(d), desired(d) + maxSurge(d))) changed = true;
  return changed;
}

/** DeploymentComplete. */
export function deploymentComplete(d: Deployment, st: DeploymentStatus): boolean {
  const n = desired(d);
  return (st.updatedReplicas ?? 0) === n && (st.replicas ?? 0) === n && (st.availableReplicas ?? 0) === n && (st.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available pods than last observed. */
export function deploymentProgressing(d: Deployment, st: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (st.replicas ?? 0) - (st.updatedReplicas ?? 0);
  return (
    (st.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (st.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (st.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** DeploymentTimedOut: the Progressing condition was last updated longer than the deadline ago. */
export function deploymentTimedOut(d: Deployment, st: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(st, 'Progressing');
  if (!c || c.reason === 'NewReplicaSetAvailable') return false;
  if (c.reason === 'ProgressDeadlineExceeded') return true;
  const from = Date.parse(c.lastUpdateTime ?? '') || 0;
  return from + d.spec.progressDeadlineSeconds! * 1000 < now;
}
