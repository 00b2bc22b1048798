// The ephemeral volume controller (pkg/controller/volume/ephemeral): for every generic ephemeral volume of a pod it
// creates the claim <pod>-<volume> from the volume's claim template, owned (controller, blockOwnerDeletion) by the
// pod, so the garbage collector removes it with the pod. A claim of that name not owned by the pod is an error, shown
// as a FailedBinding event on the pod; the kubelet refuses such a claim too.
import type { KObject } from '../../api/types.js';
import type { Informer } from '../../client/informer.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events.js';

export const EPHEMERAL_VOLUME_COMPONENT = 'ephemeral_volume';

interface EphemeralVolume {
  name?: string;
  ephemeral?: { volumeClaimTemplate?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> } };
}
type PodLike = KObject & { spec?: { volumes?: EphemeralVolume[] } };

const ephemeralVolumes = (pod: PodLike): EphemeralVolume[] => (pod.spec?.volumes ?? []).filter((v) => v.ephemeral && typeof v.ephemeral === 'object');

/** ephemeral.VolumeIsForPod */
function notForPod(pod: KObject, claim: KObject): string | undefined {
  const owned = claim.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === pod.metadata.uid);
  if (owned) return undefined;
  return `PVC ${claim.metadata.namespace}/${claim.metadata.name} was not created for pod ${pod.metadata.namespace}/${pod.metadata.name} (pod is not owner)`;
}

export class EphemeralVolumeController extends Reconciler {
  readonly name = 'ephemeral-volume';
  private pods!: Informer;
  private claims!: Informer;
  private readonly recorder: EventRecorder;

  constructor(ctx: ControllerContext) {
    super(ctx, { workers: 2, maxDelayMs: 30_000 });
    this.recorder = ctx.recorder(EPHEMERAL_VOLUME_COMPONENT);
  }

  setup(): void {
    this.pods = this.informer('v1', 'pods');
    this.claims = this.informer('v1', 'persistentvolumeclaims');
    const pod = (p: KObject) => {
      if (!p.metadata.deletionTimestamp && ephemeralVolumes(p as PodLike).length) this.enqueueObject(p);
    };
    this.pods.addHandler({ add: pod, update: (_, p) => pod(p) });
    // a deleted claim is re-created while its pod still exists
    this.claims.addHandler({
      delete: (c) => {
        for (const o of c.metadata.ownerReferences ?? []) if (o.kind === 'Pod' && o.controller) this.enqueue(`${c.metadata.namespace}/${o.name}`);
      },
    });
  }

  async reconcile(key: string): Promise<void> {
    const pod = this.pods.getByKey(key) as PodLike | undefined;
    if (!pod || pod.metadata.deletionTimestamp) return;
    for (const v of ephemeralVolumes(pod)) {
      const err = await this.handleVolume(pod, v).then(() => undefined, (e: Error) => e.message);
      if (err) {
        this.recorder.event(pod, 'Warning', 'FailedBinding', `ephemeral volume ${v.name}: ${err}`);
        throw new Error(`pod ${key}, ephemeral volume ${v.name}: ${err}`);
      }
    }
  }

  private async handleVolume(pod: PodLike, v: EphemeralVolume): Promise<void> {
    const namespace = pod.metadata.namespace ?? 'default';
    const name = `${pod.metadata.name}-${v.name}`;
    const existing = this.claims.get(namespace, name);
    if (existing) {
      const why = notForPod(pod, existing);
      if (why) throw new Error(why);
      return;
    }
    const template = v.ephemeral?.volumeClaimTemplate ?? {};
    const claim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name,
        namespace,
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name!, uid: pod.metadata.uid!, controller: true, blockOwnerDeletion: true }],
        ...(template.metadata?.labels ? { labels: { ...template.metadata.labels } } : {}),
        ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      },
      spec: structuredClone(template.spec ?? {}),
    } as KObject;
    // AlreadyExists (a cache behind the API) fails this pass too; the retry checks the claim that exists
    await this.ctx.client.resource('v1', 'persistentvolumeclaims').create(namespace, claim).catch((e: Error) => {
      throw new Error(`create PVC ${name}: ${e.message}`);
    });
  }
}

export function ephemeralVolumeController(): ControllerFactory {
  return (ctx) => new EphemeralVolumeController(ctx);
}
