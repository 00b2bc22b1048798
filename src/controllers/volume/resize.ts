// Volume expansion as kube's expand controller plus the external-resizer do it for a filesystem volume that needs no
// node-side expansion (local-path directories have no size to grow), with RecoverVolumeExpansionFailure (beta, on in
// 1.33): a bound claim asking for more than its capacity is marked ControllerResizeInProgress (allocatedResources,
// condition Resizing), its PV's capacity is raised, then the claim's capacity follows and the resize status clears.
import type { Informer } from '../../client/informer.js';
import { quantityOf } from '../../api/core/persistentvolume/util.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events.js';
import { LOCAL_PATH_PROVISIONER } from './local-path-provisioner.js';
import { ANN_PROVISIONED_BY, claimClassName, type Claim, type Class, type Volume } from '../../api/core/persistentvolume/claims.js';

export interface VolumeResizerOptions {
  /** the provisioners whose volumes this resizer grows (default: the local-path provisioner) */
  provisioners?: string[];
}

export class VolumeResizer extends Reconciler {
  readonly name = 'volume-resizer';
  private claims!: Informer;
  private volumes!: Informer;
  private classes!: Informer;
  private readonly provisioners: Set<string>;
  private readonly recorders = new Map<string, EventRecorder>();

  constructor(ctx: ControllerContext, opts: VolumeResizerOptions = {}) {
    super(ctx, { workers: 1, maxDelayMs: 30_000 });
    this.provisioners = new Set(opts.provisioners ?? [LOCAL_PATH_PROVISIONER]);
  }

  setup(): void {
    this.claims = this.informer('v1', 'persistentvolumeclaims');
    this.volumes = this.informer('v1', 'persistentvolumes');
    this.classes = this.informer('storage.k8s.io/v1', 'storageclasses');
    this.claims.addHandler({ add: (c) => this.enqueueObject(c), update: (_, c) => this.enqueueObject(c) });
  }

  /** external-resizer records events as "external-resizer <driver>". */
  private recorder(provisioner: string): EventRecorder {
    let r = this.recorders.get(provisioner);
    if (!r) this.recorders.set(provisioner, (r = this.ctx.recorder(`external-resizer ${provisioner}`)));
    return r;
  }

  async reconcile(key: string): Promise<void> {
    const cached = this.claims.getByKey(key) as Claim | undefined;
    if (!cached || cached.status?.phase !== 'Bound' || !cached.spec?.volumeName) return;
    const want = cached.spec.resources?.requests?.storage;
    const have = cached.status.capacity?.storage;
    if (!want || !have || quantityOf(want).cmp(quantityOf(have)) <= 0) return;
    const cls = this.classes.get('', claimClassName(cached)) as Class | undefined;
    if (cls?.allowVolumeExpansion !== true) return;
    const pvCached = this.volumes.get('', cached.spec.volumeName) as Volume | undefined;
    const provisioner = pvCached?.metadata.annotations?.[ANN_PROVISIONED_BY] ?? '';
    if (!pvCached || !this.provisioners.has(provisioner)) return;
    const events = this.recorder(provisioner);
    const pvcs = this.ctx.client.resource('v1', 'persistentvolumeclaims');
    const ns = cached.metadata.namespace!;
    const now = rfc3339(this.ctx.now());

    // 1. the controller-side resize starts
    let claim = clone(cached);
    const st = (claim.status ??= {});
    st.allocatedResources = { ...(st.allocatedResources ?? {}), storage: want };
    st.allocatedResourceStatuses = { ...(st.allocatedResourceStatuses ?? {}), storage: 'ControllerResizeInProgress' };
    st.conditions = [...(st.conditions ?? []).filter((c) => c.type !== 'Resizing'), { type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: now }];
    claim = (await pvcs.update(ns, claim, { subresource: 'status' })) as Claim;
    events.event(claim, 'Normal', 'Resizing', `External resizer is resizing volume ${pvCached.metadata.name}`);

    // 2. the volume grows (nothing to do on disk: a directory has no size)
    const pv = clone(pvCached);
    if (quantityOf(pv.spec?.capacity?.storage).cmp(quantityOf(want)) < 0) {
      pv.spec = { ...(pv.spec ?? {}), capacity: { ...(pv.spec?.capacity ?? {}), storage: want } };
      await this.ctx.client.resource('v1', 'persistentvolumes').update('', pv);
    }

    // 3. no node expansion needed: the claim's capacity follows and the resize is over
    const done = claim.status ?? {};
    done.capacity = { ...(done.capacity ?? {}), storage: want };
    if (done.allocatedResourceStatuses) {
      delete done.allocatedResourceStatuses.storage;
      if (!Object.keys(done.allocatedResourceStatuses).length) delete done.allocatedResourceStatuses;
    }
    done.conditions = (done.conditions ?? []).filter((c) => c.type !== 'Resizing' && c.type !== 'FileSystemResizePending');
    if (!done.conditions.length) delete done.conditions;
    claim.status = done;
    await pvcs.update(ns, claim, { subresource: 'status' });
    events.event(claim, 'Normal', 'VolumeResizeSuccessful', 'Resize volume succeeded');
  }
}

export function volumeResizer(opts: VolumeResizerOptions = {}): ControllerFactory {
  return (ctx) => new VolumeResizer(ctx, opts);
}
