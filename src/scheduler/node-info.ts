// The scheduler's in-memory picture of each node (framework.NodeInfo + the scheduler cache): allocatable, what the
// pods placed there request, their host ports. Pods count from the moment they are assumed (right after the
// scheduling decision, before the binding is written) so the next decision already sees them.
import type { KObject } from '../api/types.js';
import { deepEqual } from '../machinery/object.js';
import type { PodSpec } from '../api/core/pod/types.js';
import type { Taint } from '../api/core/node/validation.js';
import type { LabelSelector } from '../machinery/labels.js';
import type { VolumeLookups } from './volume-binding/types.js';
import type { ImageLookups } from './plugins/image-locality.js';
import {
  addResources,
  emptyResources,
  nodeAllocatable,
  podRequests,
  type Allocatable,
  type Resources,
} from './resources.js';

export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

/** One pod as the cache accounts it. */
export interface PodEntry {
  uid: string;
  key: string;
  nodeName: string;
  priority: number;
  pod: KObject;
  requests: Resources;
  /** cpu / memory with the 100m / 200Mi defaults for containers that set none (used by scoring) */
  nonZero: { milliCPU: number; memory: number };
  ports: HostPort[];
  /** the pod declares pod affinity or anti-affinity terms (InterPodAffinity looks only at these for symmetry) */
  hasPodAffinity: boolean;
  /** the pod declares required anti-affinity terms that incoming pods must respect */
  hasRequiredAntiAffinity: boolean;
  /** InterPodAffinity's parsed terms of this pod, filled on first use so selectors are parsed once per pod */
  affinityTerms?: unknown;
}

/**
 * What plugins that count pods across the whole cluster (PodTopologySpread, InterPodAffinity) need beyond one node:
 * every node, and lookups the scheduler may wire from its informers.
 */
export interface ClusterView {
  nodes(): NodeInfo[];
  nodeInfo(name: string): NodeInfo | undefined;
  lookups: ClusterLookups;
}

export interface ClusterLookups {
  /** labels of a namespace (for namespaceSelector); without it only the automatic kubernetes.io/metadata.name label is known */
  namespaceLabels?: (namespace: string) => Record<string, string> | undefined;
  /**
   * the selector of the Services / ReplicationControllers / ReplicaSets / StatefulSets selecting the pod (the
   * "system default" topology spread selector); without it the pod's own labels are used when a controller owns it
   */
  defaultSpreadSelector?: (pod: KObject) => LabelSelector | undefined;
  /** PVCs, PVs, StorageClasses and CSINodes (with the binder's assumptions) for the volume plugins */
  volumes?: VolumeLookups;
  /** the images nodes report, for ImageLocality */
  images?: ImageLookups;
}

function podAffinityFlags(pod: KObject): { hasPodAffinity: boolean; hasRequiredAntiAffinity: boolean } {
  const aff = (pod as { spec?: PodSpec }).spec?.affinity as
    | { podAffinity?: Record<string, unknown[] | undefined>; podAntiAffinity?: Record<string, unknown[] | undefined> }
    | undefined;
  const any = (x?: Record<string, unknown[] | undefined>) =>
    !!x && (!!x.requiredDuringSchedulingIgnoredDuringExecution?.length || !!x.preferredDuringSchedulingIgnoredDuringExecution?.length);
  return {
    hasPodAffinity: any(aff?.podAffinity) || any(aff?.podAntiAffinity),
    hasRequiredAntiAffinity: !!aff?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length,
  };
}

export function podPriority(pod: KObject): number {
  return ((pod as { spec?: PodSpec }).spec?.priority as number | undefined) ?? 0;
}

/** Host ports of the app containers (schedutil.GetHostPorts); an empty hostIP means every address. */
export function podHostPorts(pod: KObject): HostPort[] {
  const out: HostPort[] = [];
  for (const c of (pod as { spec?: PodSpec }).spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (!p.hostPort || p.hostPort <= 0) continue;
      out.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol || 'TCP', port: p.hostPort });
    }
  }
  return out;
}

