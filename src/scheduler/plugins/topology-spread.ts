// PodTopologySpread (kube-scheduler 1.33): DoNotSchedule constraints filter, ScheduleAnyway constraints score.
// The counts of matching pods per topology domain are computed once per scheduling attempt (PreFilter / PreScore)
// over every node, then each node is judged against them. Pods without constraints that belong to a Service or a
// workload controller get the cluster's default constraints (zone maxSkew 5, hostname maxSkew 3, ScheduleAnyway).
// Exported as function declarations: filters.ts and this module import each other.
import type { KObject } from '../../api/types.js';
import { fromLabelSelector, selectorFromSet, type LabelSelector, type MetaLabelSelector } from '../../machinery/labels.js';
import { nodeMatchesRequiredAffinity, taintToleration } from './node-filters.js';
import { type FilterStatus, type PodInfo } from './pod-info.js';
import type { NodeInfo, PodEntry } from '../node-info.js';

export const REASON_SPREAD_CONSTRAINTS = "node(s) didn't match pod topology spread constraints";
export const REASON_SPREAD_MISSING_LABEL = `${REASON_SPREAD_CONSTRAINTS} (missing required label)`;
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';

/** The system default constraints (PodTopologySpreadArgs defaultingType System). */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly { topologyKey: string; maxSkew: number }[] = [
  { topologyKey: LABEL_HOSTNAME, maxSkew: 3 },
  { topologyKey: LABEL_ZONE, maxSkew: 5 },
];

const OWNER_KINDS = new Set(['ReplicaSet', 'StatefulSet', 'ReplicationController']);

interface RawConstraint {
  maxSkew?: number;
  topologyKey?: string;
  whenUnsatisfiable?: string;
  labelSelector?: MetaLabelSelector | null;
  minDomains?: number | null;
  nodeAffinityPolicy?: string | null;
  nodeTaintsPolicy?: string | null;
  matchLabelKeys?: string[] | null;
}

export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
  minDomains: number;
  honorNodeAffinity: boolean;
  honorNodeTaints: boolean;
}

const podLabels = (pod: KObject): Record<string, string> => pod.metadata.labels ?? {};
const nodeLabels = (ni: NodeInfo): Record<string, string> => ni.node?.metadata.labels ?? {};

/** The pod's own constraints of one kind; matchLabelKeys add `key In (pod's value)` to the selector. */
export function podConstraints(pod: KObject, when: 'DoNotSchedule' | 'ScheduleAnyway'): SpreadConstraint[] {
  const raw = ((pod as { spec?: { topologySpreadConstraints?: RawConstraint[] } }).spec?.topologySpreadConstraints ?? []) as RawConstraint[];
  const labels = podLabels(pod);
  const out: SpreadConstraint[] = [];
  for (const c of raw) {
    if ((c.whenUnsatisfiable ?? 'DoNotSchedule') !== when || !c.topologyKey) continue;
    const extra = (c.matchLabelKeys ?? []).filter((k) => k in labels).map((k) => ({ key: k, operator: 'In', values: [labels[k]] }));
    const meta = c.labelSelector && extra.length ? { ...c.labelSelector, matchExpressions: [...(c.labelSelector.matchExpressions ?? []), ...extra] } : c.labelSelector;
    const selector = fromLabelSelector(meta);
    out.push({
      maxSkew: c.maxSkew ?? 1,
      topologyKey: c.topologyKey,
      selector,
      minDomains: c.minDomains ?? 1,
      honorNodeAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
      honorNodeTaints: (c.nodeTaintsPolicy ?? 'Ignore') === 'Honor',
    });
  }
  return out;
}

function hasControllerOwner(pod: KObject): boolean {
  return (pod.metadata.ownerReferences ?? []).some((r) => r.controller && OWNER_KINDS.has(r.kind));
}

/** The default constraints for a pod without its own, or none when nothing selects the pod. */
export function defaultConstraints(pod: KObject, ni: NodeInfo | undefined): SpreadConstraint[] {
  const lookup = ni?.cluster?.lookups.defaultSpreadSelector;
  let selector: LabelSelector | undefined;
  if (lookup) selector = lookup(pod);
  else if (hasControllerOwner(pod) && Object.keys(podLabels(pod)).length) selector = selectorFromSet(podLabels(pod));
  if (!selector || selector.empty) return [];
  return SYSTEM_DEFAULT_CONSTRAINTS.map((d) => ({ ...d, selector, minDomains: 1, honorNodeAffinity: true, honorNodeTaints: false }));
}

