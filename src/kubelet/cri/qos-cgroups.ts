// QoS class, pod cgroups (cgroupfs driver, cgroup v1) and the CPU/memory numbers the kubelet derives from a pod's
// resources: pkg/kubelet/cm/helpers_linux.go (shares, quota, ResourceConfigForPod), pkg/kubelet/qos/policy.go
// (oom_score_adj) and kuberuntime's calculateLinuxResources.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { computeQOS } from '../../api/core/pod/admission.js';
import type { Container, Pod } from '../../api/core/pod/types.js';
import { Quantity } from '../../machinery/quantity.js';
import type { LinuxContainerResources } from '../../runtime/cri-types.js';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';
export { computeQOS };

export const MIN_SHARES = 2;
export const MAX_SHARES = 262144;
export const SHARES_PER_CPU = 1024;
export const QUOTA_PERIOD = 100000;
export const MIN_QUOTA_PERIOD = 1000;
const GUARANTEED_OOM_SCORE_ADJ = -997;
const BESTEFFORT_OOM_SCORE_ADJ = 1000;
const SYSTEM_CRITICAL_PRIORITY = 2000000000;

export function milliCPUToShares(milliCPU: number): number {
  if (milliCPU === 0) return MIN_SHARES;
  const shares = Math.floor((milliCPU * SHARES_PER_CPU) / 1000);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

/** 0 (no quota) for no limit; at least 1 ms otherwise. */
export function milliCPUToQuota(milliCPU: number, period = QUOTA_PERIOD): number {
  if (milliCPU === 0) return 0;
  return Math.max(MIN_QUOTA_PERIOD, Math.floor((milliCPU * period) / 1000));
}

function q(v: unknown): Quantity | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  try {
    return Quantity.fromJSON(v);
  } catch {
    return undefined;
  }
}
const milli = (v: unknown): number => q(v)?.milliValue() ?? 0;
const units = (v: unknown): number => q(v)?.value() ?? 0;

/** The cgroup parent for the cgroupfs driver: /kubepods[/burstable|/besteffort]/pod<uid>. */
export function podCgroupParent(uid: string, qos: QOSClass): string {
  if (qos === 'Guaranteed') return `/kubepods/pod${uid}`;
  return `/kubepods/${qos.toLowerCase()}/pod${uid}`;
}

/** types.IsNodeCriticalPod: critical (static, mirror or priority >= system-cluster-critical) and system-node-critical. */
function isNodeCritical(pod: Pod): boolean {
  const ann = pod.metadata?.annotations ?? {};
  const critical =
    ann['kubernetes.io/config.mirror'] !== undefined ||
    (ann['kubernetes.io/config.source'] ?? 'api') !== 'api' ||
    (pod.spec?.priority ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
  return critical && pod.spec?.priorityClassName === 'system-node-critical';
}

const isSidecar = (pod: Pod, c: Container): boolean =>
  c.restartPolicy === 'Always' && (pod.spec?.initContainers ?? []).some((i) => i.name === c.name);

/** qos.GetContainerOOMScoreAdjust (with the 1.33 sidecar rule). */
export function oomScoreAdj(pod: Pod, container: Container, memoryCapacity: number): number {
  if (isNodeCritical(pod)) return GUARANTEED_OOM_SCORE_ADJ;
  const qos = computeQOS(pod);
  if (qos === 'Guaranteed') return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === 'BestEffort') return BESTEFFORT_OOM_SCORE_ADJ;
  const score = (request: number): number => 1000 - Math.trunc((1000 * request) / memoryCapacity);
  let adj = score(units(container.resources?.requests?.memory));
  if (isSidecar(pod, container)) {
    const regular = (pod.spec?.containers ?? []).map((c) => units(c.resources?.requests?.memory));
    const min = regular.length ? Math.min(...regular) : 0;
    if (min !== 0) adj = Math.min(adj, score(min));
  }
  if (adj < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adj === BESTEFFORT_OOM_SCORE_ADJ) return adj - 1;
  return adj;
}

