// The ReplicaSet controller (pkg/controller/replicaset), serving apps/v1 ReplicaSets and core/v1
// ReplicationControllers alike: one engine, the kind is data. Keeps spec.replicas active pods, adopts matching
// orphans, releases pods that stopped matching, and reports status and the ReplicaFailure condition.
import type { KObject } from '../../api/types.js';
import type { Informer } from '../../client/informer.js';
import { objectKey, splitKey } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import { fromLabelSelector, nothing, selectorFromSet, type LabelSelector, type MetaLabelSelector } from '../../machinery/labels.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { controllerOf, controllerRef, controllerUidIndex } from '../framework/owner.js';
import { isPodActive, isPodAvailable, isPodReady, podCondition, podFromTemplate, type PodTemplate } from '../framework/pod-util.js';
import { Expectations } from './expectations.js';
import { podsToDelete } from './rank.js';

/** kube-controller-manager's --concurrent burst: at most this many creates or deletes per sync. */
const BURST_REPLICAS = 500;

export interface ReplicaKind {
  apiVersion: string;
  plural: string;
  kind: string;
  /** the event source component */
  component: string;
  selector(obj: KObject): LabelSelector;
}

export const REPLICA_SET_KIND: ReplicaKind = {
  apiVersion: 'apps/v1',
  plural: 'replicasets',
  kind: 'ReplicaSet',
  component: 'replicaset-controller',
  selector: (o) => safeSelector((o as ReplicaLike).spec?.selector as MetaLabelSelector | undefined),
};

export const REPLICATION_CONTROLLER_KIND: ReplicaKind = {
  apiVersion: 'v1',
  plural: 'replicationcontrollers',
  kind: 'ReplicationController',
  component: 'replication-controller',
  // an RC's selector is a plain map; an empty one matches nothing (the API server defaults it to the template labels)
  selector: (o) => {
    const sel = (o as ReplicaLike).spec?.selector as Record<string, string> | undefined;
    return sel && Object.keys(sel).length ? selectorFromSet(sel) : nothing();
  },
};

interface ReplicaCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface ReplicaStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaCondition[];
  [k: string]: unknown;
}

export interface ReplicaLike extends KObject {
  spec?: { replicas?: number; minReadySeconds?: number; selector?: unknown; template?: PodTemplate };
  status?: ReplicaStatus;
}

function safeSelector(sel: MetaLabelSelector | undefined): LabelSelector {
  try {
    return fromLabelSelector(sel);
  } catch {
    return nothing();
  }
}

export function replicaSetController(): ControllerFactory {
  return (ctx) => new ReplicaSetReconciler(ctx, REPLICA_SET_KIND);
}

export function replicationControllerController(): ControllerFactory {
  return (ctx) => new ReplicaSetReconciler(ctx, REPLICATION_CONTROLLER_KIND);
}

export class ReplicaSetReconciler extends Reconciler {
  readonly name: string;
  private owners!: Informer;
  private pods!: Informer;
  private readonly expectations: Expectations;

  constructor(
    ctx: ControllerContext,
    private readonly kind: ReplicaKind,
  ) {
    super(ctx);
    this.name = kind.component;
    this.expectations = new Expectations(() => ctx.now());
  }

  setup(): void {
    this.owners = this.informer(this.kind.apiVersion, this.kind.plural);
    this.pods = this.informer('v1', 'pods');
    this.pods.addIndex('controllerUid', controllerUidIndex);
    this.owners.addHandler({
      add: (o) => this.enqueueObject(o),
      update: (_, o) => this.enqueueObject(o),
      delete: (o) => {
        this.expectations.delete(objectKey(o));
        this.enqueueObject(o);
      },
    });
    this.pods.addHandler({
      add: (p) => {
        const owner = this.ownerOf(p);
        if (owner) {
          this.expectations.creationObserved(objectKey(owner));
          if (p.metadata.deletionTimestamp) this.expectations.deletionObserved(objectKey(owner), objectKey(p));
          this.enqueueObject(owner);
        } else if (!controllerOf(p)) this.enqueueMatching(p);
      },
      update: (old, cur) => {
        const oldOwner = this.ownerOf(old);
        const owner = this.ownerOf(cur);
        if (oldOwner && oldOwner.metadata.uid !== owner?.metadata.uid) this.enqueueObject(oldOwner);
        if (owner) {
          if (cur.metadata.deletionTimestamp) this.expectations.deletionObserved(objectKey(owner), objectKey(cur));
          this.enqueueObject(owner);
        } else if (!controllerOf(cur)) this.enqueueMatching(cur);
      },
      delete: (p) => {
        const owner = this.ownerOf(p);
        if (!owner) return;
        this.expectations.deletionObserved(objectKey(owner), objectKey(p));
        this.enqueueObject(owner);
      },
    });
  }

