// The Endpoints controller (pkg/controller/endpoint, 1.33): for every Service with a selector, an Endpoints
// object of the same name listing the selected pods' addresses, ready or not, per resolved port.
import { repackSubsets, type EndpointAddress, type EndpointPort, type EndpointSubset, type Endpoints } from '../../api/core/endpoints.js';
import type { Pod } from '../../api/core/pod/types.js';
import type { Service } from '../../api/core/service/types.js';
import type { KObject } from '../../api/types.js';
import { splitKey, type Informer } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import { clone, deepEqual } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import {
  findPort,
  isIPv6,
  isNamespaceTerminating,
  isServiceIPSet,
  LABEL_HEADLESS,
  podIPs,
  podsForService,
  servicesForPod,
  servicesForPodUpdate,
  setTriggerTime,
  shouldPodBeInEndpoints,
  shouldSetHostname,
  TriggerTimeTracker,
} from './util.js';
import { isPodReady } from '../framework/pod-util.js';

/** maxCapacity: more addresses than this are truncated and the Endpoints annotated. */
export const ENDPOINTS_MAX_CAPACITY = 1000;
export const ANNOTATION_OVER_CAPACITY = 'endpoints.kubernetes.io/over-capacity';
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

/** podToEndpointAddressForService: the pod's IP of the Service's (first) family, node and target reference. */
function podAddress(svc: Service, pod: Pod): EndpointAddress | undefined {
  let v6: boolean;
  const fam = svc.spec?.ipFamilies?.[0];
  if (fam) v6 = fam === 'IPv6';
  else if (isServiceIPSet(svc)) v6 = isIPv6(svc.spec!.clusterIP!);
  else v6 = isIPv6((pod.status?.podIP as string | undefined) ?? '');
  const ip = podIPs(pod).find((a) => isIPv6(a) === v6);
  if (!ip) return undefined;
  const addr: EndpointAddress = {
    ip,
    nodeName: (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '',
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
  };
  if (shouldSetHostname(pod, svc)) addr.hostname = (pod.spec as { hostname?: string }).hostname;
  return addr;
}

/** The subsets the Service's pods make, repacked (one address per pod and resolved port, then grouped). */
export function desiredSubsets(svc: Service, pods: Pod[]): EndpointSubset[] {
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
  const subsets: EndpointSubset[] = [];
  const add = (pod: Pod, addr: EndpointAddress, port?: EndpointPort) => {
    const ready = publishNotReady || isPodReady(pod);
    subsets.push({ [ready ? 'addresses' : 'notReadyAddresses']: [addr], ports: port ? [port] : [] });
  };
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, { includeTerminating: publishNotReady })) continue;
    const addr = podAddress(svc, pod);
    if (!addr) continue;
    const ports = svc.spec?.ports ?? [];
    if (ports.length === 0) {
      // a headless Service may have no ports at all
      if (svc.spec?.clusterIP === 'None') add(pod, addr);
      continue;
    }
    for (const sp of ports) {
      const num = findPort(pod, sp);
      if (num === undefined) continue; // the pod does not serve this named port
      const port: EndpointPort = { name: sp.name ?? '', port: num, protocol: sp.protocol ?? 'TCP' };
      if (sp.appProtocol !== undefined && sp.appProtocol !== null) port.appProtocol = sp.appProtocol;
      add(pod, addr, port);
    }
  }
  return repackSubsets(subsets);
}

const countAddresses = (subsets: EndpointSubset[]) => subsets.reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);

/** truncateEndpoints: keeps ready addresses first, each subset its proportional share of the capacity. */
export function truncateSubsets(subsets: EndpointSubset[], max = ENDPOINTS_MAX_CAPACITY): boolean {
  const ready = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const notReady = subsets.reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
  if (ready + notReady <= max) return false;
  const truncateReady = ready > max;
  const budget = truncateReady ? max : max - ready;
  const total = truncateReady ? ready : notReady;
  let left = budget;
  for (const s of subsets) {
    const inSubset = (truncateReady ? s.addresses : s.notReadyAddresses)?.length ?? 0;
    const share = Math.min(Math.ceil((inSubset / total) * budget), left);
    if (truncateReady) {
      s.addresses = (s.addresses ?? []).slice(0, share);
      s.notReadyAddresses = [];
      left -= s.addresses.length;
    } else {
      s.notReadyAddresses = (s.notReadyAddresses ?? []).slice(0, share);
      left -= s.notReadyAddresses.length;
    }
  }
  return true;
}

/** Subsets compared with the pods' resourceVersions in targetRef ignored. */
function sameSubsets(a: EndpointSubset[] | null | undefined, b: EndpointSubset[]): boolean {
  const strip = (ss: EndpointSubset[] | null | undefined) =>
    (ss ?? []).map((s) => {
      const addrs = (l?: EndpointAddress[] | null) => (l ?? []).map((x) => (x.targetRef ? { ...x, targetRef: { ...x.targetRef, resourceVersion: undefined } } : x));
      return { addresses: addrs(s.addresses), notReadyAddresses: addrs(s.notReadyAddresses), ports: s.ports ?? [] };
    });
  return deepEqual(strip(a), strip(b));
}