/** calculateLinuxResources: shares from the request (or the limit when only that is set), quota from the limit. */
export function linuxResources(cpuRequestMilli: number | undefined, cpuLimitMilli: number, memoryLimit: number): LinuxContainerResources {
  const shares = !cpuRequestMilli && cpuLimitMilli ? milliCPUToShares(cpuLimitMilli) : milliCPUToShares(cpuRequestMilli ?? 0);
  const r: LinuxContainerResources = {
    cpu_shares: String(shares),
    cpu_period: String(QUOTA_PERIOD),
    cpu_quota: String(milliCPUToQuota(cpuLimitMilli)),
  };
  if (memoryLimit !== 0) r.memory_limit_in_bytes = String(memoryLimit);
  return r;
}

/** The container's LinuxContainerResources (generateLinuxContainerResources). */
export function containerLinuxResources(pod: Pod, container: Container, memoryCapacity: number): LinuxContainerResources {
  const res = container.resources ?? {};
  const r = linuxResources(milli(res.requests?.cpu), milli(res.limits?.cpu), units(res.limits?.memory));
  r.oom_score_adj = String(oomScoreAdj(pod, container, memoryCapacity));
  return r;
}

interface PodTotals {
  requests: { cpu: number; memory: number };
  limits: { cpu: number; memory: number };
  cpuLimitsDeclared: boolean;
  memoryLimitsDeclared: boolean;
}

/** resource.PodRequests / PodLimits for cpu (milli) and memory (bytes): sidecars add up, init containers take a max. */
export function podTotals(pod: Pod): PodTotals {
  const t: PodTotals = { requests: { cpu: 0, memory: 0 }, limits: { cpu: 0, memory: 0 }, cpuLimitsDeclared: true, memoryLimitsDeclared: true };
  const pick = (c: Container) => ({
    rc: milli(c.resources?.requests?.cpu),
    rm: units(c.resources?.requests?.memory),
    lc: milli(c.resources?.limits?.cpu),
    lm: units(c.resources?.limits?.memory),
  });
  const sum = { rc: 0, rm: 0, lc: 0, lm: 0 };
  const side = { rc: 0, rm: 0, lc: 0, lm: 0 };
  const initMax = { rc: 0, rm: 0, lc: 0, lm: 0 };
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const c of all) {
    if (!milli(c.resources?.limits?.cpu)) t.cpuLimitsDeclared = false;
    if (!units(c.resources?.limits?.memory)) t.memoryLimitsDeclared = false;
  }
  for (const c of pod.spec?.containers ?? []) for (const [k, v] of Object.entries(pick(c))) sum[k as keyof typeof sum] += v;
  for (const c of pod.spec?.initContainers ?? []) {
    const p = pick(c);
    for (const k of Object.keys(p) as (keyof typeof p)[]) {
      if (c.restartPolicy === 'Always') side[k] += p[k];
      else initMax[k] = Math.max(initMax[k], p[k] + side[k]);
    }
  }
  const fin = (k: keyof typeof sum): number => Math.max(sum[k] + side[k], initMax[k]);
  const overhead = pod.spec?.overhead ?? {};
  t.requests = { cpu: fin('rc') + milli(overhead.cpu), memory: fin('rm') + units(overhead.memory) };
  t.limits = { cpu: fin('lc') + milli(overhead.cpu), memory: fin('lm') + units(overhead.memory) };
  return t;
}

export interface PodResourceConfig {
  cpuShares: number;
  cpuQuota?: number;
  cpuPeriod?: number;
  memoryLimit?: number;
}

