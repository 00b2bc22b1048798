// Where the kubelet's CPU and memory figures come from on a real node: CRI ListContainerStats (and
// ListPodSandboxStats where the runtime implements it; containerd 1.6 may not) for pods and containers, and the
// root cgroup (v1: cpuacct.usage, memory.usage_in_bytes − total_inactive_file, as cAdvisor reads "/") for the node.
// The HTTPS server turns the samples into /stats/summary and /metrics/resource.
import { access, readFile } from 'node:fs/promises';
import { status as grpcStatus } from '@grpc/grpc-js';
import { CriError, type CriClient } from '../../runtime/cri-client.js';
import type * as cri from '../../runtime/cri-types.js';
import { parseMemoryStat } from '../eviction/signals.js';
import { resourceMetricsText } from './resource-metrics.js';
import { cadvisorMetricsText } from './cadvisor-metrics.js';
import { buildSummary, CpuRateCache, type ContainerSample, type CpuSample, type MemorySample, type NodeSample, type PodSample, type Summary } from './summary.js';

/** What KubeletServer serves stats from. */
export interface KubeletStatsSource {
  /** GET /stats/summary (onlyCpuAndMemory: ?only_cpu_and_memory=true; both are CPU and memory here) */
  summary(): Promise<Summary>;
  /** GET /metrics/resource */
  resourceMetrics(): Promise<string>;
  /** GET /metrics/cadvisor (404 without) */
  cadvisorMetrics?(): Promise<string>;
  /** the node's and its running pods' samples (kubelet_running_* of /metrics) */
  runningSamples?(): Promise<{ node: NodeSample; pods: PodSample[] }>;
}

export interface CriStatsProviderOptions {
  cri: CriClient;
  nodeName: string;
  cgroupRoot?: string;
  procRoot?: string;
  now?: () => number;
}

const num = (v: { value?: string } | null | undefined): number | undefined => (v?.value === undefined ? undefined : Number(v.value));
/** CRI timestamps are nanoseconds since the epoch; 0 means the runtime left it out */
const nsToMs = (ts: string | undefined, fallback: number) => (ts && ts !== '0' ? Number(BigInt(ts) / 1000n) / 1000 : fallback);

export function criCpu(u: cri.CpuUsage | null | undefined, now: number): CpuSample | undefined {
  const v = num(u?.usage_core_nano_seconds);
  return v === undefined ? undefined : { timeMs: nsToMs(u?.timestamp, now), usageCoreNanoSeconds: v };
}

export function criMemory(u: cri.MemoryUsage | null | undefined, now: number): MemorySample | undefined {
  const ws = num(u?.working_set_bytes);
  if (ws === undefined) return undefined;
  const out: MemorySample = { timeMs: nsToMs(u?.timestamp, now), workingSetBytes: ws };
  const opt = { usageBytes: u?.usage_bytes, rssBytes: u?.rss_bytes, availableBytes: u?.available_bytes, pageFaults: u?.page_faults, majorPageFaults: u?.major_page_faults };
  for (const [k, v] of Object.entries(opt)) {
    const n = num(v);
    if (n !== undefined) (out as unknown as Record<string, number>)[k] = n;
  }
  return out;
}

/** Pods from the runtime's listings: ready sandboxes with their running containers. */
export function podSamples(
  sandboxes: cri.PodSandbox[],
  containers: cri.Container[],
  stats: cri.ContainerStats[],
  sandboxStats: cri.PodSandboxStats[] | undefined,
  now: number,
): PodSample[] {
  const statsById = new Map(stats.map((s) => [s.attributes?.id ?? '', s]));
  const sbStats = new Map((sandboxStats ?? []).map((s) => [s.attributes?.id ?? '', s]));
  const bySandbox = new Map<string, ContainerSample[]>();
  for (const c of containers) {
    const st = statsById.get(c.id);
    const sample: ContainerSample = { name: c.metadata?.name ?? '', id: c.id, startTimeMs: nsToMs(c.created_at, 0) };
    const cpu = criCpu(st?.cpu, now);
    if (cpu) sample.cpu = cpu;
    const memory = criMemory(st?.memory, now);
    if (memory) sample.memory = memory;
    const image = c.image?.image || c.image_ref;
    if (image) sample.image = image;
    const used = num(st?.writable_layer?.used_bytes);
    if (used !== undefined) sample.fs = { timeMs: nsToMs(st?.writable_layer?.timestamp, now), usedBytes: used, device: st?.writable_layer?.fs_id?.mountpoint ?? '' };
    let list = bySandbox.get(c.pod_sandbox_id);
    if (!list) bySandbox.set(c.pod_sandbox_id, (list = []));
    list.push(sample);
  }
  return sandboxes.map((sb) => {
    const m = sb.metadata ?? {};
    const p: PodSample = {
      name: m.name ?? '',
      namespace: m.namespace ?? '',
      uid: m.uid ?? '',
      id: sb.id,
      startTimeMs: nsToMs(sb.created_at, 0),
      containers: (bySandbox.get(sb.id) ?? []).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    };
    const linux = sbStats.get(sb.id)?.linux;
    const cpu = criCpu(linux?.cpu, now);
    if (cpu) p.cpu = cpu;
    const memory = criMemory(linux?.memory, now);
    if (memory) p.memory = memory;
    const procs = num(linux?.process?.process_count);
    if (procs !== undefined) p.processCount = procs;
    return p;
  });
}

