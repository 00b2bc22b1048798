// The StatefulSet controller (pkg/controller/statefulset, 1.33): claims the set's pods and ControllerRevisions,
// works out the current and update revisions, runs one pass of the update algorithm, records status and trims
// the revision history. Pods are named <set>-<ordinal>, so repeated creates are harmless (AlreadyExists).
import type { StatefulSet } from '../../api/apps/statefulset/validation.js';
import type { KObject } from '../../api/types.js';
import { splitKey, type Informer } from '../../client/informer.js';
import { fromLabelSelector, type LabelSelector } from '../../machinery/labels.js';
import { StatusError } from '../../machinery/errors.js';
import { clone } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { controllerOf, controllerRef } from '../framework/owner.js';
import {
  adoptOrphanRevisions, createRevision, deleteRevision, DEFAULT_REVISION_HISTORY_LIMIT, equalRevision, listRevisions,
  newControllerRevision, nextRevision, revisionsToPrune, sortRevisions, updateRevisionNumber, type ControllerRevision,
} from '../framework/revision-history.js';
import { StatefulPodControl } from './podcontrol.js';
import { isMemberOf, podRevision, replicasOf, type Pod } from './pods.js';
import { completeRollingUpdate, updateStatefulSet, type StatefulSetStatus } from './update.js';

