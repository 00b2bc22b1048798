// The kubelet eviction manager's view of the node: signals observed from the machine (memory.available from the root
// memory cgroup as kubelet computes it, nodefs/imagefs from statfs, pid.available), thresholds with kubelet's
// defaults, and the MemoryPressure / DiskPressure / PIDPressure conditions with evictionPressureTransitionPeriod.
// observeSignals does the I/O; thresholdsMet and pressureConditions are pure.
import { readFile, statfs } from 'node:fs/promises';
import { Quantity } from '../../machinery/quantity.js';
import { parsePercentage, thresholdQuantity, type ThresholdValue } from '../node/machine-info.js';

export type Signal = 'memory.available' | 'nodefs.available' | 'nodefs.inodesFree' | 'imagefs.available' | 'imagefs.inodesFree' | 'pid.available';

export interface Observation {
  /** bytes, inodes or PIDs */
  available: number;
  capacity: number;
}

export type Observations = Partial<Record<Signal, Observation>>;

export interface Threshold {
  signal: Signal;
  /** kubelet only knows LessThan */
  operator: 'LessThan';
  value: ThresholdValue;
  /** soft thresholds only: how long the threshold must hold before pods are evicted (0 = hard) */
  gracePeriodSeconds?: number;
}

export type PressureCondition = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** kubelet's evictionPressureTransitionPeriod default: a condition stays True this long after last observed. */
export const EVICTION_PRESSURE_TRANSITION_PERIOD_MS = 5 * 60 * 1000;
/** kubelet's evictionMonitoringPeriod: how often the eviction manager synchronizes. */
export const EVICTION_MONITORING_PERIOD_MS = 10 * 1000;

/** "memory.available<100Mi" / "nodefs.available<10%" → a hard threshold. */
export function parseThreshold(statement: string, gracePeriodSeconds = 0): Threshold {
  const m = /^([a-z.A-Z]+)<(.+)$/.exec(statement.trim());
  if (!m || !(m[1] in SIGNAL_CONDITION)) throw new Error(`invalid eviction threshold ${JSON.stringify(statement)}`);
  const v = m[2].trim();
  const value: ThresholdValue = v.endsWith('%') ? { percentage: parsePercentage(v) } : { quantity: Quantity.parse(v).toString() };
  return { signal: m[1] as Signal, operator: 'LessThan', value, gracePeriodSeconds };
}

/** Linux DefaultEvictionHard of kubelet 1.33 (pkg/kubelet/eviction/defaults_linux.go). */
export function defaultEvictionHard(): Threshold[] {
  return ['memory.available<100Mi', 'nodefs.available<10%', 'nodefs.inodesFree<5%', 'imagefs.available<15%'].map((s) => parseThreshold(s));
}

/** signalToNodeCondition */
export const SIGNAL_CONDITION: Record<Signal, PressureCondition> = {
  'memory.available': 'MemoryPressure',
  'nodefs.available': 'DiskPressure',
  'nodefs.inodesFree': 'DiskPressure',
  'imagefs.available': 'DiskPressure',
  'imagefs.inodesFree': 'DiskPressure',
  'pid.available': 'PIDPressure',
};

/** signalToResource: the resource named in eviction messages. */
export const SIGNAL_RESOURCE: Record<Signal, string> = {
  'memory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
  'nodefs.inodesFree': 'inodes',
  'imagefs.available': 'ephemeral-storage',
  'imagefs.inodesFree': 'inodes',
  'pid.available': 'pids',
};

/** The threshold as a quantity for this observation (percentages of the capacity, truncated). */
export function thresholdValueFor(threshold: Threshold, observed: Observation): Quantity {
  return thresholdQuantity(threshold.value, observed.capacity);
}

/** thresholdsMet: thresholds whose quantity exceeds what is available (grace periods not considered). */
export function thresholdsMet(thresholds: Threshold[], observations: Observations): Threshold[] {
  return thresholds.filter((t) => {
    const o = observations[t.signal];
    return o !== undefined && thresholdValueFor(t, o).cmp(Quantity.fromInt(o.available)) > 0;
  });
}

/** What pressureConditions carries from one synchronize to the next. */
export interface PressureState {
  /** condition → when it was last observed (ms since epoch) */
  conditionsLastObservedAt: Partial<Record<PressureCondition, number>>;
  /** threshold key → when it was first met, for soft thresholds' grace periods */
  thresholdsFirstObservedAt: Record<string, number>;
}

export interface PressureResult {
  memoryPressure: boolean;
  diskPressure: boolean;
  pidPressure: boolean;
  /** thresholds met now (independent of grace period) */
  met: Threshold[];
  /** thresholds met long enough to evict for, memory first (byEvictionPriority); the first is the one to reclaim */
  toReclaim: Threshold[];
  state: PressureState;
}

function thresholdKey(t: Threshold): string {
  return `${t.signal}<${JSON.stringify(t.value)}/${t.gracePeriodSeconds ?? 0}`;
}

/**
 * One synchronize of the eviction manager's condition logic: conditions for every met threshold (soft ones too),
 * each kept True until it has not been observed for `transitionPeriodMs` (5 min by default).
 */
