// The facts of the real machine a node reports (what cadvisor's MachineInfo gives the kubelet): capacity, the
// allocatable the kubelet derives from it, addresses and nodeInfo. Reading /proc, /sys and statfs is the only I/O;
// allocatableFromCapacity and the parsers are pure.
import { readFile, readdir, statfs } from 'node:fs/promises';
import { cpus, hostname, networkInterfaces, release } from 'node:os';
import { Quantity } from '../../machinery/quantity.js';
import { goArch } from './status.js';

/** The kubelet's default maxPods. */
export const DEFAULT_MAX_PODS = 110;

export interface MachineInfo {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  addresses: Array<{ type: 'InternalIP' | 'Hostname'; address: string }>;
  nodeInfo: {
    machineID: string;
    systemUUID: string;
    bootID: string;
    kernelVersion: string;
    osImage: string;
    operatingSystem: 'linux';
    architecture: string;
  };
}

/** A hard eviction threshold as the kubelet parses it: a quantity ("100Mi") or a percentage ("10%"). */
export type ThresholdValue = { quantity: string } | { percentage: number };

/**
 * The kubelet keeps percentages as float32 (ParseThresholdConfig: float32(value)/100), so 10% is
 * 0.100000001490116…; that value times the capacity, truncated, is what gets reserved.
 */
export function parsePercentage(s: string): number {
  return Math.fround(Math.fround(Number(s.replace(/%$/, ''))) / 100);
}

/** GetThresholdQuantity: the threshold's quantity, or the percentage of the capacity in bytes (BinarySI). */
export function thresholdQuantity(value: ThresholdValue, capacityBytes: number): Quantity {
  if ('quantity' in value) return Quantity.parse(value.quantity);
  return Quantity.fromInt(Math.trunc(capacityBytes * value.percentage), 'BinarySI');
}

/** The kubelet's default hard thresholds that reserve capacity (hardEvictionReservation looks at these two only). */
export const DEFAULT_ALLOCATABLE_RESERVATION = {
  memoryAvailable: { quantity: '100Mi' } as ThresholdValue,
  nodefsAvailable: { percentage: parsePercentage('10%') } as ThresholdValue,
};

/**
 * Allocatable as the kubelet computes it with no kube/system reservations: capacity minus the hard eviction
 * thresholds of memory.available and nodefs.available, memory further minus pre-allocated huge pages; never negative.
 */
export function allocatableFromCapacity(
  capacity: Record<string, string>,
  reservation: { memoryAvailable?: ThresholdValue; nodefsAvailable?: ThresholdValue } = DEFAULT_ALLOCATABLE_RESERVATION,
): Record<string, string> {
  const out: Record<string, string> = { ...capacity };
  const subtract = (name: string, amount: Quantity): void => {
    if (capacity[name] === undefined) return;
    const q = Quantity.parse(out[name]).sub(amount);
    out[name] = q.sign() < 0 ? '0' : q.toString();
  };
  if (capacity.memory !== undefined && reservation.memoryAvailable) {
    subtract('memory', thresholdQuantity(reservation.memoryAvailable, Quantity.parse(capacity.memory).value()));
  }
  if (capacity['ephemeral-storage'] !== undefined && reservation.nodefsAvailable) {
    subtract('ephemeral-storage', thresholdQuantity(reservation.nodefsAvailable, Quantity.parse(capacity['ephemeral-storage']).value()));
  }
  for (const [name, value] of Object.entries(capacity)) {
    if (name.startsWith('hugepages-')) subtract('memory', Quantity.parse(value));
  }
  return out;
}

/** /proc/meminfo as bytes per key ("MemTotal: 24731700 kB" → 25325260800). */
export function parseMeminfo(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^(\w[\w()]*):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (m) out[m[1]] = Number(m[2]) * (line.trimEnd().endsWith('kB') ? 1024 : 1);
  }
  return out;
}

