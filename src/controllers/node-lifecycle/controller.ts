// Node lifecycle controller (pkg/controller/nodelifecycle): watches each node's heartbeats (its Ready condition's
// lastHeartbeatTime and its Lease in kube-node-lease). When neither moved for the grace period the node's Ready,
// MemoryPressure, DiskPressure and PIDPressure conditions become Unknown ("Kubelet stopped posting node status.").
// Conditions are mirrored as taints: NoSchedule ones (TaintNodesByCondition) and the not-ready/unreachable
// NoExecute taint, which the taint eviction controller (taint-eviction.ts) acts on. Zones that are
// largely or entirely down are not tainted NoExecute, as kube protects against evicting a whole cluster.
import type { KObject } from '../../api/types.js';
import type { Lease } from '../../api/coordination/index.js';
import { StatusError } from '../../machinery/errors.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import type { ReconcileResult } from '../../client/workqueue.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { nodeNameOf } from '../framework/pod-util.js';
import {
  noExecuteTaintKey,
  noScheduleTaintKeys,
  reconcileTaints,
  zoneKey,
  zoneState,
  type NodeCondition,
  type Taint,
} from './taints.js';

export interface NodeLifecycleOptions {
  /** how long a node may go without a heartbeat before it is Unknown (--node-monitor-grace-period) */
  gracePeriodMs?: number;
  /** how often every node is looked at (--node-monitor-period, 5 s) */
  monitorPeriodMs?: number;
}

interface NodeLike extends KObject {
  spec?: { unschedulable?: boolean; taints?: Taint[] | null };
  status?: { conditions?: NodeCondition[] | null };
}

interface Health {
  /** when this controller last saw a heartbeat move (its own clock, as kube's probeTimestamp) */
  probe: number;
  heartbeat: string;
  renew: string;
}

const HEALTH_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
/** above this many nodes a partially disrupted zone is still tainted, at the secondary rate (largeClusterThreshold) */
const LARGE_CLUSTER = 50;
export const NODE_NAME_INDEX = 'node-lifecycle:nodeName';

class NodeLifecycleController extends Reconciler {
  readonly name = 'node-lifecycle';
  private readonly health = new Map<string, Health>();
  private readonly grace: number;
  private readonly period: number;

  constructor(ctx: ControllerContext, opts: NodeLifecycleOptions) {
    super(ctx);
    this.grace = opts.gracePeriodMs ?? 40_000;
    this.period = opts.monitorPeriodMs ?? 5_000;
  }

  setup(): void {
    this.watchOwn(this.informer('v1', 'nodes'));
    this.informer('coordination.k8s.io/v1', 'leases').addHandler({
      add: (l) => l.metadata.namespace === 'kube-node-lease' && this.enqueue(l.metadata.name!),
      update: (_, l) => l.metadata.namespace === 'kube-node-lease' && this.enqueue(l.metadata.name!),
    });
    this.informer('v1', 'pods').addIndex(NODE_NAME_INDEX, (p) => (nodeNameOf(p) ? [nodeNameOf(p)] : []));
  }

  async reconcile(name: string): Promise<ReconcileResult | void> {
    const cached = this.informer('v1', 'nodes').get('', name) as NodeLike | undefined;
    if (!cached) {
      this.health.delete(name);
      return;
    }
    let node = cached;
    const now = this.ctx.now();
    if (this.stale(node, now)) node = (await this.markUnknown(node, now)) ?? node;
    await this.syncTaints(node, now);
    return { requeueAfterMs: this.period };
  }

  /** Whether neither the Ready heartbeat nor the Lease renewal has moved for the grace period. */
  private stale(node: NodeLike, now: number): boolean {
    const name = node.metadata.name!;
    const ready = conditions(node).find((c) => c.type === 'Ready');
    const lease = this.informer('coordination.k8s.io/v1', 'leases').get('kube-node-lease', name) as Lease | undefined;
    const heartbeat = ready?.lastHeartbeatTime ?? '';
    const renew = lease?.spec?.renewTime ?? '';
    const h = this.health.get(name);
    if (!h) {
      const created = Date.parse(node.metadata.creationTimestamp ?? '') || now;
      this.health.set(name, { probe: ready ? now : created, heartbeat, renew });
      return false;
    }
    if (heartbeat !== h.heartbeat || (renew && renew !== h.renew)) {
      h.probe = now;
      h.heartbeat = heartbeat;
      h.renew = renew;
      return false;
    }
    return now > h.probe + this.grace;
  }

