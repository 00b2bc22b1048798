// Which pod the kubelet evicts under node pressure, and what it writes when it does (eviction/helpers.go ranking
// functions and evictionMessage, eviction_manager.go evictPod). Pure functions over pods and their usage stats.
import type { Container, Pod, PodCondition } from '../../api/core/pod/types.js';
import { Quantity } from '../../machinery/quantity.js';
import { rfc3339 } from '../../machinery/object.js';
import { SIGNAL_RESOURCE, thresholdValueFor, type Observations, type Signal, type Threshold } from './signals.js';

/** Usage of one pod as the stats summary gives it; absent fields are "no stats". */
export interface PodUsageStats {
  /** pod-level working set (memory.available ranking) */
  memoryWorkingSetBytes?: number;
  /** the pod's disk usage over the filesystems the signal measures (rootfs + logs + local volumes on one disk) */
  ephemeralStorageBytes?: number;
  inodes?: number;
  processes?: number;
  containers?: Array<{ name: string; memoryWorkingSetBytes?: number; rootfsUsedBytes?: number; logsUsedBytes?: number }>;
}

export interface PodWithStats {
  pod: Pod;
  /** undefined: no stats were found, and the kubelet evicts such pods first */
  stats?: PodUsageStats;
}

/** scheduling.SystemCriticalPriority */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
/** how long an evicted pod gets to stop when a hard threshold is crossed */
export const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1;

