// metrics.k8s.io/v1beta1 (k8s.io/metrics), as metrics-server serves it for `kubectl top` and the HPA: read-only
// PodMetrics (namespaced, `pods`) and NodeMetrics (`nodes`). They are computed views of stored objects: each
// definition reads the Pod or Node it mirrors (storedAs) and turns it into metrics from the simulated usage, so
// get, list and label selectors work through the generic store with no new routes. Pods and nodes of real kubelets
// (`realUsage`, fed by the API server's scraper of /metrics/resource) get their measured usage instead.
//
// Wiring: for (const d of metricsResources({ store, realUsage }).definitions) registry.add(d)
import { errors } from '../../machinery/errors.js';
import { Quantity } from '../../machinery/quantity.js';
import { s, type Definitions } from '../../machinery/schema.js';
import type { Store } from '../../storage/types.js';
import { nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { containerUsage, podReportsMetrics, PodsByNode } from './simulated-usage.js';
import { goDuration, usageQuantities, type RealUsageSource } from './real-usage.js';
import { defineResource, type KObject, type ResourceDefinition } from '../types.js';

const M = 'io.k8s.metrics.pkg.apis.metrics.v1beta1.';
export const METRICS_GROUP = 'metrics.k8s.io';
/** The metrics window metrics-server reports (its default --metric-resolution). */
export const METRICS_WINDOW = '15s';

export interface ContainerMetrics {
  name: string;
  usage: Record<string, string>;
}

export interface PodMetrics extends KObject {
  timestamp: string;
  window: string;
  containers: ContainerMetrics[];
}

export interface NodeMetrics extends KObject {
  timestamp: string;
  window: string;
  usage: Record<string, string>;
}

const usageMap = (d: string) => s.map(s.quantity(), d);

export const metricsDefinitions: Definitions = {
  [`${M}PodMetrics`]: s.obj(
    {
      ...kindHeader(),
      timestamp: s.time('When the usage was measured: the end of the window.'),
      window: s.str('The interval the usage was averaged over, e.g. "15s".'),
      containers: s.arr(s.ref(`${M}ContainerMetrics`, undefined, { default: {} }), { description: 'Metrics of each container of the pod.' }),
    },
    { required: ['timestamp', 'window', 'containers'], description: 'PodMetrics sets resource usage metrics of a pod.' },
  ),
  [`${M}ContainerMetrics`]: s.obj(
    { name: s.str('Container name corresponding to the one from pod.spec.containers.', { default: '' }), usage: usageMap('The memory and CPU usage of the container.') },
    { required: ['name', 'usage'], description: 'ContainerMetrics sets resource usage metrics of a container.' },
  ),
  [`${M}PodMetricsList`]: listDefinition(`${M}PodMetrics`, 'PodMetricsList is a list of PodMetrics.', 'List of pod metrics.'),
  [`${M}NodeMetrics`]: s.obj(
    {
      ...kindHeader(),
      timestamp: s.time('When the usage was measured: the end of the window.'),
      window: s.str('The interval the usage was averaged over, e.g. "15s".'),
      usage: usageMap('The memory and CPU usage of the node.'),
    },
    { required: ['timestamp', 'window', 'usage'], description: 'NodeMetrics sets resource usage metrics of a node.' },
  ),
  [`${M}NodeMetricsList`]: listDefinition(`${M}NodeMetrics`, 'NodeMetricsList is a list of NodeMetrics.', 'List of node metrics.'),
};

const rfc3339Now = (now: number) => new Date(Math.floor(now / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Metadata metrics-server copies: name, namespace, labels; creation time is the time of the request. */
function metricsMeta(obj: KObject, now: number): KObject['metadata'] {
  const m = obj.metadata;
  const meta: KObject['metadata'] = { name: m.name, creationTimestamp: rfc3339Now(now) };
  if (m.namespace) meta.namespace = m.namespace;
  if (m.labels) meta.labels = { ...m.labels };
  if (m.resourceVersion) meta.resourceVersion = m.resourceVersion;
  return meta;
}

export function podMetricsOf(pod: KObject, now: number, real?: RealUsageSource): PodMetrics {
  const head = { kind: 'PodMetrics', apiVersion: `${METRICS_GROUP}/v1beta1`, metadata: metricsMeta(pod, now) };
  const nodeName = (pod as { spec?: { nodeName?: string } }).spec?.nodeName ?? '';
  if (real && nodeName && real.coversNode(nodeName)) {
    // measured: the containers the kubelet reported, in spec order; none until two samples of each are in
    const u = podReportsMetrics(pod) ? real.podUsage(pod.metadata.namespace ?? '', pod.metadata.name ?? '') : undefined;
    if (!u) return { ...head, timestamp: rfc3339Now(now), window: METRICS_WINDOW, containers: [] };
    const order = new Map(((pod as { spec?: { containers?: { name: string }[] } }).spec?.containers ?? []).map((c, i) => [c.name, i]));
    const containers = [...u.containers]
      .sort((a, b) => (order.get(a.name) ?? order.size) - (order.get(b.name) ?? order.size))
      .map((c) => ({ name: c.name, usage: usageQuantities(c) }));
    return { ...head, timestamp: rfc3339Now(u.timestampMs), window: goDuration(u.windowMs), containers };
  }
  const containers = podReportsMetrics(pod)
    ? containerUsage(pod).map((c) => ({ name: c.name, usage: { cpu: c.usage.cpu.canonical(), memory: c.usage.memory.canonical() } }))
    : [];
  return { ...head, timestamp: rfc3339Now(now), window: METRICS_WINDOW, containers };
}

export function nodeMetricsOf(node: KObject, pods: KObject[], now: number, real?: RealUsageSource): NodeMetrics {
  const head = { kind: 'NodeMetrics', apiVersion: `${METRICS_GROUP}/v1beta1`, metadata: metricsMeta(node, now) };
  const name = node.metadata.name ?? '';
  if (real?.coversNode(name)) {
    const u = real.nodeUsage(name);
    if (!u) return { ...head, timestamp: rfc3339Now(now), window: METRICS_WINDOW, usage: usageQuantities({ cpuNanoCores: 0, memoryBytes: 0 }) };
    return { ...head, timestamp: rfc3339Now(u.timestampMs), window: goDuration(u.windowMs), usage: usageQuantities(u) };
  }
  let cpu = Quantity.fromInt(0);
  let memory = Quantity.fromInt(0, 'BinarySI');
  for (const p of pods) {
    for (const c of containerUsage(p)) {
      cpu = cpu.add(c.usage.cpu);
      memory = memory.add(c.usage.memory);
    }
  }
  return { ...head, timestamp: rfc3339Now(now), window: METRICS_WINDOW, usage: { cpu: cpu.canonical(), memory: memory.canonical() } };
}

const readOnly = (): never => {
  throw errors.badRequest('metrics are read-only');
};

const cpuCell = (u: Record<string, string> | undefined) => u?.cpu ?? '';

export interface MetricsResources {
  definitions: ResourceDefinition[];
  /** stops following pods (for NodeMetrics) */
  stop(): void;
}

/** The two metrics.k8s.io resources of one cluster, computed from its store. */
export function metricsResources(opts: { store: Store; now?: () => number; realUsage?: RealUsageSource }): MetricsResources {
  const now = opts.now ?? Date.now;
  const podsByNode = new PodsByNode(opts.store);
  const common = { group: METRICS_GROUP, version: 'v1beta1', definitions: metricsDefinitions, verbs: ['get', 'list'], strategy: {} };
  const podMetrics = defineResource<PodMetrics>({
    ...common,
    kind: 'PodMetrics',
    plural: 'pods',
    singular: 'podmetrics',
    namespaced: true,
    schemaRef: `${M}PodMetrics`,
    columns: [
      nameColumn(),
      { name: 'CPU', type: 'string', description: 'CPU usage of the pod', cell: (p) => sumOf(p.containers, 'cpu') },
      { name: 'Memory', type: 'string', description: 'Memory usage of the pod', cell: (p) => sumOf(p.containers, 'memory') },
    ],
    storedAs: { group: '', plural: 'pods', toStored: readOnly, fromStored: (pod) => podMetricsOf(pod, now(), opts.realUsage) },
  });
  const nodeMetrics = defineResource<NodeMetrics>({
    ...common,
    kind: 'NodeMetrics',
    plural: 'nodes',
    singular: 'nodemetrics',
    namespaced: false,
    schemaRef: `${M}NodeMetrics`,
    columns: [
      nameColumn(),
      { name: 'CPU', type: 'string', description: 'CPU usage of the node', cell: (n) => cpuCell(n.usage) },
      { name: 'Memory', type: 'string', description: 'Memory usage of the node', cell: (n) => n.usage?.memory ?? '' },
    ],
    storedAs: {
      group: '',
      plural: 'nodes',
      toStored: readOnly,
      fromStored: (node) => nodeMetricsOf(node, podsByNode.onNode(node.metadata.name ?? ''), now(), opts.realUsage),
      prepare: () => podsByNode.ready(),
    },
  });
  return { definitions: [podMetrics, nodeMetrics], stop: () => podsByNode.stop() };
}

function sumOf(containers: ContainerMetrics[] | undefined, r: string): string {
  let total = Quantity.fromInt(0, r === 'memory' ? 'BinarySI' : 'DecimalSI');
  for (const c of containers ?? []) total = total.add(Quantity.fromJSON(c.usage[r] ?? '0'));
  return total.canonical();
}