/** The node's root cgroup (v1), else /proc: cumulative CPU and the memory working set. */
export async function readNodeSample(opts: { nodeName: string; cgroupRoot?: string; procRoot?: string; now: number }): Promise<NodeSample> {
  const cg = opts.cgroupRoot ?? '/sys/fs/cgroup';
  const proc = opts.procRoot ?? '/proc';
  const stat = await readFile(`${proc}/stat`, 'utf8');
  const btime = Number(/^btime\s+(\d+)/m.exec(stat)?.[1] ?? 0);
  const node: NodeSample = { nodeName: opts.nodeName, startTimeMs: btime * 1000 };
  const cpuacct = await readFile(`${cg}/cpuacct/cpuacct.usage`, 'utf8').catch(() => undefined);
  if (cpuacct !== undefined && /^\d+/.test(cpuacct.trim())) {
    node.cpu = { timeMs: opts.now, usageCoreNanoSeconds: Number(cpuacct.trim()) };
  } else {
    // "cpu  user nice system idle iowait irq softirq steal …" in USER_HZ (100 on Linux)
    const f = (/^cpu\s+(.+)$/m.exec(stat)?.[1] ?? '').trim().split(/\s+/).map(Number);
    const busy = (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0);
    node.cpu = { timeMs: opts.now, usageCoreNanoSeconds: busy * 1e7 };
  }
  const meminfo = await readFile(`${proc}/meminfo`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(meminfo)?.[1] ?? 0) * 1024;
  const capacity = kb('MemTotal');
  const usage = await readFile(`${cg}/memory/memory.usage_in_bytes`, 'utf8').catch(() => undefined);
  const mstat = await readFile(`${cg}/memory/memory.stat`, 'utf8').catch(() => undefined);
  if (usage !== undefined && mstat !== undefined) {
    const used = Number(usage.trim());
    const s = parseMemoryStat(mstat);
    const inactive = s.total_inactive_file ?? 0;
    const workingSet = used > inactive ? used - inactive : 0;
    node.memory = {
      timeMs: opts.now,
      workingSetBytes: workingSet,
      usageBytes: used,
      availableBytes: Math.max(0, capacity - workingSet),
      rssBytes: s.total_rss ?? s.rss,
      pageFaults: s.total_pgfault ?? s.pgfault,
      majorPageFaults: s.total_pgmajfault ?? s.pgmajfault,
    };
  } else {
    const workingSet = Math.max(0, capacity - kb('MemAvailable'));
    node.memory = { timeMs: opts.now, workingSetBytes: workingSet, usageBytes: capacity - kb('MemFree'), availableBytes: kb('MemAvailable') };
  }
  return node;
}

/**
 * A pod's cgroup under the cgroupfs driver's layout (src/kubelet/cri/qos-cgroups.ts): its QoS class decides the
 * parent, found here by looking in the memory hierarchy rather than asking for the pod.
 */
async function podCgroup(cgroupRoot: string, uid: string): Promise<string | undefined> {
  if (!uid) return undefined;
  for (const parent of ['/kubepods', '/kubepods/burstable', '/kubepods/besteffort']) {
    const path = `${parent}/pod${uid}`;
    if (await access(`${cgroupRoot}/memory${path}`).then(() => true, () => false)) return path;
  }
  return undefined;
}

/** The kubelet's stats over CRI (one per node: it holds the usageNanoCores baseline). */
export class CriStatsProvider implements KubeletStatsSource {
  private readonly cache = new CpuRateCache();
  /** set once the runtime answers Unimplemented, so it is not asked again */
  private noSandboxStats = false;

  constructor(private readonly opts: CriStatsProviderOptions) {}

  async samples(): Promise<{ node: NodeSample; pods: PodSample[] }> {
    const now = (this.opts.now ?? Date.now)();
    const { cri } = this.opts;
    const [sandboxes, containers, stats, sandboxStats, node] = await Promise.all([
      cri.listPodSandbox({ filter: { state: { state: 'SANDBOX_READY' } } }),
      cri.listContainers({ filter: { state: { state: 'CONTAINER_RUNNING' } } }),
      cri.listContainerStats({}),
      this.sandboxStats(),
      readNodeSample({ nodeName: this.opts.nodeName, cgroupRoot: this.opts.cgroupRoot, procRoot: this.opts.procRoot, now }),
    ]);
    const pods = podSamples(sandboxes.items, containers.containers, stats.stats, sandboxStats, now);
    await Promise.all(pods.map(async (p) => {
      const cgroup = await podCgroup(this.opts.cgroupRoot ?? '/sys/fs/cgroup', p.uid);
      if (cgroup) p.cgroup = cgroup;
    }));
    return { node, pods };
  }

  private async sandboxStats(): Promise<cri.PodSandboxStats[] | undefined> {
    if (this.noSandboxStats) return undefined;
    try {
      return (await this.opts.cri.listPodSandboxStats({})).stats;
    } catch (e) {
      if (e instanceof CriError && e.code === grpcStatus.UNIMPLEMENTED) this.noSandboxStats = true;
      return undefined;
    }
  }

  async summary(): Promise<Summary> {
    const s = await this.samples();
    return buildSummary(s.node, s.pods, this.cache, { updateCache: true });
  }

  runningSamples(): Promise<{ node: NodeSample; pods: PodSample[] }> {
    return this.samples();
  }

  async cadvisorMetrics(): Promise<string> {
    return cadvisorMetricsText(await this.samples());
  }

  async resourceMetrics(): Promise<string> {
    try {
      return resourceMetricsText(await this.samples());
    } catch (e) {
      return resourceMetricsText({ error: e });
    }
  }
}