/** Whether a pod's entry and what is memoized from it would come out the same for `b` as for `a`. */
function sameCounted(a: KObject, b: KObject): boolean {
  const am = a.metadata;
  const bm = b.metadata;
  return (
    (a as { spec?: unknown }).spec === (b as { spec?: unknown }).spec &&
    am.namespace === bm.namespace &&
    am.name === bm.name &&
    am.deletionTimestamp === bm.deletionTimestamp &&
    (am.labels === bm.labels || deepEqual(am.labels ?? {}, bm.labels ?? {}))
  );
}

export function podEntry(pod: KObject, nodeName: string): PodEntry {
  const nz = podRequests(pod, { nonMissing: true });
  return {
    uid: pod.metadata.uid ?? '',
    key: `${pod.metadata.namespace}/${pod.metadata.name}`,
    nodeName,
    priority: podPriority(pod),
    pod,
    requests: podRequests(pod),
    nonZero: { milliCPU: nz.milliCPU, memory: nz.memory },
    ports: podHostPorts(pod),
    ...podAffinityFlags(pod),
  };
}

const NO_TAINTS: Taint[] = [];

export const FIT_ALLOWED_PODS = 0;
export const FIT_PODS = 1;
export const FIT_ALLOC_CPU = 2;
export const FIT_REQ_CPU = 3;
export const FIT_ALLOC_MEM = 4;
export const FIT_REQ_MEM = 5;
export const FIT_ALLOC_EPH = 6;
export const FIT_REQ_EPH = 7;
export const FIT_NZ_CPU = 8;
export const FIT_NZ_MEM = 9;
const FIT_SIZE = 10;

export class NodeInfo {
  node?: KObject;
  /** spec.unschedulable and the NoSchedule/NoExecute taints, read once per Node change: every filter pass reads them */
  unschedulable = false;
  hardTaints: Taint[] = NO_TAINTS;
  allocatable: Allocatable = { ...emptyResources(), allowedPods: 0 };
  requested: Resources = emptyResources();
  nonZeroRequested = { milliCPU: 0, memory: 0 };
  /**
   * The numbers the fit check and the resource scores read (FIT_* indexes), side by side: they run for hundreds of
   * nodes per pod, and reading them through allocatable, requested and the pods map cost several cache misses each.
   */
  readonly fit = new Float64Array(FIT_SIZE);
  /** PreferNoSchedule taints (TaintToleration's score) */
  softTaints: Taint[] = NO_TAINTS;
  readonly pods = new Map<string, PodEntry>();
  /** "ip/protocol/port" → number of pods using it */
  readonly usedPorts = new Map<string, number>();
  /** pods declaring pod affinity / anti-affinity, and those with required anti-affinity (uid → entry) */
  readonly affinityPods = new Map<string, PodEntry>();
  readonly antiAffinityPods = new Map<string, PodEntry>();
  /** the cache this node belongs to (absent for a standalone NodeInfo) */
  cluster?: ClusterView;
  /** bumped whenever a pod is added or removed: memoised per-node counts are valid for one generation */
  generation = 0;
  private readonly memo = new Map<string, { generation: number; value: unknown }>();

  constructor(readonly name: string) {}

  setNode(node: KObject): void {
    this.node = node;
    this.allocatable = nodeAllocatable(node);
    const spec = (node as { spec?: { unschedulable?: boolean; taints?: Taint[] | null } }).spec;
    this.unschedulable = !!spec?.unschedulable;
    const hard = (spec?.taints ?? []).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
    this.hardTaints = hard.length ? hard : NO_TAINTS;
    const soft = (spec?.taints ?? []).filter((t) => t.effect === 'PreferNoSchedule');
    this.softTaints = soft.length ? soft : NO_TAINTS;
    this.syncAllocatable();
  }

