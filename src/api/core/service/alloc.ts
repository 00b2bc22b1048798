// What the Service REST storage does before a write (pkg/registry/core/service/storage/alloc.go, 1.33): IP family
// initialisation and ClusterIP / NodePort / health-check NodePort allocation, over a snapshot of what other
// services hold. Pure functions; apiserver/admission/service-ip.ts supplies the snapshot, serialises calls and remembers
// allocations not yet written. Like kube-apiserver, dynamic picks are random, preferring the upper part of each
// range (the lower part is left for addresses and ports users choose).
import { errors, FieldError, StatusError } from '../../../machinery/errors.js';
import { bigIntToIp, familyOf, ipToBigInt, type CIDR, type IPFamily } from './net.js';
import {
  clusterIPsOf, isSet, needsHealthCheck, needsNodePort, NONE, portsOf, sameClusterIPs, sameStrings, shouldAllocateNodePorts, type Service,
} from './types.js';

export interface AllocatorConfig {
  cidr: CIDR;
  nodePorts: [number, number];
  random: () => number;
}

/** Addresses (as bigint strings) and ports that are taken; allocation adds to both. */
export interface Taken {
  ips: Set<string>;
  ports: Set<number>;
}

/** What one allocation took, so the caller can reserve it until the write is visible. */
export interface Allocated {
  ips: string[];
  ports: number[];
}

const invalid = (svc: Service, errs: FieldError[]): StatusError => errors.invalid('Service', '', svc.metadata.name ?? '', errs);

function isMatchingPreferDualStack(svc: Service, old: Service | undefined): boolean {
  if (!old || !isSet(svc.spec?.ipFamilyPolicy)) return false;
  const t = svc.spec?.type;
  if (old.spec?.type !== t || !(t === 'ClusterIP' || t === 'NodePort' || t === 'LoadBalancer')) return false;
  if (svc.spec?.ipFamilyPolicy !== 'PreferDualStack') return false;
  if (isSet(old.spec?.ipFamilyPolicy) && old.spec?.ipFamilyPolicy !== 'PreferDualStack') return false;
  return sameClusterIPs(old, svc) && sameStrings(old.spec?.ipFamilies, svc.spec?.ipFamilies);
}

