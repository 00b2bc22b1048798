// Filter plugins of the default profile, in kube-scheduler 1.33's order: NodeUnschedulable, NodeName,
// TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
// VolumeZone, PodTopologySpread, InterPodAffinity (the volume plugins' PreFilters run first, see runFilters). A node
// fails at the first plugin that rejects it; reasons and codes are kube's (UnschedulableAndUnresolvable tells
// preemption not to bother with the node).
import type { KObject } from '../../api/types.js';
import type { PodSpec, Toleration } from '../../api/core/pod/types.js';
import type { Taint } from '../../api/core/node/validation.js';
import { nodeSelectorTermMatches, toleratesTaint, type NodeSelectorRequirement, type NodeSelectorTerm } from '../../api/core/scheduling-match.js';
import {
  FIT_ALLOC_CPU,
  FIT_ALLOC_EPH,
  FIT_ALLOC_MEM,
  FIT_ALLOWED_PODS,
  FIT_PODS,
  FIT_REQ_CPU,
  FIT_REQ_EPH,
  FIT_REQ_MEM,
  podHostPorts,
  podPriority,
  type HostPort,
  type NodeInfo,
} from '../node-info.js';
import { podRequests, type Resources } from '../resources.js';
import { podTopologySpreadFilter } from './topology-spread.js';
import { interPodAffinityFilter } from './inter-pod-affinity.js';
import { volumeFilters, volumePreFilters } from './volume-binding.js';
import { usesVolumes } from '../volume-binding/types.js';

export type StatusCode = 'Unschedulable' | 'UnschedulableAndUnresolvable';

export interface FilterStatus {
  plugin: string;
  code: StatusCode;
  reasons: string[];
  /** a PreFilter rejected the pod: every node has this status and the FitError prints its message alone */
  preFilter?: boolean;
}

export const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const REASON_NODE_NAME = "node(s) didn't match the requested node name";
export const REASON_NODE_PORTS = "node(s) didn't have free ports for the requested pod ports";
export const REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
export const REASON_TOO_MANY_PODS = 'Too many pods';
export const untoleratedTaintReason = (t: Taint): string => `node(s) had untolerated taint {${t.key ?? ''}: ${t.value ?? ''}}`;

export type { NodeSelectorRequirement, NodeSelectorTerm };

interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] };
  preferredDuringSchedulingIgnoredDuringExecution?: { weight?: number; preference?: NodeSelectorTerm }[];
}

/** What the filters and scores need of a pod, computed once per attempt (the PreFilter / PreScore state). */
export interface PodInfo {
  pod: KObject;
  spec: PodSpec;
  priority: number;
  requests: Resources;
  /** the extended resources it requests (non-zero) */
  scalarRequests: [string, number][];
  nonZero: { milliCPU: number; memory: number };
  ports: HostPort[];
  tolerations: Toleration[];
  nodeSelector?: Record<string, string>;
  requiredTerms?: NodeSelectorTerm[];
  preferredTerms: { weight: number; preference: NodeSelectorTerm }[];
  /** per-attempt state of plugins that precompute over every node (kube's CycleState), filled lazily */
  cycle: Map<string, unknown>;
  /** whether the volume plugins have anything to check (usesVolumes); when not, their PreFilters Skip them */
  volumesUsed: boolean;
  /** the default filters that apply to this pod (see activeFilters), filled on first use */
  filters?: readonly Filter[];
}

