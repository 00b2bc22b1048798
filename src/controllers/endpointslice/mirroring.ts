// The EndpointSlice mirroring controller (pkg/controller/endpointslicemirroring, 1.33): a Service without a
// selector whose Endpoints a user writes gets those addresses mirrored into EndpointSlices, one slice per
// subset and address type, at most maxEndpointsPerSubset addresses each.
import type { EndpointAddress, EndpointPort as CoreEndpointPort, Endpoints } from '../../api/core/endpoints.js';
import type { Service } from '../../api/core/service/types.js';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../api/discovery/endpointslice/validation.js';
import { LABEL_SERVICE_NAME } from '../../api/discovery/endpointslice/resource.js';
import { parseIP, to4 } from '../../api/networking/ip.js';
import type { KObject } from '../../api/types.js';
import { splitKey, type Informer } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import { deepEqual } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import { ANNOTATION_TRIGGER_TIME, isNamespaceTerminating } from '../endpoints/util.js';
import { endpointKey, endpointsEqualBeyondKey, LABEL_MANAGED_BY, portMapKey } from './reconciler.js';
import { EndpointSliceTracker } from './tracker.js';

export const MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';
const LABEL_SKIP_MIRROR = 'endpointslice.kubernetes.io/skip-mirror';
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export interface MirroringOptions {
  /** --mirroring-max-endpoints-per-subset (default 1000) */
  maxEndpointsPerSubset?: number;
}

const shouldMirror = (ep: KObject | undefined) =>
  !!ep && ep.metadata.labels?.[LABEL_SKIP_MIRROR] !== 'true' && ep.metadata.annotations?.[LEADER_ANNOTATION] === undefined;

/** addressToEndpoint: the address re-printed, its readiness, target, node and hostname; undefined for a bad IP. */
function addressToEndpoint(a: EndpointAddress, ready: boolean): { ep: Endpoint; type: string } | undefined {
  const ip = parseIP(a.ip ?? '');
  if (!ip) return undefined;
  const v4 = to4(ip);
  const ep: Endpoint = { addresses: [v4 ? v4.join('.') : canonicalIPv6(a.ip!)], conditions: { ready } };
  if (a.targetRef) ep.targetRef = { ...a.targetRef };
  if (a.nodeName !== undefined && a.nodeName !== null) ep.nodeName = a.nodeName;
  if (a.hostname) ep.hostname = a.hostname;
  return { ep, type: v4 ? 'IPv4' : 'IPv6' };
}

/** net.IP.String() for IPv6: the URL parser prints the same RFC 5952 form. */
function canonicalIPv6(ip: string): string {
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}

const toSlicePorts = (ports: CoreEndpointPort[] | null | undefined): EndpointPort[] =>
  (ports ?? []).map((p) => {
    const out: EndpointPort = { name: p.name ?? '', port: p.port ?? 0, protocol: p.protocol ?? 'TCP' };
    if (p.appProtocol !== undefined && p.appProtocol !== null) out.appProtocol = p.appProtocol;
    return out;
  });

function mirroredMeta(ep: Endpoints): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels = { ...(ep.metadata.labels ?? {}), [LABEL_SERVICE_NAME]: ep.metadata.name!, [LABEL_MANAGED_BY]: MIRRORING_CONTROLLER_NAME };
  const annotations = { ...(ep.metadata.annotations ?? {}) };
  delete annotations[ANNOTATION_TRIGGER_TIME];
  delete annotations[LAST_APPLIED];
  return { labels, annotations };
}

function newMirroredSlice(ep: Endpoints, ports: EndpointPort[], addressType: string, name: string | undefined, endpoints: Endpoint[]): EndpointSlice {
  const epName = ep.metadata.name!;
  const meta: KObject['metadata'] = {
    namespace: ep.metadata.namespace,
    ...mirroredMeta(ep),
    ownerReferences: [{ apiVersion: 'v1', kind: 'Endpoints', name: epName, uid: ep.metadata.uid!, controller: true, blockOwnerDeletion: true }],
  } as KObject['metadata'];
  if (name) meta.name = name;
  else meta.generateName = `${epName}-`;
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta, addressType, endpoints, ports } as EndpointSlice;
}

export class EndpointSliceMirroringController extends Reconciler {
  readonly name = 'endpointslicemirroring';
  private services!: Informer;
  private endpoints!: Informer;
  private slices!: Informer;
  private readonly tracker = new EndpointSliceTracker();
  private readonly maxPerSubset: number;

