// kube-scheduler's scheduling loop over the API: pending pods of this scheduler are queued, one at a time the
// filters pick the feasible nodes and the scores the best one, the pod is assumed there in memory, and the
// Binding is written asynchronously while the next pod is already being scheduled. Failures set
// PodScheduled=False/Unschedulable and record FailedScheduling; the pod waits for a cluster event.
import { tracePod } from '../machinery/pod-trace.js';
import { informerLookups } from './cluster-lookups.js';
import type { KObject } from '../api/types.js';
import type { PodCondition, PodSpec } from '../api/core/pod/types.js';
import { objectKey, type Informer } from '../client/informer.js';
import type { Controller, ControllerContext, ControllerFactory } from '../client/controller.js';
import type { EventRecorder } from '../client/events.js';
import { StatusError } from '../machinery/errors.js';
import { deepEqual, rfc3339 } from '../machinery/object.js';
import { runFilters } from './plugins/filters.js';
import { podInfo, type FilterStatus, type PodInfo } from './plugins/pod-info.js';
import { fitErrorMessage, NO_NODES_AVAILABLE } from './messages.js';
import { filtersWithNominated, pdbView, preempt, type NominatedOn, type PdbView } from './preemption/post-filter.js';
import { executePreemption } from './preemption/actions.js';
import { Nominator } from './preemption/nominator.js';
import type { PodDisruptionBudget } from '../api/policy/poddisruptionbudget/resource.js';
import { SchedulerCache, type NodeInfo } from './node-info.js';
import { SchedulingQueue, type QueuedPod } from './queue.js';
import { AttemptMetrics } from './attempt-metrics.js';
import { scoreNodes, selectHost } from './plugins/scores.js';
import { sameResources, nodeAllocatable } from './resources.js';
import { VolumeBinder, type VolumeReservation } from './volume-binding/binder.js';
import { ImageStates } from './plugins/image-locality.js';

