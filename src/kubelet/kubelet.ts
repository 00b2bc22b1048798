// The kubelet of one node: registers the Node, keeps its status and Lease current, watches the pods bound to it and
// runs one PodWorker per pod over a PodRuntime. The runtime is the only part that differs between a simulated node
// (SimRuntime) and a real one (a CRI runtime over containerd).
import type { Node } from '../api/core/node/resource.js';
import type { Pod } from '../api/core/pod/types.js';
import type { KObject } from '../api/types.js';
import { Informer } from '../client/informer.js';
import type { Client } from '../client/types.js';
import { EventRecorder } from '../client/events.js';
import { StatusError } from '../machinery/errors.js';
import { clone, deepEqual } from '../machinery/object.js';
import { Backoff } from './backoff.js';
import { NodeLease } from './node/lease.js';
import { initialNode, metadataDrift, nodeConditions, nodeInfo, nodeStatusFields, type NodeCondition, type NodeHealth, type NodeIdentity } from './node/status.js';
import { PodWorker } from './pods/worker.js';
import { tracePod } from '../machinery/pod-trace.js';
import type { PodRuntime } from './runtime.js';

export interface KubeletOptions {
  client: Client;
  nodeName: string;
  internalIP: string;
  /** the port of this kubelet's HTTPS server, reported in status.daemonEndpoints (default 10250) */
  kubeletPort?: number;
  runtime: PodRuntime;
  capacity: Record<string, string>;
  /** default: derived from capacity (allocatableFor) */
  allocatable?: Record<string, string>;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  osImage?: string;
  log?: (line: string) => void;
  now?: () => number;
  /** default 10 s (nodeStatusUpdateFrequency) */
  nodeStatusUpdateIntervalMs?: number;
  /** a status unchanged for this long is written anyway (nodeStatusReportFrequency, default 5 min) */
  nodeStatusReportIntervalMs?: number;
  /** default 10 s */
  leaseRenewIntervalMs?: number;
  /** the eviction manager's pressure verdicts (default: no pressure) */
  health?: () => NodeHealth;
  /** CrashLoopBackOff: default 10 s doubling to 5 min */
  backoff?: { initialMs: number; maxMs: number };
}

export class Kubelet {
  private readonly workers = new Map<string, PodWorker>();
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private readonly recorder: EventRecorder;
  private readonly backoff: Backoff;
  private readonly bootID = crypto.randomUUID();
  private podInformer?: Informer;
  private nodeInformer?: Informer;
  private lease?: NodeLease;
  private statusTimer?: NodeJS.Timeout;
  private conditions: NodeCondition[] = [];
  private lastReport = 0;
  private stopped = false;
  private nodeUid?: string;

  constructor(private readonly opts: KubeletOptions) {
    this.log = opts.log ?? ((l) => console.error(l));
    this.now = opts.now ?? Date.now;
    this.recorder = new EventRecorder(opts.client, 'kubelet', opts.nodeName, this.log, this.now);
    this.backoff = new Backoff({ initialMs: opts.backoff?.initialMs ?? 10_000, maxMs: opts.backoff?.maxMs ?? 300_000, now: this.now });
    opts.runtime.onPodEvent((uid) => this.workers.get(uid)?.kick());
    opts.runtime.onRuntimeEvent((pod, e) => this.recorder.event(pod, e.type, e.reason, e.message));
  }

  get nodeName(): string {
    return this.opts.nodeName;
  }

  /** the Node as last seen */
  get node(): Node | undefined {
    return this.nodeInformer?.get('', this.opts.nodeName) as Node | undefined;
  }

  /** a pod bound to this node, as the kubelet last saw it (the streaming server's lookup) */
  getPod(namespace: string, name: string): Pod | undefined {
    return this.podInformer?.get(namespace, name) as Pod | undefined;
  }

  /** the pods bound to this node that the kubelet still runs (not finished) */
  activePods(): Pod[] {
    return ((this.podInformer?.list() ?? []) as Pod[]).filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed' && this.workers.has(p.metadata.uid!));
  }