/** kubelettypes.IsCriticalPod: static, mirror, or system-critical priority pods are never evicted. */
export function isCriticalPod(pod: Pod): boolean {
  const ann = pod.metadata?.annotations ?? {};
  const source = ann['kubernetes.io/config.source'];
  if (source !== undefined && source !== 'api') return true;
  if (ann['kubernetes.io/config.mirror'] !== undefined) return true;
  return (pod.spec?.priority as number | undefined ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
}

function requestOf(c: Container, resource: string): Quantity | undefined {
  const v = c.resources?.requests?.[resource];
  return v === undefined ? undefined : Quantity.parse(String(v));
}

const max = (a: Quantity, b: Quantity): Quantity => (a.cmp(b) >= 0 ? a : b);

/**
 * GetResourceRequestQuantity: the pod's effective request (PodRequests with sidecars: regular containers plus
 * restartable init containers, or the largest init-container phase if bigger), plus overhead when non-zero.
 */
export function podRequest(pod: Pod, resource: string): Quantity {
  const format = resource === 'memory' || resource === 'ephemeral-storage' || resource === 'storage' ? 'BinarySI' : 'DecimalSI';
  let sum = Quantity.fromInt(0, format);
  for (const c of pod.spec?.containers ?? []) sum = sum.add(requestOf(c, resource) ?? Quantity.fromInt(0));
  let sidecars = Quantity.fromInt(0, format);
  let initMax = Quantity.fromInt(0, format);
  for (const c of pod.spec?.initContainers ?? []) {
    const r = requestOf(c, resource) ?? Quantity.fromInt(0);
    if (c.restartPolicy === 'Always') {
      sidecars = sidecars.add(r);
      initMax = max(initMax, sidecars);
    } else {
      initMax = max(initMax, r.add(sidecars));
    }
  }
  let total = max(sum.add(sidecars), initMax);
  const overhead = (pod.spec as { overhead?: Record<string, string | number> } | undefined)?.overhead?.[resource];
  if (overhead !== undefined && !total.isZero()) total = total.add(Quantity.parse(String(overhead)));
  return total;
}

type Cmp = (a: PodWithStats, b: PodWithStats) => number;

/** cmpBool: true sorts first */
const cmpBool = (a: boolean, b: boolean): number => (a === b ? 0 : a ? -1 : 1);
const noStats: Cmp = (a, b) => cmpBool(!a.stats, !b.stats);

/** lower priority is evicted first */
const byPriority: Cmp = (a, b) => Math.sign(((a.pod.spec?.priority as number) ?? 0) - ((b.pod.spec?.priority as number) ?? 0));

function usageOf(p: PodWithStats, signal: Signal): number {
  const s = p.stats ?? {};
  if (signal === 'memory.available') return s.memoryWorkingSetBytes ?? 0;
  if (signal === 'pid.available') return s.processes ?? 0;
  return (SIGNAL_RESOURCE[signal] === 'inodes' ? s.inodes : s.ephemeralStorageBytes) ?? 0;
}

function exceedsRequests(signal: Signal): Cmp {
  const resource = SIGNAL_RESOURCE[signal];
  return (a, b) => {
    if (!a.stats || !b.stats) return noStats(a, b);
    const over = (p: PodWithStats): boolean => Quantity.fromInt(usageOf(p, signal)).cmp(podRequest(p.pod, resource)) > 0;
    return cmpBool(over(a), over(b));
  };
}

/** usage above request, larger first; disk signals subtract the ephemeral-storage request (inodes too, as kubelet does) */
function aboveRequests(signal: Signal): Cmp {
  const resource = signal === 'memory.available' ? 'memory' : 'ephemeral-storage';
  return (a, b) => {
    if (!a.stats || !b.stats) return noStats(a, b);
    const above = (p: PodWithStats): Quantity => Quantity.fromInt(usageOf(p, signal)).sub(podRequest(p.pod, resource));
    return above(b).cmp(above(a));
  };
}

const byProcesses: Cmp = (a, b) => (!a.stats || !b.stats ? noStats(a, b) : usageOf(b, 'pid.available') - usageOf(a, 'pid.available'));

/**
 * The kubelet's eviction order for a signal: memory and disk rank pods whose usage exceeds their requests first,
 * then by priority (lowest first), then by usage above requests (largest first); PIDs by priority then process count.
 * Critical pods are left out: the kubelet never evicts them.
 */
export function rankForEviction(pods: PodWithStats[], signal: Signal): PodWithStats[] {
  const order: Cmp[] = signal === 'pid.available' ? [byPriority, byProcesses] : [exceedsRequests(signal), byPriority, aboveRequests(signal)];
  return pods
    .filter((p) => !isCriticalPod(p.pod))
    .sort((a, b) => {
      for (const cmp of order) {
        const c = cmp(a, b);
        if (c !== 0) return c;
      }
      return 0;
    });
}

export interface EvictionDecision {
  /** the Warning event's reason and message on the pod */
  reason: 'Evicted';
  message: string;
  /** annotations of that event */
  annotations: Record<string, string>;
  /** the pod status the kubelet writes once the pod is killed */
  status: { phase: 'Failed'; reason: 'Evicted'; message: string; conditions: PodCondition[] };
  gracePeriodSeconds: number;
}

function containerUsage(resource: string, c: NonNullable<PodUsageStats['containers']>[number]): Quantity | undefined {
  if (resource === 'memory') return c.memoryWorkingSetBytes === undefined ? undefined : Quantity.fromInt(c.memoryWorkingSetBytes, 'BinarySI');
  if (resource === 'ephemeral-storage' && c.rootfsUsedBytes !== undefined && c.logsUsedBytes !== undefined) {
    return Quantity.fromInt(c.rootfsUsedBytes + c.logsUsedBytes, 'BinarySI');
  }
  return undefined;
}

/**
 * evictionMessage + evictPod: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki.
 * Container x was using 300Mi, request is 100Mi, has larger consumption of memory. " (kubelet's trailing space
 * included), the event annotations, and the Failed/Evicted status with a DisruptionTarget condition.
 */
export function evictionDecision(opts: {
  pod: PodWithStats;
  /** the threshold being reclaimed (the first of pressureConditions().toReclaim) */
  threshold: Threshold;
  /** all thresholds met now and the observations they were met on */
  met: Threshold[];
  observations: Observations;
  now?: number;
}): EvictionDecision {
  const resource = SIGNAL_RESOURCE[opts.threshold.signal];
  let message = `The node was low on resource: ${resource}. `;
  const metForResource = opts.met.find((t) => SIGNAL_RESOURCE[t.signal] === resource && opts.observations[t.signal]);
  if (metForResource) {
    const o = opts.observations[metForResource.signal]!;
    const fmt = resource === 'inodes' || resource === 'pids' ? 'DecimalSI' : 'BinarySI';
    message += `Threshold quantity: ${thresholdValueFor(metForResource, o).toString()}, available: ${Quantity.fromInt(o.available, fmt).toString()}. `;
  }
  const annotations: Record<string, string> = {};
  const stats = opts.pod.stats;
  if (stats) {
    const spec = opts.pod.pod.spec ?? {};
    const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
    const names: string[] = [];
    const usages: string[] = [];
    for (const cs of stats.containers ?? []) {
      const c = containers.find((x) => x.name === cs.name);
      if (!c) continue;
      const request = requestOf(c, resource) ?? Quantity.fromInt(0);
      const usage = containerUsage(resource, cs);
      if (usage && usage.cmp(request) > 0) {
        message += `Container ${cs.name} was using ${usage.toString()}, request is ${request.toString()}, has larger consumption of ${resource}. `;
        names.push(cs.name);
        usages.push(usage.toString());
      }
    }
    annotations.offending_containers = names.join(',');
    annotations.offending_containers_usage = usages.join(',');
    annotations.starved_resource = resource;
  }
  const hard = (opts.threshold.gracePeriodSeconds ?? 0) === 0;
  return {
    reason: 'Evicted',
    message,
    annotations,
    status: {
      phase: 'Failed',
      reason: 'Evicted',
      message,
      conditions: [
        { type: 'DisruptionTarget', status: 'True', lastTransitionTime: rfc3339(opts.now), reason: 'TerminationByKubelet', message },
      ],
    },
    // soft thresholds use evictionMaxPodGracePeriod, 0 by default (then the pod's own grace period applies)
    gracePeriodSeconds: hard ? IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS : 0,
  };
}