export interface SchedulerOptions {
  /** the spec.schedulerName this scheduler serves (default "default-scheduler") */
  schedulerName?: string;
  /** tie-breaking among equally scored nodes (tests may fix it) */
  random?: () => number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

type PodLike = KObject & { spec?: PodSpec; status?: { phase?: string; conditions?: PodCondition[]; nominatedNodeName?: string } };

/** Plugins whose rejection a change of each node aspect may undo (their queueing hints, coarsely). */
const ALL_NODE_PLUGINS = new Set([
  'NodeUnschedulable',
  'NodeName',
  'TaintToleration',
  'NodeAffinity',
  'NodePorts',
  'NodeResourcesFit',
  'PodTopologySpread',
  'InterPodAffinity',
]);
const POD_GONE_PLUGINS = new Set(['NodeResourcesFit', 'NodePorts', 'PodTopologySpread', 'InterPodAffinity']);
/** an assigned pod appearing or relabelled can satisfy spread and affinity rules */
const POD_PLACED_PLUGINS = new Set(['PodTopologySpread', 'InterPodAffinity']);

const isTerminal = (p: PodLike) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/**
 * How many feasible nodes to look for before scoring (numFeasibleNodesToFind with the adaptive percentage):
 * every node up to 100, then a share shrinking from 50 % to 5 % but never fewer than 100.
 */
export function numFeasibleNodesToFind(numAllNodes: number): number {
  if (numAllNodes < 100) return numAllNodes;
  const pct = Math.max(5, 50 - Math.trunc(numAllNodes / 125));
  return Math.max(100, Math.trunc((numAllNodes * pct) / 100));
}

export interface Placement {
  host?: NodeInfo;
  /** the filter status of every node that was rejected */
  statuses: Map<NodeInfo, FilterStatus>;
  /** where the next attempt starts filtering (nodes are visited round-robin) */
  nextStart: number;
}

/**
 * One scheduling decision over in-memory nodes: filter from `start` until enough feasible nodes are found, score
 * them (unless only one is left) and pick the best. Pure apart from `random`.
 */
export function findPlacement(
  info: PodInfo,
  nodes: NodeInfo[],
  opts: { start?: number; random?: () => number; nominatedOn?: NominatedOn } = {},
): Placement {
  const statuses = new Map<NodeInfo, FilterStatus>();
  if (!nodes.length) return { statuses, nextStart: 0 };
  const want = numFeasibleNodesToFind(nodes.length);
  const feasible: NodeInfo[] = [];
  const start = (opts.start ?? 0) % nodes.length;
  let processed = 0;
  for (; processed < nodes.length && feasible.length < want; processed++) {
    const ni = nodes[(start + processed) % nodes.length];
    const st = opts.nominatedOn ? filtersWithNominated(info, ni, opts.nominatedOn) : runFilters(info, ni);
    if (st) statuses.set(ni, st);
    else feasible.push(ni);
  }
  const nextStart = (start + processed) % nodes.length;
  if (!feasible.length) return { statuses, nextStart };
  const host = feasible.length === 1 ? feasible[0] : selectHost(scoreNodes(info, feasible), opts.random);
  return { host, statuses, nextStart };
}

export class Scheduler implements Controller {
  readonly name = 'scheduler';
  readonly cache = new SchedulerCache();
  readonly queue: SchedulingQueue;
  /** pods preemption nominated to a node, whose room others leave free */
  readonly nominator = new Nominator();
  private pods!: Informer;
  private pdbs!: Informer;
  private nodes!: Informer;
  private volumes?: VolumeBinder;
  private readonly recorder: EventRecorder;
  private readonly schedulerName: string;
  private readonly random: () => number;
  private nextStartNodeIndex = 0;
  private stopped = false;
  private readonly metrics: AttemptMetrics | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    opts: SchedulerOptions = {},
  ) {
    this.schedulerName = opts.schedulerName ?? 'default-scheduler';
    this.random = opts.random ?? Math.random;
    this.recorder = ctx.recorder(this.schedulerName);
    this.queue = new SchedulingQueue({ now: () => ctx.now(), initialBackoffMs: opts.initialBackoffMs, maxBackoffMs: opts.maxBackoffMs });
    this.metrics = ctx.metrics && new AttemptMetrics(ctx.metrics.scheduler, this.schedulerName, this.queue);
  }

  setup(): void {
    // namespace labels (namespaceSelector) and Service/RC/RS/StatefulSet selectors (default spread constraints)
    // PVCs/PVs/StorageClasses/CSINodes for the volume plugins (storage events requeue the pods they may help)
    this.volumes = new VolumeBinder({ client: this.ctx.client, informers: this.ctx.informers, onEvent: (plugins) => this.queue.moveOnEvent(plugins) });
    this.cache.lookups = { ...informerLookups(this.ctx.informers), volumes: this.volumes, images: new ImageStates(this.ctx.informers) };
    this.nodes = this.ctx.informers.informer('v1', 'nodes');
    this.pods = this.ctx.informers.informer('v1', 'pods');
    this.pdbs = this.ctx.informers.informer('policy/v1', 'poddisruptionbudgets');
    this.nodes.addHandler({
      add: (n) => {
        this.cache.setNode(n);
        this.queue.moveOnEvent(ALL_NODE_PLUGINS);
      },
      update: (o, n) => {
        this.cache.setNode(n);
        const plugins = nodeChangePlugins(o, n);
        if (plugins.size) this.queue.moveOnEvent(plugins);
      },
      delete: (n) => this.cache.removeNode(n.metadata.name!),
    });
    this.pods.addHandler({
      add: (p) => this.onPod(undefined, p as PodLike),
      update: (o, p) => this.onPod(o as PodLike, p as PodLike),
      delete: (p) => this.onPodDeleted(p as PodLike),
    });
  }

  run(): void {
    void this.scheduleLoop();
  }

  stop(): void {
    this.stopped = true;
    this.queue.close();
    this.volumes?.close();
  }

  // ---- informer events ----

  private responsible(p: PodLike): boolean {
    return (p.spec?.schedulerName || 'default-scheduler') === this.schedulerName;
  }