  /** Sets the health conditions to Unknown (tryUpdateNodeHealth); returns the updated node if anything changed. */
  private async markUnknown(node: NodeLike, now: number): Promise<NodeLike | undefined> {
    const ts = rfc3339(now);
    const next = clone(node);
    const conds = ((next.status ??= {}).conditions ??= []);
    const wasReady = conds.find((c) => c.type === 'Ready')?.status === 'True';
    let changed = false;
    for (const type of HEALTH_CONDITIONS) {
      const c = conds.find((x) => x.type === type);
      if (!c) {
        conds.push({
          type,
          status: 'Unknown',
          reason: 'NodeStatusNeverUpdated',
          message: 'Kubelet never posted node status.',
          lastHeartbeatTime: node.metadata.creationTimestamp ?? ts,
          lastTransitionTime: ts,
        });
        changed = true;
      } else if (c.status !== 'Unknown') {
        Object.assign(c, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: ts });
        changed = true;
      }
    }
    if (!changed) return undefined;
    const updated = (await this.ctx.client.resource('v1', 'nodes').update('', next, { subresource: 'status' })) as NodeLike;
    if (wasReady) {
      this.ctx.recorder('node-controller').event(updated, 'Normal', 'NodeNotReady', `Node ${node.metadata.name} status is now: NodeNotReady`);
      await this.markPodsNotReady(node.metadata.name!, ts);
    }
    return updated;
  }

  /** MarkPodsNotReady: the Ready condition of every pod on the node becomes False. */
  private async markPodsNotReady(nodeName: string, ts: string): Promise<void> {
    const pods = this.ctx.client.resource('v1', 'pods');
    for (const p of this.informer('v1', 'pods').byIndex(NODE_NAME_INDEX, nodeName)) {
      const conds = ((p.status as { conditions?: NodeCondition[] } | undefined)?.conditions ?? []) as NodeCondition[];
      const ready = conds.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      const next = clone(p) as KObject & { status: { conditions: NodeCondition[] } };
      const c = next.status.conditions.find((x) => x.type === 'Ready')!;
      c.status = 'False';
      c.lastTransitionTime = ts;
      await pods.update(p.metadata.namespace!, next, { subresource: 'status' }).catch((e) => {
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) throw e;
      });
    }
  }

  /** Brings the controller-managed taints in line with the node's conditions and its zone's state. */
  private async syncTaints(node: NodeLike, now: number): Promise<void> {
    const conds = conditions(node);
    const readyStatus = conds.find((c) => c.type === 'Ready')?.status;
    const noSchedule = noScheduleTaintKeys(conds, !!node.spec?.unschedulable);
    // a node that never posted a Ready condition is left alone until the grace period marks it Unknown
    let noExecute: { key?: string } | undefined = readyStatus === undefined ? undefined : { key: noExecuteTaintKey(readyStatus) };
    if (noExecute?.key) {
      const zones = this.zoneStates();
      const mine = zones.get(zoneKey(node.metadata.labels));
      const allDown = [...zones.values()].every((z) => z.state === 'FullDisruption');
      // every zone down: the control plane is more likely cut off than the nodes dead, so nothing is evicted
      if (allDown) noExecute = { key: undefined };
      // a mostly-down small zone is not tainted further (eviction rate 0), existing taints stay
      else if (mine?.state === 'PartialDisruption' && mine.size <= LARGE_CLUSTER) noExecute = undefined;
    }
    const next = reconcileTaints(node.spec?.taints ?? [], noSchedule, noExecute, rfc3339(now));
    if (!next) return;
    const updated = clone(node);
    (updated.spec ??= {}).taints = next;
    if (!next.length) delete updated.spec.taints;
    try {
      await this.ctx.client.resource('v1', 'nodes').update('', updated);
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return;
      throw e;
    }
  }

  private zoneStates(): Map<string, { state: ReturnType<typeof zoneState>; size: number }> {
    const counts = new Map<string, { ready: number; notReady: number }>();
    for (const n of this.informer('v1', 'nodes').list() as NodeLike[]) {
      const z = zoneKey(n.metadata.labels);
      const c = counts.get(z) ?? { ready: 0, notReady: 0 };
      if (conditions(n).find((x) => x.type === 'Ready')?.status === 'True') c.ready++;
      else c.notReady++;
      counts.set(z, c);
    }
    return new Map([...counts].map(([z, c]) => [z, { state: zoneState(c.ready, c.notReady), size: c.ready + c.notReady }]));
  }
}

function conditions(node: NodeLike): NodeCondition[] {
  return node.status?.conditions ?? [];
}

/** Marks silent nodes Unknown and keeps the condition taints; pair it with taintEvictionController(). */
export function nodeLifecycleController(opts: NodeLifecycleOptions = {}): ControllerFactory {
  return (ctx) => new NodeLifecycleController(ctx, opts);
}

export { taintEvictionController } from './taint-eviction.js';