function hasOwnConstraints(pod: KObject): boolean {
  return !!(pod as { spec?: { topologySpreadConstraints?: unknown[] } }).spec?.topologySpreadConstraints?.length;
}

/** Matching pods on a node: same namespace as the incoming pod, not being deleted. */
export function countMatching(pods: Iterable<PodEntry>, selector: LabelSelector, namespace: string | undefined): number {
  let n = 0;
  for (const e of pods) {
    if (e.pod.metadata.deletionTimestamp || e.pod.metadata.namespace !== namespace) continue;
    if (selector.matches(e.pod.metadata.labels ?? {})) n++;
  }
  return n;
}

/** A selector's identity for memo keys (nothing() and everything() both print as ""). */
export function selectorKey(sel: LabelSelector): string {
  return !sel.empty && !sel.requirements.length ? '\u0000nothing' : sel.toString();
}

/** countMatching over one node's pods, memoised on the node until its pods change. */
function countOnNode(ni: NodeInfo, selector: LabelSelector, namespace: string | undefined): number {
  return ni.memoized(`spread\u0000${namespace ?? ''}\u0000${selectorKey(selector)}`, () => countMatching(ni.pods.values(), selector, namespace));
}

const hasAllKeys = (labels: Record<string, string>, cs: SpreadConstraint[]) => cs.every((c) => c.topologyKey in labels);

/** Whether a node counts for a constraint under nodeAffinityPolicy / nodeTaintsPolicy. */
function nodeIncluded(p: PodInfo, ni: NodeInfo, c: SpreadConstraint): boolean {
  if (c.honorNodeAffinity && !nodeMatchesRequiredAffinity(p, ni)) return false;
  if (c.honorNodeTaints && taintToleration(p, ni)) return false;
  return true;
}

const allNodes = (ni: NodeInfo): NodeInfo[] => ni.cluster?.nodes() ?? [ni];

/** Pods of `ni` minus those of the cached node it was copied from (preemption dry runs filter copies). */
function copyDelta(ni: NodeInfo, c: SpreadConstraint, ns: string | undefined): number {
  const orig = ni.cluster?.nodeInfo(ni.name);
  if (!orig || orig === ni) return 0;
  return countMatching(ni.pods.values(), c.selector, ns) - countOnNode(orig, c.selector, ns);
}

// ---- Filter ----

interface FilterState {
  constraints: SpreadConstraint[];
  /** per constraint: topology value → matching pods */
  counts: Map<string, number>[];
  /** per constraint: the smallest count over its domains */
  min: number[];
}

function filterState(p: PodInfo, ni: NodeInfo): FilterState {
  const cached = p.cycle.get('PodTopologySpread/filter') as FilterState | undefined;
  if (cached) return cached;
  const constraints = podConstraints(p.pod, 'DoNotSchedule');
  const counts = constraints.map(() => new Map<string, number>());
  if (constraints.length) {
    const ns = p.pod.metadata.namespace;
    for (const n of allNodes(ni)) {
      const labels = nodeLabels(n);
      if (!hasAllKeys(labels, constraints)) continue;
      constraints.forEach((c, i) => {
        if (!nodeIncluded(p, n, c)) return;
        const v = labels[c.topologyKey];
        counts[i].set(v, (counts[i].get(v) ?? 0) + countOnNode(n, c.selector, ns));
      });
    }
  }
  const min = counts.map((m) => (m.size ? Math.min(...m.values()) : Number.MAX_SAFE_INTEGER));
  const st = { constraints, counts, min };
  p.cycle.set('PodTopologySpread/filter', st);
  return st;
}

