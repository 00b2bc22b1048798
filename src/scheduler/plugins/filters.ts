// Filter plugins of the default profile, in kube-scheduler 1.33's order: NodeUnschedulable, NodeName,
// TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
// VolumeZone, PodTopologySpread, InterPodAffinity (the volume plugins' PreFilters run first, see runFilters). A node
// fails at the first plugin that rejects it; reasons and codes are kube's (UnschedulableAndUnresolvable tells
// preemption not to bother with the node).
import type { NodeInfo } from '../node-info.js';
import { nodeAffinity, nodeName, nodePorts, nodeResourcesFit, nodeUnschedulable, taintToleration } from './node-filters.js';
import type { Filter, FilterStatus, PodInfo } from './pod-info.js';
import { podTopologySpreadFilter } from './topology-spread.js';
import { interPodAffinityFilter } from './inter-pod-affinity.js';
import { volumeFilters, volumePreFilters } from './volume-binding.js';

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
