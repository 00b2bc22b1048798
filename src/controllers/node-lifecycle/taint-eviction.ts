// Taint eviction controller (pkg/controller/tainteviction, its own controller since 1.29): a pod bound to a node
// with NoExecute taints it does not tolerate is deleted at once; one tolerating them all for a limited time is
// deleted when the shortest tolerationSeconds has passed since the controller noticed. Before deleting, the pod
// gets the DisruptionTarget condition (DeletionByTaintManager) and an event TaintManagerEviction.
import type { Pod, Toleration } from '../../api/core/pod/types.js';
import type { KObject } from '../../api/types.js';
import { splitKey } from '../../client/informer.js';
import type { ReconcileResult } from '../../client/workqueue.js';
import { StatusError } from '../../machinery/errors.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { minTolerationSeconds, type Taint } from './taints.js';
import { nodeNameOf } from '../framework/pod-util.js';

export interface TaintEvictionOptions {
  /** how often a pod waiting out its toleration is looked at again, so an injected clock is followed */
  recheckMs?: number;
}

const NODE_NAME_INDEX = 'taint-eviction:nodeName';
const COMPONENT = 'taint-eviction-controller';

class TaintEvictionController extends Reconciler {
  readonly name = 'taint-eviction';
  /** pod key → when the controller first saw it on a tainted node it tolerates for a while */
  private readonly since = new Map<string, number>();
  private readonly recheck: number;

  constructor(ctx: ControllerContext, opts: TaintEvictionOptions) {
    super(ctx);
    this.recheck = opts.recheckMs ?? 1_000;
  }

  setup(): void {
    const pods = this.informer('v1', 'pods');
    pods.addIndex(NODE_NAME_INDEX, (p) => (nodeNameOf(p) ? [nodeNameOf(p)] : []));
    pods.addHandler({
      add: (p) => nodeNameOf(p) && this.enqueueObject(p),
      update: (old, p) => nodeNameOf(p) && (nodeNameOf(old) !== nodeNameOf(p) || !same(tolerationsOf(old), tolerationsOf(p))) && this.enqueueObject(p),
      delete: (p) => this.since.delete(`${p.metadata.namespace}/${p.metadata.name}`),
    });
    this.informer('v1', 'nodes').addHandler({
      add: (n) => this.enqueuePodsOn(n),
      update: (old, n) => !same(noExecute(old), noExecute(n)) && this.enqueuePodsOn(n),
      delete: (n) => this.enqueuePodsOn(n),
    });
  }

  private enqueuePodsOn(node: KObject): void {
    for (const p of this.informer('v1', 'pods').byIndex(NODE_NAME_INDEX, node.metadata.name!)) this.enqueueObject(p);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const pod = this.informer('v1', 'pods').get(namespace, name) as Pod | undefined;
    if (!pod || pod.metadata.deletionTimestamp) {
      this.since.delete(key);
      return;
    }
    const node = this.informer('v1', 'nodes').get('', nodeNameOf(pod));
    const taints = node ? noExecute(node) : [];
    if (!taints.length) return this.cancel(pod, key);
    const seconds = minTolerationSeconds(tolerationsOf(pod), taints);
    if (seconds === Infinity) return this.cancel(pod, key);
    const now = this.ctx.now();
    if (seconds !== undefined) {
      let start = this.since.get(key);
      if (start === undefined) this.since.set(key, (start = now));
      const due = start + seconds * 1000;
      if (now < due) return { requeueAfterMs: Math.min(due - now, this.recheck) };
    }
    await this.evict(pod, key, now);
  }

  private cancel(pod: KObject, key: string): void {
    if (!this.since.delete(key)) return;
    this.ctx.recorder(COMPONENT).event(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  private async evict(pod: Pod, key: string, now: number): Promise<void> {
    this.ctx.recorder(COMPONENT).event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    const pods = this.ctx.client.resource('v1', 'pods');
    try {
      const live = clone(await pods.get(pod.metadata.namespace!, pod.metadata.name!)) as Pod;
      if (live.metadata.uid !== pod.metadata.uid) return;
      const conds = ((live.status ??= {}).conditions ??= []).filter((c) => c.type !== 'DisruptionTarget');
      conds.push({
        type: 'DisruptionTarget',
        status: 'True',
        lastTransitionTime: rfc3339(now),
        reason: 'DeletionByTaintManager',
        message: 'Taint manager: deleting due to NoExecute taint',
      });
      live.status.conditions = conds;
      await pods.update(live.metadata.namespace!, live, { subresource: 'status' });
      await pods.delete(live.metadata.namespace!, live.metadata.name!, { preconditions: { uid: live.metadata.uid } });
      this.since.delete(key);
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return;
      throw e;
    }
  }
}

function noExecute(node: KObject): Taint[] {
  return (((node.spec as { taints?: Taint[] | null } | undefined)?.taints ?? []) as Taint[]).filter((t) => t.effect === 'NoExecute');
}

function tolerationsOf(pod: KObject): Toleration[] {
  return ((pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations ?? []) as Toleration[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Deletes pods from nodes with NoExecute taints they do not (or no longer) tolerate. */
export function taintEvictionController(opts: TaintEvictionOptions = {}): ControllerFactory {
  return (ctx) => new TaintEvictionController(ctx, opts);
}
