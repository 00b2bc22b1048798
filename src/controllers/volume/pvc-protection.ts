// The PVC protection controller (pkg/controller/volume/pvcprotection): every claim carries the
// kubernetes.io/pvc-protection finalizer; a claim being deleted keeps it — and stays Terminating — while a scheduled
// pod uses it. The informer's answer "unused" is confirmed by a live pod list before removal.
import type { KObject } from '../../api/types.js';
import type { Informer } from '../../client/informer.js';
import { splitKey } from '../../client/informer.js';
import { clone } from '../../machinery/object.js';
import { StatusError } from '../../machinery/errors.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { PVC_PROTECTION_FINALIZER, podUsesClaim, type Claim } from '../../api/core/persistentvolume/claims.js';

/** podIsShutDown: the kubelet is done with the pod (terminated), or it was force-deleted. */
function podIsShutDown(pod: KObject): boolean {
  const phase = (pod as { status?: { phase?: string } }).status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  return !!pod.metadata.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0;
}

/**
 * podUsesPVC: only scheduled pods count (the kubelet refuses to start a pod whose claim is being deleted). A direct
 * reference keeps the claim for as long as the pod object exists, even finished; a generic ephemeral claim is
 * released as soon as its pod is shut down.
 */
function podBlocks(pod: KObject, claimName: string): boolean {
  if (!(pod as { spec?: { nodeName?: string } }).spec?.nodeName) return false;
  const vols = ((pod as { spec?: { volumes?: { name?: string; persistentVolumeClaim?: { claimName?: string }; ephemeral?: unknown }[] } }).spec?.volumes ?? []);
  return vols.some((v) => v.persistentVolumeClaim?.claimName === claimName || (!!v.ephemeral && `${pod.metadata.name}-${v.name}` === claimName && !podIsShutDown(pod)));
}

export class PvcProtectionController extends Reconciler {
  readonly name = 'pvc-protection';
  private claims!: Informer;
  private pods!: Informer;

  constructor(ctx: ControllerContext) {
    super(ctx, { workers: 2, maxDelayMs: 30_000 });
  }

  setup(): void {
    this.claims = this.informer('v1', 'persistentvolumeclaims');
    this.pods = this.informer('v1', 'pods');
    this.claims.addHandler({ add: (c) => this.enqueueObject(c), update: (_, c) => this.enqueueObject(c) });
    // a pod going away (or finishing) may free the claims it used
    const pod = (p: KObject) => {
      for (const c of this.claims.list(p.metadata.namespace)) if (c.metadata.deletionTimestamp && podUsesClaim(p, c.metadata.name!)) this.enqueueObject(c);
    };
    this.pods.addHandler({ add: pod, update: (_, p) => pod(p), delete: pod });
  }

  async reconcile(key: string): Promise<void> {
    const cached = this.claims.getByKey(key) as Claim | undefined;
    if (!cached) return;
    const finalizers = cached.metadata.finalizers ?? [];
    const has = finalizers.includes(PVC_PROTECTION_FINALIZER);
    const rc = this.ctx.client.resource('v1', 'persistentvolumeclaims');
    const { namespace, name } = splitKey(key);
    if (!cached.metadata.deletionTimestamp) {
      if (has) return;
      const next = clone(cached);
      next.metadata.finalizers = [...finalizers, PVC_PROTECTION_FINALIZER];
      await rc.update(namespace, next).catch(ignoreNotFound);
      return;
    }
    if (!has) return;
    if (this.pods.list(namespace).some((p) => podBlocks(p, name))) return;
    // the cache may not have seen a new pod yet: ask the API server
    const live = await this.ctx.client.resource('v1', 'pods').list(namespace);
    if (live.items.some((p) => podBlocks(p, name))) return;
    const next = clone(cached);
    next.metadata.finalizers = finalizers.filter((f) => f !== PVC_PROTECTION_FINALIZER);
    await rc.update(namespace, next).catch(ignoreNotFound);
  }
}

function ignoreNotFound(e: unknown): void {
  if (!(e instanceof StatusError && e.code === 404)) throw e;
}

export function pvcProtectionController(): ControllerFactory {
  return (ctx) => new PvcProtectionController(ctx);
}
