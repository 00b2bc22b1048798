// The decisions of one DaemonSet sync as pure functions over nodes and the pods on them (pkg/controller/daemon,
// 1.33): which nodes need a pod and which pods must go (manage), which old pods a rolling update replaces under
// maxUnavailable / maxSurge (rollingUpdate), and the status counts (updateDaemonSetStatus).
import type { DaemonSet } from '../../api/apps/daemonset/validation.js';
import { intOrPercentValue, type IntOrString } from '../../api/apps/common.js';
import type { KObject } from '../../api/types.js';
import { POD_REVISION_LABEL } from '../framework/revision-history.js';
import { nodeShouldRunDaemonPod, type Node } from './nodes.js';
import { isPodAvailable, isPodReady, podPhase } from '../framework/pod-util.js';

export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

export type NodeToPods = Map<string, KObject[]>;

export interface DaemonSetStatusCounts {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
}

export const templateGeneration = (ds: DaemonSet): string | undefined => ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];

/** util.IsPodUpdated: the pod carries the current hash, or the current template generation. */
export function isPodUpdated(ds: DaemonSet, hash: string, pod: KObject): boolean {
  const labels = pod.metadata.labels ?? {};
  const gen = templateGeneration(ds);
  return (!!hash && labels[POD_REVISION_LABEL] === hash) || (gen !== undefined && labels[TEMPLATE_GENERATION_LABEL] === gen);
}

export const allowsSurge = (ds: DaemonSet): boolean =>
  ds.spec?.updateStrategy?.type === 'RollingUpdate' && scaled(ds.spec?.updateStrategy?.rollingUpdate?.maxSurge, 1) > 0;

/** podByCreationTimestampAndPhase: scheduled first, then oldest, then by name. */
export function byAge(a: KObject, b: KObject): number {
  const na = !!(a.spec as { nodeName?: string })?.nodeName;
  const nb = !!(b.spec as { nodeName?: string })?.nodeName;
  if (na !== nb) return na ? -1 : 1;
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
}

/** intstr.GetScaledValueFromIntOrPercent rounding up. */
function scaled(v: IntOrString | null | undefined, total: number): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'string' && v.endsWith('%')) return Math.ceil((intOrPercentValue(v) * total) / 100);
  return intOrPercentValue(v);
}

export interface ManagePlan {
  nodesNeedingPods: string[];
  podsToDelete: KObject[];
  events: { type: 'Normal' | 'Warning'; reason: string; message: string }[];
}

/** manage: per node, create a missing pod, drop finished/duplicate ones, and remove pods from nodes they no longer fit. */
export function planManage(ds: DaemonSet, nodes: Node[], nodeToPods: NodeToPods, hash: string): ManagePlan {
  const plan: ManagePlan = { nodesNeedingPods: [], podsToDelete: [], events: [] };
  const surge = allowsSurge(ds);
  for (const node of nodes) {
    const name = node.metadata.name!;
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
    const pods = nodeToPods.get(name);
    if (shouldRun && !pods?.length) {
      plan.nodesNeedingPods.push(name);
      continue;
    }
    if (!pods?.length) continue;
    if (!shouldContinueRunning) {
      for (const p of pods) if (!p.metadata.deletionTimestamp) plan.podsToDelete.push(p);
      continue;
    }
    const running: KObject[] = [];
    for (const p of pods) {
      if (p.metadata.deletionTimestamp) continue;
      const phase = podPhase(p);
      if (phase === 'Failed') {
        plan.events.push({ type: 'Warning', reason: 'FailedDaemonPod', message: `Found failed daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${name}, will try to kill it` });
        plan.podsToDelete.push(p);
      } else if (phase === 'Succeeded') {
        plan.events.push({ type: 'Normal', reason: 'SucceededDaemonPod', message: `Found succeeded daemon pod ${p.metadata.namespace}/${p.metadata.name} on node ${name}, will try to delete it` });
        plan.podsToDelete.push(p);
      } else running.push(p);
    }
    if (running.length <= 1) continue;
    running.sort(byAge);
    if (!surge) {
      plan.podsToDelete.push(...running.slice(1));
      continue;
    }
    // with surge an old and a new pod may coexist: keep the oldest of each
    let keptNew = false;
    let keptOld = false;
    for (const p of running) {
      if (isPodUpdated(ds, hash, p)) {
        if (!keptNew) {
          keptNew = true;
          continue;
        }
      } else if (!keptOld) {
        keptOld = true;
        continue;
      }
      plan.podsToDelete.push(p);
    }
  }
  // getUnscheduledPodsWithoutNode: pods pinned to a node that no longer exists and not yet bound anywhere
  const known = new Set(nodes.map((n) => n.metadata.name!));
  for (const [name, pods] of nodeToPods) {
    if (known.has(name)) continue;
    for (const p of pods) if (!(p.spec as { nodeName?: string } | undefined)?.nodeName && !p.metadata.deletionTimestamp) plan.podsToDelete.push(p);
  }
  return plan;
}

