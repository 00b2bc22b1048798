// The PersistentVolume controller (pkg/controller/volume/persistentvolume, "persistentvolume-binder"): binds claims
// to volumes and keeps both sides' phases true. A claim without a volume gets the smallest matching Available PV of
// its class (or waits for its first consumer / a provisioner); a pre-bound claim (volumeName) or volume (claimRef)
// is honoured; a volume whose claim is gone is Released and reclaimed (Retain keeps it; Delete of a provisioned
// volume is its provisioner's job). Claims and volumes share one queue: keys "claim:<ns>/<name>", "volume:<name>".
import type { ReconcileResult } from '../../client/workqueue.js';
import type { Informer } from '../../client/informer.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import { StatusError } from '../../machinery/errors.js';
import { findMatchingVolume } from '../../api/core/persistentvolume/matching.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events.js';
import {
  ANN_BETA_STORAGE_PROVISIONER, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_MIGRATED_TO, ANN_PROVISIONED_BY, ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER, PV_CONTROLLER_COMPONENT, claimClassName, claimHasNoClass, claimKeyOf, claimRefTo, defaultClassOf, hasAnn,
  volumeUnsatisfiedReason, type Claim, type Class, type Volume,
} from '../../api/core/persistentvolume/claims.js';

export interface PersistentVolumeControllerOptions {
  /** how often unbound claims and volumes are looked at again (kube: 15 s) */
  resyncMs?: number;
}

const isNotFound = (e: unknown) => e instanceof StatusError && e.code === 404;

export class PersistentVolumeController extends Reconciler {
  readonly name = 'persistentvolume-binder';
  private claims!: Informer;
  private volumes!: Informer;
  private classes!: Informer;
  private readonly recorder: EventRecorder;
  private readonly resyncMs: number;

  constructor(ctx: ControllerContext, opts: PersistentVolumeControllerOptions = {}) {
    super(ctx, { workers: 2, maxDelayMs: 30_000 });
    this.recorder = ctx.recorder(PV_CONTROLLER_COMPONENT);
    this.resyncMs = opts.resyncMs ?? 15_000;
  }

  setup(): void {
    this.claims = this.informer('v1', 'persistentvolumeclaims');
    this.volumes = this.informer('v1', 'persistentvolumes');
    this.classes = this.informer('storage.k8s.io/v1', 'storageclasses');
    const claim = (c: Claim) => this.enqueue(`claim:${claimKeyOf(c.metadata.namespace, c.metadata.name)}`);
    const volume = (v: Volume) => {
      this.enqueue(`volume:${v.metadata.name}`);
      const ref = v.spec?.claimRef;
      if (ref?.name) this.enqueue(`claim:${claimKeyOf(ref.namespace, ref.name)}`);
    };
    this.claims.addHandler({
      add: (c) => claim(c as Claim),
      update: (_, c) => claim(c as Claim),
      delete: (c) => {
        // the claim's volume is now Released (or its binding must be undone)
        const vn = (c as Claim).spec?.volumeName;
        if (vn) this.enqueue(`volume:${vn}`);
        for (const v of this.volumes.list() as Volume[]) {
          if (v.spec?.claimRef?.uid && v.spec.claimRef.uid === c.metadata.uid) this.enqueue(`volume:${v.metadata.name}`);
        }
      },
    });
    this.volumes.addHandler({ add: (v) => volume(v as Volume), update: (_, v) => volume(v as Volume), delete: (v) => volume(v as Volume) });
    // a new (default) class may let pending claims proceed
    this.classes.addHandler({
      add: () => this.requeuePendingClaims(),
      update: () => this.requeuePendingClaims(),
    });
  }

  private requeuePendingClaims(): void {
    for (const c of this.claims.list() as Claim[]) if (c.status?.phase !== 'Bound') this.enqueue(`claim:${claimKeyOf(c.metadata.namespace, c.metadata.name)}`);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    if (key.startsWith('claim:')) {
      const c = this.claims.getByKey(key.slice(6)) as Claim | undefined;
      if (c) return this.syncClaim(clone(c));
      return;
    }
    const v = this.volumes.get('', key.slice(7)) as Volume | undefined;
    if (v) return this.syncVolume(clone(v));
  }

  // ---- claims ----