export function podTopologySpreadFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  const st = filterState(p, ni);
  if (!st.constraints.length) return undefined;
  const labels = nodeLabels(ni);
  const own = podLabels(p.pod);
  for (let i = 0; i < st.constraints.length; i++) {
    const c = st.constraints[i];
    const v = labels[c.topologyKey];
    if (v === undefined) return { plugin: 'PodTopologySpread', code: 'UnschedulableAndUnresolvable', reasons: [REASON_SPREAD_MISSING_LABEL] };
    const delta = copyDelta(ni, c, p.pod.metadata.namespace);
    const match = (st.counts[i].get(v) ?? 0) + delta;
    // fewer domains than minDomains: the global minimum is taken as 0; pods removed from a counted domain may lower it
    let min = st.counts[i].size < c.minDomains ? 0 : st.min[i];
    if (delta && st.counts[i].has(v)) min = Math.min(min, match);
    const self = c.selector.matches(own) ? 1 : 0;
    if (match + self - min > c.maxSkew) return { plugin: 'PodTopologySpread', code: 'Unschedulable', reasons: [REASON_SPREAD_CONSTRAINTS] };
  }
  return undefined;
}

// ---- Score ----

interface ScoreState {
  constraints: SpreadConstraint[];
  ignored: Set<NodeInfo>;
  /** per constraint: topology value → matching pods, for the domains of feasible nodes */
  counts: Map<string, number>[];
  weights: number[];
}

function scoreState(p: PodInfo, feasible: NodeInfo[]): ScoreState | undefined {
  if (!feasible.length) return undefined;
  const own = hasOwnConstraints(p.pod);
  const constraints = own ? podConstraints(p.pod, 'ScheduleAnyway') : defaultConstraints(p.pod, feasible[0]);
  if (!constraints.length) return undefined;
  // system defaults do not require nodes to carry every topology label
  const requireAll = own;
  const ignored = new Set<NodeInfo>();
  const counts = constraints.map(() => new Map<string, number>());
  for (const n of feasible) {
    const labels = nodeLabels(n);
    if (requireAll && !hasAllKeys(labels, constraints)) {
      ignored.add(n);
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey !== LABEL_HOSTNAME) counts[i].set(labels[c.topologyKey] ?? '', 0);
    });
  }
  const weights = constraints.map((c, i) => Math.log((c.topologyKey === LABEL_HOSTNAME ? feasible.length - ignored.size : counts[i].size) + 2));
  const ns = p.pod.metadata.namespace;
  for (const n of allNodes(feasible[0])) {
    const labels = nodeLabels(n);
    if (requireAll && !hasAllKeys(labels, constraints)) continue;
    constraints.forEach((c, i) => {
      if (c.topologyKey === LABEL_HOSTNAME || !nodeIncluded(p, n, c)) return;
      const v = labels[c.topologyKey] ?? '';
      const cur = counts[i].get(v);
      if (cur !== undefined) counts[i].set(v, cur + countOnNode(n, c.selector, ns));
    });
  }
  return { constraints, ignored, counts, weights };
}

/** The raw score of a node (lower is better): Σ count × log(domains + 2) + maxSkew − 1, rounded. */
function rawScore(p: PodInfo, st: ScoreState, ni: NodeInfo): number {
  const labels = nodeLabels(ni);
  let score = 0;
  st.constraints.forEach((c, i) => {
    const v = labels[c.topologyKey];
    if (v === undefined) return;
    const cnt = c.topologyKey === LABEL_HOSTNAME ? countOnNode(ni, c.selector, p.pod.metadata.namespace) : (st.counts[i].get(v) ?? 0);
    score += cnt * st.weights[i] + (c.maxSkew - 1);
  });
  return Math.round(score);
}

/**
 * Normalised PodTopologySpread scores (0–100, higher is better) of the feasible nodes, or undefined when the
 * plugin has nothing to say (no ScheduleAnyway or default constraints).
 */
export function podTopologySpreadScores(p: PodInfo, feasible: NodeInfo[]): number[] | undefined {
  const st = scoreState(p, feasible);
  if (!st) return undefined;
  const raw = feasible.map((n) => (st.ignored.has(n) ? 0 : rawScore(p, st, n)));
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  feasible.forEach((n, i) => {
    if (st.ignored.has(n)) return;
    min = Math.min(min, raw[i]);
    max = Math.max(max, raw[i]);
  });
  return feasible.map((n, i) => {
    if (st.ignored.has(n)) return 0;
    if (max === 0) return 100;
    return Math.trunc((100 * (max + min - raw[i])) / max);
  });
}