  private ownerOf(pod: KObject): KObject | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== this.kind.kind) return undefined;
    const o = this.owners.get(pod.metadata.namespace ?? '', ref.name);
    return o && o.metadata.uid === ref.uid ? o : undefined;
  }

  /** An orphan (or a pod whose labels changed) may be adopted by any owner whose selector matches it. */
  private enqueueMatching(pod: KObject): void {
    for (const o of this.owners.list(pod.metadata.namespace ?? '')) {
      if (this.kind.selector(o).matches(pod.metadata.labels)) this.enqueueObject(o);
    }
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const { namespace, name } = splitKey(key);
    const cached = this.owners.get(namespace, name) as ReplicaLike | undefined;
    if (!cached) {
      this.expectations.delete(key);
      return;
    }
    const rs = { ...clone(cached), apiVersion: this.kind.apiVersion, kind: this.kind.kind } as ReplicaLike;
    const needsSync = this.expectations.satisfied(key);
    const selector = this.kind.selector(rs);
    const candidates = [
      ...this.pods.byIndex('controllerUid', rs.metadata.uid!),
      ...this.pods.list(namespace).filter((p) => !controllerOf(p)),
    ].filter(isPodActive);
    const pods = await this.claimPods(rs, selector, candidates);
    let manageErr: Error | undefined;
    if (needsSync && !rs.metadata.deletionTimestamp) {
      try {
        await this.manageReplicas(rs, pods, key);
      } catch (e) {
        manageErr = e as Error;
      }
    }
    const updated = await this.updateStatus(rs, pods, manageErr);
    if (manageErr) throw manageErr;
    return this.availabilityRequeue(updated ?? rs, pods);
  }

  /** ClaimPods: keep matching owned pods, adopt matching orphans, release owned pods that no longer match. */
  private async claimPods(rs: ReplicaLike, selector: LabelSelector, candidates: KObject[]): Promise<KObject[]> {
    const out: KObject[] = [];
    let fresh: boolean | undefined;
    const rc = this.ctx.client.resource('v1', 'pods');
    for (const pod of candidates) {
      const ref = controllerOf(pod);
      const matches = selector.matches(pod.metadata.labels);
      if (ref) {
        if (ref.uid !== rs.metadata.uid) continue;
        if (matches) {
          out.push(pod);
          continue;
        }
        if (rs.metadata.deletionTimestamp) continue;
        await rc
          .patch(pod.metadata.namespace!, pod.metadata.name!, 'strategic', {
            metadata: { ownerReferences: [{ $patch: 'delete', uid: rs.metadata.uid }], uid: pod.metadata.uid },
          })
          .catch((e) => ignoreGone(e));
        continue;
      }
      if (!matches || rs.metadata.deletionTimestamp || pod.metadata.deletionTimestamp) continue;
      // CanAdopt: re-read the owner once, uncached, so a just-deleted owner never adopts
      fresh ??= await this.ownerStillCurrent(rs);
      if (!fresh) continue;
      try {
        const adopted = await rc.patch(pod.metadata.namespace!, pod.metadata.name!, 'strategic', {
          metadata: { ownerReferences: [controllerRef(rs)], uid: pod.metadata.uid },
        });
        out.push(adopted);
      } catch (e) {
        ignoreGone(e);
      }
    }
    return out;
  }

  private async ownerStillCurrent(rs: KObject): Promise<boolean> {
    try {
      const cur = await this.ctx.client.resource(this.kind.apiVersion, this.kind.plural).get(rs.metadata.namespace!, rs.metadata.name!);
      return cur.metadata.uid === rs.metadata.uid && !cur.metadata.deletionTimestamp;
    } catch (e) {
      ignoreGone(e);
      return false;
    }
  }

  private async manageReplicas(rs: ReplicaLike, pods: KObject[], key: string): Promise<void> {
    const want = rs.spec?.replicas ?? 1;
    const diff = pods.length - want;
    const recorder = this.ctx.recorder(this.kind.component);
    const rc = this.ctx.client.resource('v1', 'pods');
    if (diff < 0) {
      const n = Math.min(-diff, BURST_REPLICAS);
      this.expectations.expectCreations(key, n);
      const template = rs.spec?.template ?? {};
      const { created, error } = await slowStartBatch(n, async () => {
        try {
          const pod = await rc.create(rs.metadata.namespace!, podFromTemplate(template, rs, { generateName: `${rs.metadata.name}-` }));
          recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
        } catch (e) {
          // a terminating namespace rejects every create: nothing to report
          if (e instanceof StatusError && e.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) return;
          recorder.event(rs, 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
          throw e;
        }
      });
      // creates never issued will never be observed
      for (let i = created; i < n; i++) this.expectations.creationObserved(key);
      if (error) throw error;
      return;
    }
    if (diff > 0) {
      const n = Math.min(diff, BURST_REPLICAS);
      const victims = podsToDelete(pods, this.relatedPods(rs), n, this.ctx.now());
      this.expectations.expectDeletions(key, victims.map(objectKey));
      const errs: Error[] = [];
      await Promise.all(
        victims.map(async (pod) => {
          try {
            await rc.delete(pod.metadata.namespace!, pod.metadata.name!);
            recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
          } catch (e) {
            this.expectations.deletionObserved(key, objectKey(pod));
            if (e instanceof StatusError && e.code === 404) return;
            recorder.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
            errs.push(e as Error);
          }
        }),
      );
      if (errs.length) throw errs[0];
    }
  }

  /** Pods of every ReplicaSet with the same controller as `rs` (a Deployment's old and new ReplicaSets). */
  private relatedPods(rs: KObject): KObject[] {
    const ref = controllerOf(rs);
    const siblings = ref
      ? this.owners.list(rs.metadata.namespace ?? '').filter((o) => controllerOf(o)?.uid === ref.uid)
      : [rs];
    return siblings.flatMap((o) => this.pods.byIndex('controllerUid', o.metadata.uid!));
  }

  private async updateStatus(rs: ReplicaLike, pods: KObject[], manageErr: Error | undefined): Promise<ReplicaLike | undefined> {
    const now = this.ctx.now();
    const minReady = rs.spec?.minReadySeconds ?? 0;
    const templateSel = selectorFromSet(rs.spec?.template?.metadata?.labels ?? {});
    const old = rs.status ?? {};
    const next: ReplicaStatus = { ...old };
    next.replicas = pods.length;
    next.fullyLabeledReplicas = pods.filter((p) => templateSel.matches(p.metadata.labels)).length;
    next.readyReplicas = pods.filter(isPodReady).length;
    next.availableReplicas = pods.filter((p) => isPodReady(p) && isPodAvailable(p, minReady, now)).length;
    let conditions = [...(old.conditions ?? [])];
    const failure = conditions.find((c) => c.type === 'ReplicaFailure');
    if (manageErr && !failure) {
      const diff = pods.length - (rs.spec?.replicas ?? 1);
      const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
      conditions.push({ type: 'ReplicaFailure', status: 'True', lastTransitionTime: rfc3339(now), reason, message: manageErr.message });
    } else if (!manageErr && failure) conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
    if (conditions.length) next.conditions = conditions;
    else delete next.conditions;
    const same =
      old.replicas === next.replicas &&
      (old.fullyLabeledReplicas ?? 0) === next.fullyLabeledReplicas &&
      (old.readyReplicas ?? 0) === next.readyReplicas &&
      (old.availableReplicas ?? 0) === next.availableReplicas &&
      rs.metadata.generation === old.observedGeneration &&
      JSON.stringify(old.conditions ?? []) === JSON.stringify(next.conditions ?? []);
    if (same) return rs;
    next.observedGeneration = rs.metadata.generation;
    const rc = this.ctx.client.resource(this.kind.apiVersion, this.kind.plural);
    try {
      return (await rc.update(rs.metadata.namespace!, { ...rs, status: next } as KObject, { subresource: 'status' })) as ReplicaLike;
    } catch (e) {
      if (e instanceof StatusError && (e.code === 409 || e.code === 404)) {
        // a newer object is on its way through the informer; it re-queues this key
        return undefined;
      }
      throw e;
    }
  }

  /** With minReadySeconds, a ready pod becomes available later without any event: come back then. */
  private availabilityRequeue(rs: ReplicaLike, pods: KObject[]): { requeueAfterMs?: number } | void {
    const minReady = rs.spec?.minReadySeconds ?? 0;
    if (minReady <= 0) return;
    const now = this.ctx.now();
    let soonest = Infinity;
    for (const p of pods) {
      if (!isPodReady(p) || isPodAvailable(p, minReady, now)) continue;
      const since = Date.parse(podCondition(p, 'Ready')?.lastTransitionTime ?? '') || now;
      soonest = Math.min(soonest, since + minReady * 1000 - now);
    }
    if (soonest !== Infinity) return { requeueAfterMs: Math.max(soonest, 0) + 50 };
  }
}

function ignoreGone(e: unknown): void {
  if (e instanceof StatusError && (e.code === 404 || e.code === 409 || e.code === 422)) return;
  throw e;
}

/** Calls fn `count` times in batches of 1, 2, 4, …; stops after the first batch with a failure. */
export async function slowStartBatch(count: number, fn: () => Promise<void>): Promise<{ created: number; error?: Error }> {
  let remaining = count;
  let created = 0;
  for (let batch = Math.min(remaining, 1); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    created += batch - failed.length;
    if (failed.length) return { created, error: failed[0].reason as Error };
    remaining -= batch;
  }
  return { created };
}