  /** evictPod: a Warning Evicted event, then the pod is killed and turns Failed with the eviction's status */
  evict(pod: Pod, decision: { message: string; status: Parameters<PodWorker['evict']>[0]; gracePeriodSeconds: number }): boolean {
    const w = this.workers.get(pod.metadata.uid!);
    if (!w) return false;
    this.recorder.event(pod, 'Warning', 'Evicted', decision.message);
    w.evict(decision.status, decision.gracePeriodSeconds);
    return true;
  }

  /** spec.podCIDR of the Node (set by the node IPAM controller) */
  get podCIDR(): string | undefined {
    return this.node?.spec?.podCIDR;
  }

  async start(): Promise<void> {
    await this.register();
    this.recorder.event(this.nodeRef(), 'Normal', 'Starting', 'Starting kubelet.');
    this.recorder.event(this.nodeRef(), 'Normal', 'NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods');
    this.nodeInformer = new Informer(this.opts.client, 'v1', 'nodes', { fieldSelector: `metadata.name=${this.opts.nodeName}`, log: this.log });
    // a new pod CIDR lets pods that wait for their sandbox go on
    this.nodeInformer.addHandler({ update: (o, n) => (o as Node).spec?.podCIDR !== (n as Node).spec?.podCIDR && this.kickAll() });
    await this.nodeInformer.start();
    this.lease = new NodeLease({ client: this.opts.client, nodeName: this.opts.nodeName, node: () => this.node, renewIntervalMs: this.opts.leaseRenewIntervalMs, now: this.now, log: this.log });
    this.lease.start();
    this.scheduleStatus();
    this.podInformer = new Informer(this.opts.client, 'v1', 'pods', { fieldSelector: `spec.nodeName=${this.opts.nodeName}`, log: this.log });
    this.podInformer.addHandler({
      add: (p) => this.podChanged(p as Pod),
      update: (_, p) => this.podChanged(p as Pod),
      delete: (p) => this.podRemoved(p as Pod),
    });
    await this.podInformer.start();
  }

  /** stops everything this kubelet runs; pods stay in the API as they are (as when a node goes away) */
  stop(): void {
    this.stopped = true;
    this.podInformer?.stop();
    this.nodeInformer?.stop();
    this.lease?.stop();
    if (this.statusTimer) clearTimeout(this.statusTimer);
    for (const w of this.workers.values()) w.close();
    this.workers.clear();
    this.opts.runtime.close();
  }

  private identity(): NodeIdentity {
    const o = this.opts;
    return { name: o.nodeName, internalIP: o.internalIP, labels: o.labels, annotations: o.annotations, capacity: o.capacity, allocatable: o.allocatable, runtimeVersion: o.runtime.version, osImage: o.osImage, kubeletPort: o.kubeletPort };
  }

  private health(): NodeHealth {
    return this.opts.health?.() ?? { memoryPressure: false, diskPressure: false, pidPressure: false };
  }

  /** The kubelet's involvedObject for node events: the node name doubles as its uid. */
  private nodeRef(): KObject {
    return { apiVersion: 'v1', kind: 'Node', metadata: { name: this.opts.nodeName, uid: this.opts.nodeName } } as KObject;
  }

