// The HPA replica calculator (pkg/controller/podautoscaler/replica_calculator.go) as pure functions over pods and
// their metrics: pods are grouped into ready, unready, missing and ignored; missing pods count as using the
// target on scale-down and nothing on scale-up; unready pods count as using nothing on a scale-up; a change
// within the tolerance (0.1) or one that would flip direction keeps the current count.
import type { KObject } from '../../api/types.js';
import { podCondition } from '../framework/pod-util.js';
import { milli } from '../../api/core/resourcequota/pod-requests.js';

export const TOLERANCE = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period */
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
/** --horizontal-pod-autoscaler-initial-readiness-delay */
export const INITIAL_READINESS_DELAY_MS = 30_000;

export interface PodMetric {
  timestamp: number;
  windowMs: number;
  /** milli-units */
  value: number;
}

export type PodMetricsInfo = Map<string, PodMetric>;

export interface ReplicaResult {
  replicas: number;
  /** percent of request (utilization targets only) */
  utilization?: number;
  /** average milli-units per pod */
  rawAverage: number;
}

export class ReplicaCalcError extends Error {}

const within = (ratio: number): boolean => Math.abs(1 - ratio) <= TOLERANCE;

interface Groups {
  ready: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

/** groupPods: which pods' metrics count. */
export function groupPods(pods: KObject[], metrics: PodMetricsInfo, resource: string, now: number): Groups {
  const g: Groups = { ready: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const status = (pod.status ?? {}) as { phase?: string; startTime?: string };
    if (pod.metadata.deletionTimestamp || status.phase === 'Failed') {
      g.ignored.add(name);
      continue;
    }
    if (status.phase === 'Pending') {
      g.unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      g.missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const ready = podCondition(pod, 'Ready');
      let unready: boolean;
      if (!ready || !status.startTime) unready = true;
      else {
        const start = Date.parse(status.startTime);
        const transition = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : 0;
        if (start + CPU_INITIALIZATION_PERIOD_MS > now) {
          // still starting: ignore the sample unless it was taken a full window after the pod became ready
          unready = ready.status === 'False' || metric.timestamp < transition + metric.windowMs;
        } else {
          // ignore pods that were never ready
          unready = ready.status === 'False' && start + INITIAL_READINESS_DELAY_MS > transition;
        }
      }
      if (unready) {
        g.unready.add(name);
        continue;
      }
    }
    g.ready++;
  }
  return g;
}

/** Sum of the pod's container requests for the resource, in milli-units; an error names a container without one. */
export function podRequestsMilli(pods: KObject[], resource: string, container = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    const containers = ((pod.spec as { containers?: { name: string; resources?: { requests?: Record<string, unknown> } }[] } | undefined)?.containers ?? []);
    for (const c of containers) {
      if (container && c.name !== container) continue;
      const req = c.resources?.requests?.[resource];
      if (req === undefined) throw new ReplicaCalcError(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata.name}`);
      sum += milli(req);
    }
    out.set(pod.metadata.name ?? '', sum);
  }
  return out;
}

function utilizationRatio(metrics: PodMetricsInfo, requests: Map<string, number>, target: number): { ratio: number; utilization: number; rawAverage: number } {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let n = 0;
  for (const [name, m] of metrics) {
    const r = requests.get(name);
    if (r === undefined) continue;
    metricsTotal += m.value;
    requestsTotal += r;
    n++;
  }
  if (requestsTotal === 0) throw new ReplicaCalcError('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / target, utilization, rawAverage: Math.trunc(metricsTotal / n) };
}

function usageRatio(metrics: PodMetricsInfo, target: number): { ratio: number; average: number } {
  let total = 0;
  for (const m of metrics.values()) total += m.value;
  const average = Math.trunc(total / metrics.size);
  return { ratio: average / target, average };
}

interface CalcInput {
  currentReplicas: number;
  pods: KObject[];
  metrics: PodMetricsInfo;
  resource: string;
  now: number;
  container?: string;
}

/** The shared shape of GetResourceReplicas and calcPlainMetricReplicas. */
function calculate(
  input: CalcInput,
  ratioOf: (m: PodMetricsInfo) => number,
  fallbackForMissing: (name: string) => number,
): number {
  const { pods, resource, now, currentReplicas } = input;
  const metrics = new Map(input.metrics);
  if (!pods.length) throw new ReplicaCalcError('no pods returned by selector while calculating replica count');
  const g = groupPods(pods, metrics, resource, now);
  for (const n of [...g.ignored, ...g.unready]) metrics.delete(n);
  if (!metrics.size) throw new ReplicaCalcError('did not receive metrics for targeted pods (pods might be unready)');
  const ratio = ratioOf(metrics);
  const scaleUpWithUnready = g.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && g.missing.size === 0) {
    if (within(ratio)) return currentReplicas;
    return Math.ceil(ratio * g.ready);
  }
  if (g.missing.size) {
    for (const n of g.missing) metrics.set(n, { timestamp: 0, windowMs: 0, value: ratio < 1 ? fallbackForMissing(n) : 0 });
  }
  if (scaleUpWithUnready) for (const n of g.unready) metrics.set(n, { timestamp: 0, windowMs: 0, value: 0 });
  const next = ratioOf(metrics);
  if (within(next) || (ratio < 1 && next > 1) || (ratio > 1 && next < 1)) return currentReplicas;
  const replicas = Math.ceil(next * metrics.size);
  if ((next < 1 && replicas > currentReplicas) || (next > 1 && replicas < currentReplicas)) return currentReplicas;
  return replicas;
}

/** GetResourceReplicas: a target utilization in percent of request. */
export function resourceReplicas(input: CalcInput, targetUtilization: number): ReplicaResult {
  let requests: Map<string, number> | undefined;
  let first: { utilization: number; rawAverage: number } | undefined;
  const fallback = Math.max(100, targetUtilization);
  const replicas = calculate(
    input,
    (m) => {
      // requests are read once metrics exist, as kube does (so its error order holds)
      requests ??= podRequestsMilli(input.pods, input.resource, input.container);
      const r = utilizationRatio(m, requests, targetUtilization);
      first ??= r;
      return r.ratio;
    },
    (n) => Math.trunc(((requests?.get(n) ?? 0) * fallback) / 100),
  );
  return { replicas, utilization: first!.utilization, rawAverage: first!.rawAverage };
}

/** GetRawResourceReplicas: a target average value per pod (milli-units). */
export function rawResourceReplicas(input: CalcInput, targetAverage: number): ReplicaResult {
  let first: number | undefined;
  const replicas = calculate(
    input,
    (m) => {
      const r = usageRatio(m, targetAverage);
      first ??= r.average;
      return r.ratio;
    },
    () => targetAverage,
  );
  return { replicas, rawAverage: first! };
}
