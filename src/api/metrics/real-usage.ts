// Usage of pods and nodes run by real kubelets, the way metrics-server derives it from /metrics/resource: each scrape
// gives cumulative CPU seconds and a memory working set per container and node, stamped with the kubelet's sample
// time; the last two points of a series give the CPU rate over their window, memory is the latest working set.
// A restarted container (new start time) or a counter that went down starts its series again.
import { Quantity } from '../../machinery/quantity.js';

/** One sample of a series (a node, or a container of a pod). */
export interface UsagePoint {
  timestampMs: number;
  /** core-seconds */
  cumulativeCpu: number;
  memoryBytes: number;
  /** containers: start time, to notice restarts (0 when unknown) */
  startTimeMs: number;
}

/** What one scrape of a kubelet's /metrics/resource holds. */
export interface ScrapeBatch {
  node?: UsagePoint;
  /** pods by "namespace/name", containers by name */
  pods: Map<string, Map<string, UsagePoint>>;
}

/** Usage over a window: CPU in nanocores, memory in bytes. */
export interface WindowedUsage {
  timestampMs: number;
  windowMs: number;
  cpuNanoCores: number;
  memoryBytes: number;
}

export interface RealPodUsage {
  timestampMs: number;
  windowMs: number;
  containers: { name: string; cpuNanoCores: number; memoryBytes: number }[];
}

/** What the metrics API asks about pods and nodes of real kubelets. */
export interface RealUsageSource {
  /** whether the node is a real kubelet's (its pods never get simulated usage) */
  coversNode(node: string): boolean;
  /** undefined while fewer than two points of every container are known */
  podUsage(namespace: string, name: string): RealPodUsage | undefined;
  nodeUsage(node: string): WindowedUsage | undefined;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?\s*$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

const unescape = (v: string) => v.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));

function parseValue(v: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  return Number(v);
}

/** The series metrics-server reads from a /metrics/resource text (others are ignored). */
export function parseResourceMetrics(text: string, nowMs: number): ScrapeBatch {
  const batch: ScrapeBatch = { pods: new Map() };
  const node: Partial<UsagePoint> = {};
  const containers = new Map<string, Map<string, Partial<UsagePoint>>>();
  const container = (l: Record<string, string>) => {
    const key = `${l.namespace ?? ''}/${l.pod ?? ''}`;
    let pod = containers.get(key);
    if (!pod) containers.set(key, (pod = new Map()));
    let c = pod.get(l.container ?? '');
    if (!c) pod.set(l.container ?? '', (c = {}));
    return c;
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const [, name, labelText = '', valueText, ts] = m;
    const labels: Record<string, string> = {};
    for (const lm of labelText.matchAll(LABEL)) labels[lm[1]] = unescape(lm[2]);
    const value = parseValue(valueText);
    if (!Number.isFinite(value)) continue;
    const at = ts !== undefined ? Number(ts) : nowMs;
    switch (name) {
      case 'node_cpu_usage_seconds_total':
        node.cumulativeCpu = value;
        node.timestampMs = at;
        break;
      case 'node_memory_working_set_bytes':
        node.memoryBytes = value;
        node.timestampMs ??= at;
        break;
      case 'container_cpu_usage_seconds_total': {
        const c = container(labels);
        c.cumulativeCpu = value;
        c.timestampMs = at;
        break;
      }
      case 'container_memory_working_set_bytes': {
        const c = container(labels);
        c.memoryBytes = value;
        c.timestampMs ??= at;
        break;
      }
      case 'container_start_time_seconds':
        container(labels).startTimeMs = value * 1000;
        break;
    }
  }
  // metrics-server keeps a series only when both CPU and memory were reported
  const complete = (p: Partial<UsagePoint>): UsagePoint | undefined =>
    p.cumulativeCpu !== undefined && p.memoryBytes !== undefined && p.timestampMs !== undefined
      ? { timestampMs: p.timestampMs, cumulativeCpu: p.cumulativeCpu, memoryBytes: p.memoryBytes, startTimeMs: p.startTimeMs ?? 0 }
      : undefined;
  batch.node = complete(node);
  for (const [key, cs] of containers) {
    const out = new Map<string, UsagePoint>();
    for (const [n, c] of cs) {
      const p = complete(c);
      if (p) out.set(n, p);
    }
    if (out.size) batch.pods.set(key, out);
  }
  return batch;
}

/** The last two points of one series. */
export interface SeriesPoints {
  prev?: UsagePoint;
  last: UsagePoint;
}

/** Adds a point: a newer sample moves last to prev; a restart or a counter reset starts over. */
export function advance(s: SeriesPoints | undefined, p: UsagePoint): SeriesPoints {
  if (!s) return { last: p };
  if (p.timestampMs <= s.last.timestampMs) return s;
  if (p.startTimeMs !== s.last.startTimeMs || p.cumulativeCpu < s.last.cumulativeCpu) return { last: p };
  return { prev: s.last, last: p };
}