  private syncAllocatable(): void {
    const f = this.fit;
    const a = this.allocatable;
    f[FIT_ALLOWED_PODS] = a.allowedPods;
    f[FIT_ALLOC_CPU] = a.milliCPU;
    f[FIT_ALLOC_MEM] = a.memory;
    f[FIT_ALLOC_EPH] = a.ephemeralStorage;
  }

  private syncRequested(): void {
    const f = this.fit;
    const r = this.requested;
    f[FIT_PODS] = this.pods.size;
    f[FIT_REQ_CPU] = r.milliCPU;
    f[FIT_REQ_MEM] = r.memory;
    f[FIT_REQ_EPH] = r.ephemeralStorage;
    f[FIT_NZ_CPU] = this.nonZeroRequested.milliCPU;
    f[FIT_NZ_MEM] = this.nonZeroRequested.memory;
  }

  addPod(e: PodEntry): void {
    this.pods.set(e.uid, e);
    addResources(this.requested, e.requests);
    this.nonZeroRequested.milliCPU += e.nonZero.milliCPU;
    this.nonZeroRequested.memory += e.nonZero.memory;
    for (const p of e.ports) this.usedPorts.set(portKey(p), (this.usedPorts.get(portKey(p)) ?? 0) + 1);
    if (e.hasPodAffinity) this.affinityPods.set(e.uid, e);
    if (e.hasRequiredAntiAffinity) this.antiAffinityPods.set(e.uid, e);
    this.generation++;
    this.syncRequested();
  }

  /**
   * A value derived from this node's pods only (e.g. how many match a selector), computed again once the pods
   * change. Keys must capture every input besides the pods. Lets PreFilter/PreScore revisit only changed nodes.
   */
  memoized<T>(key: string, compute: () => T): T {
    const m = this.memo.get(key);
    if (m && m.generation === this.generation) return m.value as T;
    // distinct selectors are few in practice; bound the map anyway
    if (this.memo.size > 1000) this.memo.clear();
    const value = compute();
    this.memo.set(key, { generation: this.generation, value });
    return value;
  }

  removePod(uid: string): PodEntry | undefined {
    const e = this.pods.get(uid);
    if (!e) return undefined;
    this.pods.delete(uid);
    this.affinityPods.delete(uid);
    this.antiAffinityPods.delete(uid);
    this.generation++;
    addResources(this.requested, e.requests, -1);
    this.nonZeroRequested.milliCPU -= e.nonZero.milliCPU;
    this.nonZeroRequested.memory -= e.nonZero.memory;
    this.syncRequested();
    for (const p of e.ports) {
      const k = portKey(p);
      const n = (this.usedPorts.get(k) ?? 0) - 1;
      if (n > 0) this.usedPorts.set(k, n);
      else this.usedPorts.delete(k);
    }
    return e;
  }

  /** Whether `p` collides with a port in use: the same protocol and port on the same or a wildcard address. */
  portInUse(p: HostPort): boolean {
    if (p.ip === '0.0.0.0') {
      for (const k of this.usedPorts.keys()) if (k.endsWith(`/${p.protocol}/${p.port}`)) return true;
      return false;
    }
    return this.usedPorts.has(portKey(p)) || this.usedPorts.has(portKey({ ...p, ip: '0.0.0.0' }));
  }

  /** A copy without the pods `drop` selects (what preemption's dry run evaluates). */
  without(drop: (e: PodEntry) => boolean): NodeInfo {
    const n = new NodeInfo(this.name);
    n.node = this.node;
    n.allocatable = this.allocatable;
    n.unschedulable = this.unschedulable;
    n.hardTaints = this.hardTaints;
    n.softTaints = this.softTaints;
    n.syncAllocatable();
    n.cluster = this.cluster;
    for (const e of this.pods.values()) if (!drop(e)) n.addPod(e);
    return n;
  }
}

function portKey(p: HostPort): string {
  return `${p.ip}/${p.protocol}/${p.port}`;
}