  constructor(ctx: ControllerContext, opts: MirroringOptions = {}) {
    super(ctx);
    this.maxPerSubset = opts.maxEndpointsPerSubset ?? 1000;
  }

  setup(): void {
    this.services = this.informer('v1', 'services');
    this.endpoints = this.informer('v1', 'endpoints');
    this.slices = this.informer('discovery.k8s.io/v1', 'endpointslices');
    const noSelector = (s: KObject) => (s as Service).spec?.selector === undefined || (s as Service).spec?.selector === null;
    this.services.addHandler({
      add: (s) => noSelector(s) && this.enqueueObject(s),
      update: (o, s) => noSelector(o) !== noSelector(s) && this.enqueueObject(s),
      delete: (s) => noSelector(s) && this.enqueueObject(s),
    });
    this.endpoints.addHandler({
      add: (e) => shouldMirror(e) && this.enqueueObject(e),
      update: (o, e) => (shouldMirror(o) || shouldMirror(e)) && this.enqueueObject(e),
      delete: (e) => shouldMirror(e) && this.enqueueObject(e),
    });
    const managed = (s: KObject) => s.metadata.labels?.[LABEL_MANAGED_BY] === MIRRORING_CONTROLLER_NAME;
    const forSlice = (s: KObject) => {
      const n = s.metadata.labels?.[LABEL_SERVICE_NAME];
      if (n) this.enqueue(`${s.metadata.namespace}/${n}`);
    };
    this.slices.addHandler({
      add: (s) => managed(s) && this.tracker.shouldSync(s as EndpointSlice) && forSlice(s),
      update: (o, s) => {
        if (o.metadata.labels?.[LABEL_SERVICE_NAME] !== s.metadata.labels?.[LABEL_SERVICE_NAME]) {
          forSlice(o);
          forSlice(s);
        } else if (managed(o) !== managed(s) || (managed(s) && this.tracker.shouldSync(s as EndpointSlice))) forSlice(s);
      },
      delete: (s) => managed(s) && this.tracker.has(s as EndpointSlice) && !this.tracker.handleDeletion(s as EndpointSlice) && forSlice(s),
    });
  }

  private mirrored(namespace: string, name: string): EndpointSlice[] {
    return (this.slices.list(namespace) as EndpointSlice[]).filter(
      (s) => s.metadata.labels?.[LABEL_SERVICE_NAME] === name && s.metadata.labels?.[LABEL_MANAGED_BY] === MIRRORING_CONTROLLER_NAME,
    );
  }

  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const ep = this.endpoints.get(namespace, name) as Endpoints | undefined;
    const svc = this.services.get(namespace, name) as Service | undefined;
    if (!ep || !shouldMirror(ep) || !svc || (svc.spec?.selector !== undefined && svc.spec.selector !== null)) {
      this.tracker.deleteService(key);
      return this.deleteAll(namespace, this.mirrored(namespace, name));
    }
    const slices = this.mirrored(namespace, name);
    if (this.tracker.staleSlices(key, slices)) throw new Error('EndpointSlice informer cache is out of date');

    // desired: per (address type, port set), the subset's addresses up to the per-subset maximum
    const desired = new Map<string, { type: string; ports: EndpointPort[]; endpoints: Map<string, Endpoint> }>();
    let invalid = 0;
    let skipped = 0;
    for (const ss of ep.subsets ?? []) {
      const ports = toSlicePorts(ss.ports);
      const total = (ss.addresses?.length ?? 0) + (ss.notReadyAddresses?.length ?? 0);
      let added = 0;
      const add = (a: EndpointAddress, ready: boolean) => {
        if (added >= this.maxPerSubset) return;
        const r = addressToEndpoint(a, ready);
        if (!r) return void invalid++;
        const k = `${r.type}/${portMapKey(ports)}`;
        let d = desired.get(k);
        if (!d) desired.set(k, (d = { type: r.type, ports, endpoints: new Map() }));
        d.endpoints.set(endpointKey(r.ep), r.ep);
        added++;
      };
      for (const a of ss.addresses ?? []) add(a, true);
      for (const a of ss.notReadyAddresses ?? []) add(a, false);
      skipped += total - added;
    }
    const recorder = this.ctx.recorder('endpoint-slice-mirroring-controller');
    if (invalid > 0) recorder.event(ep, 'Warning', 'InvalidIPAddress', `Skipped ${invalid} invalid IP addresses when mirroring to EndpointSlices`);
    if (skipped > invalid) {
      recorder.event(ep, 'Warning', 'TooManyAddressesToMirror', `A max of ${this.maxPerSubset} addresses can be mirrored to EndpointSlices per Endpoints subset. ${skipped} addresses were skipped`);
    }