/** cm.ResourceConfigForPod: what the pod cgroup is limited to, by QoS class. */
export function podResourceConfig(pod: Pod): PodResourceConfig {
  const t = podTotals(pod);
  const qos = computeQOS(pod);
  const shares = milliCPUToShares(t.requests.cpu);
  const quota = milliCPUToQuota(t.limits.cpu);
  if (qos === 'Guaranteed') return { cpuShares: shares, cpuQuota: quota, cpuPeriod: QUOTA_PERIOD, memoryLimit: t.limits.memory };
  if (qos === 'BestEffort') return { cpuShares: MIN_SHARES };
  const r: PodResourceConfig = { cpuShares: shares };
  if (t.cpuLimitsDeclared) Object.assign(r, { cpuQuota: quota, cpuPeriod: QUOTA_PERIOD });
  if (t.memoryLimitsDeclared) r.memoryLimit = t.limits.memory;
  return r;
}

/** calculateSandboxResources: the sandbox's linux.resources (pod requests/limits without overhead). */
export function sandboxLinuxResources(pod: Pod): LinuxContainerResources {
  const t = podTotals({ ...pod, spec: { ...pod.spec, overhead: undefined } });
  const hasCpuRequest = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].some((c) => q(c.resources?.requests?.cpu));
  return linuxResources(hasCpuRequest ? t.requests.cpu : undefined, t.limits.cpu, t.limits.memory);
}

/** The overhead as LinuxContainerResources (convertOverheadToLinuxResources); undefined without overhead. */
export function overheadLinuxResources(pod: Pod): LinuxContainerResources | undefined {
  const o = pod.spec?.overhead;
  if (!o || (o.cpu === undefined && o.memory === undefined)) return undefined;
  return linuxResources(milli(o.cpu), milli(o.cpu), units(o.memory));
}

export interface CgroupOptions {
  /** where the v1 hierarchies are mounted; /sys/fs/cgroup by default */
  cgroupRoot?: string;
}

async function hierarchies(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => path.join(root, e.name));
}

/**
 * Creates the pod cgroup in every hierarchy and writes the pod-level limits (cpu.shares, CFS quota/period,
 * memory.limit_in_bytes), as the kubelet's pod container manager does before the sandbox starts.
 */
export async function ensurePodCgroup(pod: Pod, opts: CgroupOptions = {}): Promise<string> {
  const root = opts.cgroupRoot ?? '/sys/fs/cgroup';
  const parent = podCgroupParent(pod.metadata?.uid ?? '', computeQOS(pod));
  // the hierarchies side by side (a cgroup mkdir is a slow syscall), then the limits, each file once
  await Promise.all((await hierarchies(root)).map((h) => fs.mkdir(path.join(h, parent), { recursive: true }).catch(() => undefined)));
  const cfg = podResourceConfig(pod);
  const write = async (sub: string, file: string, v: number | undefined) => {
    if (v === undefined) return;
    await fs.writeFile(path.join(root, sub, parent, file), String(v)).catch(() => undefined);
  };
  await Promise.all([
    write('cpu', 'cpu.shares', cfg.cpuShares),
    write('cpu', 'cpu.cfs_period_us', cfg.cpuPeriod).then(() => write('cpu', 'cpu.cfs_quota_us', cfg.cpuQuota === undefined ? undefined : cfg.cpuQuota || -1)),
    write('memory', 'memory.limit_in_bytes', cfg.memoryLimit || undefined),
  ]);
  return parent;
}

/** rmdir a cgroup and what runc left below it, deepest first; cgroupfs refuses rm -r, so this walks. */
async function rmdirTree(dir: string): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (!entries) return;
  for (const e of entries) if (e.isDirectory()) await rmdirTree(path.join(dir, e.name));
  await fs.rmdir(dir).catch(() => undefined);
}

/** Removes the pod cgroup from every v1 hierarchy (best effort: a cgroup with live tasks stays). */
export async function removePodCgroup(uid: string, qos: QOSClass, opts: CgroupOptions = {}): Promise<void> {
  const root = opts.cgroupRoot ?? '/sys/fs/cgroup';
  const parent = podCgroupParent(uid, qos);
  for (const h of await hierarchies(root)) await rmdirTree(path.join(h, parent));
}