export function podInfo(pod: KObject): PodInfo {
  const spec = ((pod as { spec?: PodSpec }).spec ?? {}) as PodSpec;
  const na = (spec.affinity as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity;
  const nz = podRequests(pod, { nonMissing: true });
  const requests = podRequests(pod);
  return {
    pod,
    spec,
    priority: podPriority(pod),
    requests,
    scalarRequests: Object.entries(requests.scalar).filter(([, q]) => q > 0),
    nonZero: { milliCPU: nz.milliCPU, memory: nz.memory },
    ports: podHostPorts(pod),
    tolerations: spec.tolerations ?? [],
    nodeSelector: spec.nodeSelector && Object.keys(spec.nodeSelector).length ? spec.nodeSelector : undefined,
    requiredTerms: na?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    preferredTerms: (na?.preferredDuringSchedulingIgnoredDuringExecution ?? [])
      .filter((t) => t.weight && t.preference)
      .map((t) => ({ weight: t.weight!, preference: t.preference! })),
    volumesUsed: usesVolumes(pod),
    cycle: new Map(),
  };
}

// ---- tolerations (v1helper.TolerationsTolerateTaint) ----

export { toleratesTaint };

export function tolerated(tolerations: Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

function labelsOf(ni: NodeInfo): Record<string, string> {
  return ni.node?.metadata.labels ?? {};
}

// ---- node selector terms (nodeaffinity.NodeSelector) ----

/** A term matches when all its expressions and fields match; an empty term matches nothing. */
export const termMatches = nodeSelectorTermMatches;

export function nodeMatchesRequiredAffinity(p: PodInfo, ni: NodeInfo): boolean {
  const labels = labelsOf(ni);
  if (p.nodeSelector) for (const [k, v] of Object.entries(p.nodeSelector)) if (labels[k] !== v) return false;
  if (p.requiredTerms) return p.requiredTerms.some((t) => termMatches(t, labels, ni.name));
  return true;
}

// ---- the filters ----

type Filter = (p: PodInfo, ni: NodeInfo) => FilterStatus | undefined;

const unresolvable = (plugin: string, reason: string): FilterStatus => ({ plugin, code: 'UnschedulableAndUnresolvable', reasons: [reason] });

export const nodeUnschedulable: Filter = (p, ni) => {
  if (!ni.unschedulable) return undefined;
  if (tolerated(p.tolerations, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) return undefined;
  return unresolvable('NodeUnschedulable', REASON_UNSCHEDULABLE);
};

export const nodeName: Filter = (p, ni) => {
  if (!p.spec.nodeName || p.spec.nodeName === ni.name) return undefined;
  return unresolvable('NodeName', REASON_NODE_NAME);
};

export const taintToleration: Filter = (p, ni) => {
  for (const t of ni.hardTaints) {
    if (!tolerated(p.tolerations, t)) return unresolvable('TaintToleration', untoleratedTaintReason(t));
  }
  return undefined;
};

export const nodeAffinity: Filter = (p, ni) => (nodeMatchesRequiredAffinity(p, ni) ? undefined : unresolvable('NodeAffinity', REASON_NODE_AFFINITY));

export const nodePorts: Filter = (p, ni) => {
  for (const port of p.ports) {
    if (ni.portInUse(port)) return { plugin: 'NodePorts', code: 'Unschedulable', reasons: [REASON_NODE_PORTS] };
  }
  return undefined;
};

/**
 * NodeResourcesFit: pod count, then cpu, memory, ephemeral storage and scalar resources against what is left.
 * Without `reasons` it stops at the first shortfall (most nodes fit, and this runs for hundreds of nodes per pod);
 * with it, every shortfall is named there.
 */
function fitsResources(p: PodInfo, ni: NodeInfo, reasons?: string[]): boolean {
  const f = ni.fit;
  const r = p.requests;
  let fits = true;
  const short = (reason: string): void => {
    fits = false;
    reasons?.push(reason);
  };
  if (f[FIT_PODS]! + 1 > f[FIT_ALLOWED_PODS]!) short(REASON_TOO_MANY_PODS);
  if (!fits && !reasons) return false;
  if (r.milliCPU > 0 && r.milliCPU > f[FIT_ALLOC_CPU]! - f[FIT_REQ_CPU]!) short('Insufficient cpu');
  if (r.memory > 0 && r.memory > f[FIT_ALLOC_MEM]! - f[FIT_REQ_MEM]!) short('Insufficient memory');
  if (r.ephemeralStorage > 0 && r.ephemeralStorage > f[FIT_ALLOC_EPH]! - f[FIT_REQ_EPH]!) short('Insufficient ephemeral-storage');
  for (const [name, q] of p.scalarRequests) {
    if (q > (ni.allocatable.scalar[name] ?? 0) - (ni.requested.scalar[name] ?? 0)) short(`Insufficient ${name}`);
  }
  return fits;
}

export const nodeResourcesFit: Filter = (p, ni) => {
  if (fitsResources(p, ni)) return undefined;
  const reasons: string[] = [];
  fitsResources(p, ni, reasons);
  return { plugin: 'NodeResourcesFit', code: 'Unschedulable', reasons };
};

export const DEFAULT_FILTERS: readonly Filter[] = [
  nodeUnschedulable,
  nodeName,
  taintToleration,
  nodeAffinity,
  nodePorts,
  nodeResourcesFit,
  // VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone
  volumeFilters,
  podTopologySpreadFilter,
  interPodAffinityFilter,
];

/**
 * The default filters this pod needs: those with nothing to check for it (no nodeName, node selector or affinity,
 * host ports, volumes) are left out, as kube's PreFilter Skip leaves out their Filter for the cycle.
 */
function activeFilters(p: PodInfo): readonly Filter[] {
  const skip = new Set<Filter>();
  if (!p.spec.nodeName) skip.add(nodeName);
  if (!p.nodeSelector && !p.requiredTerms) skip.add(nodeAffinity);
  if (!p.ports.length) skip.add(nodePorts);
  if (!p.volumesUsed) skip.add(volumeFilters);
  return skip.size ? DEFAULT_FILTERS.filter((f) => !skip.has(f)) : DEFAULT_FILTERS;
}

/** Runs the filters in order; the first rejection is the node's status, undefined means the node fits. */
export function runFilters(p: PodInfo, ni: NodeInfo, filters: readonly Filter[] = DEFAULT_FILTERS): FilterStatus | undefined {
  if (filters === DEFAULT_FILTERS) filters = p.filters ??= activeFilters(p);
  // the volume plugins' PreFilter rejections hold for every node (computed once per attempt)
  if (p.volumesUsed) {
    const pre = volumePreFilters(p, ni);
    if (pre) return pre;
  }
  for (const f of filters) {
    const s = f(p, ni);
    if (s) return s;
  }
  return undefined;
}
