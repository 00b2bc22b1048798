// The kubelet's /metrics/resource (pkg/kubelet/metrics/collectors/resource_metrics.go) in the Prometheus text
// format (version 0.0.4) as client_golang writes it: families sorted by name, each with "# HELP name [STABILITY]
// help" and "# TYPE", label pairs sorted by name, series sorted by label values, values in Go's %g shortest form,
// and the sample's timestamp in milliseconds for the usage series. This is what metrics-server scrapes.
import { podTotals, type NodeSample, type PodSample } from './summary.js';
import { goFloat } from '../../machinery/gofloat.js';

export const RESOURCE_METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface Family {
  help: string;
  type: 'counter' | 'gauge';
  /** printed without kube's "[STABLE]" (cAdvisor's families carry no stability level) */
  unversioned?: boolean;
}

/** The families kube 1.33 serves (scrape_error is hidden since it was deprecated in 1.29; swap is not measured). */
const FAMILIES: Record<string, Family> = {
  container_cpu_usage_seconds_total: { help: 'Cumulative cpu time consumed by the container in core-seconds', type: 'counter' },
  container_memory_working_set_bytes: { help: 'Current working set of the container in bytes', type: 'gauge' },
  container_start_time_seconds: { help: 'Start time of the container since unix epoch in seconds', type: 'gauge' },
  node_cpu_usage_seconds_total: { help: 'Cumulative cpu time consumed by the node in core-seconds', type: 'counter' },
  node_memory_working_set_bytes: { help: 'Current working set of the node in bytes', type: 'gauge' },
  pod_cpu_usage_seconds_total: { help: 'Cumulative cpu time consumed by the pod in core-seconds', type: 'counter' },
  pod_memory_working_set_bytes: { help: 'Current working set of the pod in bytes', type: 'gauge' },
  resource_scrape_error: { help: '1 if there was an error while getting container metrics, 0 otherwise', type: 'gauge' },
};

export interface Series {
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
}

/** expfmt prints sample values with strconv.FormatFloat(v, 'g', -1, 64). */
export { goFloat };

/** Label values escaped as the text format wants (backslash, quote, newline). */
const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function seriesLine(name: string, s: Series): string {
  const keys = Object.keys(s.labels).sort();
  const labels = keys.length ? `{${keys.map((k) => `${k}="${escapeLabel(s.labels[k])}"`).join(',')}}` : '';
  return `${name}${labels} ${goFloat(s.value)}${s.timestampMs !== undefined ? ` ${Math.floor(s.timestampMs)}` : ''}`;
}

function labelKey(s: Series): string {
  return Object.keys(s.labels).sort().map((k) => s.labels[k]).join('\u0000');
}

/** Renders families (any order in) as the text format (sorted out); `table` holds their help and type. */
export function renderFamilies(families: Map<string, Series[]>, table: Record<string, Family> = FAMILIES): string {
  const lines: string[] = [];
  for (const name of [...families.keys()].sort()) {
    const series = families.get(name) ?? [];
    const fam = table[name];
    if (!fam || series.length === 0) continue;
    lines.push(`# HELP ${name} ${fam.unversioned ? '' : '[STABLE] '}${fam.help}`, `# TYPE ${name} ${fam.type}`);
    for (const s of [...series].sort((a, b) => (labelKey(a) < labelKey(b) ? -1 : labelKey(a) > labelKey(b) ? 1 : 0))) lines.push(seriesLine(name, s));
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

/** CollectWithStability over the node's and its pods' samples (or the error that kept them from being read). */
export function resourceMetricsText(stats: { node: NodeSample; pods: PodSample[] } | { error: unknown }): string {
  const fams = new Map<string, Series[]>();
  const add = (name: string, s: Series) => {
    let list = fams.get(name);
    if (!list) fams.set(name, (list = []));
    list.push(s);
  };
  if ('error' in stats) {
    add('resource_scrape_error', { labels: {}, value: 1 });
    return renderFamilies(fams);
  }
  const { node, pods } = stats;
  if (node.cpu) add('node_cpu_usage_seconds_total', { labels: {}, value: node.cpu.usageCoreNanoSeconds / 1e9, timestampMs: node.cpu.timeMs });
  if (node.memory) add('node_memory_working_set_bytes', { labels: {}, value: node.memory.workingSetBytes, timestampMs: node.memory.timeMs });
  for (const p of pods) {
    for (const c of p.containers) {
      const labels = { container: c.name, pod: p.name, namespace: p.namespace };
      if (c.startTimeMs > 0) add('container_start_time_seconds', { labels, value: c.startTimeMs / 1000 });
      if (c.cpu) add('container_cpu_usage_seconds_total', { labels, value: c.cpu.usageCoreNanoSeconds / 1e9, timestampMs: c.cpu.timeMs });
      if (c.memory) add('container_memory_working_set_bytes', { labels, value: c.memory.workingSetBytes, timestampMs: c.memory.timeMs });
    }
    const totals = podTotals(p);
    const labels = { pod: p.name, namespace: p.namespace };
    if (totals.cpu) add('pod_cpu_usage_seconds_total', { labels, value: totals.cpu.usageCoreNanoSeconds / 1e9, timestampMs: totals.cpu.timeMs });
    if (totals.memory) add('pod_memory_working_set_bytes', { labels, value: totals.memory.workingSetBytes, timestampMs: totals.memory.timeMs });
  }
  add('resource_scrape_error', { labels: {}, value: 0 });
  return renderFamilies(fams);
}