const COMPONENT = 'statefulset-controller';
const STATUS_FIELDS = ['observedGeneration', 'replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'currentRevision', 'updateRevision', 'collisionCount'] as const;

export function statefulSetController(): ControllerFactory {
  return (ctx) => new StatefulSetController(ctx);
}

export class StatefulSetController extends Reconciler {
  readonly name = 'statefulset';
  private sets!: Informer;
  private pods!: Informer;
  private revisions!: Informer;
  private claims!: Informer;
  private readonly recorder;

  constructor(ctx: ControllerContext) {
    super(ctx);
    this.recorder = ctx.recorder(COMPONENT);
  }

  setup(): void {
    this.sets = this.informer('apps/v1', 'statefulsets');
    this.pods = this.informer('v1', 'pods');
    this.revisions = this.informer('apps/v1', 'controllerrevisions');
    this.claims = this.informer('v1', 'persistentvolumeclaims');
    this.watchOwn(this.sets);
    const owned = (o: KObject) => this.enqueueOwner(o);
    this.pods.addHandler({ add: owned, update: (old, o) => { owned(o); if (controllerOf(old)?.uid !== controllerOf(o)?.uid) owned(old); }, delete: owned });
    this.revisions.addHandler({ add: owned, update: (_, o) => owned(o), delete: owned });
  }

  /** The owning StatefulSet, or for an orphan every set whose selector matches it (to adopt it). */
  private enqueueOwner(o: KObject): void {
    const ref = controllerOf(o);
    if (ref) {
      if (ref.kind === 'StatefulSet') this.enqueue(`${o.metadata.namespace}/${ref.name}`);
      return;
    }
    for (const s of this.sets.list(o.metadata.namespace ?? '')) {
      const sel = selectorOf(s as StatefulSet);
      if (sel && !sel.empty && sel.matches(o.metadata.labels)) this.enqueueObject(s);
    }
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const { namespace, name } = splitKey(key);
    const cached = this.sets.get(namespace, name) as StatefulSet | undefined;
    if (!cached) return;
    const set = clone(cached);
    const selector = selectorOf(set);
    if (!selector) return; // an invalid selector cannot be fixed by retrying
    const control = new StatefulPodControl(this.ctx.client, this.claims, this.recorder);

    let revisions = sortRevisions(listRevisions(this.revisions, set, selector));
    if (!set.metadata.deletionTimestamp) revisions = sortRevisions(await adoptOrphanRevisions(this.ctx.client, set, revisions));
    const pods = await this.claimPods(set, selector);

    const { current, update, collisionCount } = await this.currentAndUpdateRevisions(set, revisions);
    const { status, err } = await updateStatefulSet({ set, pods, current, update, collisionCount, control, recorder: this.recorder, now: this.ctx.now() });
    await this.writeStatus(set, status);
    await this.truncateHistory(set, pods, revisions, current, update);
    if (err) throw err;
    const minReady = set.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && status.availableReplicas !== replicasOf(set)) return { requeueAfterMs: minReady * 1000 };
  }

  /** getPodsForStatefulSet: owned members matching the selector; orphans adopted, mismatches released. */
  private async claimPods(set: StatefulSet, selector: LabelSelector): Promise<Pod[]> {
    const out: Pod[] = [];
    const rc = this.ctx.client.resource('v1', 'pods');
    for (const p of this.pods.list(set.metadata.namespace!) as Pod[]) {
      const ref = controllerOf(p);
      const match = selector.matches(p.metadata.labels) && isMemberOf(set, p);
      if (ref && ref.uid !== set.metadata.uid) continue;
      if (ref) {
        if (match) out.push(p);
        else if (!p.metadata.deletionTimestamp) {
          await rc.patch(p.metadata.namespace!, p.metadata.name!, 'strategic', { metadata: { ownerReferences: [{ $patch: 'delete', uid: set.metadata.uid }], uid: p.metadata.uid } }).catch(ignoreGone);
        }
        continue;
      }
      if (!match || p.metadata.deletionTimestamp || set.metadata.deletionTimestamp) continue;
      const adopted = await rc.patch(p.metadata.namespace!, p.metadata.name!, 'strategic', { metadata: { ownerReferences: [controllerRef(set)], uid: p.metadata.uid } }).catch(ignoreGone);
      if (adopted) out.push(adopted as Pod);
    }
    return out;
  }

  /** getStatefulSetRevisions: the update revision is found, rolled back to, or created; current defaults to it. */
  private async currentAndUpdateRevisions(set: StatefulSet, revisions: ControllerRevision[]): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    let collisionCount = Number((set.status as { collisionCount?: number } | undefined)?.collisionCount ?? 0);
    const candidate = newControllerRevision(set, set.spec?.template, nextRevision(revisions), collisionCount);
    const equal = revisions.filter((r) => equalRevision(r, candidate));
    let update: ControllerRevision;
    if (equal.length && equalRevision(revisions[revisions.length - 1], equal[equal.length - 1])) {
      update = revisions[revisions.length - 1];
    } else if (equal.length) {
      update = await updateRevisionNumber(this.ctx.client, equal[equal.length - 1], candidate.revision!);
    } else {
      ({ revision: update, collisionCount } = await createRevision(this.ctx.client, set, candidate, collisionCount));
    }
    const currentName = (set.status as { currentRevision?: string } | undefined)?.currentRevision;
    const current = revisions.find((r) => r.metadata.name === currentName) ?? update;
    return { current, update, collisionCount };
  }

  /** updateStatefulSetStatus: complete a finished rolling update; write only when something changed. */
  private async writeStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    completeRollingUpdate(set, status);
    const have = (set.status ?? {}) as Record<string, unknown>;
    const changed = status.observedGeneration > Number(have.observedGeneration ?? 0) ||
      STATUS_FIELDS.some((f) => f !== 'observedGeneration' && (have[f] ?? (typeof status[f] === 'number' ? 0 : '')) !== status[f]);
    if (!changed) return;
    const rc = this.ctx.client.resource('apps/v1', 'statefulsets');
    let obj: KObject = clone(set);
    for (let attempt = 0; ; attempt++) {
      const next = { ...((obj.status as object) ?? {}) } as Record<string, unknown>;
      for (const f of STATUS_FIELDS) next[f] = status[f];
      try {
        await rc.update(set.metadata.namespace!, { ...obj, status: next } as KObject, { subresource: 'status' });
        return;
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 409) || attempt >= 3) throw e;
        obj = await rc.get(set.metadata.namespace!, set.metadata.name!);
      }
    }
  }

  /** truncateHistory: drop the oldest revisions no pod and no status uses, keeping revisionHistoryLimit of them. */
  private async truncateHistory(set: StatefulSet, pods: Pod[], revisions: ControllerRevision[], current: ControllerRevision, update: ControllerRevision): Promise<void> {
    const live = new Set<string>([current.metadata.name!, update.metadata.name!, ...pods.map(podRevision)]);
    const limit = set.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
    for (const r of revisionsToPrune(revisions, (x) => live.has(x.metadata.name!), limit)) await deleteRevision(this.ctx.client, r);
  }
}

function selectorOf(set: StatefulSet): LabelSelector | undefined {
  try {
    return fromLabelSelector(set.spec?.selector);
  } catch {
    return undefined;
  }
}

function ignoreGone(e: unknown): undefined {
  if (e instanceof StatusError && (e.code === 404 || e.code === 422)) return undefined;
  throw e;
}