/** findUpdatedPodsOnNode: at most one new and one old live pod, else not ok. */
function splitPods(ds: DaemonSet, pods: KObject[], hash: string): { ok: boolean; newPod?: KObject; oldPod?: KObject } {
  let newPod: KObject | undefined;
  let oldPod: KObject | undefined;
  for (const p of pods) {
    if (p.metadata.deletionTimestamp) continue;
    if (isPodUpdated(ds, hash, p)) {
      if (newPod) return { ok: false };
      newPod = p;
    } else {
      if (oldPod) return { ok: false };
      oldPod = p;
    }
  }
  return { ok: true, newPod, oldPod };
}

export interface RollingPlan {
  podsToDelete: KObject[];
  nodesToCreate: string[];
}

/** rollingUpdate: replace old pods, at most maxUnavailable unavailable at once, or surge up to maxSurge new pods. */
export function planRollingUpdate(ds: DaemonSet, nodes: Node[], nodeToPods: NodeToPods, hash: string, now: number): RollingPlan {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (p: KObject) => isPodAvailable(p, minReady, now);
  // updatedDesiredNodeCounts: nodes that should run a pod count even when they have none yet
  const byNode = new Map(nodeToPods);
  let desired = 0;
  const shouldRun = new Map<string, boolean>();
  for (const n of nodes) {
    const run = nodeShouldRunDaemonPod(n, ds).shouldRun;
    shouldRun.set(n.metadata.name!, run);
    if (!run) continue;
    desired++;
    if (!byNode.has(n.metadata.name!)) byNode.set(n.metadata.name!, []);
  }
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  let maxUnavailable = scaled(ru?.maxUnavailable, desired);
  const maxSurge = scaled(ru?.maxSurge, desired);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;

  if (maxSurge === 0) {
    let unavailable = 0;
    const replaceNow: KObject[] = [];
    const candidates: KObject[] = [];
    for (const pods of byNode.values()) {
      const { ok, newPod, oldPod } = splitPods(ds, pods, hash);
      if (!ok || (!newPod && !oldPod) || (newPod && oldPod)) unavailable++;
      else if (newPod) {
        if (!available(newPod)) unavailable++;
      } else if (!available(oldPod!)) replaceNow.push(oldPod!);
      else if (unavailable < maxUnavailable) candidates.push(oldPod!);
    }
    const room = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
    return { podsToDelete: [...replaceNow, ...candidates.slice(0, room)], nodesToCreate: [] };
  }

  const podsToDelete: KObject[] = [];
  const allowedNew: string[] = [];
  const candidateNew: string[] = [];
  let surged = 0;
  for (const [node, pods] of byNode) {
    const { ok, newPod, oldPod } = splitPods(ds, pods, hash);
    if (!ok) {
      surged++;
      continue;
    }
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!shouldRun.get(node)) podsToDelete.push(oldPod);
        else allowedNew.push(node);
      } else if (surged < maxSurge) candidateNew.push(node);
      continue;
    }
    if (!available(newPod)) surged++;
    else podsToDelete.push(oldPod);
  }
  const room = Math.min(Math.max(0, maxSurge - surged), candidateNew.length);
  return { podsToDelete, nodesToCreate: [...allowedNew, ...candidateNew.slice(0, room)] };
}

/** updateDaemonSetStatus counts: the oldest pod of each node that should run one decides ready/available/updated. */
export function computeStatus(ds: DaemonSet, nodes: Node[], nodeToPods: NodeToPods, hash: string, now: number): DaemonSetStatusCounts {
  const st: DaemonSetStatusCounts = { desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: 0, numberAvailable: 0, numberUnavailable: 0 };
  const minReady = ds.spec?.minReadySeconds ?? 0;
  for (const node of nodes) {
    const pods = nodeToPods.get(node.metadata.name!) ?? [];
    const scheduled = pods.length > 0;
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) {
      if (scheduled) st.numberMisscheduled++;
      continue;
    }
    st.desiredNumberScheduled++;
    if (!scheduled) continue;
    st.currentNumberScheduled++;
    const pod = [...pods].sort(byAge)[0];
    if (isPodReady(pod)) {
      st.numberReady++;
      if (isPodAvailable(pod, minReady, now)) st.numberAvailable++;
    }
    if (isPodUpdated(ds, hash, pod)) st.updatedNumberScheduled++;
  }
  st.numberUnavailable = st.desiredNumberScheduled - st.numberAvailable;
  return st;
}