/** The interface of the IPv4 default route in /proc/net/route (destination and mask 0, RTF_UP), lowest metric. */
export function defaultRouteInterface(routeTable: string): string | undefined {
  let best: { iface: string; metric: number } | undefined;
  for (const line of routeTable.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8) continue;
    const [iface, dest, , flags, , , metric, mask] = f;
    if (dest !== '00000000' || mask !== '00000000' || (parseInt(flags, 16) & 1) === 0) continue;
    if (!best || Number(metric) < best.metric) best = { iface, metric: Number(metric) };
  }
  return best?.iface;
}

/** PRETTY_NAME of os-release, unquoted; kubelet falls back to "Linux". */
export function osImageFrom(osRelease: string): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(osRelease);
  if (!m) return 'Linux';
  const v = m[1].trim();
  return /^(["']).*\1$/.test(v) ? v.slice(1, -1) : v;
}

/** The huge page sizes the kernel offers ("hugepages-2048kB" → "hugepages-2Mi") with what is pre-allocated. */
async function hugepages(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const dirs = await readdir('/sys/kernel/mm/hugepages').catch(() => [] as string[]);
  for (const d of dirs) {
    const m = /^hugepages-(\d+)kB$/.exec(d);
    if (!m) continue;
    const size = Number(m[1]) * 1024;
    const count = Number((await readFile(`/sys/kernel/mm/hugepages/${d}/nr_hugepages`, 'utf8').catch(() => '0')).trim()) || 0;
    out[`hugepages-${Quantity.fromInt(size, 'BinarySI').toString()}`] = Quantity.fromInt(size * count, 'BinarySI').toString();
  }
  return out;
}

async function firstLine(path: string): Promise<string> {
  return (await readFile(path, 'utf8').catch(() => '')).split('\n')[0].trim();
}

/** InternalIP: the IPv4 of the default-route interface, else the first non-loopback IPv4. */
export async function internalIPv4(): Promise<string | undefined> {
  const ifaces = networkInterfaces();
  const v4 = (name: string): string | undefined => ifaces[name]?.find((a) => a.family === 'IPv4' && !a.internal)?.address;
  const iface = defaultRouteInterface(await readFile('/proc/net/route', 'utf8').catch(() => ''));
  const viaRoute = iface ? v4(iface) : undefined;
  if (viaRoute) return viaRoute;
  for (const name of Object.keys(ifaces)) {
    const a = v4(name);
    if (a) return a;
  }
  return undefined;
}

/** Reads the machine: dataDir is the kubelet root whose filesystem is the node's ephemeral storage. */
export async function readMachineInfo(opts: { dataDir: string; maxPods?: number }): Promise<MachineInfo> {
  const mem = parseMeminfo(await readFile('/proc/meminfo', 'utf8'));
  const fs = await statfs(opts.dataDir);
  const capacity: Record<string, string> = {
    cpu: String(cpus().length),
    'ephemeral-storage': Quantity.fromInt(fs.blocks * fs.bsize, 'BinarySI').toString(),
    ...(await hugepages()),
    memory: Quantity.fromInt(mem.MemTotal ?? 0, 'BinarySI').toString(),
    pods: String(opts.maxPods ?? DEFAULT_MAX_PODS),
  };
  const addresses: MachineInfo['addresses'] = [];
  const ip = await internalIPv4();
  if (ip) addresses.push({ type: 'InternalIP', address: ip });
  addresses.push({ type: 'Hostname', address: hostname().toLowerCase() });
  const machineID = (await firstLine('/etc/machine-id')) || (await firstLine('/var/lib/dbus/machine-id'));
  return {
    capacity,
    allocatable: allocatableFromCapacity(capacity),
    addresses,
    nodeInfo: {
      machineID,
      systemUUID: await firstLine('/sys/class/dmi/id/product_uuid'),
      bootID: await firstLine('/proc/sys/kernel/random/boot_id'),
      kernelVersion: release(),
      osImage: osImageFrom(await readFile('/etc/os-release', 'utf8').catch(() => readFile('/usr/lib/os-release', 'utf8').catch(() => ''))),
      operatingSystem: 'linux',
      architecture: goArch(),
    },
  };
}
