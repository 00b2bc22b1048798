// The nominator (kube's nominator in the scheduling queue): pending pods that preemption nominated to a node, so
// that other pods of lower or equal priority leave room for them there while the victims terminate.
import type { KObject } from '../../api/types.js';
import type { PodInfo } from '../plugins/pod-info.js';
import { podEntry, type PodEntry } from '../node-info.js';

type PodLike = KObject & { spec?: { nodeName?: string }; status?: { nominatedNodeName?: string } };

const nominatedNodeOf = (p: KObject | undefined): string => (p as PodLike | undefined)?.status?.nominatedNodeName ?? '';

const NONE: PodEntry[] = [];

export class Nominator {
  /** uid → entry (its nodeName is the nominated node) */
  private readonly byUid = new Map<string, PodEntry>();
  private readonly byNode = new Map<string, Set<string>>();

  /** Nominates `pod` to `node` (replacing an earlier nomination). */
  add(pod: KObject, node: string): void {
    const uid = pod.metadata.uid ?? '';
    this.remove(uid);
    if (!node) return;
    this.byUid.set(uid, podEntry(pod, node));
    let set = this.byNode.get(node);
    if (!set) this.byNode.set(node, (set = new Set()));
    set.add(uid);
  }

  remove(uid: string): void {
    const e = this.byUid.get(uid);
    if (!e) return;
    this.byUid.delete(uid);
    const set = this.byNode.get(e.nodeName);
    set?.delete(uid);
    if (set && !set.size) this.byNode.delete(e.nodeName);
  }

  /** whether any pod is nominated (a scheduling attempt then has no nominated pods to leave room for) */
  get empty(): boolean {
    return this.byUid.size === 0;
  }

  nodeOf(uid: string): string | undefined {
    return this.byUid.get(uid)?.nodeName;
  }

  /** Pods nominated to `node`. */
  on(node: string): PodEntry[] {
    const set = this.byNode.get(node);
    return set ? [...set].map((u) => this.byUid.get(u)!) : [];
  }

  /** What `p` must leave room for on `node`: nominated pods of priority ≥ its own, other than itself. */
  readonly forPod = (node: string, p: PodInfo): PodEntry[] => {
    const set = this.byNode.get(node);
    if (!set) return NONE;
    const uid = p.pod.metadata.uid;
    const out: PodEntry[] = [];
    for (const u of set) {
      const e = this.byUid.get(u)!;
      if (u !== uid && e.priority >= p.priority) out.push(e);
    }
    return out;
  };

  /**
   * Follows a pending pod from the informer. A status naming a node nominates it there; an update that cleared the
   * field drops the nomination; an update that never had one keeps what preemption reserved in memory (the write of
   * status.nominatedNodeName may not have arrived yet).
   */
  onPending(old: KObject | undefined, pod: KObject): void {
    const uid = pod.metadata.uid ?? '';
    const node = nominatedNodeOf(pod);
    if (node) {
      if (this.nodeOf(uid) !== node || this.byUid.get(uid)!.pod !== pod) this.add(pod, node);
      return;
    }
    if (nominatedNodeOf(old)) this.remove(uid);
    else if (this.byUid.has(uid)) this.add(pod, this.nodeOf(uid)!);
  }
}
