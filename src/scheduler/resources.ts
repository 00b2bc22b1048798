// Resource arithmetic of the scheduler (framework.Resource and resourcehelper.PodRequests, 1.33): what a pod asks
// for and what a node offers, as plain integers (milli-CPU, bytes, counts) so per-node accounting stays cheap.
import type { KObject } from '../api/types.js';
import type { Container, PodSpec, ResourceList } from '../api/core/pod/types.js';
import { Quantity } from '../machinery/quantity.js';

export interface Resources {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** extended, hugepages, attachable-volumes and kubernetes.io/-prefixed resources, in their Value() units */
  scalar: Record<string, number>;
}

/** Node allocatable plus the pod count it allows (status.allocatable.pods). */
export interface Allocatable extends Resources {
  allowedPods: number;
}

/** What the scheduler assumes for a container that requests no cpu / memory (schedutil.DefaultMilliCPURequest…). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

export function emptyResources(): Resources {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, scalar: {} };
}

/** hugepages-*, attachable-volumes-*, kubernetes.io/-prefixed native and extended (domain/name) resources. */
export function isScalarResourceName(name: string): boolean {
  if (name.startsWith('hugepages-') || name.startsWith('attachable-volumes-')) return true;
  if (!name.includes('/')) return false;
  return !name.startsWith('requests.');
}

function quantity(v: string | number | undefined): Quantity | undefined {
  if (v === undefined || v === null) return undefined;
  try {
    return Quantity.parse(String(v));
  } catch {
    return undefined;
  }
}

/** Adds (sign 1) or subtracts (sign -1) a ResourceList into `r`; unknown names are ignored as in Go. */
function addList(r: Resources, list: ResourceList | undefined, sign = 1): void {
  if (!list) return;
  for (const [name, raw] of Object.entries(list)) {
    const q = quantity(raw);
    if (!q) continue;
    if (name === 'cpu') r.milliCPU += sign * q.milliValue();
    else if (name === 'memory') r.memory += sign * q.value();
    else if (name === 'ephemeral-storage') r.ephemeralStorage += sign * q.value();
    else if (isScalarResourceName(name)) r.scalar[name] = (r.scalar[name] ?? 0) + sign * q.value();
  }
}

export function addResources(into: Resources, r: Resources, sign = 1): void {
  into.milliCPU += sign * r.milliCPU;
  into.memory += sign * r.memory;
  into.ephemeralStorage += sign * r.ephemeralStorage;
  for (const [k, v] of Object.entries(r.scalar)) {
    const n = (into.scalar[k] ?? 0) + sign * v;
    if (n === 0 && sign < 0) delete into.scalar[k];
    else into.scalar[k] = n;
  }
}

function maxInto(into: Resources, r: Resources): void {
  into.milliCPU = Math.max(into.milliCPU, r.milliCPU);
  into.memory = Math.max(into.memory, r.memory);
  into.ephemeralStorage = Math.max(into.ephemeralStorage, r.ephemeralStorage);
  for (const [k, v] of Object.entries(r.scalar)) into.scalar[k] = Math.max(into.scalar[k] ?? 0, v);
}

function cloneResources(r: Resources): Resources {
  return { milliCPU: r.milliCPU, memory: r.memory, ephemeralStorage: r.ephemeralStorage, scalar: { ...r.scalar } };
}

export interface PodRequestOptions {
  /** count a container without a cpu / memory request as 100m / 200Mi (the scheduler's "non-zero" requests) */
  nonMissing?: boolean;
}

function containerRequests(c: Container, opts: PodRequestOptions): Resources {
  const r = emptyResources();
  const req = c.resources?.requests;
  addList(r, req);
  if (opts.nonMissing) {
    if (req?.cpu === undefined) r.milliCPU += DEFAULT_MILLI_CPU_REQUEST;
    if (req?.memory === undefined) r.memory += DEFAULT_MEMORY_REQUEST;
  }
  return r;
}

/**
 * The pod's effective request: the larger of (sum of app containers + sidecars) and the peak during init, where a
 * regular init container runs beside every sidecar started before it; plus the pod overhead.
 */
export function podRequests(pod: KObject, opts: PodRequestOptions = {}): Resources {
  const spec = ((pod as { spec?: PodSpec }).spec ?? {}) as PodSpec;
  const reqs = emptyResources();
  for (const c of spec.containers ?? []) addResources(reqs, containerRequests(c, opts));
  const sidecars = emptyResources();
  const initPeak = emptyResources();
  for (const c of spec.initContainers ?? []) {
    const r = containerRequests(c, opts);
    if (c.restartPolicy === 'Always') {
      addResources(reqs, r);
      addResources(sidecars, r);
      maxInto(initPeak, sidecars);
    } else {
      const during = cloneResources(r);
      addResources(during, sidecars);
      maxInto(initPeak, during);
    }
  }
  maxInto(reqs, initPeak);
  addList(reqs, spec.overhead);
  return reqs;
}

/** status.allocatable of a node (kube defaults it to capacity on the API side). */
export function nodeAllocatable(node: KObject): Allocatable {
  const status = (node as { status?: { allocatable?: ResourceList; capacity?: ResourceList } }).status ?? {};
  const list = status.allocatable ?? status.capacity ?? {};
  const r = emptyResources();
  addList(r, list);
  const pods = quantity(list.pods as string | number | undefined);
  return { ...r, allowedPods: pods ? pods.value() : 0 };
}

export function sameResources(a: Resources, b: Resources): boolean {
  if (a.milliCPU !== b.milliCPU || a.memory !== b.memory || a.ephemeralStorage !== b.ephemeralStorage) return false;
  const ka = Object.keys(a.scalar);
  if (ka.length !== Object.keys(b.scalar).length) return false;
  return ka.every((k) => a.scalar[k] === b.scalar[k]);
}