export function pressureConditions(
  observations: Observations,
  thresholds: Threshold[],
  previous: PressureState | undefined,
  now: number,
  opts: { transitionPeriodMs?: number } = {},
): PressureResult {
  const period = opts.transitionPeriodMs ?? EVICTION_PRESSURE_TRANSITION_PERIOD_MS;
  const met = thresholdsMet(thresholds, observations);

  const firstObserved: Record<string, number> = {};
  for (const t of met) firstObserved[thresholdKey(t)] = previous?.thresholdsFirstObservedAt[thresholdKey(t)] ?? now;
  const graceMet = met.filter((t) => now - firstObserved[thresholdKey(t)] >= (t.gracePeriodSeconds ?? 0) * 1000);

  const lastObserved: Partial<Record<PressureCondition, number>> = { ...previous?.conditionsLastObservedAt };
  for (const t of met) lastObserved[SIGNAL_CONDITION[t.signal]] = now;
  const active = (c: PressureCondition): boolean => lastObserved[c] !== undefined && now - lastObserved[c]! < period;

  // byEvictionPriority: memory before every other resource
  const toReclaim = [...graceMet].sort((a, b) => Number(b.signal === 'memory.available') - Number(a.signal === 'memory.available'));
  return {
    memoryPressure: active('MemoryPressure'),
    diskPressure: active('DiskPressure'),
    pidPressure: active('PIDPressure'),
    met,
    toReclaim,
    state: { conditionsLastObservedAt: lastObserved, thresholdsFirstObservedAt: firstObserved },
  };
}

export interface ObserveOptions {
  /** the kubelet's root dir: its filesystem is nodefs */
  dataDir: string;
  /** containerd's root: its filesystem is imagefs (the same as nodefs when on one disk) */
  imageFsDir?: string;
  /** node memory capacity in bytes; read from /proc/meminfo when absent */
  memoryCapacityBytes?: number;
  cgroupRoot?: string;
  procRoot?: string;
}

/** memory.stat "key value" lines. */
export function parseMemoryStat(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out[k] = Number(v);
  }
  return out;
}

/**
 * memory.available as the kubelet derives it: capacity − working set, working set = root cgroup usage −
 * total_inactive_file (cgroup v1). Without a v1 memory controller, /proc/meminfo's MemAvailable.
 */
export async function observeMemory(opts: { memoryCapacityBytes?: number; cgroupRoot?: string; procRoot?: string }): Promise<Observation & { source: string }> {
  const proc = opts.procRoot ?? '/proc';
  const meminfo = await readFile(`${proc}/meminfo`, 'utf8');
  const kb = (key: string): number | undefined => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(meminfo);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const capacity = opts.memoryCapacityBytes ?? kb('MemTotal') ?? 0;
  const cg = `${opts.cgroupRoot ?? '/sys/fs/cgroup'}/memory`;
  const usage = await readFile(`${cg}/memory.usage_in_bytes`, 'utf8').catch(() => undefined);
  const stat = await readFile(`${cg}/memory.stat`, 'utf8').catch(() => undefined);
  if (usage !== undefined && stat !== undefined) {
    const used = Number(usage.trim());
    const inactive = parseMemoryStat(stat).total_inactive_file ?? 0;
    const workingSet = used > inactive ? used - inactive : 0;
    return { available: Math.max(0, capacity - workingSet), capacity, source: 'cgroup v1 memory' };
  }
  return { available: kb('MemAvailable') ?? 0, capacity, source: '/proc/meminfo' };
}

async function fsObservations(dir: string): Promise<{ bytes: Observation; inodes: Observation }> {
  const s = await statfs(dir);
  return {
    bytes: { available: s.bavail * s.bsize, capacity: s.blocks * s.bsize },
    inodes: { available: s.ffree, capacity: s.files },
  };
}

/** pid.available = min(pid_max, threads-max) − tasks running (the total of /proc/loadavg's 4th field). */
export async function observePids(procRoot = '/proc'): Promise<Observation> {
  const read = async (p: string): Promise<number | undefined> => {
    const n = Number((await readFile(`${procRoot}/${p}`, 'utf8').catch(() => '')).trim());
    return Number.isFinite(n) && n > 0 ? n : undefined;
  };
  const pidMax = await read('sys/kernel/pid_max');
  const threadsMax = await read('sys/kernel/threads-max');
  const max = Math.min(pidMax ?? Infinity, threadsMax ?? Infinity);
  const loadavg = await readFile(`${procRoot}/loadavg`, 'utf8');
  const running = Number(/\d+\/(\d+)/.exec(loadavg)?.[1] ?? 0);
  const capacity = Number.isFinite(max) ? max : 0;
  return { available: capacity - running, capacity };
}

/** Observes every signal the default thresholds use. */
export async function observeSignals(opts: ObserveOptions): Promise<Observations> {
  const [memory, nodefs, imagefs, pids] = await Promise.all([
    observeMemory(opts),
    fsObservations(opts.dataDir),
    fsObservations(opts.imageFsDir ?? opts.dataDir),
    observePids(opts.procRoot),
  ]);
  return {
    'memory.available': { available: memory.available, capacity: memory.capacity },
    'nodefs.available': nodefs.bytes,
    'nodefs.inodesFree': nodefs.inodes,
    'imagefs.available': imagefs.bytes,
    'imagefs.inodesFree': imagefs.inodes,
    'pid.available': pids,
  };
}