/** initIPFamilyFields on a single-stack cluster whose only family is the service CIDR's. */
export function initIPFamilyFields(svc: Service, old: Service | undefined, family: IPFamily): void {
  const spec = (svc.spec ??= {});
  if (spec.type === 'ExternalName' || isMatchingPreferDualStack(svc, old)) return;
  if (!isSet(spec.ipFamilyPolicy)) {
    if (old && isSet(old.spec?.ipFamilyPolicy)) spec.ipFamilyPolicy = old.spec.ipFamilyPolicy;
    // Headless services without a selector default to dual-stack: their endpoints may come from anywhere.
    else if (spec.clusterIP === NONE && Object.keys(spec.selector ?? {}).length === 0) spec.ipFamilyPolicy = 'RequireDualStack';
    else spec.ipFamilyPolicy = 'SingleStack';
  }
  const errs: FieldError[] = [];
  const ips = clusterIPsOf(svc);
  if (old) {
    if (spec.ipFamilyPolicy === 'SingleStack') {
      if (sameClusterIPs(old, svc) && ips.length > 1) spec.clusterIPs = ips.slice(0, 1);
      if (sameStrings(old.spec?.ipFamilies, spec.ipFamilies) && (spec.ipFamilies?.length ?? 0) > 1) spec.ipFamilies = spec.ipFamilies!.slice(0, 1);
    } else {
      if (ips.length && ips.length < clusterIPsOf(old).length) {
        errs.push(FieldError.invalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
      }
      if ((spec.ipFamilies?.length ?? 0) && spec.ipFamilies!.length < (old.spec?.ipFamilies?.length ?? 0)) {
        errs.push(FieldError.invalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
  }
  if (spec.ipFamilyPolicy === 'SingleStack') {
    const msg = (what: string) => `must be 'RequireDualStack' or 'PreferDualStack' when multiple ${what} are specified`;
    if (clusterIPsOf(svc).length === 2) errs.push(FieldError.invalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy, msg('cluster IPs')));
    if (spec.ipFamilies?.length === 2) errs.push(FieldError.invalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy, msg('IP families')));
  }
  const families = [...(spec.ipFamilies ?? [])];
  clusterIPsOf(svc).every((ip, i) => {
    if (ip === NONE) return false;
    const fam = familyOf(ip);
    if (i >= families.length) {
      if (fam !== family) errs.push(FieldError.invalid(`spec.clusterIPs[${i}]`, clusterIPsOf(svc), `${fam} is not configured on this cluster`));
      else families.push(fam);
    }
    return true;
  });
  if (families.length) spec.ipFamilies = families;
  if (errs.length) throw invalid(svc, errs);
  if (spec.clusterIP === NONE && Object.keys(spec.selector ?? {}).length === 0) {
    if (!families.length) families.push(family);
    if (families.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
    spec.ipFamilies = families;
    return;
  }
  if (spec.ipFamilyPolicy === 'RequireDualStack') {
    errs.push(FieldError.invalid('spec.ipFamilyPolicy', spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  }
  families.forEach((f, i) => {
    if (f !== family) errs.push(FieldError.invalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster'));
  });
  if (errs.length) throw invalid(svc, errs);
  if (!families.length) spec.ipFamilies = [family];
}

/** randomScanStrategyWithOffset: a random free index in [offset, max), else in [0, offset); -1 when full. */
function randomScan(max: number, offset: number, random: () => number, free: (i: number) => boolean): number {
  for (const [lo, hi] of [[offset, max], [0, Math.min(offset, max)]]) {
    const n = hi - lo;
    if (n <= 0) continue;
    const start = Math.floor(random() * n);
    for (let k = 0; k < n; k++) {
      const i = lo + ((start + k) % n);
      if (free(i)) return i;
    }
  }
  return -1;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(Math.max(v, lo), hi);

/** Index i is address base+1+i: the network address (and IPv4's broadcast address) is never handed out. */
function ipSlots(cidr: CIDR): { max: number; offset: number } {
  const usable = cidr.size - (cidr.family === 'IPv4' ? 2n : 1n);
  const max = Number(usable > 1n << 24n ? 1n << 24n : usable < 0n ? 0n : usable);
  const size = Number(cidr.size > 1n << 24n ? 1n << 24n : cidr.size);
  return { max, offset: size <= 16 ? 0 : clamp(Math.floor(size / 16), 16, 256) };
}

function allocateIP(svc: Service, requested: string, cfg: AllocatorConfig, taken: Taken, out: Allocated): string {
  const fail = (why: string) => invalid(svc, [FieldError.invalid('spec.clusterIPs', clusterIPsOf(svc), `failed to allocate IP ${requested}: ${why}`)]);
  const { cidr } = cfg;
  if (requested) {
    const v = ipToBigInt(requested);
    if (v === undefined || familyOf(requested) !== cidr.family || v < cidr.base || v >= cidr.base + cidr.size) {
      throw fail('the provided network does not match the current range');
    }
    if (v === cidr.base || (cidr.family === 'IPv4' && v === cidr.base + cidr.size - 1n)) {
      throw fail(`the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${cidr.text}`);
    }
    if (taken.ips.has(v.toString())) throw fail('provided IP is already allocated');
    taken.ips.add(v.toString());
    out.ips.push(v.toString());
    return requested;
  }
  const { max, offset } = ipSlots(cidr);
  const i = randomScan(max, offset, cfg.random, (k) => !taken.ips.has((cidr.base + 1n + BigInt(k)).toString()));
  if (i < 0) throw errors.internal(`failed to allocate a serviceIP for Service "${svc.metadata.name ?? ''}": range is full`);
  const v = cidr.base + 1n + BigInt(i);
  taken.ips.add(v.toString());
  out.ips.push(v.toString());
  return bigIntToIp(v, cidr.family);
}

/** allocClusterIPs: one address per family (one family here); headless and ExternalName services get none. */
function allocClusterIPs(svc: Service, cfg: AllocatorConfig, taken: Taken, out: Allocated): void {
  const spec = (svc.spec ??= {});
  if (spec.type === 'ExternalName' || clusterIPsOf(svc)[0] === NONE) return;
  const ips = [...clusterIPsOf(svc)];
  (spec.ipFamilies ?? []).forEach((_, i) => {
    ips[i] = allocateIP(svc, ips[i] ?? '', cfg, taken, out);
  });
  spec.clusterIPs = ips;
  if (ips.length) spec.clusterIP = ips[0];
}

/** The node-port allocator of one request: explicit ports must be in range and free; Next picks a random one. */
function portAllocator(cfg: AllocatorConfig, taken: Taken, out: Allocated) {
  const [lo, hi] = cfg.nodePorts;
  const size = hi - lo + 1;
  return {
    allocate(port: number): string | undefined {
      if (port < lo || port > hi) return `provided port is not in the valid range. The range of valid ports is ${lo}-${hi}`;
      if (taken.ports.has(port)) return 'provided port is already allocated';
      taken.ports.add(port);
      out.ports.push(port);
      return undefined;
    },
    next(): number | undefined {
      const offset = size <= 16 ? 0 : clamp(Math.floor(size / 32), 16, 128);
      const i = randomScan(size, offset, cfg.random, (k) => !taken.ports.has(lo + k));
      if (i < 0) return undefined;
      taken.ports.add(lo + i);
      out.ports.push(lo + i);
      return lo + i;
    },
  };
}

type Ports = ReturnType<typeof portAllocator>;

function nodePortError(svc: Service, i: number, port: number, why: string): StatusError {
  return invalid(svc, [FieldError.invalid(`spec.ports[${i}].nodePort`, port, why)]);
}

function nextPort(pa: Ports): number {
  const p = pa.next();
  if (p === undefined) throw errors.internal('failed to allocate a nodePort: range is full');
  return p;
}

/** initNodePorts: ports sharing a port number share one node port; explicit requests are honoured first. */
function initNodePorts(svc: Service, pa: Ports): void {
  const ports = portsOf(svc);
  const byPort = new Map<number, number>();
  ports.forEach((sp, i) => {
    if (!sp.nodePort && !shouldAllocateNodePorts(svc)) return;
    const already = byPort.get(sp.port ?? 0) ?? 0;
    if (!already) {
      const requested = ports.find((p) => p.port === sp.port && p.nodePort)?.nodePort ?? 0;
      if (requested) {
        const why = pa.allocate(requested);
        if (why) throw nodePortError(svc, i, requested, why);
        sp.nodePort = requested;
      } else sp.nodePort = nextPort(pa);
      byPort.set(sp.port ?? 0, sp.nodePort);
    } else if (sp.nodePort !== already) {
      if (!sp.nodePort) sp.nodePort = already;
      else {
        const why = pa.allocate(sp.nodePort);
        if (why) throw nodePortError(svc, i, sp.nodePort, why);
      }
    }
  });
}

function allocHealthCheckNodePort(svc: Service, pa: Ports): void {
  const spec = svc.spec!;
  const requested = spec.healthCheckNodePort ?? 0;
  if (requested) {
    const why = pa.allocate(requested);
    if (why) throw errors.internal(`failed to allocate requested HealthCheck NodePort ${requested}: ${why}`);
  } else {
    const p = pa.next();
    if (p === undefined) throw errors.internal('failed to allocate a HealthCheck NodePort 0: range is full');
    spec.healthCheckNodePort = p;
  }
}

/** allocateCreate: families, cluster IPs, node ports and the health-check node port of a new service. */
export function allocateCreate(svc: Service, cfg: AllocatorConfig, taken: Taken): Allocated {
  const out: Allocated = { ips: [], ports: [] };
  initIPFamilyFields(svc, undefined, cfg.cidr.family);
  allocClusterIPs(svc, cfg, taken, out);
  const pa = portAllocator(cfg, taken, out);
  if (needsNodePort(svc)) initNodePorts(svc, pa);
  if (needsHealthCheck(svc)) allocHealthCheckNodePort(svc, pa);
  return out;
}

/**
 * allocateUpdate: keeps what the service holds, allocates what a type change needs. `taken` must hold what other
 * services use plus what `old` holds (still allocated until the write), so new picks never reuse them.
 */
export function allocateUpdate(svc: Service, old: Service, cfg: AllocatorConfig, taken: Taken): Allocated {
  const out: Allocated = { ips: [], ports: [] };
  initIPFamilyFields(svc, old, cfg.cidr.family);
  if (!isMatchingPreferDualStack(svc, old) && old.spec?.type === 'ExternalName' && svc.spec?.type !== 'ExternalName') {
    // The addresses a service already holds are in `taken`; a service coming from ExternalName holds none.
    allocClusterIPs(svc, cfg, taken, out);
  }
  const pa = portAllocator(cfg, taken, out);
  if (needsNodePort(svc)) {
    const oldPorts = new Set(portsOf(old).map((p) => p.nodePort ?? 0).filter((p) => p));
    const mine = new Set<number>();
    portsOf(svc).forEach((sp, i) => {
      if (!sp.nodePort && !shouldAllocateNodePorts(svc)) return;
      if (sp.nodePort) {
        if (!oldPorts.has(sp.nodePort) && !mine.has(sp.nodePort)) {
          const why = pa.allocate(sp.nodePort);
          if (why) throw nodePortError(svc, i, sp.nodePort, why);
          mine.add(sp.nodePort);
        }
      } else sp.nodePort = nextPort(pa);
    });
  }
  // Both needing one: patchAllocatedValues kept the old port and validation forbids changing it.
  if (!needsHealthCheck(old) && needsHealthCheck(svc)) allocHealthCheckNodePort(svc, pa);
  return out;
}

/** What a stored service holds: its cluster IPs (as bigint strings), node ports and health-check node port. */
export function holdings(svc: Service): Taken {
  const ips = new Set<string>();
  for (const ip of clusterIPsOf(svc)) {
    const v = ip && ip !== NONE ? ipToBigInt(ip) : undefined;
    if (v !== undefined) ips.add(v.toString());
  }
  const ports = new Set<number>(portsOf(svc).map((p) => p.nodePort ?? 0).filter((p) => p > 0));
  if (svc.spec?.healthCheckNodePort) ports.add(svc.spec.healthCheckNodePort);
  return { ips, ports };
}
