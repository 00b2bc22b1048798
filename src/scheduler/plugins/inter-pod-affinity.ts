// InterPodAffinity (kube-scheduler 1.33): required pod affinity / anti-affinity of the incoming pod, the required
// anti-affinity of pods already placed (symmetry), and preferred terms of both sides as a score. Counts per
// topology pair are computed once per attempt (PreFilter / PreScore); only nodes holding pods with affinity terms
// are visited for the symmetric parts, so pods without any affinity cost next to nothing.
// matchLabelKeys / mismatchLabelKeys are already merged into labelSelector by pod admission (as in kube 1.33).
// Exported as function declarations: filters.ts and this module import each other.
import type { KObject } from '../../api/types.js';
import { fromLabelSelector, type LabelSelector, type MetaLabelSelector } from '../../machinery/labels.js';
import type { FilterStatus, PodInfo } from './pod-info.js';
import type { NodeInfo, PodEntry } from '../node-info.js';
import { selectorKey } from './topology-spread.js';

export const REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
export const REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
/** InterPodAffinityArgs.hardPodAffinityWeight default: existing pods' required affinity counts in scoring too */
export const HARD_POD_AFFINITY_WEIGHT = 1;
const NS_NAME_LABEL = 'kubernetes.io/metadata.name';

interface RawTerm {
  labelSelector?: MetaLabelSelector | null;
  namespaces?: string[] | null;
  namespaceSelector?: MetaLabelSelector | null;
  topologyKey?: string;
}
interface RawWeighted {
  weight?: number;
  podAffinityTerm?: RawTerm;
}
interface RawSide {
  requiredDuringSchedulingIgnoredDuringExecution?: RawTerm[] | null;
  preferredDuringSchedulingIgnoredDuringExecution?: RawWeighted[] | null;
}

export interface AffinityTerm {
  selector: LabelSelector;
  namespaces: Set<string>;
  /** nothing() when absent, everything() when {} */
  namespaceSelector: LabelSelector;
  topologyKey: string;
  weight: number;
}

export interface PodAffinityTerms {
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: AffinityTerm[];
  preferredAntiAffinity: AffinityTerm[];
}

function parseTerm(t: RawTerm, podNamespace: string, weight: number): AffinityTerm {
  const namespaces = new Set(t.namespaces ?? []);
  // no namespaces and no namespaceSelector: the pod's own namespace
  if (!namespaces.size && !t.namespaceSelector) namespaces.add(podNamespace);
  return {
    selector: fromLabelSelector(t.labelSelector),
    namespaces,
    namespaceSelector: fromLabelSelector(t.namespaceSelector),
    topologyKey: t.topologyKey ?? '',
    weight,
  };
}

/** The pod's affinity terms, parsed. */
export function parseAffinityTerms(pod: KObject): PodAffinityTerms {
  const aff = (pod as { spec?: { affinity?: { podAffinity?: RawSide; podAntiAffinity?: RawSide } } }).spec?.affinity;
  const ns = pod.metadata.namespace ?? '';
  const req = (s?: RawSide) => (s?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => parseTerm(t, ns, 0));
  const pref = (s?: RawSide) =>
    (s?.preferredDuringSchedulingIgnoredDuringExecution ?? []).filter((w) => w.podAffinityTerm).map((w) => parseTerm(w.podAffinityTerm!, ns, w.weight ?? 0));
  return {
    requiredAffinity: req(aff?.podAffinity),
    requiredAntiAffinity: req(aff?.podAntiAffinity),
    preferredAffinity: pref(aff?.podAffinity),
    preferredAntiAffinity: pref(aff?.podAntiAffinity),
  };
}

/** Parsed once per placed pod and kept on its cache entry. */
function entryTerms(e: PodEntry): PodAffinityTerms {
  if (!e.affinityTerms) e.affinityTerms = parseAffinityTerms(e.pod);
  return e.affinityTerms as PodAffinityTerms;
}

type NsLabels = (ns: string) => Record<string, string>;

function nsLabelsOf(ni: NodeInfo | undefined): NsLabels {
  const lookup = ni?.cluster?.lookups.namespaceLabels;
  return (ns) => lookup?.(ns) ?? { [NS_NAME_LABEL]: ns };
}

