// Garbage collector (pkg/controller/garbagecollector): an ownerReferences graph over every resource that can carry
// owner references, kept by one informer per resource. Keys are object uids. An object is examined when it may have
// become garbage (an owner went away, it names an owner nobody has seen) or when its own deletion waits on the GC:
//   - Background: dependents of a deleted owner are dangling and are deleted once a live GET confirms the owner is gone.
//   - Foreground: the owner carries `foregroundDeletion`; its dependents are deleted, and the finalizer is removed
//     once no dependent with blockOwnerDeletion remains.
//   - Orphan: the owner carries `orphan`; the reference is removed from every dependent, then the finalizer.
import type { KObject, OwnerReference } from '../../api/types.js';
import type { Informer } from '../../client/informer.js';
import { objectKey } from '../../client/informer.js';
import { clone } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { ownerReferences, ownerUidIndex } from '../framework/owner.js';
import { CRD_API, customResourceOf } from '../framework/custom-resources.js';
import {
  FOREGROUND,
  KindMapper,
  ORPHAN,
  deleteIfSame,
  hasFinalizer,
  mutateLive,
  removeFinalizer,
  resolveOwner,
  type GCResource,
  type OwnerState,
} from './owners.js';

export { gcResourcesFrom, type GCResource } from './owners.js';

export interface GarbageCollectorOptions {
  /** every resource that can carry ownerReferences (kube discovers them; the lead passes the registry's) */
  resources: GCResource[];
}

const OWNER_INDEX = 'gc:owner-uid';
/** garbagecollector.DefaultIgnoredResources: events never take part in the graph */
const IGNORED = new Set(['/events', 'events.k8s.io/events']);

interface GraphNode {
  res: GCResource;
  inf: Informer;
  key: string;
}

class GarbageCollector extends Reconciler {
  readonly name = 'garbage-collector';
  /** uid → where the object lives in the caches (the graph's nodes; edges are the owner-uid indexes) */
  private readonly nodes = new Map<string, GraphNode>();
  private readonly informers: { res: GCResource; inf: Informer }[] = [];
  private readonly mapper: KindMapper;

  constructor(
    ctx: ControllerContext,
    private readonly opts: GarbageCollectorOptions,
  ) {
    super(ctx, { workers: 4 });
    this.mapper = new KindMapper(opts.resources);
  }

  setup(): void {
    for (const res of this.opts.resources) this.follow(res);
    // custom resources join the graph once their CRD is established
    const crds = this.informer(...CRD_API);
    const onCRD = (c: KObject) => {
      const res = customResourceOf(c);
      if (res && !this.informers.some((i) => i.res.apiVersion === res.apiVersion && i.res.plural === res.plural)) {
        this.mapper.add(res);
        void this.follow(res)?.start();
      }
    };
    crds.addHandler({ add: onCRD, update: (_, c) => onCRD(c) });
  }

  private follow(res: GCResource): Informer | undefined {
    if (IGNORED.has(`${res.apiVersion.includes('/') ? res.apiVersion.split('/')[0] : ''}/${res.plural}`)) return undefined;
    const inf = this.informer(res.apiVersion, res.plural);
    inf.addIndex(OWNER_INDEX, ownerUidIndex);
    this.informers.push({ res, inf });
    inf.addHandler({
      add: (o) => this.onAdd(res, inf, o),
      update: (old, o) => this.onUpdate(res, inf, old, o),
      delete: (o) => this.onDelete(o),
    });
    return inf;
  }

  private onAdd(res: GCResource, inf: Informer, o: KObject): void {
    const uid = o.metadata.uid;
    if (!uid) return;
    this.mapper.learn(res, o);
    this.nodes.set(uid, { res, inf, key: objectKey(o) });
    if (o.metadata.deletionTimestamp && (hasFinalizer(o, FOREGROUND) || hasFinalizer(o, ORPHAN))) this.enqueue(uid);
    if (this.mayBeGarbage(o)) this.enqueue(uid);
  }

