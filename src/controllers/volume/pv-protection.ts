// The PV protection controller (pkg/controller/volume/pvprotection): every PersistentVolume carries the
// kubernetes.io/pv-protection finalizer, removed once the volume being deleted is no longer Bound to a claim.
import type { Informer } from '../../client/informer.js';
import { clone } from '../../machinery/object.js';
import { StatusError } from '../../machinery/errors.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { PV_PROTECTION_FINALIZER, type Volume } from '../../api/core/persistentvolume/claims.js';

export class PvProtectionController extends Reconciler {
  readonly name = 'pv-protection';
  private volumes!: Informer;

  constructor(ctx: ControllerContext) {
    super(ctx, { workers: 1, maxDelayMs: 30_000 });
  }

  setup(): void {
    this.volumes = this.informer('v1', 'persistentvolumes');
    this.volumes.addHandler({ add: (v) => this.enqueueObject(v), update: (_, v) => this.enqueueObject(v) });
  }

  async reconcile(key: string): Promise<void> {
    const cached = this.volumes.getByKey(key) as Volume | undefined;
    if (!cached) return;
    const finalizers = cached.metadata.finalizers ?? [];
    const has = finalizers.includes(PV_PROTECTION_FINALIZER);
    const next = clone(cached);
    if (!cached.metadata.deletionTimestamp) {
      if (has) return;
      next.metadata.finalizers = [...finalizers, PV_PROTECTION_FINALIZER];
    } else {
      if (!has || cached.status?.phase === 'Bound') return;
      next.metadata.finalizers = finalizers.filter((f) => f !== PV_PROTECTION_FINALIZER);
    }
    try {
      await this.ctx.client.resource('v1', 'persistentvolumes').update('', next);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
}

export function pvProtectionController(): ControllerFactory {
  return (ctx) => new PvProtectionController(ctx);
}
