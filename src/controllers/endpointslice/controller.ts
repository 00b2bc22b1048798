// The EndpointSlice controller (pkg/controller/endpointslice, 1.33): for every Service with a selector, the
// EndpointSlices `<service>-<random>` holding its pods as endpoints, at most maxEndpointsPerSlice each.
import type { Pod } from '../../api/core/pod/types.js';
import type { Service } from '../../api/core/service/types.js';
import type { EndpointSlice } from '../../api/discovery/endpointslice/validation.js';
import { LABEL_SERVICE_NAME } from '../../api/discovery/endpointslice/resource.js';
import type { KObject } from '../../api/types.js';
import { objectKey, splitKey, type Informer } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { isNamespaceTerminating, LABEL_ZONE, podsForService, servicesForPod, servicesForPodUpdate, setTriggerTime, TriggerTimeTracker } from '../endpoints/util.js';
import { ENDPOINTSLICE_CONTROLLER_NAME, LABEL_MANAGED_BY, planSlices, recycleSlices } from './reconciler.js';
import { EndpointSliceTracker } from './tracker.js';

export interface EndpointSliceControllerOptions {
  /** --max-endpoints-per-slice (default 100) */
  maxEndpointsPerSlice?: number;
}

const NODE_INDEX = 'endpointslice:spec.nodeName';

export class EndpointSliceController extends Reconciler {
  readonly name = 'endpointslice';
  private services!: Informer;
  private pods!: Informer;
  private nodes!: Informer;
  private slices!: Informer;
  private readonly tracker = new EndpointSliceTracker();
  private readonly triggerTimes = new TriggerTimeTracker();
  private readonly maxEndpointsPerSlice: number;

  constructor(ctx: ControllerContext, opts: EndpointSliceControllerOptions = {}) {
    super(ctx);
    this.maxEndpointsPerSlice = opts.maxEndpointsPerSlice ?? 100;
  }

  setup(): void {
    this.services = this.informer('v1', 'services');
    this.pods = this.informer('v1', 'pods');
    this.nodes = this.informer('v1', 'nodes');
    this.slices = this.informer('discovery.k8s.io/v1', 'endpointslices');
    this.watchOwn(this.services);
    this.pods.addIndex(NODE_INDEX, (p) => [(p as Pod).spec?.nodeName ?? '']);
    const forPod = (p: KObject) => servicesForPod(this.services, p).forEach((k) => this.enqueue(k));
    this.pods.addHandler({
      add: forPod,
      update: (o, n) => servicesForPodUpdate(this.services, o as Pod, n as Pod).forEach((k) => this.enqueue(k)),
      delete: forPod,
    });
    // A node appearing or changing zone changes its pods' endpoints (kube waits for its retry instead).
    const forNode = (n: KObject) => {
      for (const p of this.pods.byIndex(NODE_INDEX, n.metadata.name ?? '')) forPod(p);
    };
    this.nodes.addHandler({
      add: forNode,
      update: (o, n) => {
        if (o.metadata.labels?.[LABEL_ZONE] !== n.metadata.labels?.[LABEL_ZONE]) forNode(n);
      },
      delete: forNode,
    });
    const managed = (s: KObject) => s.metadata.labels?.[LABEL_MANAGED_BY] === ENDPOINTSLICE_CONTROLLER_NAME;
    const forSlice = (s: KObject) => {
      const svc = s.metadata.labels?.[LABEL_SERVICE_NAME];
      if (svc) this.enqueue(`${s.metadata.namespace}/${svc}`);
    };
    this.slices.addHandler({
      add: (s) => {
        if (managed(s) && this.tracker.shouldSync(s as EndpointSlice)) forSlice(s);
      },
      update: (o, s) => {
        if (o.metadata.labels?.[LABEL_SERVICE_NAME] !== s.metadata.labels?.[LABEL_SERVICE_NAME]) {
          forSlice(o);
          forSlice(s);
        } else if (managed(o) !== managed(s) || (managed(s) && this.tracker.shouldSync(s as EndpointSlice))) forSlice(s);
      },
      delete: (s) => {
        if (managed(s) && this.tracker.has(s as EndpointSlice) && !this.tracker.handleDeletion(s as EndpointSlice)) forSlice(s);
      },
    });
  }

  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const svc = this.services.get(namespace, name) as Service | undefined;
    if (!svc) {
      // the garbage collector removes the slices through their ownerReferences
      this.triggerTimes.delete(key);
      this.tracker.deleteService(key);
      return;
    }
    if (svc.spec?.type === 'ExternalName') return;
    if (svc.spec?.selector === undefined || svc.spec.selector === null) return;

    const pods = podsForService(this.pods, svc);
    const slices = (this.slices.list(namespace) as EndpointSlice[]).filter(
      (s) => s.metadata.labels?.[LABEL_SERVICE_NAME] === name && s.metadata.labels?.[LABEL_MANAGED_BY] === ENDPOINTSLICE_CONTROLLER_NAME && !s.metadata.deletionTimestamp,
    );
    if (this.tracker.staleSlices(key, slices)) throw new Error('EndpointSlice informer cache is out of date');
    const triggerTime = this.triggerTimes.compute(svc, pods);

    const plan = planSlices({ svc, pods, slices, node: (n) => this.nodes.get('', n), maxEndpointsPerSlice: this.maxEndpointsPerSlice });
    try {
      await this.apply(svc, plan, triggerTime);
      if (plan.errors.length) throw new Error(plan.errors.join(', '));
    } catch (e) {
      const msg = (e as Error).message;
      this.ctx.recorder('endpoint-slice-controller').event(svc, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${key}: ${msg}`);
      throw e;
    }
  }

  /** finalize: recycle deletions into creations, then create (unless the Service is going), update, delete. */
  private async apply(svc: Service, plan: ReturnType<typeof planSlices>, triggerTime: number | undefined): Promise<void> {
    recycleSlices(plan, svc);
    const rc = this.ctx.client.resource('discovery.k8s.io/v1', 'endpointslices');
    const ns = svc.metadata.namespace ?? '';
    const key = objectKey(svc);
    if (!svc.metadata.deletionTimestamp) {
      for (const s of plan.create) {
        setTriggerTime(s, triggerTime);
        try {
          this.tracker.update((await rc.create(ns, s)) as EndpointSlice);
        } catch (e) {
          if (isNamespaceTerminating(e)) return;
          throw new Error(`failed to create EndpointSlice for Service ${key}: ${(e as Error).message}`);
        }
      }
    }
    for (const s of plan.update) {
      setTriggerTime(s, triggerTime);
      try {
        this.tracker.update((await rc.update(ns, s)) as EndpointSlice);
      } catch (e) {
        throw new Error(`failed to update ${s.metadata.name} EndpointSlice for Service ${key}: ${(e as Error).message}`);
      }
    }
    for (const s of plan.delete) {
      // expected before the delete, whose watch event may come before the call returns
      this.tracker.expectDeletion(s);
      try {
        await rc.delete(ns, s.metadata.name!);
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) {
          this.tracker.handleDeletion(s);
          continue;
        }
        this.tracker.update(s);
        throw new Error(`failed to delete ${s.metadata.name} EndpointSlice for Service ${key}: ${(e as Error).message}`);
      }
    }
  }
}

/** The EndpointSlice controller, as kube-controller-manager's "endpointslice" controller. */
export function endpointSliceController(opts: EndpointSliceControllerOptions = {}): ControllerFactory {
  return (ctx) => new EndpointSliceController(ctx, opts);
}

export { endpointSliceMirroringController } from './mirroring.js';