  private onUpdate(res: GCResource, inf: Informer, old: KObject, o: KObject): void {
    const uid = o.metadata.uid;
    if (!uid) return;
    this.nodes.set(uid, { res, inf, key: objectKey(o) });
    const deleting = !!o.metadata.deletionTimestamp;
    if (deleting && hasFinalizer(o, ORPHAN)) this.enqueue(uid);
    if (deleting && hasFinalizer(o, FOREGROUND)) {
      // the owner starts (or keeps) waiting: every dependent must go, and the owner rechecks its blockers
      if (!old.metadata.deletionTimestamp || !hasFinalizer(old, FOREGROUND)) for (const d of this.dependents(uid)) this.enqueueObject2(d);
      this.enqueue(uid);
    }
    // owner references changed: owners that wait on blockers recheck, and new owners may be missing
    const before = ownerReferences(old).map((r) => `${r.uid}:${r.blockOwnerDeletion}`).join(',');
    const after = ownerReferences(o).map((r) => `${r.uid}:${r.blockOwnerDeletion}`).join(',');
    if (before !== after) {
      for (const r of [...ownerReferences(old), ...ownerReferences(o)]) this.enqueueIfWaiting(r.uid);
      if (this.mayBeGarbage(o)) this.enqueue(uid);
    }
  }

  private onDelete(o: KObject): void {
    const uid = o.metadata.uid;
    if (!uid) return;
    this.nodes.delete(uid);
    for (const d of this.dependents(uid)) this.enqueueObject2(d);
    for (const r of ownerReferences(o)) this.enqueueIfWaiting(r.uid);
  }

  /** An object names an owner the graph has not seen, or an owner that waits for its dependents. */
  private mayBeGarbage(o: KObject): boolean {
    const ns = o.metadata.namespace ?? '';
    return ownerReferences(o).some((r) => {
      const owner = this.cached(r.uid);
      if (!owner) return true;
      // a namespaced owner must live in the dependent's own namespace (kube 1.20+ treats others as absent or invalid)
      if (owner.metadata.namespace && owner.metadata.namespace !== ns) return true;
      return !!owner.metadata.deletionTimestamp && hasFinalizer(owner, FOREGROUND);
    });
  }

  private enqueueIfWaiting(uid: string): void {
    const owner = this.cached(uid);
    if (owner?.metadata.deletionTimestamp && hasFinalizer(owner, FOREGROUND)) this.enqueue(uid);
  }

  private enqueueObject2(o: KObject): void {
    if (o.metadata.uid) this.enqueue(o.metadata.uid);
  }

  private cached(uid: string): KObject | undefined {
    const n = this.nodes.get(uid);
    const o = n?.inf.getByKey(n.key);
    return o?.metadata.uid === uid ? o : undefined;
  }

  /** Every cached object with an owner reference to `uid`. */
  private dependents(uid: string): KObject[] {
    return this.informers.flatMap(({ inf }) => inf.byIndex(OWNER_INDEX, uid));
  }

  async reconcile(uid: string): Promise<void> {
    const node = this.nodes.get(uid);
    const obj = this.cached(uid);
    if (!node || !obj) return;
    if (obj.metadata.deletionTimestamp) {
      if (hasFinalizer(obj, ORPHAN)) return this.orphanDependents(node, obj);
      if (hasFinalizer(obj, FOREGROUND)) return this.processDeletingDependents(node, obj);
      return;
    }
    await this.attemptToDelete(node, obj);
  }