  private async syncClaim(claim: Claim): Promise<ReconcileResult | void> {
    if (!hasAnn(claim, ANN_BIND_COMPLETED)) return this.syncUnboundClaim(claim);
    return this.syncBoundClaim(claim);
  }

  private async syncUnboundClaim(claim: Claim): Promise<ReconcileResult | void> {
    const later = { requeueAfterMs: this.resyncMs };
    const volumeName = claim.spec?.volumeName ?? '';
    if (!volumeName) {
      // retroactive default StorageClass assignment (GA in 1.28): a class-less claim gets today's default
      if (claimHasNoClass(claim)) {
        const def = defaultClassOf(this.classes.list() as Class[]);
        if (def) {
          claim.spec!.storageClassName = def.metadata.name;
          await this.ctx.client.resource('v1', 'persistentvolumeclaims').update(claim.metadata.namespace!, claim);
          return;
        }
      }
      const delay = this.delayBinding(claim);
      const pv = this.findBestMatch(claim, delay);
      if (pv) {
        await this.bind(pv, claim);
        return;
      }
      if (delay && !hasAnn(claim, ANN_SELECTED_NODE)) {
        this.recorder.event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
        await this.setClaimPhase(claim, 'Pending');
        return later;
      }
      const cls = claimClassName(claim);
      if (cls) {
        await this.provisionClaim(claim, cls);
        await this.setClaimPhase(claim, 'Pending');
        return later;
      }
      this.recorder.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      await this.setClaimPhase(claim, 'Pending');
      return later;
    }
    // the claim names its volume: by the user (pre-binding) or by us in an earlier, interrupted bind
    const pv = this.volumes.get('', volumeName) as Volume | undefined;
    if (!pv) {
      await this.setClaimPhase(claim, 'Pending');
      return later;
    }
    const ref = pv.spec?.claimRef;
    if (!ref) {
      const why = volumeUnsatisfiedReason(pv, claim);
      if (why) {
        this.recorder.event(claim, 'Warning', 'FailedBinding', `Cannot bind to requested volume "${volumeName}": ${why}`);
        await this.setClaimPhase(claim, 'Pending');
        return later;
      }
      await this.bind(clone(pv), claim);
      return;
    }
    if (this.volumeBoundTo(pv, claim)) {
      await this.bind(clone(pv), claim);
      return;
    }
    if (hasAnn(claim, ANN_BOUND_BY_CONTROLLER)) {
      // we had bound it and the volume went to another claim meanwhile: start again
      delete claim.spec!.volumeName;
      delete claim.metadata.annotations![ANN_BOUND_BY_CONTROLLER];
      await this.ctx.client.resource('v1', 'persistentvolumeclaims').update(claim.metadata.namespace!, claim);
      return;
    }
    this.recorder.event(claim, 'Warning', 'FailedBinding', `volume "${volumeName}" already bound to a different claim.`);
    await this.setClaimPhase(claim, 'Pending');
    return later;
  }

