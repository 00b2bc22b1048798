// One metric of an HPA → a replica proposal and its MetricStatus (computeReplicasForMetric and
// computeStatusForResourceMetricGeneric), reading pod metrics from metrics.k8s.io the way the rest metrics
// client does. Only Resource and ContainerResource sources have a metrics API here; the custom and external
// metrics APIs are not served, so Pods, Object and External metrics fail as they do in a cluster without them.
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import { StatusError } from '../../machinery/errors.js';
import { Quantity } from '../../machinery/quantity.js';
import { rawResourceReplicas, resourceReplicas, type PodMetricsInfo } from './replicas.js';
import { milli } from '../../api/core/resourcequota/pod-requests.js';

export interface MetricSpec {
  type?: string;
  resource?: { name?: string; target?: MetricTarget };
  containerResource?: { name?: string; container?: string; target?: MetricTarget };
  pods?: { metric?: { name?: string } };
  object?: { metric?: { name?: string } };
  external?: { metric?: { name?: string } };
}

export interface MetricTarget {
  type?: string;
  averageUtilization?: number;
  averageValue?: string;
  value?: string;
}

export type MetricStatus = Record<string, unknown>;

export type MetricOutcome =
  | { ok: true; replicas: number; name: string; status: MetricStatus; timestamp: number }
  /** message: the metric's own error (condition and event); error: the same wrapped as the controller reports it */
  | { ok: false; reason: string; message: string; error: string; status: MetricStatus };

/** Go's time.ParseDuration for the simple forms metrics carry ("15s", "1m0s", "10.5s", "500ms"). */
export function parseDurationMs(d: string | undefined): number {
  if (!d) return 0;
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, ns: 0.000001 };
  for (let m = re.exec(d); m; m = re.exec(d)) total += Number(m[1]) * unit[m[2]];
  return total;
}

interface PodMetricsItem extends KObject {
  timestamp?: string;
  window?: string;
  containers?: { name: string; usage?: Record<string, unknown> }[];
}

/** GetResourceMetric: per pod, the sum over its containers (or the one named container), in milli-units. */
export async function fetchPodMetrics(client: Client, namespace: string, selector: string, resource: string, container = ''): Promise<PodMetricsInfo> {
  let items: PodMetricsItem[];
  try {
    items = (await client.resource('metrics.k8s.io/v1beta1', 'pods').list(namespace, { labelSelector: selector })).items as PodMetricsItem[];
  } catch (e) {
    const suffix = e instanceof StatusError && e.code === 404 ? ' (get pods.metrics.k8s.io)' : '';
    throw new Error(`unable to get metrics for resource ${resource}: unable to fetch metrics from resource metrics API: ${(e as Error).message}${suffix}`);
  }
  if (!items.length) throw new Error(`unable to get metrics for resource ${resource}: no metrics returned from resource metrics API`);
  const out: PodMetricsInfo = new Map();
  for (const m of items) {
    const containers = (m.containers ?? []).filter((c) => !container || c.name === container);
    if (!containers.length) continue;
    let sum = 0;
    let missing = false;
    for (const c of containers) {
      const v = c.usage?.[resource];
      if (v === undefined) {
        missing = true;
        break;
      }
      sum += milli(v);
    }
    if (!missing) out.set(m.metadata.name ?? '', { timestamp: Date.parse(m.timestamp ?? '') || 0, windowMs: parseDurationMs(m.window), value: sum });
  }
  return out;
}

export interface MetricContext {
  client: Client;
  namespace: string;
  selector: string;
  pods: KObject[];
  specReplicas: number;
  now: number;
}

const milliQuantity = (v: number): string => Quantity.milli(v).canonical();

/** Resource and ContainerResource metrics: utilization of request, or an average value per pod. */
async function resourceMetric(ctx: MetricContext, spec: MetricSpec): Promise<MetricOutcome> {
  const isContainer = spec.type === 'ContainerResource';
  const src = (isContainer ? spec.containerResource : spec.resource) ?? {};
  const resource = src.name ?? '';
  const container = isContainer ? spec.containerResource?.container ?? '' : '';
  const target = src.target ?? {};
  const reason = isContainer ? 'FailedGetContainerResourceMetric' : 'FailedGetResourceMetric';
  const fail = (inner: string): MetricOutcome => ({
    ok: false,
    reason,
    message: inner,
    error: isContainer ? `failed to get ${container} container metric value: ${inner}` : `failed to get ${resource} resource metric value: ${inner}`,
    status: {},
  });
  let metrics: PodMetricsInfo;
  const what = target.averageValue !== undefined ? 'usage' : 'utilization';
  try {
    metrics = await fetchPodMetrics(ctx.client, ctx.namespace, ctx.selector, resource, container);
  } catch (e) {
    return fail(`failed to get ${resource} ${what}: ${(e as Error).message}`);
  }
  const input = { currentReplicas: ctx.specReplicas, pods: ctx.pods, metrics, resource, now: ctx.now, container };
  const key = isContainer ? 'containerResource' : 'resource';
  const statusSrc = (current: Record<string, unknown>) => ({
    type: spec.type,
    [key]: { name: resource, ...(isContainer ? { container } : {}), current },
  });
  try {
    if (target.averageValue !== undefined) {
      const r = rawResourceReplicas(input, milli(target.averageValue));
      return { ok: true, replicas: r.replicas, name: `${resource} resource`, status: statusSrc({ averageValue: milliQuantity(r.rawAverage) }), timestamp: ctx.now };
    }
    if (target.averageUtilization === undefined) {
      return fail('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
    }
    const r = resourceReplicas(input, target.averageUtilization);
    return {
      ok: true,
      replicas: r.replicas,
      name: `${resource} ${isContainer ? 'container ' : ''}resource utilization (percentage of request)`,
      status: statusSrc({ averageUtilization: r.utilization, averageValue: milliQuantity(r.rawAverage) }),
      timestamp: ctx.now,
    };
  } catch (e) {
    return fail(`failed to get ${resource} ${what}: ${(e as Error).message}`);
  }
}

/** computeReplicasForMetric for one spec. */
export async function computeMetric(ctx: MetricContext, spec: MetricSpec): Promise<MetricOutcome> {
  switch (spec.type) {
    case 'Resource':
    case 'ContainerResource':
      return resourceMetric(ctx, spec);
    case 'Pods':
      return unserved('FailedGetPodsMetric', 'pods', `unable to get metric ${spec.pods?.metric?.name ?? ''}: unable to fetch metrics from custom metrics API: no known available metric versions found`);
    case 'Object':
      return unserved('FailedGetObjectMetric', 'object', `unable to get metric ${spec.object?.metric?.name ?? ''}: unable to fetch metrics from custom metrics API: no known available metric versions found`);
    case 'External':
      return unserved('FailedGetExternalMetric', 'external', `unable to get external metric ${ctx.namespace}/${spec.external?.metric?.name ?? ''}: unable to fetch metrics from external metrics API: no known available metric versions found`);
  }
  const message = `unknown metric source type "${spec.type ?? ''}"`;
  return { ok: false, reason: 'InvalidMetricSourceType', message, error: message, status: {} };
}

function unserved(reason: string, kind: string, message: string): MetricOutcome {
  return { ok: false, reason, message, error: `failed to get ${kind} metric value: ${message}`, status: {} };
}
