// What a pod asks for, as k8s.io/component-helpers/resource PodRequests/PodLimits compute it (containers summed,
// init containers as a maximum, restartable init containers (sidecars) added, overhead added), and the pod
// evaluator's usage, scopes and constraints (pkg/quota/v1/evaluator/core/pods.go).
import { computeQOS } from '../pod/admission.js';
import type { Pod } from '../pod/types.js';
import type { KObject } from '../../types.js';
import { add, max, q, toList, type ResourceList } from './resource-list.js';

interface ContainerLike {
  name?: string;
  restartPolicy?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}

interface PodSpecLike {
  containers?: ContainerLike[];
  initContainers?: ContainerLike[];
  overhead?: Record<string, unknown>;
  activeDeadlineSeconds?: number;
  priorityClassName?: string;
  affinity?: { podAffinity?: Record<string, unknown[]>; podAntiAffinity?: Record<string, unknown[]> };
}

const specOf = (pod: KObject): PodSpecLike => (pod.spec ?? {}) as PodSpecLike;

function aggregate(pod: KObject, field: 'requests' | 'limits'): ResourceList {
  const spec = specOf(pod);
  let total: ResourceList = {};
  for (const c of spec.containers ?? []) total = add(total, toList(c.resources?.[field]));
  let sidecars: ResourceList = {};
  let init: ResourceList = {};
  for (const c of spec.initContainers ?? []) {
    let own = toList(c.resources?.[field]);
    if (c.restartPolicy === 'Always') {
      total = add(total, own);
      sidecars = add(sidecars, own);
      own = sidecars;
    } else {
      own = add(own, sidecars);
    }
    init = max(init, own);
  }
  total = max(total, init);
  if (spec.overhead) total = add(total, toList(spec.overhead));
  return total;
}

export function podRequests(pod: KObject): ResourceList {
  return aggregate(pod, 'requests');
}

export function podLimits(pod: KObject): ResourceList {
  return aggregate(pod, 'limits');
}

const HUGEPAGES = 'hugepages-';

/** Extended resources: fully qualified names outside kubernetes.io (helper.IsExtendedResourceName). */
export function isExtendedResource(name: string): boolean {
  if (name.startsWith('requests.')) return false;
  const slash = name.indexOf('/');
  if (slash < 0) return false;
  const domain = name.slice(0, slash);
  return domain !== 'kubernetes.io' && !domain.endsWith('.kubernetes.io');
}

/** podComputeUsageHelper: the quota names a pod's requests and limits are charged to. */
export function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: '1' };
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (r in requests) {
      out[r] = requests[r];
      out[`requests.${r}`] = requests[r];
    }
    if (r in limits) out[`limits.${r}`] = limits[r];
  }
  for (const [r, v] of Object.entries(requests)) {
    if (r.startsWith(HUGEPAGES)) {
      out[r] = v;
      out[`requests.${r}`] = v;
    }
    if (isExtendedResource(r)) out[`requests.${r}`] = v;
  }
  return out;
}

/** QuotaV1Pod: terminal pods, and pods past their deletion grace period, no longer use compute resources. */
export function podCountsForQuota(pod: KObject, now: number): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const m = pod.metadata;
  if (m.deletionTimestamp && m.deletionGracePeriodSeconds !== undefined) {
    const deadline = Date.parse(m.deletionTimestamp) + m.deletionGracePeriodSeconds * 1000;
    if (now > deadline) return false;
  }
  return true;
}

/** PodUsageFunc: count/pods always; compute resources and `pods` while the pod is not terminal. */
export function podUsage(pod: KObject, now: number): ResourceList {
  const base: ResourceList = { 'count/pods': '1' };
  if (!podCountsForQuota(pod, now)) return base;
  return { ...base, ...computeUsage(podRequests(pod), podLimits(pod)) };
}

// Resources whose presence the pod evaluator enforces per container (a legacy rule of quota: cpu and memory only).
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

/** podEvaluator.Constraints: "must specify <res> for: <containers>; ..." or undefined. */
export function podConstraints(required: string[], pod: KObject): string | undefined {
  const req = required.filter((r) => VALIDATION_SET.has(r));
  if (!req.length) return undefined;
  const missing = new Map<string, Set<string>>();
  const spec = specOf(pod);
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const have = computeUsage(toList(c.resources?.requests), toList(c.resources?.limits));
    for (const r of req) {
      if (r in have) continue;
      if (!missing.has(r)) missing.set(r, new Set());
      missing.get(r)!.add(c.name ?? '');
    }
  }
  if (!missing.size) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

export interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[] | null;
}

function crossNamespaceAffinity(pod: KObject): boolean {
  const a = specOf(pod).affinity;
  const terms = [
    ...((a?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as Record<string, unknown>[]),
    ...((a?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as { podAffinityTerm?: Record<string, unknown> }[]).map((w) => w.podAffinityTerm ?? {}),
    ...((a?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) as Record<string, unknown>[]),
    ...((a?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) as { podAffinityTerm?: Record<string, unknown> }[]).map((w) => w.podAffinityTerm ?? {}),
  ];
  return terms.some((t) => (Array.isArray(t.namespaces) && t.namespaces.length > 0) || t.namespaceSelector !== undefined && t.namespaceSelector !== null);
}

/** podMatchesScopeFunc. */
export function podMatchesScope(req: ScopeRequirement, pod: KObject): boolean {
  const spec = specOf(pod);
  const terminating = spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null && spec.activeDeadlineSeconds >= 0;
  const bestEffort = computeQOS(pod as Pod) === 'BestEffort';
  switch (req.scopeName) {
    case 'Terminating':
      return terminating;
    case 'NotTerminating':
      return !terminating;
    case 'BestEffort':
      return bestEffort;
    case 'NotBestEffort':
      return !bestEffort;
    case 'CrossNamespacePodAffinity':
      return crossNamespaceAffinity(pod);
    case 'PriorityClass': {
      const pc = spec.priorityClassName ?? '';
      // the pod is matched as a label set {PriorityClass: <name>}, empty without a class
      switch (req.operator) {
        case 'Exists':
          return pc !== '';
        case 'DoesNotExist':
          return pc === '';
        case 'In':
          return (req.values ?? []).includes(pc);
        case 'NotIn':
          return pc === '' || !(req.values ?? []).includes(pc);
      }
      return false;
    }
  }
  return false;
}

/** Used by metrics: a quantity list value in milli-units. */
export function milli(v: unknown): number {
  return q(v).milliValue();
}
