// The filters over the node alone: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts and
// NodeResourcesFit, with kube-scheduler 1.33's reasons.
import type { Toleration } from '../../api/core/pod/types.js';
import type { Taint } from '../../api/core/node/validation.js';
import { nodeSelectorTermMatches, toleratesTaint } from '../../api/core/scheduling-match.js';
import {
  FIT_ALLOC_CPU,
  FIT_ALLOC_EPH,
  FIT_ALLOC_MEM,
  FIT_ALLOWED_PODS,
  FIT_PODS,
  FIT_REQ_CPU,
  FIT_REQ_EPH,
  FIT_REQ_MEM,
  type NodeInfo,
} from '../node-info.js';
import type { Filter, FilterStatus, PodInfo } from './pod-info.js';

export const REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const REASON_NODE_NAME = "node(s) didn't match the requested node name";
export const REASON_NODE_PORTS = "node(s) didn't have free ports for the requested pod ports";
export const REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector";
export const REASON_TOO_MANY_PODS = 'Too many pods';
export const untoleratedTaintReason = (t: Taint): string => `node(s) had untolerated taint {${t.key ?? ''}: ${t.value ?? ''}}`;

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