/** Whether `pod` is one of the pods `term` selects. */
export function termMatchesPod(term: AffinityTerm, pod: KObject, nsLabels: NsLabels): boolean {
  const ns = pod.metadata.namespace ?? '';
  if (!term.namespaces.has(ns) && !term.namespaceSelector.matches(nsLabels(ns))) return false;
  return term.selector.matches(pod.metadata.labels ?? {});
}

const matchesAll = (terms: AffinityTerm[], pod: KObject, nsLabels: NsLabels) => terms.every((t) => termMatchesPod(t, pod, nsLabels));
const nodeLabels = (ni: NodeInfo): Record<string, string> => ni.node?.metadata.labels ?? {};
const pairKey = (key: string, value: string) => `${key}\u0000${value}`;
const allNodes = (ni: NodeInfo): NodeInfo[] => ni.cluster?.nodes() ?? [ni];

function bump(m: Map<string, number>, k: string, by = 1): void {
  m.set(k, (m.get(k) ?? 0) + by);
}

// ---- per-node counts, memoised on the node until its pods change ----

/** The term's identity, or undefined when it depends on namespace labels (a namespaceSelector with terms). */
function termKey(t: AffinityTerm): string | undefined {
  if (t.namespaceSelector.requirements.length) return undefined;
  return `${[...t.namespaces].sort().join(',')}|${selectorKey(t.namespaceSelector)}|${selectorKey(t.selector)}`;
}

function memo(n: NodeInfo, key: string | undefined, compute: () => number): number {
  return key === undefined ? compute() : n.memoized(key, compute);
}

/** Pods of `n` selected by `t`. */
function podsMatching(n: NodeInfo, t: AffinityTerm, nsLabels: NsLabels): number {
  const k = termKey(t);
  return memo(n, k && `ipa-one\u0000${k}`, () => {
    let c = 0;
    for (const e of n.pods.values()) if (termMatchesPod(t, e.pod, nsLabels)) c++;
    return c;
  });
}

/** Pods of `n` selected by every term of `terms`. */
function podsMatchingAll(n: NodeInfo, terms: AffinityTerm[], nsLabels: NsLabels): number {
  const keys = terms.map(termKey);
  const k = keys.every((x) => x !== undefined) ? `ipa-all\u0000${keys.join('\u0000')}` : undefined;
  return memo(n, k, () => {
    let c = 0;
    for (const e of n.pods.values()) if (matchesAll(terms, e.pod, nsLabels)) c++;
    return c;
  });
}

interface Weighted {
  term: AffinityTerm;
  /** how many pods declare it, or the sum of their weights */
  sum: number;
}

/** The terms placed pods of `n` declare, identical ones merged: what symmetry checks look at. */
interface ExistingTerms {
  requiredAnti: Weighted[];
  requiredAffinity: Weighted[];
  preferredAffinity: Weighted[];
  preferredAnti: Weighted[];
}

function existingTerms(n: NodeInfo): ExistingTerms {
  return n.memoized('ipa-existing', () => {
    const groups = { requiredAnti: new Map<string, Weighted>(), requiredAffinity: new Map(), preferredAffinity: new Map(), preferredAnti: new Map() } as Record<keyof ExistingTerms, Map<string, Weighted>>;
    const add = (g: keyof ExistingTerms, terms: AffinityTerm[], byWeight: boolean) => {
      for (const t of terms) {
        const k = `${termKey(t) ?? `${[...t.namespaces].join(',')}|${t.namespaceSelector.toString()}|${selectorKey(t.selector)}`}|${t.topologyKey}`;
        const w = groups[g].get(k);
        if (w) w.sum += byWeight ? t.weight : 1;
        else groups[g].set(k, { term: t, sum: byWeight ? t.weight : 1 });
      }
    };
    for (const e of n.affinityPods.values()) {
      const et = entryTerms(e);
      add('requiredAnti', et.requiredAntiAffinity, false);
      add('requiredAffinity', et.requiredAffinity, false);
      add('preferredAffinity', et.preferredAffinity, true);
      add('preferredAnti', et.preferredAntiAffinity, true);
    }
    return {
      requiredAnti: [...groups.requiredAnti.values()],
      requiredAffinity: [...groups.requiredAffinity.values()],
      preferredAffinity: [...groups.preferredAffinity.values()],
      preferredAnti: [...groups.preferredAnti.values()],
    };
  });
}