  private async syncBoundClaim(claim: Claim): Promise<ReconcileResult | void> {
    const volumeName = claim.spec?.volumeName ?? '';
    if (!volumeName) {
      await this.claimLost(claim, 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      return;
    }
    const pv = this.volumes.get('', volumeName) as Volume | undefined;
    if (!pv) {
      await this.claimLost(claim, 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      return;
    }
    if (!pv.spec?.claimRef || this.volumeBoundTo(pv, claim)) {
      // finish or repair the binding (the volume side may be missing, the claim status may lag)
      await this.bind(clone(pv), claim);
      return;
    }
    if (claim.status?.phase !== 'Lost') this.recorder.event(claim, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
    await this.setClaimPhase(claim, 'Lost');
  }

  private async claimLost(claim: Claim, message: string): Promise<void> {
    if (claim.status?.phase !== 'Lost') this.recorder.event(claim, 'Warning', 'ClaimLost', message);
    await this.setClaimPhase(claim, 'Lost');
  }

  /** IsDelayBindingMode: the claim's class waits for the first consumer. */
  private delayBinding(claim: Claim): boolean {
    const cls = claimClassName(claim);
    if (!cls) return false;
    return (this.classes.get('', cls) as Class | undefined)?.volumeBindingMode === 'WaitForFirstConsumer';
  }

  /** findBestMatchForClaim: with delayed binding only a volume pre-bound to the claim is taken (the scheduler picks). */
  private findBestMatch(claim: Claim, delay: boolean): Volume | undefined {
    const all = this.volumes.list() as Volume[];
    if (delay) {
      const pre = all.find((v) => this.volumeBoundTo(v, claim) && !v.metadata.deletionTimestamp);
      return pre ? clone(pre) : undefined;
    }
    // no node yet (FindMatchingVolume with a nil node): node affinity is not checked
    const byName = new Map(all.map((v) => [v.metadata.name!, v]));
    const unpinned = all.map((v) => (v.spec?.nodeAffinity ? { ...v, spec: { ...v.spec, nodeAffinity: null } } : v));
    const found = findMatchingVolume(claim as never, unpinned as never, {}, new Set()) as Volume | undefined;
    return found ? clone(byName.get(found.metadata.name!)) : undefined;
  }

  private volumeBoundTo(pv: Volume, claim: Claim): boolean {
    const ref = pv.spec?.claimRef;
    if (!ref || ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace) return false;
    return !ref.uid || ref.uid === claim.metadata.uid;
  }

  /** provisionClaim for an external provisioner: name it on the claim and say so in an event. */
  private async provisionClaim(claim: Claim, className: string): Promise<void> {
    const cls = this.classes.get('', className) as Class | undefined;
    if (!cls) {
      this.recorder.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    const provisioner = cls.provisioner ?? '';
    const ann = claim.metadata.annotations ?? {};
    if (ann[ANN_STORAGE_PROVISIONER] !== provisioner || ann[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
      claim.metadata.annotations = { ...ann, [ANN_STORAGE_PROVISIONER]: provisioner, [ANN_BETA_STORAGE_PROVISIONER]: provisioner };
      const saved = (await this.ctx.client.resource('v1', 'persistentvolumeclaims').update(claim.metadata.namespace!, claim)) as Claim;
      Object.assign(claim, saved);
    }
    this.recorder.event(
      claim,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
  }

  /** bind: the volume first (claimRef, phase Bound), then the claim (volumeName, annotations, status). */
  private async bind(pv: Volume, claim: Claim): Promise<void> {
    const pvs = this.ctx.client.resource('v1', 'persistentvolumes');
    const pvcs = this.ctx.client.resource('v1', 'persistentvolumeclaims');
    if (!this.volumeBoundTo(pv, claim) || !pv.spec?.claimRef?.uid) {
      pv.spec ??= {};
      if (!pv.spec.claimRef) pv.metadata.annotations = { ...(pv.metadata.annotations ?? {}), [ANN_BOUND_BY_CONTROLLER]: 'yes' };
      pv.spec.claimRef = claimRefTo(claim);
      pv = (await pvs.update('', pv)) as Volume;
    }
    if (pv.status?.phase !== 'Bound') {
      pv.status = { ...(pv.status ?? {}), phase: 'Bound' };
      delete pv.status.message;
      delete pv.status.reason;
      pv = (await pvs.update('', pv, { subresource: 'status' })) as Volume;
    }
    const name = pv.metadata.name!;
    const ann = claim.metadata.annotations ?? {};
    if (claim.spec?.volumeName !== name || ann[ANN_BIND_COMPLETED] !== 'yes') {
      const next: Record<string, string> = { ...ann, [ANN_BIND_COMPLETED]: 'yes' };
      if (claim.spec?.volumeName !== name) next[ANN_BOUND_BY_CONTROLLER] = 'yes';
      claim.metadata.annotations = next;
      claim.spec = { ...(claim.spec ?? {}), volumeName: name };
      claim = (await pvcs.update(claim.metadata.namespace!, claim)) as Claim;
    }
    const st = claim.status ?? {};
    const capacity = pv.spec?.capacity ?? {};
    const modes = pv.spec?.accessModes ?? [];
    // capacity follows the volume unless a resize is under way (the resizer owns it then)
    const resizing = !!st.allocatedResourceStatuses?.storage;
    if (st.phase !== 'Bound' || JSON.stringify(st.accessModes ?? []) !== JSON.stringify(modes) || (!resizing && !st.capacity)) {
      claim.status = { ...st, phase: 'Bound', accessModes: modes, capacity: resizing || st.capacity ? (st.capacity ?? capacity) : capacity };
      await pvcs.update(claim.metadata.namespace!, claim, { subresource: 'status' });
    }
  }

  private async setClaimPhase(claim: Claim, phase: string): Promise<void> {
    if (claim.status?.phase === phase) return;
    claim.status = { ...(claim.status ?? {}), phase };
    await this.ctx.client.resource('v1', 'persistentvolumeclaims').update(claim.metadata.namespace!, claim, { subresource: 'status' });
  }

  // ---- volumes ----

  private async syncVolume(pv: Volume): Promise<ReconcileResult | void> {
    const ref = pv.spec?.claimRef;
    // no claim, or pre-bound by the user (no uid yet): available (for that claim only)
    if (!ref || !ref.uid) {
      await this.setVolumePhase(pv, 'Available');
      return;
    }
    let claim = this.claims.get(ref.namespace ?? '', ref.name ?? '') as Claim | undefined;
    if (!claim || claim.metadata.uid !== ref.uid) {
      // the cache may lag: ask the API server before releasing anything
      try {
        claim = (await this.ctx.client.resource('v1', 'persistentvolumeclaims').get(ref.namespace ?? '', ref.name ?? '')) as Claim;
      } catch (e) {
        if (!isNotFound(e)) throw e;
        claim = undefined;
      }
    }
    if (!claim || claim.metadata.uid !== ref.uid) {
      // the claim is gone: Released, then reclaim
      if (pv.status?.phase !== 'Released' && pv.status?.phase !== 'Failed') {
        pv = await this.setVolumePhase(pv, 'Released');
      }
      return this.reclaim(pv);
    }
    const volumeName = claim.spec?.volumeName ?? '';
    if (!volumeName) {
      // bound by the scheduler or the user, the claim side is not done yet
      this.enqueue(`claim:${claimKeyOf(claim.metadata.namespace, claim.metadata.name)}`);
      return;
    }
    if (volumeName === pv.metadata.name) {
      await this.setVolumePhase(pv, 'Bound');
      return;
    }
    // the claim went to another volume: undo ours
    const pvs = this.ctx.client.resource('v1', 'persistentvolumes');
    if (hasAnn(pv, ANN_BOUND_BY_CONTROLLER)) {
      pv.spec!.claimRef = null;
      delete pv.metadata.annotations![ANN_BOUND_BY_CONTROLLER];
    } else {
      pv.spec!.claimRef = { ...ref, uid: '' };
      delete pv.spec!.claimRef.uid;
      delete pv.spec!.claimRef.resourceVersion;
    }
    pv = (await pvs.update('', pv)) as Volume;
    await this.setVolumePhase(pv, 'Available');
  }

  /** reclaimVolume: Retain keeps it; Delete of a provisioned volume waits for its provisioner; no in-tree deleters. */
  private async reclaim(pv: Volume): Promise<void> {
    if (pv.metadata.deletionTimestamp) return;
    const policy = pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain';
    if (policy === 'Retain' || pv.status?.phase === 'Failed') return;
    if (policy === 'Delete') {
      if (pv.metadata.annotations?.[ANN_PROVISIONED_BY] || pv.metadata.annotations?.[ANN_MIGRATED_TO]) return;
      const message = `error getting deleter volume plugin for volume "${pv.metadata.name}": no deletable volume plugin matched`;
      this.recorder.event(pv, 'Warning', 'VolumeFailedDelete', message);
      await this.setVolumePhase(pv, 'Failed', message);
      return;
    }
    const message = 'No recycler plugin found for the volume!';
    this.recorder.event(pv, 'Warning', 'VolumeFailedRecycle', message);
    await this.setVolumePhase(pv, 'Failed', message);
  }

  private async setVolumePhase(pv: Volume, phase: string, message?: string): Promise<Volume> {
    if (pv.status?.phase === phase && (message === undefined || pv.status.message === message)) return pv;
    pv.status = { ...(pv.status ?? {}), phase, lastPhaseTransitionTime: rfc3339(this.ctx.now()) };
    if (message !== undefined) pv.status.message = message;
    else delete pv.status.message;
    return (await this.ctx.client.resource('v1', 'persistentvolumes').update('', pv, { subresource: 'status' })) as Volume;
  }
}

export function persistentVolumeController(opts: PersistentVolumeControllerOptions = {}): ControllerFactory {
  return (ctx) => new PersistentVolumeController(ctx, opts);
}