function withoutKey(m: Record<string, string> | undefined, key: string): Record<string, string> {
  const out = { ...(m ?? {}) };
  delete out[key];
  return out;
}

export class EndpointsController extends Reconciler {
  readonly name = 'endpoints';
  private services!: Informer;
  private pods!: Informer;
  private endpoints!: Informer;
  private readonly triggerTimes = new TriggerTimeTracker();
  /** resourceVersions we replaced: seeing one in the cache means the cache has not caught up yet */
  private readonly stale = new Map<string, string>();

  constructor(ctx: ControllerContext) {
    super(ctx);
  }

  setup(): void {
    this.services = this.informer('v1', 'services');
    this.pods = this.informer('v1', 'pods');
    this.endpoints = this.informer('v1', 'endpoints');
    this.watchOwn(this.services);
    const forPod = (p: KObject) => servicesForPod(this.services, p).forEach((k) => this.enqueue(k));
    this.pods.addHandler({
      add: forPod,
      update: (o, n) => servicesForPodUpdate(this.services, o as Pod, n as Pod).forEach((k) => this.enqueue(k)),
      delete: forPod,
    });
    this.endpoints.addHandler({ delete: (o) => this.enqueueObject(o) });
  }

  override run(): void {
    super.run();
    // checkLeftoverEndpoints: Endpoints whose Service went away while nobody watched
    for (const ep of this.endpoints.list()) {
      if (ep.metadata.annotations?.[LEADER_ANNOTATION] === undefined) this.enqueueObject(ep);
    }
  }

  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const svc = this.services.get(namespace, name) as Service | undefined;
    const epClient = this.ctx.client.resource('v1', 'endpoints');
    if (!svc) {
      await epClient.delete(namespace, name).catch((e) => {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      });
      this.triggerTimes.delete(key);
      this.stale.delete(key);
      return;
    }
    if (svc.spec?.type === 'ExternalName') return;
    // without a selector the Endpoints are the user's to write
    if (svc.spec?.selector === undefined || svc.spec.selector === null) return;

    const pods = podsForService(this.pods, svc);
    const triggerTime = this.triggerTimes.compute(svc, pods);
    const subsets = desiredSubsets(svc, pods);

    const current = this.endpoints.get(namespace, name) as Endpoints | undefined;
    if (current && this.stale.get(key) === current.metadata.resourceVersion) {
      throw new Error(`endpoints informer cache is out of date, resource version ${current.metadata.resourceVersion} already processed for endpoints ${key}`);
    }
    const svcLabels = svc.metadata.labels ?? {};
    if (
      current &&
      sameSubsets(current.subsets, subsets) &&
      deepEqual(withoutKey(current.metadata.labels, LABEL_HEADLESS), svcLabels) &&
      countAddresses(current.subsets ?? []) <= ENDPOINTS_MAX_CAPACITY &&
      current.metadata.annotations?.[ANNOTATION_OVER_CAPACITY] === undefined
    ) {
      return;
    }

    const next: Endpoints = current ? clone(current) : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace } };
    next.subsets = subsets;
    next.metadata.labels = { ...svcLabels };
    const annotations = (next.metadata.annotations ??= {});
    if (truncateSubsets(subsets)) annotations[ANNOTATION_OVER_CAPACITY] = 'truncated';
    else delete annotations[ANNOTATION_OVER_CAPACITY];
    if (!isServiceIPSet(svc)) next.metadata.labels[LABEL_HEADLESS] = '';
    else delete next.metadata.labels[LABEL_HEADLESS];
    setTriggerTime(next, triggerTime);

    const recorder = this.ctx.recorder('endpoint-controller');
    try {
      if (!current) {
        await epClient.create(namespace, next);
      } else {
        const updated = await epClient.update(namespace, next);
        if (updated.metadata.resourceVersion !== current.metadata.resourceVersion) this.stale.set(key, current.metadata.resourceVersion ?? '');
      }
    } catch (e) {
      // a terminating namespace refuses new objects for good: drop the key
      if (!current && isNamespaceTerminating(e)) return;
      const msg = (e as Error).message;
      if (!current) recorder.event(next, 'Warning', 'FailedToCreateEndpoint', `Failed to create endpoint for service ${namespace}/${name}: ${msg}`);
      else recorder.event(next, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${namespace}/${name}: ${msg}`);
      throw e;
    }
  }
}

/** The Endpoints controller, as kube-controller-manager's "endpoints" controller. */
export function endpointsController(): ControllerFactory {
  return (ctx) => new EndpointsController(ctx);
}
