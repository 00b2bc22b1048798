// The DaemonSet controller (pkg/controller/daemon, 1.33): one pod per eligible node. Pods are created pinned to
// their node through a required node affinity on metadata.name (the scheduler binds them), replaced by a rolling
// update within maxUnavailable/maxSurge or on delete, and counted into status. Nodes coming, going or changing
// labels and taints re-sync every DaemonSet.
import type { DaemonSet } from '../../api/apps/daemonset/validation.js';
import type { KObject } from '../../api/types.js';
import { splitKey, type Informer } from '../../client/informer.js';
import { fromLabelSelector, type LabelSelector } from '../../machinery/labels.js';
import { StatusError } from '../../machinery/errors.js';
import { clone, deepEqual } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { controllerOf, controllerRef } from '../framework/owner.js';
import { podFromTemplate, podPhase, type PodTemplate } from '../framework/pod-util.js';
import { POD_REVISION_LABEL } from '../framework/revision-history.js';
import { addDaemonTolerations, pinToNode, targetNodeName, type Node, type PodSpecLike } from './nodes.js';
import { PodExpectations } from './expectations.js';
import { cleanupHistory, constructHistory } from './history.js';
import {
  computeStatus, planManage, planRollingUpdate, templateGeneration, TEMPLATE_GENERATION_LABEL, type DaemonSetStatusCounts, type NodeToPods,
} from './update.js';

const COMPONENT = 'daemonset-controller';
const BURST_REPLICAS = 250;

export function daemonSetController(): ControllerFactory {
  return (ctx) => new DaemonSetController(ctx);
}

export class DaemonSetController extends Reconciler {
  readonly name = 'daemonset';
  private sets!: Informer;
  private pods!: Informer;
  private nodes!: Informer;
  private revisions!: Informer;
  private expectations!: PodExpectations;
  private readonly recorder;

  constructor(ctx: ControllerContext) {
    super(ctx);
    this.recorder = ctx.recorder(COMPONENT);
  }

  setup(): void {
    this.sets = this.informer('apps/v1', 'daemonsets');
    this.pods = this.informer('v1', 'pods');
    this.nodes = this.informer('v1', 'nodes');
    this.revisions = this.informer('apps/v1', 'controllerrevisions');
    this.expectations = new PodExpectations(this.pods, () => this.ctx.now());
    this.sets.addHandler({ add: (o) => this.enqueueObject(o), update: (_, o) => this.enqueueObject(o), delete: (o) => { this.expectations.forget(keyOf(o)); this.enqueueObject(o); } });
    const owned = (o: KObject) => this.enqueueOwner(o);
    this.pods.addHandler({ add: owned, update: (old, o) => { owned(o); if (controllerOf(old)?.uid !== controllerOf(o)?.uid) owned(old); }, delete: owned });
    this.revisions.addHandler({ add: owned, update: (_, o) => owned(o), delete: owned });
    const all = () => { for (const ds of this.sets.list()) this.enqueueObject(ds); };
    this.nodes.addHandler({ add: all, update: (old, o) => { if (nodeChanged(old, o)) all(); }, delete: all });
  }