    const existingByKey = new Map<string, EndpointSlice[]>();
    for (const s of slices) {
      const k = `${s.addressType}/${portMapKey(s.ports)}`;
      existingByKey.set(k, [...(existingByKey.get(k) ?? []), s]);
    }
    const toCreate: EndpointSlice[] = [];
    const toUpdate: EndpointSlice[] = [];
    const toDelete: EndpointSlice[] = [];
    for (const [k, d] of desired) {
      const existing = existingByKey.get(k) ?? [];
      if (d.endpoints.size === 0) {
        toDelete.push(...existing);
        continue;
      }
      toDelete.push(...existing.slice(1));
      const first = existing[0];
      if (first && this.matches(first, ep, d.endpoints)) continue;
      const fresh = newMirroredSlice(ep, d.ports, d.type, first?.metadata.name, [...d.endpoints.values()].slice(0, this.maxPerSubset));
      if (first) {
        fresh.metadata.resourceVersion = first.metadata.resourceVersion;
        toUpdate.push(fresh);
      } else toCreate.push(fresh);
    }
    for (const [k, existing] of existingByKey) if (!desired.has(k)) toDelete.push(...existing);
    await this.finalize(ep, toCreate, toUpdate, toDelete);
  }

  /** The first slice already holds exactly these endpoints, with the Endpoints' labels and annotations. */
  private matches(slice: EndpointSlice, ep: Endpoints, want: Map<string, Endpoint>): boolean {
    const have = slice.endpoints ?? [];
    if (have.length !== want.size) return false;
    for (const e of have) {
      const w = want.get(endpointKey(e));
      if (!w || !endpointsEqualBeyondKey(w, e) || (w.conditions?.ready ?? null) !== (e.conditions?.ready ?? null)) return false;
    }
    const meta = mirroredMeta(ep);
    return deepEqual(slice.metadata.labels ?? {}, meta.labels) && deepEqual(slice.metadata.annotations ?? {}, meta.annotations);
  }

  private async finalize(ep: Endpoints, create: EndpointSlice[], update: EndpointSlice[], del: EndpointSlice[]): Promise<void> {
    // recycleSlices: per address type, a slice to delete becomes a slice to create
    for (const type of ['IPv4', 'IPv6']) {
      const c = create.filter((s) => s.addressType === type);
      const d = del.filter((s) => s.addressType === type);
      for (let i = 0; i < c.length && i < d.length; i++) {
        create.splice(create.indexOf(c[i]), 1);
        del.splice(del.indexOf(d[i]), 1);
        c[i].metadata.name = d[i].metadata.name;
        delete c[i].metadata.generateName;
        c[i].metadata.resourceVersion = d[i].metadata.resourceVersion;
        update.push(c[i]);
      }
    }
    const rc = this.ctx.client.resource('discovery.k8s.io/v1', 'endpointslices');
    const ns = ep.metadata.namespace ?? '';
    const key = `${ns}/${ep.metadata.name}`;
    if (!ep.metadata.deletionTimestamp) {
      for (const s of create) {
        try {
          this.tracker.update((await rc.create(ns, s)) as EndpointSlice);
        } catch (e) {
          if (isNamespaceTerminating(e)) return;
          throw new Error(`failed to create EndpointSlice for Endpoints ${key}: ${(e as Error).message}`);
        }
      }
    }
    for (const s of update) {
      try {
        this.tracker.update((await rc.update(ns, s)) as EndpointSlice);
      } catch (e) {
        throw new Error(`failed to update ${s.metadata.name} EndpointSlice for Endpoints ${key}: ${(e as Error).message}`);
      }
    }
    await this.deleteAll(ns, del);
  }

  private async deleteAll(namespace: string, slices: EndpointSlice[]): Promise<void> {
    const rc = this.ctx.client.resource('discovery.k8s.io/v1', 'endpointslices');
    for (const s of slices) {
      this.tracker.expectDeletion(s);
      try {
        await rc.delete(namespace, s.metadata.name!);
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) {
          this.tracker.handleDeletion(s);
          continue;
        }
        this.tracker.update(s);
        throw e;
      }
    }
  }
}

/** The EndpointSlice mirroring controller, as kube-controller-manager's "endpointslicemirroring" controller. */
export function endpointSliceMirroringController(opts: MirroringOptions = {}): ControllerFactory {
  return (ctx) => new EndpointSliceMirroringController(ctx, opts);
}
