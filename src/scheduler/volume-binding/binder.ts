// The scheduler's volume binder (kube's volumeBinder + assume caches). It serves the volume plugins' lookups from
// informers, overlaid with what Reserve assumed in memory (a PV promised to a claim, a claim given a selected
// node) so the next pod already sees those volumes as taken. PreBind writes the assumptions through the API the way
// kube-scheduler does (the PV's claimRef; the claim's `volume.kubernetes.io/selected-node` annotation) and then waits,
// event driven and bounded, until the PV controller / provisioner reports the claims bound. It also turns storage
// events into queue moves for the plugins they can help.
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import type { Informer, InformerFactory } from '../../client/informer.js';
import { clone, deepEqual } from '../../machinery/object.js';
import type { PodInfo } from '../plugins/pod-info.js';
import { podVolumesOn, VOLUME_BINDING, type PodVolumes } from '../plugins/volume-binding.js';
import { VOLUME_RESTRICTIONS } from '../plugins/volume-restrictions.js';
import { VOLUME_ZONE } from '../plugins/volume-zone.js';
import { NODE_VOLUME_LIMITS } from '../plugins/node-volume-limits.js';
import { volumeBoundToClaim } from '../../api/core/persistentvolume/matching.js';
import {
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  claimFullyBound,
  pvcKey,
  pvNodeAffinityMatches,
  usesVolumes,
  volumeClass,
  type CSINode,
  type PV,
  type PVC,
  type StorageClass,
  type VolumeLookups,
} from './types.js';

export interface VolumeBinderOptions {
  client: Client;
  informers: InformerFactory;
  /** a storage event that may help pods rejected by these plugins (wire to queue.moveOnEvent) */
  onEvent?: (plugins: ReadonlySet<string>) => void;
  /** how long PreBind waits for the claims to be bound (kube's bindTimeoutSeconds: 600) */
  bindTimeoutMs?: number;
}

/** What Reserve assumed for one pod on one node; PreBind and Unreserve take it back. */
export interface VolumeReservation {
  pod: KObject;
  node: string;
  staticBindings: { pvc: PVC; pv: PV }[];
  dynamicProvisions: PVC[];
}

interface Assumed<T> {
  obj: T;
  /** the informer's resourceVersion the assumption was made on; a newer one replaces it */
  baseRV: string;
}

const set = (...names: string[]): ReadonlySet<string> => new Set(names);
const ON_PVC = set(VOLUME_BINDING, VOLUME_RESTRICTIONS, VOLUME_ZONE, NODE_VOLUME_LIMITS);
const ON_PV = set(VOLUME_BINDING, VOLUME_ZONE);
const ON_CLASS = set(VOLUME_BINDING, VOLUME_ZONE);
const ON_CSINODE = set(VOLUME_BINDING, NODE_VOLUME_LIMITS);
const ON_NODE = set(VOLUME_BINDING, VOLUME_ZONE);
const ON_POD_GONE = set(VOLUME_RESTRICTIONS, NODE_VOLUME_LIMITS);

const rvNewer = (a: string | undefined, b: string | undefined) => Number(a ?? 0) > Number(b ?? 0);

export class VolumeBinder implements VolumeLookups {
  private readonly pvcs: Informer;
  private readonly pvs: Informer;
  private readonly classes: Informer;
  private readonly csiNodes: Informer;
  private readonly pods: Informer;
  private readonly assumedPVs = new Map<string, Assumed<PV>>();
  private readonly assumedPVCs = new Map<string, Assumed<PVC>>();
  /** PreBind waits re-check on every PV, PVC or pod event */
  private readonly waiters = new Set<() => void>();
  private readonly bindTimeoutMs: number;
  private closed = false;