  private pending(p: PodLike): boolean {
    return !p.spec?.nodeName && !isTerminal(p) && !p.metadata.deletionTimestamp && this.responsible(p) && !p.spec?.schedulingGates?.length;
  }

  private onPod(old: PodLike | undefined, p: PodLike): void {
    const key = objectKey(p);
    if (p.spec?.nodeName) {
      this.nominator.remove(p.metadata.uid ?? '');
      const wasCounted = old?.spec?.nodeName && !isTerminal(old);
      this.queue.delete(key);
      this.cache.updatePod(p);
      // a finished pod frees its resources and ports
      if (wasCounted && isTerminal(p)) this.queue.moveOnEvent(POD_GONE_PLUGINS);
      else if (!wasCounted || !deepEqual(old?.metadata.labels ?? {}, p.metadata.labels ?? {})) this.queue.moveOnEvent(POD_PLACED_PLUGINS);
      return;
    }
    if (!this.pending(p)) {
      this.queue.delete(key);
      this.nominator.remove(p.metadata.uid ?? '');
      return;
    }
    this.nominator.onPending(old, p);
    if (!old || !this.pending(old)) {
      tracePod(p, 'scheduler: pending pod seen');
      this.queue.add({ key, uid: p.metadata.uid ?? '', priority: p.spec?.priority ?? 0, creation: Date.parse(p.metadata.creationTimestamp ?? '') || 0 });
      return;
    }
    if (specOrMetaChanged(old, p)) this.queue.updated(key);
  }

  private onPodDeleted(p: PodLike): void {
    this.queue.delete(objectKey(p));
    this.nominator.remove(p.metadata.uid ?? '');
    const counted = p.spec?.nodeName && !isTerminal(p);
    this.cache.removePod(p.metadata.uid ?? '');
    if (counted) this.queue.moveOnEvent(POD_GONE_PLUGINS);
  }

  // ---- the scheduling loop ----

  private async scheduleLoop(): Promise<void> {
    let n = 0;
    while (!this.stopped) {
      const q = await this.queue.pop();
      if (!q || this.stopped) return;
      try {
        // a failure's status write is made before the next pod, as kube-scheduler's failure handler makes it inline:
        // a burst of failures cannot queue thousands of writes ahead of the cluster's other writes
        const failed = this.scheduleOne(q);
        if (failed) await failed;
      } catch (e) {
        this.ctx.log(`k1s: scheduler: ${q.key}: ${(e as Error).message}`);
        this.metrics?.finish(q, 'error');
        this.queue.addBackoff(q.key);
      }
      // let bindings, status writes and informer events through now and then
      if (++n % 32 === 0) await new Promise((r) => setImmediate(r));
    }
  }

  private scheduleOne(q: QueuedPod): Promise<void> | void {
    const pod = this.pods.getByKey(q.key) as PodLike | undefined;
    if (!pod || pod.metadata.uid !== q.uid || !this.pending(pod) || this.cache.isAssumed(q.uid)) {
      this.queue.done(q.key);
      return;
    }
    tracePod(pod, 'scheduler: cycle starts');
    const info = podInfo(pod);
    const nodes = this.cache.nodes();
    if (nodes.length === 0) return this.fail(q, pod, NO_NODES_AVAILABLE, []);
    // with no nominations anywhere, filtering skips asking for them node by node
    const nominatedOn = this.nominator.empty ? undefined : this.nominator.forPod;
    // a pod nominated by an earlier preemption tries its nominated node first (evaluateNominatedNode)
    const nominatedNode = pod.status?.nominatedNodeName ? this.cache.nodeInfo(pod.status.nominatedNodeName) : undefined;
    let placement: Placement | undefined;
    if (nominatedNode?.node && !filtersWithNominated(info, nominatedNode, nominatedOn)) placement = { host: nominatedNode, statuses: new Map(), nextStart: this.nextStartNodeIndex };
    placement ??= findPlacement(info, nodes, { start: this.nextStartNodeIndex, random: this.random, nominatedOn });
    this.nextStartNodeIndex = placement.nextStart;
    if (!placement.host) return this.postFilter(q, pod, info, nodes, placement.statuses);
    q.algorithmEnd = performance.now();
    this.cache.assume(pod, placement.host.name);
    // VolumeBinding's Reserve: PVs and provisioning promised to this pod before the next one is scheduled
    const volumes = this.volumes?.reserve(info, placement.host.name);
    // counted on the node from now on, no longer as a nomination
    this.nominator.remove(q.uid);
    void this.bind(q, pod, placement.host.name, volumes);
  }

