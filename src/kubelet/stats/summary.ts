// The kubelet's Summary API (stats/v1alpha1, GET /stats/summary) for CPU and memory: the shapes, and building them
// from raw samples (CRI container/sandbox stats, the node's root cgroup). usageNanoCores is the rate between a
// sample and the previous one of the same container (the kubelet's CRI stats provider caches the last sample per
// container for exactly this), so the cache is passed in and updated only when the caller asks to.

/** metav1.Time as JSON: RFC 3339 to the second. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A cumulative CPU sample: core-nanoseconds used up to `timeMs`. */
export interface CpuSample {
  timeMs: number;
  usageCoreNanoSeconds: number;
}

/** A memory sample in bytes (working set = usage − inactive file pages). */
export interface MemorySample {
  timeMs: number;
  workingSetBytes: number;
  usageBytes?: number;
  rssBytes?: number;
  availableBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface ContainerSample {
  name: string;
  /** the runtime's container id: the key of the CPU rate cache */
  id: string;
  startTimeMs: number;
  cpu?: CpuSample;
  memory?: MemorySample;
  /** the image the container runs and its writable layer's usage (cAdvisor's figures) */
  image?: string;
  fs?: { timeMs: number; usedBytes: number; device: string };
}

export interface PodSample {
  name: string;
  namespace: string;
  uid: string;
  startTimeMs: number;
  /** the sandbox id (pod-level rate cache key) */
  id: string;
  containers: ContainerSample[];
  /** the pod's cgroup (`/kubepods/burstable/pod<uid>`), when found: cAdvisor's `id` of the pod and its containers */
  cgroup?: string;
  /** pod cgroup figures; the sum of the containers' when the runtime has none */
  cpu?: CpuSample;
  memory?: MemorySample;
  processCount?: number;
}

export interface NodeSample {
  nodeName: string;
  startTimeMs: number;
  cpu?: CpuSample;
  memory?: MemorySample;
}

// ---- the Summary API's JSON (field names as in k8s.io/kubelet/pkg/apis/stats/v1alpha1)
export interface CPUStats {
  time: string;
  usageNanoCores?: number;
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface PodStats {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  process_stats?: { process_count?: number };
}

export interface NodeStats {
  nodeName: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

/** Last CPU sample per container / sandbox / node id, for usageNanoCores. One per kubelet. */
export class CpuRateCache {
  private readonly last = new Map<string, CpuSample>();

  /** nanocores since the cached sample (undefined without one, or when time did not advance or usage fell). */
  rate(id: string, s: CpuSample, opts: { update: boolean }): number | undefined {
    const prev = this.last.get(id);
    if (opts.update && (!prev || s.timeMs > prev.timeMs)) this.last.set(id, s);
    return nanoCores(prev, s);
  }

  /** forgets ids not seen in the latest listing (removed containers) */
  retain(ids: Set<string>): void {
    for (const k of this.last.keys()) if (!ids.has(k)) this.last.delete(k);
  }
}

/** Nanocores used between two cumulative samples. */
export function nanoCores(prev: CpuSample | undefined, cur: CpuSample): number | undefined {
  if (!prev || cur.timeMs <= prev.timeMs || cur.usageCoreNanoSeconds < prev.usageCoreNanoSeconds) return undefined;
  return Math.round(((cur.usageCoreNanoSeconds - prev.usageCoreNanoSeconds) * 1000) / (cur.timeMs - prev.timeMs));
}

function cpuStats(id: string, s: CpuSample | undefined, cache: CpuRateCache, update: boolean): CPUStats | undefined {
  if (!s) return undefined;
  const out: CPUStats = { time: rfc3339(s.timeMs) };
  const rate = cache.rate(id, s, { update });
  if (rate !== undefined) out.usageNanoCores = rate;
  out.usageCoreNanoSeconds = s.usageCoreNanoSeconds;
  return out;
}

function memoryStats(s: MemorySample | undefined): MemoryStats | undefined {
  if (!s) return undefined;
  const out: MemoryStats = { time: rfc3339(s.timeMs) };
  if (s.availableBytes !== undefined) out.availableBytes = s.availableBytes;
  if (s.usageBytes !== undefined) out.usageBytes = s.usageBytes;
  out.workingSetBytes = s.workingSetBytes;
  if (s.rssBytes !== undefined) out.rssBytes = s.rssBytes;
  if (s.pageFaults !== undefined) out.pageFaults = s.pageFaults;
  if (s.majorPageFaults !== undefined) out.majorPageFaults = s.majorPageFaults;
  return out;
}

/** The pod's own figures when the runtime gave them, else the sum over its containers (latest time wins). */
export function podTotals(p: PodSample): { cpu?: CpuSample; memory?: MemorySample } {
  let cpu = p.cpu;
  let memory = p.memory;
  if (!cpu) {
    const cs = p.containers.flatMap((c) => (c.cpu ? [c.cpu] : []));
    if (cs.length) cpu = { timeMs: Math.max(...cs.map((c) => c.timeMs)), usageCoreNanoSeconds: cs.reduce((a, c) => a + c.usageCoreNanoSeconds, 0) };
  }
  if (!memory) {
    const ms = p.containers.flatMap((c) => (c.memory ? [c.memory] : []));
    if (ms.length) memory = { timeMs: Math.max(...ms.map((m) => m.timeMs)), workingSetBytes: ms.reduce((a, m) => a + m.workingSetBytes, 0) };
  }
  return { cpu, memory };
}

/**
 * The Summary of a node and its pods. `updateCache` as the kubelet: /stats/summary moves the rate baseline,
 * /metrics/resource (GetCPUAndMemoryStats) only reads it.
 */
export function buildSummary(node: NodeSample, pods: PodSample[], cache: CpuRateCache, opts: { updateCache: boolean }): Summary {
  const update = opts.updateCache;
  const nodeStats: NodeStats = { nodeName: node.nodeName, startTime: rfc3339(node.startTimeMs) };
  const ncpu = cpuStats(`node/${node.nodeName}`, node.cpu, cache, update);
  if (ncpu) nodeStats.cpu = ncpu;
  const nmem = memoryStats(node.memory);
  if (nmem) nodeStats.memory = nmem;
  const podStats = pods.map((p): PodStats => {
    const totals = podTotals(p);
    const out: PodStats = {
      podRef: { name: p.name, namespace: p.namespace, uid: p.uid },
      startTime: rfc3339(p.startTimeMs),
      containers: p.containers.map((c) => {
        const cs: ContainerStats = { name: c.name, startTime: rfc3339(c.startTimeMs) };
        const cpu = cpuStats(c.id, c.cpu, cache, update);
        if (cpu) cs.cpu = cpu;
        const mem = memoryStats(c.memory);
        if (mem) cs.memory = mem;
        return cs;
      }),
    };
    const cpu = cpuStats(`pod/${p.id}`, totals.cpu, cache, update);
    if (cpu) out.cpu = cpu;
    const mem = memoryStats(totals.memory);
    if (mem) out.memory = mem;
    if (p.processCount !== undefined) out.process_stats = { process_count: p.processCount };
    return out;
  });
  if (update) cache.retain(new Set([`node/${node.nodeName}`, ...pods.flatMap((p) => [`pod/${p.id}`, ...p.containers.map((c) => c.id)])]));
  return { node: nodeStats, pods: podStats };
}