  constructor(private readonly opts: VolumeBinderOptions) {
    const inf = opts.informers;
    this.bindTimeoutMs = opts.bindTimeoutMs ?? 600_000;
    this.pvcs = inf.informer('v1', 'persistentvolumeclaims');
    this.pvs = inf.informer('v1', 'persistentvolumes');
    this.classes = inf.informer('storage.k8s.io/v1', 'storageclasses');
    this.csiNodes = inf.informer('storage.k8s.io/v1', 'csinodes');
    this.pods = inf.informer('v1', 'pods');
    this.pvs.addIndex('class', (pv) => [volumeClass(pv as PV)]);
    const emit = (plugins: ReadonlySet<string>) => opts.onEvent?.(plugins);
    this.pvcs.addHandler({
      add: (o) => this.changed(this.assumedPVCs, pvcKey(o.metadata.namespace ?? '', o.metadata.name!), o, ON_PVC),
      update: (_old, o) => this.changed(this.assumedPVCs, pvcKey(o.metadata.namespace ?? '', o.metadata.name!), o, ON_PVC),
      delete: (o) => this.changed(this.assumedPVCs, pvcKey(o.metadata.namespace ?? '', o.metadata.name!), undefined, undefined),
    });
    this.pvs.addHandler({
      add: (o) => this.changed(this.assumedPVs, o.metadata.name!, o, ON_PV),
      update: (_old, o) => this.changed(this.assumedPVs, o.metadata.name!, o, ON_PV),
      delete: (o) => this.changed(this.assumedPVs, o.metadata.name!, undefined, undefined),
    });
    this.classes.addHandler({
      add: () => emit(ON_CLASS),
      update: (o, n) => !deepEqual((o as StorageClass).allowedTopologies, (n as StorageClass).allowedTopologies) && emit(ON_CLASS),
    });
    this.csiNodes.addHandler({ add: () => emit(ON_CSINODE), update: () => emit(ON_CSINODE) });
    inf.informer('v1', 'nodes').addHandler({
      add: () => emit(ON_NODE),
      update: (o, n) => !deepEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {}) && emit(ON_NODE),
    });
    this.pods.addHandler({
      update: () => this.wake(),
      delete: (p) => {
        this.wake();
        if ((p as { spec?: { nodeName?: string } }).spec?.nodeName && usesVolumes(p)) emit(ON_POD_GONE);
      },
    });
  }

  // ---- VolumeLookups (informer objects overlaid with assumptions) ----

  pvc(namespace: string, name: string): PVC | undefined {
    return (this.assumedPVCs.get(pvcKey(namespace, name))?.obj ?? this.pvcs.get(namespace, name)) as PVC | undefined;
  }

  pv(name: string): PV | undefined {
    return (this.assumedPVs.get(name)?.obj ?? this.pvs.get('', name)) as PV | undefined;
  }

  pvsOfClass(className: string): PV[] {
    return this.pvs.byIndex('class', className).map((pv) => (this.assumedPVs.get(pv.metadata.name!)?.obj ?? pv) as PV);
  }

  storageClass(name: string): StorageClass | undefined {
    return this.classes.get('', name) as StorageClass | undefined;
  }

  csiNode(name: string): CSINode | undefined {
    return this.csiNodes.get('', name) as CSINode | undefined;
  }

  // ---- Reserve / Unreserve / PreBind ----

  /**
   * AssumePodVolumes for the node chosen in this attempt: PVs promised to the pod's claims and claims given the
   * node, in memory only. Undefined when the pod's claims are all bound (nothing to do before binding).
   */
  reserve(p: PodInfo, node: string): VolumeReservation | undefined {
    const found: PodVolumes | undefined = podVolumesOn(p, node);
    if (!found) return undefined;
    const r: VolumeReservation = { pod: p.pod, node, staticBindings: [], dynamicProvisions: [] };
    for (const { pvc, pv } of found.staticBindings) {
      const next = clone(pv);
      next.spec ??= {};
      if (!volumeBoundToClaim(pv, pvc)) {
        next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [ANN_BOUND_BY_CONTROLLER]: 'yes' };
      }
      next.spec.claimRef = {
        kind: 'PersistentVolumeClaim',
        namespace: pvc.metadata.namespace,
        name: pvc.metadata.name,
        uid: pvc.metadata.uid,
        apiVersion: 'v1',
        resourceVersion: pvc.metadata.resourceVersion,
      };
      this.assumedPVs.set(pv.metadata.name!, { obj: next, baseRV: pv.metadata.resourceVersion ?? '' });
      r.staticBindings.push({ pvc, pv: next });
    }
    for (const pvc of found.dynamicProvisions) {
      const next = clone(pvc);
      next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [ANN_SELECTED_NODE]: node };
      this.assumedPVCs.set(pvcKey(pvc.metadata.namespace ?? '', pvc.metadata.name!), { obj: next, baseRV: pvc.metadata.resourceVersion ?? '' });
      r.dynamicProvisions.push(next);
    }
    return r;
  }

  /** RevertAssumedPodVolumes: forget what reserve() assumed. */
  unreserve(r: VolumeReservation | undefined): void {
    if (!r) return;
    for (const b of r.staticBindings) this.assumedPVs.delete(b.pv.metadata.name!);
    for (const c of r.dynamicProvisions) this.assumedPVCs.delete(pvcKey(c.metadata.namespace ?? '', c.metadata.name!));
  }

  /**
   * BindPodVolumes: write the reservation through the API, then wait until every claim is bound. Rejects with
   * kube's `binding volumes: …` errors (timed out, provisioning failed, claimRef reset, pod deleted).
   */
  async preBind(r: VolumeReservation): Promise<void> {
    const pvs = this.opts.client.resource('v1', 'persistentvolumes');
    const claims = this.opts.client.resource('v1', 'persistentvolumeclaims');
    const written: { pvs: PV[]; pvcs: PVC[] } = { pvs: [], pvcs: [] };
    try {
      for (const b of r.staticBindings) written.pvs.push((await pvs.update('', b.pv)) as PV);
      for (const c of r.dynamicProvisions) written.pvcs.push((await claims.update(c.metadata.namespace!, c)) as PVC);
    } catch (e) {
      throw new Error(`binding volumes: ${(e as Error).message}`);
    }
    await this.waitBound(r, written);
  }

  /** Stops pending waits (they fail) and ignores further events. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  // ---- internals ----

  /** An informer event for an object we may have assumed: a newer API version replaces the assumption. */
  private changed<T extends KObject>(assumed: Map<string, Assumed<T>>, key: string, obj: KObject | undefined, plugins: ReadonlySet<string> | undefined): void {
    const a = assumed.get(key);
    if (a && (!obj || rvNewer(obj.metadata.resourceVersion, a.baseRV))) assumed.delete(key);
    this.wake();
    if (plugins) this.opts.onEvent?.(plugins);
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  private waitBound(r: VolumeReservation, written: { pvs: PV[]; pvcs: PVC[] }): Promise<void> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (err?: string) => {
        this.waiters.delete(check);
        if (timer) clearTimeout(timer);
        if (err) reject(new Error(`binding volumes: ${err}`));
        else resolve();
      };
      const check = () => {
        if (this.closed) return finish('scheduler stopped');
        try {
          if (this.bindingsDone(r, written)) finish();
        } catch (e) {
          finish((e as Error).message);
        }
      };
      this.waiters.add(check);
      timer = setTimeout(() => finish('context deadline exceeded'), this.bindTimeoutMs);
      timer.unref?.();
      check();
    });
  }

  /** checkBindings: true once all is bound, false to keep waiting, throws when scheduling must be retried. */
  private bindingsDone(r: VolumeReservation, written: { pvs: PV[]; pvcs: PVC[] }): boolean {
    const pod = this.pods.get(r.pod.metadata.namespace ?? '', r.pod.metadata.name!);
    if (!pod || pod.metadata.uid !== r.pod.metadata.uid || pod.metadata.deletionTimestamp) throw new Error('pod does not exist any more');
    const node = this.opts.informers.informer('v1', 'nodes').get('', r.node);
    const labels = node?.metadata.labels ?? {};
    let done = true;
    for (const mine of written.pvs) {
      const pv = this.pvs.get('', mine.metadata.name!) as PV | undefined;
      if (!pv) throw new Error(`failed to check binding: persistentvolume "${mine.metadata.name}" not found`);
      // our own write has not come back through the watch yet
      if (rvNewer(mine.metadata.resourceVersion, pv.metadata.resourceVersion)) return false;
      if (!pvNodeAffinityMatches(pv, labels)) throw new Error(`pv "${pv.metadata.name}" node affinity doesn't match node "${r.node}": no matching NodeSelectorTerms`);
      if (!pv.spec?.claimRef?.uid) throw new Error(`ClaimRef got reset for pv "${pv.metadata.name}"`);
      const ref = pv.spec.claimRef;
      const pvc = this.pvcs.get(ref.namespace ?? '', ref.name ?? '') as PVC | undefined;
      if (!pvc) throw new Error(`failed to check binding: persistentvolumeclaim "${ref.name}" not found`);
      if (!claimFullyBound(pvc)) done = false;
    }
    for (const mine of written.pvcs) {
      const pvc = this.pvcs.get(mine.metadata.namespace ?? '', mine.metadata.name!) as PVC | undefined;
      if (!pvc) throw new Error(`failed to check provisioning pvc: persistentvolumeclaim "${mine.metadata.name}" not found`);
      if (rvNewer(mine.metadata.resourceVersion, pvc.metadata.resourceVersion)) return false;
      if (!pvc.metadata.annotations) throw new Error(`selectedNode annotation reset for PVC "${pvc.metadata.name}"`);
      // a provisioner that gives up removes the annotation to send the pod back to the scheduler
      if (pvc.metadata.annotations[ANN_SELECTED_NODE] !== r.node) throw new Error(`provisioning failed for PVC "${pvc.metadata.name}"`);
      if (pvc.spec?.volumeName) {
        const pv = this.pvs.get('', pvc.spec.volumeName) as PV | undefined;
        if (!pv) {
          done = false;
          continue;
        }
        if (!pvNodeAffinityMatches(pv, labels)) throw new Error(`pv "${pv.metadata.name}" node affinity doesn't match node "${r.node}": no matching NodeSelectorTerms`);
      }
      if (!claimFullyBound(pvc)) done = false;
    }
    return done;
  }
}