function isTerminal(pod: KObject): boolean {
  const phase = (pod as { status?: { phase?: string } }).status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/**
 * Every node and every pod placed on one. Pods are keyed by uid; an assumed pod is replaced by the real one once the
 * informer reports it bound. Nodes keep their insertion order so "where to start looking" rotates predictably.
 */
export class SchedulerCache implements ClusterView {
  /** optional informer-backed lookups (see ClusterLookups); the scheduler may set them in setup() */
  lookups: ClusterLookups = {};
  private readonly infos = new Map<string, NodeInfo>();
  private readonly podNode = new Map<string, string>();
  private readonly assumed = new Set<string>();
  private list: NodeInfo[] = [];
  private listDirty = true;

  private info(name: string): NodeInfo {
    let ni = this.infos.get(name);
    if (!ni) {
      ni = new NodeInfo(name);
      ni.cluster = this;
      this.infos.set(name, ni);
    }
    return ni;
  }

  setNode(node: KObject): void {
    const ni = this.info(node.metadata.name!);
    if (!ni.node) this.listDirty = true;
    ni.setNode(node);
  }

  removeNode(name: string): void {
    const ni = this.infos.get(name);
    if (!ni) return;
    ni.node = undefined;
    ni.unschedulable = false;
    ni.hardTaints = NO_TAINTS;
    ni.softTaints = NO_TAINTS;
    if (!ni.pods.size) this.infos.delete(name);
    this.listDirty = true;
  }

  /** Nodes that exist (have a Node object), in a stable order. */
  nodes(): NodeInfo[] {
    if (this.listDirty) {
      this.list = [...this.infos.values()].filter((n) => n.node);
      this.listDirty = false;
    }
    return this.list;
  }

  nodeInfo(name: string): NodeInfo | undefined {
    return this.infos.get(name);
  }

  /** Follows a pod from the informer: bound and not finished pods count on their node, others do not. */
  updatePod(pod: KObject): void {
    const uid = pod.metadata.uid ?? '';
    const nodeName = (pod as { spec?: PodSpec }).spec?.nodeName ?? '';
    if (!nodeName || isTerminal(pod)) {
      // An unbound pod we assumed stays assumed until its binding lands or fails.
      if (!this.assumed.has(uid)) this.removePod(uid);
      return;
    }
    // a status change (the kubelet's) shares the spec with the revision counted: only the object is swapped, as
    // nothing counted (requests, ports, affinity, labels, termination) changed
    const e = this.assumed.has(uid) ? undefined : this.infos.get(this.podNode.get(uid) ?? '')?.pods.get(uid);
    if (e && e.nodeName === nodeName && sameCounted(e.pod, pod)) {
      e.pod = pod;
      return;
    }
    this.assumed.delete(uid);
    this.removeEntry(uid);
    this.place(podEntry(pod, nodeName));
  }

  removePod(uid: string): void {
    this.assumed.delete(uid);
    this.removeEntry(uid);
  }

  /** Counts `pod` on `nodeName` before the binding is written (cache.AssumePod). */
  assume(pod: KObject, nodeName: string): void {
    const uid = pod.metadata.uid ?? '';
    this.removeEntry(uid);
    this.assumed.add(uid);
    this.place(podEntry(pod, nodeName));
  }

  /** The binding failed: the pod no longer counts (cache.ForgetPod). */
  forget(uid: string): void {
    if (!this.assumed.has(uid)) return;
    this.assumed.delete(uid);
    this.removeEntry(uid);
  }

  isAssumed(uid: string): boolean {
    return this.assumed.has(uid);
  }

  private place(e: PodEntry): void {
    this.info(e.nodeName).addPod(e);
    this.podNode.set(e.uid, e.nodeName);
  }

  private removeEntry(uid: string): void {
    const name = this.podNode.get(uid);
    if (name === undefined) return;
    this.podNode.delete(uid);
    const ni = this.infos.get(name);
    ni?.removePod(uid);
    if (ni && !ni.node && !ni.pods.size) this.infos.delete(name);
  }
}
