// Which nodes a DaemonSet's pod belongs on (pkg/controller/daemon: NodeShouldRunDaemonPod, util.
// AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity, GetTargetNodeName; 1.33): the
// template's nodeSelector and required node affinity, and the node's NoSchedule/NoExecute taints against the pod's
// tolerations plus the ones every daemon pod gets.
import type { KObject } from '../../api/types.js';
import type { DaemonSet } from '../../api/apps/daemonset/validation.js';
import type { Taint } from '../../api/core/node/validation.js';
import type { Toleration } from '../../api/core/pod/types.js';
import { nodeSelectorTermMatches, toleratesTaint, type NodeSelectorTerm } from '../../api/core/scheduling-match.js';

export type { Taint, Toleration };
interface Affinity {
  nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } | null; [k: string]: unknown } | null;
  [k: string]: unknown;
}
export interface PodSpecLike {
  nodeName?: string;
  nodeSelector?: Record<string, string> | null;
  affinity?: Affinity | null;
  tolerations?: Toleration[] | null;
  hostNetwork?: boolean;
  [k: string]: unknown;
}
export type Node = KObject & { spec?: { taints?: Taint[] | null; unschedulable?: boolean } };

/** The tolerations every daemon pod gets (util.AddOrUpdateDaemonPodTolerations). */
export function daemonTolerations(spec: PodSpecLike): Toleration[] {
  const t = (key: string, effect: string): Toleration => ({ key: `node.kubernetes.io/${key}`, operator: 'Exists', effect });
  const out = [
    t('not-ready', 'NoExecute'),
    t('unreachable', 'NoExecute'),
    t('disk-pressure', 'NoSchedule'),
    t('memory-pressure', 'NoSchedule'),
    t('pid-pressure', 'NoSchedule'),
    t('unschedulable', 'NoSchedule'),
  ];
  if (spec.hostNetwork) out.push(t('network-unavailable', 'NoSchedule'));
  return out;
}

/** AddOrUpdateTolerationInPodSpec for each daemon toleration: an equal one is replaced, others appended. */
export function addDaemonTolerations(spec: PodSpecLike): void {
  const list = [...(spec.tolerations ?? [])];
  for (const t of daemonTolerations(spec)) {
    const i = list.findIndex((o) => (o.key ?? '') === t.key && (o.effect ?? '') === t.effect && (o.operator || 'Equal') === t.operator && (o.value ?? '') === '');
    if (i >= 0) list[i] = t;
    else list.push(t);
  }
  spec.tolerations = list;
}

export { toleratesTaint as tolerates };

/** The first NoSchedule/NoExecute taint (or, with `effect`, only that effect) no toleration covers. */
export function untoleratedTaint(taints: Taint[], tolerations: Toleration[], effect?: string): Taint | undefined {
  return taints.find((taint) => (effect ? taint.effect === effect : taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerations.some((t) => toleratesTaint(t, taint)));
}

/** A node selector term against a node: its labels and its name (matchFields metadata.name). */
export function termMatches(term: NodeSelectorTerm, node: KObject): boolean {
  return nodeSelectorTermMatches(term, node.metadata.labels ?? {}, node.metadata.name ?? '');
}

/** nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): nodeSelector and the required terms (any of them). */
export function requiredAffinityMatches(spec: PodSpecLike, node: KObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const req = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!req) return true;
  return (req.nodeSelectorTerms ?? []).some((t) => termMatches(t, node));
}

/**
 * NodeShouldRunDaemonPod: shouldRun when the pod fits the node; shouldContinueRunning also when only NoSchedule
 * taints are untolerated (a running pod is not evicted by them).
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const spec = { ...((ds.spec?.template?.spec ?? {}) as PodSpecLike) };
  if (spec.nodeName && spec.nodeName !== node.metadata.name) return { shouldRun: false, shouldContinueRunning: false };
  if (!requiredAffinityMatches(spec, node)) return { shouldRun: false, shouldContinueRunning: false };
  addDaemonTolerations(spec);
  const taints = node.spec?.taints ?? [];
  const tolerations = spec.tolerations ?? [];
  if (untoleratedTaint(taints, tolerations)) return { shouldRun: false, shouldContinueRunning: !untoleratedTaint(taints, tolerations, 'NoExecute') };
  return { shouldRun: true, shouldContinueRunning: true };
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become one matchFields metadata.name In [node]. */
export function pinToNode(spec: PodSpecLike, nodeName: string): void {
  const term: NodeSelectorTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const affinity: Affinity = { ...(spec.affinity ?? {}) };
  const na = { ...(affinity.nodeAffinity ?? {}) };
  na.requiredDuringSchedulingIgnoredDuringExecution = { ...(na.requiredDuringSchedulingIgnoredDuringExecution ?? {}), nodeSelectorTerms: [term] };
  affinity.nodeAffinity = na;
  spec.affinity = affinity;
}

/** GetTargetNodeName: spec.nodeName, else the single node the metadata.name matchFields pins the pod to. */
export function targetNodeName(pod: KObject): string | undefined {
  const spec = (pod.spec ?? {}) as PodSpecLike;
  if (spec.nodeName) return spec.nodeName;
  for (const term of spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}