// ---- Filter ----

interface FilterState {
  terms: PodAffinityTerms;
  /** topology pairs where placed pods' required anti-affinity rejects the incoming pod */
  existingAnti: Map<string, number>;
  /** topology pairs holding pods matching every required affinity term / some anti-affinity term */
  affinity: Map<string, number>;
  anti: Map<string, number>;
}

/** Adds one node's pods to the counts (sign -1 removes them, for preemption's copies). */
function countNode(st: FilterState, p: PodInfo, n: NodeInfo, nsLabels: NsLabels, sign: number): void {
  const labels = nodeLabels(n);
  if (n.antiAffinityPods.size) {
    for (const w of existingTerms(n).requiredAnti) {
      const t = w.term;
      if (t.topologyKey in labels && termMatchesPod(t, p.pod, nsLabels)) bump(st.existingAnti, pairKey(t.topologyKey, labels[t.topologyKey]), w.sum * sign);
    }
  }
  const { requiredAffinity: aff, requiredAntiAffinity: anti } = st.terms;
  if (aff.length) {
    const c = podsMatchingAll(n, aff, nsLabels);
    if (c) for (const t of aff) if (t.topologyKey in labels) bump(st.affinity, pairKey(t.topologyKey, labels[t.topologyKey]), c * sign);
  }
  for (const t of anti) {
    if (!(t.topologyKey in labels)) continue;
    const c = podsMatching(n, t, nsLabels);
    if (c) bump(st.anti, pairKey(t.topologyKey, labels[t.topologyKey]), c * sign);
  }
}

function filterState(p: PodInfo, ni: NodeInfo): FilterState {
  const cached = p.cycle.get('InterPodAffinity/filter') as FilterState | undefined;
  if (cached) return cached;
  const st: FilterState = { terms: parseAffinityTerms(p.pod), existingAnti: new Map(), affinity: new Map(), anti: new Map() };
  const nsLabels = nsLabelsOf(ni);
  const needAll = st.terms.requiredAffinity.length > 0 || st.terms.requiredAntiAffinity.length > 0;
  for (const n of allNodes(ni)) if (needAll || n.antiAffinityPods.size) countNode(st, p, n, nsLabels, 1);
  p.cycle.set('InterPodAffinity/filter', st);
  return st;
}

/** The state for a node copy (preemption dry run): the cached node's pods replaced by the copy's. */
function stateFor(st: FilterState, p: PodInfo, ni: NodeInfo): FilterState {
  const orig = ni.cluster?.nodeInfo(ni.name);
  if (!orig || orig === ni) return st;
  const copy: FilterState = { terms: st.terms, existingAnti: new Map(st.existingAnti), affinity: new Map(st.affinity), anti: new Map(st.anti) };
  const nsLabels = nsLabelsOf(ni);
  countNode(copy, p, orig, nsLabels, -1);
  countNode(copy, p, ni, nsLabels, 1);
  return copy;
}

const positive = (m: Map<string, number>) => [...m.values()].some((v) => v > 0);

function satisfiesAffinity(st: FilterState, p: PodInfo, labels: Record<string, string>, nsLabels: NsLabels): boolean {
  let exist = true;
  for (const t of st.terms.requiredAffinity) {
    if (!(t.topologyKey in labels)) return false;
    if ((st.affinity.get(pairKey(t.topologyKey, labels[t.topologyKey])) ?? 0) <= 0) exist = false;
  }
  if (exist) return true;
  // the first pod of a group whose affinity selects itself may go anywhere the topology keys exist
  return !positive(st.affinity) && matchesAll(st.terms.requiredAffinity, p.pod, nsLabels);
}