/** CPU rate (nanocores) over the window of the two points, and the latest working set. */
export function windowed(s: SeriesPoints | undefined): WindowedUsage | undefined {
  if (!s?.prev) return undefined;
  const windowMs = s.last.timestampMs - s.prev.timestampMs;
  if (windowMs <= 0) return undefined;
  const cpuNanoCores = Math.round(((s.last.cumulativeCpu - s.prev.cumulativeCpu) * 1e9 * 1000) / windowMs);
  return { timestampMs: s.last.timestampMs, windowMs, cpuNanoCores, memoryBytes: s.last.memoryBytes };
}

/** Go's time.Duration.String for whole milliseconds ("15.012s", "500ms", "1m0.5s"). */
export function goDuration(ms: number): string {
  const total = Math.round(ms);
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const rest = total % 60_000;
  const secs = `${Math.floor(rest / 1000)}${rest % 1000 ? `.${String(rest % 1000).padStart(3, '0').replace(/0+$/, '')}` : ''}s`;
  if (h) return `${h}h${m}m${secs}`;
  if (m) return `${m}m${secs}`;
  return secs;
}

/** metrics-server's quantities: CPU as a nano-scaled integer, memory as BinarySI bytes. */
export function usageQuantities(u: { cpuNanoCores: number; memoryBytes: number }): { cpu: string; memory: string } {
  return {
    cpu: Quantity.fromInt(BigInt(Math.max(0, Math.round(u.cpuNanoCores))), 'DecimalSI', -9).canonical(),
    memory: Quantity.fromInt(BigInt(Math.max(0, Math.round(u.memoryBytes))), 'BinarySI').canonical(),
  };
}

/** The last two points of every series of every real node: what the scraper feeds and the metrics API reads. */
export class RealUsageStore implements RealUsageSource {
  private readonly nodes = new Map<string, { node?: SeriesPoints; pods: Map<string, Map<string, SeriesPoints>> }>();
  private covered = new Set<string>();
  private readonly missListeners: (() => void)[] = [];

  /** Called when usage of a real node or pod was asked for and is not known yet (the scraper then hurries). */
  onMiss(fn: () => void): void {
    this.missListeners.push(fn);
  }

  private missed<T>(v: T | undefined): T | undefined {
    if (v === undefined) for (const fn of this.missListeners) fn();
    return v;
  }

  /** The nodes the scraper treats as real kubelets (called each pass, before their scrapes finish). */
  setRealNodes(names: Iterable<string>): void {
    this.covered = new Set(names);
    for (const n of this.nodes.keys()) if (!this.covered.has(n)) this.nodes.delete(n);
  }

  coversNode(node: string): boolean {
    return this.covered.has(node);
  }

  /** Records one scrape of a node's kubelet; pods and containers absent from it are forgotten. */
  record(nodeName: string, batch: ScrapeBatch): void {
    const prev = this.nodes.get(nodeName);
    const pods = new Map<string, Map<string, SeriesPoints>>();
    for (const [key, cs] of batch.pods) {
      const before = prev?.pods.get(key);
      const out = new Map<string, SeriesPoints>();
      for (const [name, p] of cs) out.set(name, advance(before?.get(name), p));
      pods.set(key, out);
    }
    this.nodes.set(nodeName, { node: batch.node ? advance(prev?.node, batch.node) : prev?.node, pods });
  }

  /** Whether some series has only one point (a second, sooner scrape makes it usable). */
  hasFreshSeries(): boolean {
    for (const n of this.nodes.values()) {
      if (n.node && !n.node.prev) return true;
      for (const cs of n.pods.values()) for (const s of cs.values()) if (!s.prev) return true;
    }
    return false;
  }

  nodeUsage(node: string): WindowedUsage | undefined {
    return this.missed(windowed(this.nodes.get(node)?.node));
  }

  podUsage(namespace: string, name: string): RealPodUsage | undefined {
    return this.missed(this.podUsageOf(namespace, name));
  }

  private podUsageOf(namespace: string, name: string): RealPodUsage | undefined {
    const key = `${namespace}/${name}`;
    for (const n of this.nodes.values()) {
      const cs = n.pods.get(key);
      if (!cs) continue;
      const containers: RealPodUsage['containers'] = [];
      let timestampMs = 0;
      let windowMs = 0;
      for (const [cname, s] of cs) {
        const w = windowed(s);
        // as metrics-server: a pod is reported only when every container has a rate
        if (!w) return undefined;
        containers.push({ name: cname, cpuNanoCores: w.cpuNanoCores, memoryBytes: w.memoryBytes });
        timestampMs = Math.max(timestampMs, w.timestampMs);
        windowMs = Math.max(windowMs, w.windowMs);
      }
      return containers.length ? { timestampMs, windowMs, containers } : undefined;
    }
    return undefined;
  }
}
