// The scheduler's in-memory picture of each node (framework.NodeInfo + the scheduler cache): allocatable, what the
// pods placed there request, their host ports. Pods count from the moment they are assumed (right after the
// scheduling decision, before the binding is written) so the next decision already sees them.
import type { KObject } from '../api/types.js';
import type { PodSpec } from '../api/core-pod-types.js';
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
  };
}

export class NodeInfo {
  node?: KObject;
  allocatable: Allocatable = { ...emptyResources(), allowedPods: 0 };
  requested: Resources = emptyResources();
  nonZeroRequested = { milliCPU: 0, memory: 0 };
  readonly pods = new Map<string, PodEntry>();
  /** "ip/protocol/port" → number of pods using it */
  readonly usedPorts = new Map<string, number>();

  constructor(readonly name: string) {}

  setNode(node: KObject): void {
    this.node = node;
    this.allocatable = nodeAllocatable(node);
  }

  addPod(e: PodEntry): void {
    this.pods.set(e.uid, e);
    addResources(this.requested, e.requests);
    this.nonZeroRequested.milliCPU += e.nonZero.milliCPU;
    this.nonZeroRequested.memory += e.nonZero.memory;
    for (const p of e.ports) this.usedPorts.set(portKey(p), (this.usedPorts.get(portKey(p)) ?? 0) + 1);
  }

  removePod(uid: string): PodEntry | undefined {
    const e = this.pods.get(uid);
    if (!e) return undefined;
    this.pods.delete(uid);
    addResources(this.requested, e.requests, -1);
    this.nonZeroRequested.milliCPU -= e.nonZero.milliCPU;
    this.nonZeroRequested.memory -= e.nonZero.memory;
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
export class SchedulerCache {
  private readonly infos = new Map<string, NodeInfo>();
  private readonly podNode = new Map<string, string>();
  private readonly assumed = new Set<string>();
  private list: NodeInfo[] = [];
  private listDirty = true;

  private info(name: string): NodeInfo {
    let ni = this.infos.get(name);
    if (!ni) this.infos.set(name, (ni = new NodeInfo(name)));
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