  private enqueueOwner(o: KObject): void {
    const ref = controllerOf(o);
    if (ref) {
      if (ref.kind === 'DaemonSet') this.enqueue(`${o.metadata.namespace}/${ref.name}`);
      return;
    }
    for (const ds of this.sets.list(o.metadata.namespace ?? '')) {
      const sel = selectorOf(ds as DaemonSet);
      if (sel && !sel.empty && sel.matches(o.metadata.labels)) this.enqueueObject(ds);
    }
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number } | void> {
    const { namespace, name } = splitKey(key);
    const cached = this.sets.get(namespace, name) as DaemonSet | undefined;
    if (!cached) {
      this.expectations.forget(key);
      return;
    }
    const ds = clone(cached);
    const selector = selectorOf(ds);
    if (!selector) return;
    if (selector.empty) {
      this.recorder.event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    if (ds.metadata.deletionTimestamp) return;
    const nodes = this.nodes.list() as Node[];
    const { old, hash } = await constructHistory(this.ctx.client, this.revisions, ds, selector);
    const now = this.ctx.now();

    if (!this.expectations.satisfied(key)) {
      // writes of the last sync are not in the cache yet: only refresh status (without observedGeneration)
      await this.writeStatus(ds, computeStatus(ds, nodes, await this.nodeToPods(ds, selector), hash, now), { observed: false });
      return;
    }
    let nodeToPods = await this.nodeToPods(ds, selector);
    const plan = planManage(ds, nodes, nodeToPods, hash);
    for (const e of plan.events) this.recorder.event(ds, e.type, e.reason, e.message);
    let failure: unknown;
    try {
      await this.syncNodes(ds, key, plan.podsToDelete, plan.nodesNeedingPods, hash);
      if (ds.spec?.updateStrategy?.type === 'RollingUpdate' && this.expectations.satisfied(key)) {
        nodeToPods = await this.nodeToPods(ds, selector);
        const roll = planRollingUpdate(ds, nodes, nodeToPods, hash, now);
        await this.syncNodes(ds, key, roll.podsToDelete, roll.nodesToCreate, hash);
      }
    } catch (e) {
      failure = e;
    }
    nodeToPods = await this.nodeToPods(ds, selector);
    await cleanupHistory(this.ctx.client, ds, old, [...nodeToPods.values()].flat());
    const st = computeStatus(ds, nodes, nodeToPods, hash, now);
    await this.writeStatus(ds, st, { observed: true });
    if (failure) throw failure;
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (minReady > 0 && st.numberReady !== st.numberAvailable) return { requeueAfterMs: minReady * 1000 };
  }

  /** getNodesToDaemonPods: claimed pods (orphans adopted, strays released) by the node they run on or are pinned to. */
  private async nodeToPods(ds: DaemonSet, selector: LabelSelector): Promise<NodeToPods> {
    const out: NodeToPods = new Map();
    const rc = this.ctx.client.resource('v1', 'pods');
    for (const p of this.pods.list(ds.metadata.namespace!)) {
      const ref = controllerOf(p);
      if (ref && ref.uid !== ds.metadata.uid) continue;
      const match = selector.matches(p.metadata.labels);
      let pod: KObject | undefined = p;
      if (ref && !match) {
        if (!p.metadata.deletionTimestamp) await rc.patch(p.metadata.namespace!, p.metadata.name!, 'strategic', { metadata: { ownerReferences: [{ $patch: 'delete', uid: ds.metadata.uid }], uid: p.metadata.uid } }).catch(ignoreGone);
        continue;
      }
      if (!ref) {
        if (!match || p.metadata.deletionTimestamp || ds.metadata.deletionTimestamp) continue;
        pod = await rc.patch(p.metadata.namespace!, p.metadata.name!, 'strategic', { metadata: { ownerReferences: [controllerRef(ds)], uid: p.metadata.uid } }).catch(ignoreGone);
        if (!pod) continue;
      }
      const phase = podPhase(pod);
      if ((phase === 'Failed' || phase === 'Succeeded') && pod.metadata.deletionTimestamp) continue;
      const node = targetNodeName(pod);
      if (!node) continue;
      out.set(node, [...(out.get(node) ?? []), pod]);
    }
    return out;
  }

  /** syncNodes: create pinned pods (slow start: 1, 2, 4, ...) and delete pods, at most BURST_REPLICAS each. */
  private async syncNodes(ds: DaemonSet, key: string, podsToDelete: KObject[], nodesNeedingPods: string[], hash: string): Promise<void> {
    const creates = nodesNeedingPods.slice(0, BURST_REPLICAS);
    const deletes = podsToDelete.slice(0, BURST_REPLICAS);
    const template = daemonPodTemplate(ds, hash);
    const rc = this.ctx.client.resource('v1', 'pods');
    const errors: unknown[] = [];
    for (let i = 0, batch = 1; i < creates.length && !errors.length; i += batch, batch *= 2) {
      await Promise.all(creates.slice(i, i + batch).map(async (node) => {
        const tpl = clone(template);
        pinToNode(tpl.spec as PodSpecLike, node);
        const pod = podFromTemplate(tpl, ds, { generateName: `${ds.metadata.name}-` });
        try {
          const created = await rc.create(ds.metadata.namespace!, pod);
          this.expectations.expectCreate(key, created.metadata.namespace!, created.metadata.name!);
          this.recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
        } catch (e) {
          this.recorder.event(ds, 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
          errors.push(e);
        }
      }));
    }
    await Promise.all(deletes.map(async (p) => {
      try {
        await rc.delete(p.metadata.namespace!, p.metadata.name!);
        this.expectations.expectDelete(key, p.metadata.namespace!, p.metadata.name!, p.metadata.uid!);
        this.recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) return;
        this.recorder.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
        errors.push(e);
      }
    }));
    if (errors.length) throw errors[0];
  }

  /** storeDaemonSetStatus: written only when a count (or observedGeneration) changed. */
  private async writeStatus(ds: DaemonSet, counts: DaemonSetStatusCounts, opts: { observed: boolean }): Promise<void> {
    const have = (ds.status ?? {}) as Record<string, unknown>;
    const want: Record<string, unknown> = { ...counts };
    if (opts.observed) want.observedGeneration = ds.metadata.generation ?? 0;
    if (Object.entries(want).every(([k, v]) => (have[k] ?? 0) === v)) return;
    const rc = this.ctx.client.resource('apps/v1', 'daemonsets');
    let obj: KObject = ds;
    for (let attempt = 0; ; attempt++) {
      try {
        await rc.update(ds.metadata.namespace!, { ...obj, status: { ...((obj.status as object) ?? {}), ...want } } as KObject, { subresource: 'status' });
        return;
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 409) || attempt >= 3) throw e;
        obj = await rc.get(ds.metadata.namespace!, ds.metadata.name!);
      }
    }
  }
}

/** util.CreatePodTemplate: the template with daemon tolerations and the generation and revision-hash labels. */
function daemonPodTemplate(ds: DaemonSet, hash: string): PodTemplate {
  const tpl = clone((ds.spec?.template ?? {}) as PodTemplate);
  const spec = (tpl.spec ??= {}) as PodSpecLike;
  addDaemonTolerations(spec);
  const labels = { ...(tpl.metadata?.labels ?? {}) };
  const gen = templateGeneration(ds);
  if (gen !== undefined) labels[TEMPLATE_GENERATION_LABEL] = gen;
  if (hash) labels[POD_REVISION_LABEL] = hash;
  tpl.metadata = { ...(tpl.metadata ?? {}), labels };
  return tpl;
}

/** Node changes that can move a daemon pod: labels, taints, or a new node. */
function nodeChanged(a: KObject, b: KObject): boolean {
  return !deepEqual(a.metadata.labels ?? {}, b.metadata.labels ?? {}) || !deepEqual((a.spec as Node['spec'])?.taints ?? [], (b.spec as Node['spec'])?.taints ?? []);
}

function selectorOf(ds: DaemonSet): LabelSelector | undefined {
  try {
    return fromLabelSelector(ds.spec?.selector);
  } catch {
    return undefined;
  }
}

const keyOf = (o: KObject) => `${o.metadata.namespace}/${o.metadata.name}`;

function ignoreGone(e: unknown): undefined {
  if (e instanceof StatusError && (e.code === 404 || e.code === 422)) return undefined;
  throw e;
}