export function interPodAffinityFilter(p: PodInfo, ni: NodeInfo): FilterStatus | undefined {
  const base = filterState(p, ni);
  // PreFilter's Skip: no terms of its own and no placed pod's anti-affinity anywhere (a preemption copy with
  // nominated pods may bring some: then the full check)
  if (!base.terms.requiredAffinity.length && !base.terms.requiredAntiAffinity.length && !base.existingAnti.size && !ni.antiAffinityPods.size) return undefined;
  const st = stateFor(base, p, ni);
  const labels = nodeLabels(ni);
  if (st.terms.requiredAffinity.length && !satisfiesAffinity(st, p, labels, nsLabelsOf(ni))) {
    return { plugin: 'InterPodAffinity', code: 'UnschedulableAndUnresolvable', reasons: [REASON_AFFINITY] };
  }
  for (const t of st.terms.requiredAntiAffinity) {
    if (t.topologyKey in labels && (st.anti.get(pairKey(t.topologyKey, labels[t.topologyKey])) ?? 0) > 0) {
      return { plugin: 'InterPodAffinity', code: 'Unschedulable', reasons: [REASON_ANTI_AFFINITY] };
    }
  }
  if (st.existingAnti.size) {
    for (const [k, v] of Object.entries(labels)) {
      if ((st.existingAnti.get(pairKey(k, v)) ?? 0) > 0) return { plugin: 'InterPodAffinity', code: 'Unschedulable', reasons: [REASON_EXISTING_ANTI_AFFINITY] };
    }
  }
  return undefined;
}

// ---- Score ----

/** topologyKey → value → summed weight. */
type TopologyScore = Map<string, Map<string, number>>;

function addAt(score: TopologyScore, key: string, labels: Record<string, string>, by: number): void {
  if (!by || !(key in labels)) return;
  let m = score.get(key);
  if (!m) score.set(key, (m = new Map()));
  m.set(labels[key], (m.get(labels[key]) ?? 0) + by);
}

/**
 * Normalised InterPodAffinity scores (0–100) of the feasible nodes, or undefined when no preferred term and no
 * placed pod's term applies (kube skips the plugin then).
 */
export function interPodAffinityScores(p: PodInfo, feasible: NodeInfo[]): number[] | undefined {
  if (!feasible.length) return undefined;
  const terms = parseAffinityTerms(p.pod);
  const hasPreferred = terms.preferredAffinity.length > 0 || terms.preferredAntiAffinity.length > 0;
  const nsLabels = nsLabelsOf(feasible[0]);
  const score: TopologyScore = new Map();
  for (const n of allNodes(feasible[0])) {
    if (!(hasPreferred ? n.pods.size : n.affinityPods.size)) continue;
    const labels = nodeLabels(n);
    if (!Object.keys(labels).length) continue;
    // the incoming pod's preferences over the placed pods
    for (const t of terms.preferredAffinity) if (t.topologyKey in labels) addAt(score, t.topologyKey, labels, t.weight * podsMatching(n, t, nsLabels));
    for (const t of terms.preferredAntiAffinity) if (t.topologyKey in labels) addAt(score, t.topologyKey, labels, -t.weight * podsMatching(n, t, nsLabels));
    if (!n.affinityPods.size) continue;
    // the placed pods' terms over the incoming pod
    const ex = existingTerms(n);
    const matching = (ws: Weighted[], mult: number) => {
      for (const w of ws) if (w.term.topologyKey in labels && termMatchesPod(w.term, p.pod, nsLabels)) addAt(score, w.term.topologyKey, labels, w.sum * mult);
    };
    matching(ex.requiredAffinity, HARD_POD_AFFINITY_WEIGHT);
    matching(ex.preferredAffinity, 1);
    matching(ex.preferredAnti, -1);
  }
  if (!score.size) return undefined;
  const raw = feasible.map((n) => {
    const labels = nodeLabels(n);
    let s = 0;
    for (const [k, m] of score) if (k in labels) s += m.get(labels[k]) ?? 0;
    return s;
  });
  const min = Math.min(...raw);
  const diff = Math.max(...raw) - min;
  return raw.map((s) => (diff > 0 ? Math.trunc((100 * (s - min)) / diff) : 0));
}
