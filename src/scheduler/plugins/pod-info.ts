// What the filter and score plugins are given: a pod's PodInfo (computed once per scheduling attempt, kube's
// PreFilter / PreScore state) and the NodeInfo of one node; a filter answers a FilterStatus, or undefined if it fits.
import type { KObject } from '../../api/types.js';
import type { PodSpec, Toleration } from '../../api/core/pod/types.js';
import type { NodeSelectorTerm } from '../../api/core/scheduling-match.js';
import { podHostPorts, podPriority, type HostPort, type NodeInfo } from '../node-info.js';
import { podRequests, type Resources } from '../resources.js';
import { usesVolumes } from '../volume-binding/types.js';

export type StatusCode = 'Unschedulable' | 'UnschedulableAndUnresolvable';

export interface FilterStatus {
  plugin: string;
  code: StatusCode;
  reasons: string[];
  /** a PreFilter rejected the pod: every node has this status and the FitError prints its message alone */
  preFilter?: boolean;
}

export type Filter = (p: PodInfo, ni: NodeInfo) => FilterStatus | undefined;

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