  /** Orphan: strip the reference to `owner` from each dependent, then drop the owner's orphan finalizer. */
  private async orphanDependents(node: GraphNode, owner: KObject): Promise<void> {
    const uid = owner.metadata.uid!;
    for (const d of this.dependents(uid)) {
      const r = this.nodes.get(d.metadata.uid!)?.res;
      if (!r) continue;
      await mutateLive(this.ctx.client.resource(r.apiVersion, r.plural), d, (live) => {
        const refs = ownerReferences(live);
        if (!refs.some((x) => x.uid === uid)) return false;
        const rest = refs.filter((x) => x.uid !== uid);
        if (rest.length) live.metadata.ownerReferences = rest;
        else delete live.metadata.ownerReferences;
        return true;
      });
    }
    await mutateLive(this.rc(node.res), owner, (live) => removeFinalizer(live, ORPHAN));
  }

  /** Foreground: once no dependent with blockOwnerDeletion is left, the owner's finalizer goes. */
  private async processDeletingDependents(node: GraphNode, owner: KObject): Promise<void> {
    const uid = owner.metadata.uid!;
    const deps = this.dependents(uid);
    const blocking = deps.filter((d) => ownerReferences(d).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
    if (blocking.length === 0) {
      await mutateLive(this.rc(node.res), owner, (live) => removeFinalizer(live, FOREGROUND));
      return;
    }
    for (const d of deps) if (!d.metadata.deletionTimestamp) this.enqueueObject2(d);
  }

  /** attemptToDeleteItem: classify every owner with a live look-up; delete the object when none is solid. */
  private async attemptToDelete(node: GraphNode, obj: KObject): Promise<void> {
    const refs = ownerReferences(obj);
    if (!refs.length) return;
    const states: OwnerState[] = [];
    for (const ref of refs) states.push(await resolveOwner(this.ctx.client, this.mapper, obj, ref));
    for (const s of states) if (s.state === 'unresolvable' && s.invalidNamespace) this.reportInvalidNamespace(obj, s.ref);
    const solid = states.filter((s) => s.state === 'solid' || s.state === 'unresolvable');
    const dangling = states.filter((s) => s.state === 'dangling').map((s) => s.ref.uid);
    const waiting = states.filter((s) => s.state === 'waiting').map((s) => s.ref.uid);
    const rc = this.rc(node.res);
    if (solid.length) {
      if (!dangling.length && !waiting.length) return;
      // keep the object; drop references to owners that are gone and stop blocking owners that wait
      await mutateLive(rc, obj, (live) => {
        let changed = false;
        const kept: OwnerReference[] = [];
        for (const r of ownerReferences(live)) {
          if (dangling.includes(r.uid)) {
            changed = true;
            continue;
          }
          if (waiting.includes(r.uid) && r.blockOwnerDeletion) {
            kept.push({ ...clone(r), blockOwnerDeletion: false });
            changed = true;
            continue;
          }
          kept.push(r);
        }
        live.metadata.ownerReferences = kept;
        return changed;
      });
      return;
    }
    if (waiting.length && this.dependents(obj.metadata.uid!).length) {
      // an owner waits on us and we have dependents ourselves: delete in the foreground too
      return deleteIfSame(rc, obj, 'Foreground');
    }
    const policy = hasFinalizer(obj, ORPHAN) ? 'Orphan' : hasFinalizer(obj, FOREGROUND) ? 'Foreground' : 'Background';
    await deleteIfSame(rc, obj, policy);
  }

  private reportInvalidNamespace(obj: KObject, ref: OwnerReference): void {
    const ns = obj.metadata.namespace ?? '';
    this.ctx
      .recorder('garbage-collector-controller')
      .event(
        obj,
        'Warning',
        'OwnerRefInvalidNamespace',
        `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${ns}, name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace "${ns}"`,
      );
  }

  private rc(res: GCResource) {
    return this.ctx.client.resource(res.apiVersion, res.plural);
  }
}

/** The garbage collector over `resources` (each `{apiVersion, kind?, plural, namespaced}`). */
export function garbageCollectorController(opts: GarbageCollectorOptions): ControllerFactory {
  return (ctx) => new GarbageCollector(ctx, opts);
}