  /** registerWithAPIServer: create the Node with its status, or bring an existing one up to date */
  private async register(): Promise<void> {
    const rc = this.opts.client.resource('v1', 'nodes');
    const id = this.identity();
    const node = initialNode(id);
    const { conditions, events } = nodeConditions([], this.health(), this.now());
    node.status = { ...nodeStatusFields(id, nodeInfo(id, this.bootID)), conditions } as Node['status'];
    try {
      const created = await rc.create('', node);
      this.nodeUid = created.metadata.uid;
      this.conditions = conditions;
      this.lastReport = this.now();
      for (const e of events) this.recorder.event(this.nodeRef(), 'Normal', e, `Node ${this.opts.nodeName} status is now: ${e}`);
      return;
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409)) throw e;
    }
    let existing = (await rc.get('', this.opts.nodeName)) as Node;
    const drift = metadataDrift(existing, id);
    if (drift) existing = (await rc.patch('', this.opts.nodeName, 'merge', { metadata: drift })) as Node;
    this.nodeUid = existing.metadata.uid;
    this.conditions = (existing.status?.conditions ?? []) as NodeCondition[];
    await this.updateNodeStatus({ force: true });
  }

  private scheduleStatus(): void {
    if (this.stopped) return;
    this.statusTimer = setTimeout(async () => {
      try {
        await this.updateNodeStatus({ force: false });
      } catch (e) {
        this.log(`k1s: kubelet ${this.opts.nodeName}: node status: ${(e as Error).message}`);
      }
      this.scheduleStatus();
    }, this.opts.nodeStatusUpdateIntervalMs ?? 10_000);
    this.statusTimer.unref?.();
  }

  /** tryUpdateNodeStatus: written when something changed or the report interval has passed */
  async updateNodeStatus(opts: { force: boolean }): Promise<void> {
    const rc = this.opts.client.resource('v1', 'nodes');
    const id = this.identity();
    const now = this.now();
    const { conditions, events } = nodeConditions(this.conditions, this.health(), now);
    const strip = (cs: NodeCondition[]) => cs.map(({ lastHeartbeatTime: _h, ...rest }) => rest);
    const changed = !deepEqual(strip(conditions), strip(this.conditions));
    const due = now - this.lastReport >= (this.opts.nodeStatusReportIntervalMs ?? 300_000);
    if (!opts.force && !changed && !due) return;
    for (let attempt = 0; attempt < 3; attempt++) {
      const cur = (this.node ?? (await rc.get('', this.opts.nodeName))) as Node;
      const fields = nodeStatusFields(id, { ...nodeInfo(id, this.bootID) });
      const status = { ...clone(cur.status ?? {}), ...fields, conditions: mergeConditions(cur.status?.conditions as NodeCondition[] | undefined, conditions) };
      try {
        await rc.update('', { ...cur, status } as Node, { subresource: 'status' });
        this.conditions = conditions;
        this.lastReport = now;
        for (const e of events) this.recorder.event(this.nodeRef(), 'Normal', e, `Node ${this.opts.nodeName} status is now: ${e}`);
        return;
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 409)) throw e;
        const fresh = (await rc.get('', this.opts.nodeName)) as Node;
        if (fresh.metadata.uid !== this.nodeUid) return;
      }
    }
  }

  private podChanged(pod: Pod): void {
    const uid = pod.metadata.uid!;
    let w = this.workers.get(uid);
    if (!w) {
      tracePod(pod, 'kubelet: bound pod seen');
      w = new PodWorker(pod, {
        client: this.opts.client,
        runtime: this.opts.runtime,
        recorder: this.recorder,
        backoff: this.backoff,
        hostIPs: () => [this.opts.internalIP],
        now: this.now,
        log: this.log,
      });
      this.workers.set(uid, w);
      w.kick();
      return;
    }
    w.update(pod);
  }

  private podRemoved(pod: Pod): void {
    const w = this.workers.get(pod.metadata.uid!);
    if (!w) return;
    this.workers.delete(pod.metadata.uid!);
    void w.removed().catch((e) => this.log(`k1s: kubelet ${this.opts.nodeName}: removing pod ${pod.metadata.name}: ${(e as Error).message}`));
  }

  private kickAll(): void {
    for (const w of this.workers.values()) w.kick();
  }
}

/** our four conditions replace theirs; conditions others set on the Node stay */
function mergeConditions(current: NodeCondition[] | undefined, ours: NodeCondition[]): NodeCondition[] {
  const types = new Set(ours.map((c) => c.type));
  return [...(current ?? []).filter((c) => !types.has(c.type)), ...ours];
}
