// The kubelet's /metrics/cadvisor: cAdvisor's container families over the same CRI samples as /metrics/resource,
// one series per running container (labels container, id, image, name, namespace, pod) and the root cgroup's
// (id "/", the node). k1s has no cAdvisor: the id and name labels are the CRI container id, not the cgroup path.
import type { NodeSample, PodSample } from './summary.js';
import { renderFamilies, type Family, type Series } from './resource-metrics.js';

const FAMILIES: Record<string, Family> = {
  container_cpu_usage_seconds_total: { help: 'Cumulative cpu time consumed in seconds.', type: 'counter', unversioned: true },
  container_memory_usage_bytes: { help: 'Current memory usage in bytes, including all memory regardless of when it was accessed', type: 'gauge', unversioned: true },
  container_memory_working_set_bytes: { help: 'Current working set in bytes.', type: 'gauge', unversioned: true },
  container_memory_rss: { help: 'Size of RSS in bytes.', type: 'gauge', unversioned: true },
  container_fs_usage_bytes: { help: 'Number of bytes that are consumed by the container on this filesystem.', type: 'gauge', unversioned: true },
  container_start_time_seconds: { help: 'Start time of the container since unix epoch in seconds.', type: 'gauge', unversioned: true },
  container_last_seen: { help: 'Last time a container was seen by the exporter', type: 'gauge', unversioned: true },
};

export function cadvisorMetricsText({ node, pods }: { node: NodeSample; pods: PodSample[] }): string {
  const fams = new Map<string, Series[]>();
  const add = (name: string, s: Series) => {
    let list = fams.get(name);
    if (!list) fams.set(name, (list = []));
    list.push(s);
  };
  const root = { container: '', id: '/', image: '', name: '', namespace: '', pod: '' };
  if (node.cpu) add('container_cpu_usage_seconds_total', { labels: root, value: node.cpu.usageCoreNanoSeconds / 1e9, timestampMs: node.cpu.timeMs });
  if (node.memory) {
    add('container_memory_working_set_bytes', { labels: root, value: node.memory.workingSetBytes, timestampMs: node.memory.timeMs });
    if (node.memory.usageBytes !== undefined) add('container_memory_usage_bytes', { labels: root, value: node.memory.usageBytes, timestampMs: node.memory.timeMs });
  }
  for (const p of pods) {
    if (p.cgroup) {
      // the pod's own cgroup: cAdvisor's series with no container, which per-pod dashboards sum over
      const labels = { container: '', id: p.cgroup, image: '', name: '', namespace: p.namespace, pod: p.name };
      if (p.cpu) add('container_cpu_usage_seconds_total', { labels, value: p.cpu.usageCoreNanoSeconds / 1e9, timestampMs: p.cpu.timeMs });
      if (p.memory) {
        add('container_memory_working_set_bytes', { labels, value: p.memory.workingSetBytes, timestampMs: p.memory.timeMs });
        if (p.memory.usageBytes !== undefined) add('container_memory_usage_bytes', { labels, value: p.memory.usageBytes, timestampMs: p.memory.timeMs });
        if (p.memory.rssBytes !== undefined) add('container_memory_rss', { labels, value: p.memory.rssBytes, timestampMs: p.memory.timeMs });
      }
    }
    for (const c of p.containers) {
      // cAdvisor's id is the container's cgroup: the pod's with the container's id under it
      const id = p.cgroup ? `${p.cgroup}/${c.id}` : c.id;
      const labels = { container: c.name, id, image: c.image ?? '', name: c.id, namespace: p.namespace, pod: p.name };
      if (c.startTimeMs > 0) add('container_start_time_seconds', { labels, value: c.startTimeMs / 1000 });
      const seen = c.cpu?.timeMs ?? c.memory?.timeMs;
      if (seen !== undefined) add('container_last_seen', { labels, value: Math.floor(seen / 1000), timestampMs: seen });
      if (c.cpu) add('container_cpu_usage_seconds_total', { labels, value: c.cpu.usageCoreNanoSeconds / 1e9, timestampMs: c.cpu.timeMs });
      const m = c.memory;
      if (m) {
        add('container_memory_working_set_bytes', { labels, value: m.workingSetBytes, timestampMs: m.timeMs });
        if (m.usageBytes !== undefined) add('container_memory_usage_bytes', { labels, value: m.usageBytes, timestampMs: m.timeMs });
        if (m.rssBytes !== undefined) add('container_memory_rss', { labels, value: m.rssBytes, timestampMs: m.timeMs });
      }
      if (c.fs) add('container_fs_usage_bytes', { labels: { ...labels, device: c.fs.device }, value: c.fs.usedBytes, timestampMs: c.fs.timeMs });
    }
  }
  return renderFamilies(fams, FAMILIES);
}
