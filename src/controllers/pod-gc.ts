// Pod garbage collector (pkg/controller/podgc): every check period it
//   - deletes terminated pods beyond --terminated-pod-gc-threshold, evicted first, then oldest first;
//   - deletes pods bound to nodes that no longer exist, after a quarantine and a live check of the node, marking
//     them Failed with DisruptionTarget (DeletionByPodGC);
//   - force-deletes terminating pods on not-ready nodes carrying the out-of-service taint;
//   - force-deletes terminating pods that were never scheduled.
// Pods it deletes are first moved to phase Failed when not yet terminal, and deleted with grace period 0.
import type { Pod } from '../api/core/pod/types.js';
import type { KObject } from '../api/types.js';
import type { ReconcileResult } from '../client/workqueue.js';
import { StatusError } from '../machinery/errors.js';
import { clone, rfc3339 } from '../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../client/controller.js';
import { TAINT_OUT_OF_SERVICE, type Taint } from './node-lifecycle/taints.js';
import { nodeNameOf, podPhase } from './framework/pod-util.js';

export interface PodGCOptions {
  /** terminated pods kept before the oldest are deleted; 0 or less turns this off */
  terminatedPodThreshold?: number;
  /** how often the collector runs (gcCheckPeriod, 20 s) */
  checkPeriodMs?: number;
  /** how long a missing node must stay missing before its pods go (quarantineTime, 40 s) */
  quarantineMs?: number;
}

const SWEEP = 'sweep';

class PodGC extends Reconciler {
  readonly name = 'pod-garbage-collector';
  /** node name → when it was first seen missing (the "nodeQueue" with its quarantine delay) */
  private readonly missingSince = new Map<string, number>();
  private readonly threshold: number;
  private readonly period: number;
  private readonly quarantine: number;

  constructor(ctx: ControllerContext, opts: PodGCOptions) {
    super(ctx, { workers: 1 });
    this.threshold = opts.terminatedPodThreshold ?? 12_500;
    this.period = opts.checkPeriodMs ?? 20_000;
    this.quarantine = opts.quarantineMs ?? 40_000;
  }

  setup(): void {
    this.informer('v1', 'pods');
    this.informer('v1', 'nodes');
    this.enqueue(SWEEP);
  }

  async reconcile(): Promise<ReconcileResult> {
    const pods = this.informer('v1', 'pods').list() as Pod[];
    await this.gcTerminated(pods);
    await this.gcTerminating(pods);
    await this.gcOrphaned(pods);
    await this.gcUnscheduledTerminating(pods);
    return { requeueAfterMs: this.period };
  }

  private async gcTerminated(pods: Pod[]): Promise<void> {
    if (this.threshold <= 0) return;
    const terminated = pods.filter((p) => ['Succeeded', 'Failed'].includes(podPhase(p)));
    const excess = terminated.length - this.threshold;
    if (excess <= 0) return;
    const evicted = (p: Pod) => (p.status as { reason?: string } | undefined)?.reason === 'Evicted';
    terminated.sort((a, b) => {
      if (evicted(a) !== evicted(b)) return evicted(a) ? -1 : 1;
      const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
      const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
      return ta !== tb ? ta - tb : (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
    });
    for (const p of terminated.slice(0, excess)) await this.markFailedAndDelete(p);
  }

  /** Terminating pods on not-ready nodes with the out-of-service taint (non-graceful node shutdown). */
  private async gcTerminating(pods: Pod[]): Promise<void> {
    const nodes = this.informer('v1', 'nodes');
    for (const p of pods) {
      if (!p.metadata.deletionTimestamp || !nodeNameOf(p)) continue;
      const node = nodes.get('', nodeNameOf(p));
      if (!node || nodeReady(node)) continue;
      const taints = ((node.spec as { taints?: Taint[] } | undefined)?.taints ?? []) as Taint[];
      if (taints.some((t) => t.key === TAINT_OUT_OF_SERVICE)) await this.markFailedAndDelete(p);
    }
  }

  private async gcOrphaned(pods: Pod[]): Promise<void> {
    const nodes = this.informer('v1', 'nodes');
    const now = this.ctx.now();
    const missing = new Set<string>();
    for (const p of pods) {
      const n = nodeNameOf(p);
      if (n && !nodes.get('', n)) missing.add(n);
    }
    for (const n of [...this.missingSince.keys()]) if (!missing.has(n)) this.missingSince.delete(n);
    for (const n of missing) {
      const since = this.missingSince.get(n);
      if (since === undefined) {
        this.missingSince.set(n, now);
        continue;
      }
      if (now - since < this.quarantine) continue;
      // the cache may be behind: only a live 404 proves the node is gone
      if (await this.nodeExists(n)) {
        this.missingSince.delete(n);
        continue;
      }
      for (const p of pods) {
        if (nodeNameOf(p) !== n) continue;
        this.ctx.log(`k1s: pod-garbage-collector: found orphaned Pod ${p.metadata.namespace}/${p.metadata.name} assigned to the Node ${n}, deleting`);
        await this.markFailedAndDelete(p, { reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
      }
      this.missingSince.delete(n);
    }
  }

  private async gcUnscheduledTerminating(pods: Pod[]): Promise<void> {
    for (const p of pods) if (p.metadata.deletionTimestamp && !nodeNameOf(p)) await this.markFailedAndDelete(p);
  }

  private async nodeExists(name: string): Promise<boolean> {
    try {
      await this.ctx.client.resource('v1', 'nodes').get('', name);
      return true;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return false;
      throw e;
    }
  }

  /** markFailedAndDeletePodWithCondition: phase Failed (and the condition) unless terminal, then delete with grace 0. */
  private async markFailedAndDelete(pod: Pod, condition?: { reason: string; message: string }): Promise<void> {
    const rc = this.ctx.client.resource('v1', 'pods');
    const ns = pod.metadata.namespace!;
    try {
      const phase = podPhase(pod);
      if (phase !== 'Succeeded' && phase !== 'Failed') {
        const live = clone(await rc.get(ns, pod.metadata.name!)) as Pod;
        if (live.metadata.uid !== pod.metadata.uid) return;
        const st = (live.status ??= {});
        st.phase = 'Failed';
        if (condition) {
          st.conditions = (st.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
          st.conditions.push({ type: 'DisruptionTarget', status: 'True', lastTransitionTime: rfc3339(this.ctx.now()), ...condition });
        }
        await rc.update(ns, live as KObject, { subresource: 'status' });
      }
      await rc.delete(ns, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
    } catch (e) {
      if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return;
      throw e;
    }
  }
}

function nodeReady(node: KObject): boolean {
  const conds = ((node.status as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? []);
  return conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The pod garbage collector. */
export function podGCController(opts: PodGCOptions = {}): ControllerFactory {
  return (ctx) => new PodGC(ctx, opts);
}
