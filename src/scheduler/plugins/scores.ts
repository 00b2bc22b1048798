// Score plugins of the default profile (kube-scheduler 1.33) with their default weights: NodeResourcesFit
// (LeastAllocated over cpu and memory, weight 1), NodeResourcesBalancedAllocation (1), ImageLocality (1),
// TaintToleration PreferNoSchedule (3), NodeAffinity preferred terms (2), PodTopologySpread (2) and InterPodAffinity
// (2). Each plugin scores 0–100 per node (normalised like framework.DefaultNormalizeScore or the plugin's own
// NormalizeScore); the node with the highest weighted sum wins, ties broken at random.
import { termMatches, tolerated } from './node-filters.js';
import { type PodInfo } from './pod-info.js';
import { FIT_ALLOC_CPU, FIT_ALLOC_MEM, FIT_NZ_CPU, FIT_NZ_MEM, FIT_REQ_CPU, FIT_REQ_MEM, type NodeInfo } from '../node-info.js';
import { podTopologySpreadScores } from './topology-spread.js';
import { interPodAffinityScores } from './inter-pod-affinity.js';
import { imageLocalityScores } from './image-locality.js';

export const MAX_NODE_SCORE = 100;

export const DEFAULT_SCORE_WEIGHTS = {
  NodeResourcesFit: 1,
  NodeResourcesBalancedAllocation: 1,
  ImageLocality: 1,
  TaintToleration: 3,
  NodeAffinity: 2,
  PodTopologySpread: 2,
  InterPodAffinity: 2,
} as const;

/** (capacity - requested) * 100 / capacity, 0 when over capacity; integer arithmetic as in Go. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/** LeastAllocated over cpu and memory (weights 1 each) with the pod's non-zero requests added. */
export function leastAllocatedScore(p: PodInfo, ni: NodeInfo): number {
  const f = ni.fit;
  const cpuCap = f[FIT_ALLOC_CPU]!;
  const memCap = f[FIT_ALLOC_MEM]!;
  let score = 0;
  let weights = 0;
  if (cpuCap !== 0) {
    score += leastRequestedScore(f[FIT_NZ_CPU]! + p.nonZero.milliCPU, cpuCap);
    weights++;
  }
  if (memCap !== 0) {
    score += leastRequestedScore(f[FIT_NZ_MEM]! + p.nonZero.memory, memCap);
    weights++;
  }
  return weights === 0 ? 0 : Math.trunc(score / weights);
}

/** 100 × (1 − standard deviation of the cpu and memory fractions), from actual (not non-zero) requests. */
export function balancedAllocationScore(p: PodInfo, ni: NodeInfo): number {
  const f = ni.fit;
  const cpuCap = f[FIT_ALLOC_CPU]!;
  const memCap = f[FIT_ALLOC_MEM]!;
  // with one resource (or none) the deviation is zero
  if (cpuCap === 0 || memCap === 0) return MAX_NODE_SCORE;
  const cpu = Math.min((f[FIT_REQ_CPU]! + p.requests.milliCPU) / cpuCap, 1);
  const mem = Math.min((f[FIT_REQ_MEM]! + p.requests.memory) / memCap, 1);
  const std = Math.abs((cpu - mem) / 2);
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

/** Best-effort pods (no cpu and no memory request) skip BalancedAllocation. */
function balancedAllocationApplies(p: PodInfo): boolean {
  return p.requests.milliCPU !== 0 || p.requests.memory !== 0;
}

/** How many PreferNoSchedule taints of the node the pod does not tolerate (lower is better). */
export function intolerablePreferNoSchedule(p: PodInfo, ni: NodeInfo): number {
  if (!ni.softTaints.length) return 0;
  const tols = p.tolerations.filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
  let n = 0;
  for (const t of ni.softTaints) if (!tolerated(tols, t)) n++;
  return n;
}

/** Sum of the weights of the preferred node-affinity terms the node matches. */
export function nodeAffinityPreferred(p: PodInfo, ni: NodeInfo): number {
  const labels = ni.node?.metadata.labels ?? {};
  let sum = 0;
  for (const t of p.preferredTerms) if (termMatches(t.preference, labels, ni.name)) sum += t.weight;
  return sum;
}

/** framework.DefaultNormalizeScore: scale to 0–max by the highest score, optionally reversed. */
export function defaultNormalizeScore(scores: number[], opts: { reverse?: boolean; max?: number } = {}): number[] {
  const max = opts.max ?? MAX_NODE_SCORE;
  const top = Math.max(0, ...scores);
  if (top === 0) return opts.reverse ? scores.map(() => max) : scores.slice();
  return scores.map((s) => {
    const v = Math.trunc((max * s) / top);
    return opts.reverse ? max - v : v;
  });
}

export interface NodeScore {
  node: NodeInfo;
  total: number;
}

/** The weighted total of every score plugin for each feasible node. */
export function scoreNodes(p: PodInfo, nodes: NodeInfo[]): NodeScore[] {
  const w = DEFAULT_SCORE_WEIGHTS;
  const totals = nodes.map((n) => leastAllocatedScore(p, n) * w.NodeResourcesFit);
  if (balancedAllocationApplies(p)) nodes.forEach((n, i) => (totals[i] += balancedAllocationScore(p, n) * w.NodeResourcesBalancedAllocation));
  imageLocalityScores(p, nodes)?.forEach((s, i) => (totals[i] += s * w.ImageLocality));
  const taints = defaultNormalizeScore(nodes.map((n) => intolerablePreferNoSchedule(p, n)), { reverse: true });
  taints.forEach((s, i) => (totals[i] += s * w.TaintToleration));
  if (p.preferredTerms.length) {
    const aff = defaultNormalizeScore(nodes.map((n) => nodeAffinityPreferred(p, n)));
    aff.forEach((s, i) => (totals[i] += s * w.NodeAffinity));
  }
  podTopologySpreadScores(p, nodes)?.forEach((s, i) => (totals[i] += s * w.PodTopologySpread));
  interPodAffinityScores(p, nodes)?.forEach((s, i) => (totals[i] += s * w.InterPodAffinity));
  return nodes.map((node, i) => ({ node, total: totals[i] }));
}

/** The highest total; among equal totals each is equally likely (reservoir sampling, as selectHost does). */
export function selectHost(scores: NodeScore[], random: () => number = Math.random): NodeInfo | undefined {
  let best: NodeScore | undefined;
  let ties = 0;
  for (const s of scores) {
    if (!best || s.total > best.total) {
      best = s;
      ties = 1;
    } else if (s.total === best.total) {
      ties++;
      if (Math.floor(random() * ties) === 0) best = s;
    }
  }
  return best?.node;
}