  private async bind(q: QueuedPod, pod: PodLike, node: string, volumes?: VolumeReservation): Promise<void> {
    const ns = pod.metadata.namespace!;
    const name = pod.metadata.name!;
    if (volumes) {
      // VolumeBinding's PreBind: write the volume bindings and wait until the claims are bound
      try {
        await this.volumes!.preBind(volumes);
      } catch (e) {
        this.volumes!.unreserve(volumes);
        this.cache.forget(pod.metadata.uid ?? '');
        this.queue.addBackoff(q.key);
        this.report(pod, `running PreBind plugin "VolumeBinding": ${(e as Error).message}`, 'SchedulerError');
        return;
      }
    }
    try {
      tracePod(pod, 'scheduler: binding written');
      await this.ctx.client.resource('v1', 'pods').create(
        ns,
        { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns, uid: pod.metadata.uid }, target: { apiVersion: 'v1', kind: 'Node', name: node } } as KObject,
        { subresource: 'binding' },
      );
      tracePod(pod, 'scheduler: binding done');
      this.metrics?.finish(q, 'scheduled', q.algorithmEnd);
      this.queue.done(q.key);
      this.recorder.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${node}`);
    } catch (e) {
      this.cache.forget(pod.metadata.uid ?? '');
      this.volumes?.unreserve(volumes);
      // already bound, being deleted or gone: nothing left to do for this pod
      if (e instanceof StatusError && (e.code === 409 || e.code === 404)) {
        this.queue.done(q.key);
        return;
      }
      this.metrics?.finish(q, 'error', q.algorithmEnd);
      const msg = `Binding rejected: ${(e as Error).message}`;
      this.ctx.log(`k1s: scheduler: ${q.key}: ${msg}`);
      this.queue.addBackoff(q.key);
      this.report(pod, msg, 'SchedulerError');
    }
  }

  /** DefaultPreemption's PostFilter, then the FitError; victims are evicted in the background. */
  private postFilter(q: QueuedPod, pod: PodLike, info: PodInfo, nodes: NodeInfo[], statuses: Map<NodeInfo, FilterStatus>): Promise<void> {
    const pdbs = this.pdbs.list().map((d) => pdbView(d as PodDisruptionBudget)).filter((d): d is PdbView => !!d);
    const outcome = preempt(info, nodes, statuses, {
      pdbs,
      nominatedOn: this.nominator.forPod,
      nominatedNode: this.nominator.nodeOf(q.uid),
      offset: Math.floor(this.random() * nodes.length),
      now: this.ctx.now(),
    });
    const plugins = [...new Set([...statuses.values()].map((s) => s.plugin))];
    if (outcome.kind !== 'nominate') {
      // no candidate clears the nomination; an ineligible pod keeps it
      if (outcome.kind === 'none') this.nominator.remove(q.uid);
      return this.fail(q, pod, fitErrorMessage(nodes.length, statuses.values(), outcome.message), plugins, { nominate: outcome.kind === 'none' ? '' : undefined });
    }
    const { node, pods: victims } = outcome.candidate;
    // lower-priority pods nominated there may no longer fit: they look elsewhere
    const demoted = this.nominator
      .on(node.name)
      .filter((e) => e.uid !== q.uid && e.priority < info.priority)
      .map((e) => this.pods.get(e.pod.metadata.namespace!, e.pod.metadata.name!))
      .filter((p): p is KObject => !!p && p.metadata.uid !== undefined);
    for (const d of demoted) {
      this.nominator.remove(d.metadata.uid!);
      this.queue.updated(objectKey(d));
    }
    this.nominator.add(pod, node.name);
    const written = this.fail(q, pod, fitErrorMessage(nodes.length, statuses.values()), plugins, { nominate: node.name });
    void executePreemption({ client: this.ctx.client, recorder: this.recorder, log: this.ctx.log, now: () => this.ctx.now() }, pod, node.name, victims, demoted);
    return written;
  }

  private fail(q: QueuedPod, pod: PodLike, message: string, plugins: string[], opts: { nominate?: string } = {}): Promise<void> {
    this.metrics?.finish(q, 'unschedulable', performance.now());
    this.queue.addUnschedulable(q.key, plugins);
    return this.report(pod, message, 'Unschedulable', opts);
  }

  /**
   * FailedScheduling event plus the PodScheduled=False condition (written only when it changes); `nominate` sets
   * (a node) or clears ('') status.nominatedNodeName, undefined leaves it.
   */
  private report(pod: PodLike, message: string, reason: string, opts: { nominate?: string } = {}): Promise<void> {
    this.recorder.event(pod, 'Warning', 'FailedScheduling', message);
    const cur = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    const nominated = pod.status?.nominatedNodeName ?? '';
    const nominate = opts.nominate !== undefined && opts.nominate !== nominated ? opts.nominate : undefined;
    if (cur && cur.status === 'False' && cur.reason === reason && cur.message === message && nominate === undefined) return Promise.resolve();
    const t = cur && cur.status === 'False' ? (cur.lastTransitionTime as string | undefined) : undefined;
    const cond = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: t ?? rfc3339(this.ctx.now()), reason, message };
    const status: Record<string, unknown> = { conditions: [cond] };
    if (nominate !== undefined) status.nominatedNodeName = nominate || null;
    const ns = pod.metadata.namespace!;
    return this.ctx.client
      .resource('v1', 'pods')
      .patch(ns, pod.metadata.name!, 'strategic', { status }, { subresource: 'status' })
      .then(
        () => undefined,
        (e) => {
          if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return;
          this.ctx.log(`k1s: scheduler: status of ${ns}/${pod.metadata.name}: ${(e as Error).message}`);
        },
      );
  }
}

/** Which plugins a node update may now satisfy (nodeaffinity/taint/fit/unschedulable queueing hints). */
function nodeChangePlugins(o: KObject, n: KObject): Set<string> {
  const out = new Set<string>();
  const os = (o as { spec?: { unschedulable?: boolean; taints?: unknown } }).spec ?? {};
  const ns = (n as { spec?: { unschedulable?: boolean; taints?: unknown } }).spec ?? {};
  if (os.unschedulable && !ns.unschedulable) out.add('NodeUnschedulable');
  if (!deepEqual(os.taints ?? [], ns.taints ?? [])) out.add('TaintToleration');
  if (!deepEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {})) {
    out.add('NodeAffinity');
    out.add('PodTopologySpread');
    out.add('InterPodAffinity');
  }
  const oa = nodeAllocatable(o);
  const na = nodeAllocatable(n);
  if (oa.allowedPods !== na.allowedPods || !sameResources(oa, na)) out.add('NodeResourcesFit');
  return out;
}

/** kube's isPodUpdated: anything but status, resourceVersion, generation and managedFields. */
function specOrMetaChanged(o: PodLike, n: PodLike): boolean {
  const strip = (p: PodLike) => {
    const { resourceVersion: _rv, generation: _g, managedFields: _m, ...meta } = p.metadata;
    return { meta, spec: p.spec };
  };
  return !deepEqual(strip(o), strip(n));
}

/** The scheduler as a ControllerFactory; run it under a ControllerManager with leaseName "kube-scheduler". */
export function schedulerFactory(opts: SchedulerOptions = {}): ControllerFactory {
  return (ctx) => new Scheduler(ctx, opts);
}
