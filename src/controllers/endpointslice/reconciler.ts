// The EndpointSlice reconciler (staging/src/k8s.io/endpointslice/reconciler.go, 1.33) as pure planning: from a
// Service, its pods and its current slices, which slices to create, update and delete. Churn is kept low as
// kube does: endpoints stay in the slice that holds them, changed slices are filled up first, leftovers go to
// the unchanged slice they fit best, and only then are new slices made.
import type { Pod } from '../../api/core/pod/types.js';
import type { Service } from '../../api/core/service/types.js';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../api/discovery/endpointslice/validation.js';
import { LABEL_SERVICE_NAME } from '../../api/discovery/endpointslice/resource.js';
import { clone, deepEqual } from '../../machinery/object.js';
import { findPort, isIPv6, isServiceIPSet, LABEL_HEADLESS, LABEL_ZONE, podIPs, shouldPodBeInEndpoints, shouldSetHostname } from '../endpoints/util.js';
import { isPodReady } from '../framework/pod-util.js';

export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
export const ENDPOINTSLICE_CONTROLLER_NAME = 'endpointslice-controller.k8s.io';

export interface SlicePlan {
  create: EndpointSlice[];
  update: EndpointSlice[];
  delete: EndpointSlice[];
  /** pods left out because their node is unknown (the Service is synced again later) */
  errors: string[];
}

/** A key for a set of ports regardless of their order (NewPortMapKey); nil name and protocol as the API defaults them. */
export function portMapKey(ports: EndpointPort[] | null | undefined): string {
  const norm = (ports ?? []).map((p) => JSON.stringify([p.name ?? '', p.port ?? null, p.protocol ?? 'TCP', p.appProtocol ?? null]));
  return norm.sort().join('|');
}

/** The identity of an endpoint: addresses, hostname and target (hashEndpoint); the rest may change in place. */
export function endpointKey(ep: Endpoint): string {
  const ref = ep.targetRef as { namespace?: string; name?: string } | null | undefined;
  return JSON.stringify([[...(ep.addresses ?? [])].sort(), ep.hostname ?? '', ref?.namespace ?? '', ref?.name ?? '']);
}

const refWithoutRV = (r: Record<string, unknown> | null | undefined) => (r ? { ...r, resourceVersion: undefined } : r ?? null);

/** EndpointsEqualBeyondHash: node, zone, conditions and target (its resourceVersion aside). */
export function endpointsEqualBeyondKey(a: Endpoint, b: Endpoint): boolean {
  const c1 = a.conditions ?? {};
  const c2 = b.conditions ?? {};
  return (
    (a.nodeName ?? null) === (b.nodeName ?? null) &&
    (a.zone ?? null) === (b.zone ?? null) &&
    (c1.ready ?? null) === (c2.ready ?? null) &&
    (c1.serving ?? null) === (c2.serving ?? null) &&
    (c1.terminating ?? null) === (c2.terminating ?? null) &&
    deepEqual(refWithoutRV(a.targetRef), refWithoutRV(b.targetRef))
  );
}

/** getAddressTypesForService: from spec.ipFamilies (older objects: the ClusterIP's family, or both when headless). */
export function addressTypesOf(svc: Service): string[] {
  const fams = svc.spec?.ipFamilies ?? [];
  const types = new Set<string>();
  for (const f of fams) if (f === 'IPv4' || f === 'IPv6') types.add(f);
  if (types.size) return [...types];
  if (isServiceIPSet(svc)) return [isIPv6(svc.spec!.clusterIP!) ? 'IPv6' : 'IPv4'];
  return ['IPv4', 'IPv6'];
}

/** podToEndpoint: ready only when serving and not terminating (or publishNotReadyAddresses), zone from the node. */
export function podToEndpoint(pod: Pod, svc: Service, addressType: string, node: { metadata: { labels?: Record<string, string> } } | undefined): Endpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata.deletionTimestamp;
  const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const ep: Endpoint = {
    addresses: podIPs(pod).filter((ip) => isIPv6(ip) === (addressType === 'IPv6')),
    conditions: { ready, serving, terminating },
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
  };
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  if (nodeName) ep.nodeName = nodeName;
  const zone = node?.metadata.labels?.[LABEL_ZONE];
  if (zone) ep.zone = zone;
  if (shouldSetHostname(pod, svc)) ep.hostname = (pod.spec as { hostname?: string }).hostname;
  return ep;
}

/** getEndpointPorts: each Service port the pod resolves (a headless Service may have none). */
export function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  const ports = svc.spec?.ports ?? [];
  if (ports.length === 0 && svc.spec?.clusterIP === 'None') return out;
  for (const sp of ports) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const ep: EndpointPort = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol !== undefined && sp.appProtocol !== null) ep.appProtocol = sp.appProtocol;
    out.push(ep);
  }
  return out;
}

const isReservedLabel = (k: string) => k === LABEL_SERVICE_NAME || k === LABEL_MANAGED_BY || k === LABEL_HEADLESS;

/** setEndpointSliceLabels: the Service's labels plus the reserved ones; `changed` when the user labels differ. */
export function sliceLabels(slice: EndpointSlice | undefined, svc: Service, controllerName: string): { labels: Record<string, string>; changed: boolean } {
  const own = Object.fromEntries(Object.entries(slice?.metadata.labels ?? {}).filter(([k]) => !isReservedLabel(k)));
  const labels = Object.fromEntries(Object.entries(svc.metadata.labels ?? {}).filter(([k]) => !isReservedLabel(k)));
  const changed = !deepEqual(own, labels);
  if (!isServiceIPSet(svc)) labels[LABEL_HEADLESS] = '';
  labels[LABEL_SERVICE_NAME] = svc.metadata.name!;
  labels[LABEL_MANAGED_BY] = controllerName;
  return { labels, changed };
}

/** ownedBy: the slice's ownerReferences name this Service. */
export function ownedBy(slice: EndpointSlice, svc: Service): boolean {
  return (slice.metadata.ownerReferences ?? []).some((o) => o.uid === svc.metadata.uid && o.kind === 'Service' && o.apiVersion === 'v1');
}

export function newSlice(svc: Service, ports: EndpointPort[], addressType: string, controllerName: string): EndpointSlice {
  const name = svc.metadata.name!;
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: svc.metadata.namespace,
      // getEndpointSlicePrefix: the dash only when the name stays a valid prefix
      generateName: name.length + 1 <= 253 ? `${name}-` : name,
      labels: sliceLabels(undefined, svc, controllerName).labels,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: svc.metadata.uid!, controller: true, blockOwnerDeletion: true }],
    },
    addressType,
    endpoints: [],
    ports: clone(ports),
  } as EndpointSlice;
}

/** A placeholder (no ports, no endpoints) that already matches the one we would make: keep it. */
function samePlaceholder(a: EndpointSlice, b: EndpointSlice): boolean {
  const refs = (s: EndpointSlice) => (s.metadata.ownerReferences ?? []).map((o) => [o.apiVersion, o.kind, o.name, o.uid, o.controller ?? null, o.blockOwnerDeletion ?? null]);
  return (
    a.metadata.namespace === b.metadata.namespace &&
    deepEqual(a.metadata.labels ?? {}, b.metadata.labels ?? {}) &&
    deepEqual(refs(a), refs(b)) &&
    a.addressType === b.addressType &&
    (a.endpoints ?? []).length === 0 &&
    (b.endpoints ?? []).length === 0 &&
    (a.ports ?? []).length === 0 &&
    (b.ports ?? []).length === 0
  );
}

export interface PlanInput {
  svc: Service;
  pods: Pod[];
  slices: EndpointSlice[];
  node(name: string): { metadata: { labels?: Record<string, string> } } | undefined;
  maxEndpointsPerSlice: number;
  controllerName?: string;
}

/** Reconcile: one plan over every address type the Service supports; slices of other types are deleted. */
export function planSlices(input: PlanInput): SlicePlan {
  const plan: SlicePlan = { create: [], update: [], delete: [], errors: [] };
  const types = addressTypesOf(input.svc);
  for (const t of types) {
    const p = planAddressType(input, t, input.slices.filter((s) => s.addressType === t));
    plan.create.push(...p.create);
    plan.update.push(...p.update);
    plan.delete.push(...p.delete);
    plan.errors.push(...p.errors);
  }
  plan.delete.push(...input.slices.filter((s) => !types.includes(s.addressType ?? '')));
  return plan;
}

function planAddressType(input: PlanInput, addressType: string, existing: EndpointSlice[]): SlicePlan {
  const { svc } = input;
  const controllerName = input.controllerName ?? ENDPOINTSLICE_CONTROLLER_NAME;
  const plan: SlicePlan = { create: [], update: [], delete: [], errors: [] };
  const existingByPorts = new Map<string, EndpointSlice[]>();
  for (const s of existing) {
    if (!ownedBy(s, svc)) {
      plan.delete.push(s);
      continue;
    }
    const k = portMapKey(s.ports);
    existingByPorts.set(k, [...(existingByPorts.get(k) ?? []), s]);
  }

  const desired = new Map<string, { ports: EndpointPort[]; endpoints: Map<string, Endpoint> }>();
  for (const pod of input.pods) {
    if (!shouldPodBeInEndpoints(pod, { includeTerminating: true })) continue;
    const ports = endpointPorts(svc, pod);
    const k = portMapKey(ports);
    let d = desired.get(k);
    if (!d) desired.set(k, (d = { ports, endpoints: new Map() }));
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
    const node = input.node(nodeName);
    if (!node && svc.spec?.publishNotReadyAddresses !== true) {
      // a pod on a vanished node is left out for now (and the Service retried) rather than blocking the rest
      plan.errors.push(`skipping Pod ${pod.metadata.name} for Service ${svc.metadata.namespace}/${svc.metadata.name}: Node ${nodeName} Not Found`);
      continue;
    }
    const ep = podToEndpoint(pod, svc, addressType, node);
    if (ep.addresses!.length > 0) d.endpoints.set(endpointKey(ep), ep);
  }

  for (const [k, d] of desired) {
    const p = planPortMapping(input, controllerName, existingByPorts.get(k) ?? [], d.endpoints, d.ports, addressType);
    plan.create.push(...p.create);
    plan.update.push(...p.update);
    plan.delete.push(...p.delete);
  }
  for (const [k, slices] of existingByPorts) if (!desired.has(k)) plan.delete.push(...slices);

  // a Service without endpoints still gets one empty slice
  if (existing.length === plan.delete.length && plan.create.length === 0) {
    const placeholder = newSlice(svc, [], addressType, controllerName);
    if (plan.delete.length === 1 && samePlaceholder(plan.delete[0], placeholder)) plan.delete = [];
    else plan.create.push(placeholder);
  }
  return plan;
}

/** reconcileByPortMapping: the three passes over the slices of one port set. */
function planPortMapping(
  input: PlanInput,
  controllerName: string,
  existing: EndpointSlice[],
  desired: Map<string, Endpoint>,
  ports: EndpointPort[],
  addressType: string,
): SlicePlan {
  const max = input.maxEndpointsPerSlice;
  const byName = new Map<string, EndpointSlice>();
  const unchanged: string[] = [];
  const toUpdate: string[] = [];
  const toDelete: string[] = [];

  // 1. keep the endpoints still wanted where they are, refreshed; note which slices changed
  for (const s of existing) {
    const name = s.metadata.name!;
    byName.set(name, s);
    const kept: Endpoint[] = [];
    let changed = false;
    for (const ep of s.endpoints ?? []) {
      const k = endpointKey(ep);
      const want = desired.get(k);
      if (!want) continue;
      kept.push(want);
      if (!endpointsEqualBeyondKey(want, ep)) changed = true;
      desired.delete(k);
    }
    const { labels, changed: labelsChanged } = sliceLabels(s, input.svc, controllerName);
    if (changed || kept.length !== (s.endpoints ?? []).length) {
      if (kept.length === 0) toDelete.push(name);
      else {
        const copy = clone(s);
        copy.endpoints = kept;
        copy.metadata.labels = labels;
        byName.set(name, copy);
        toUpdate.push(name);
      }
    } else if (labelsChanged) {
      const copy = clone(s);
      copy.metadata.labels = labels;
      byName.set(name, copy);
      toUpdate.push(name);
    } else unchanged.push(name);
  }

  const pending = [...desired.values()];
  // 2. fill the slices being updated anyway, fullest first
  if (pending.length && toUpdate.length) {
    const slices = toUpdate.map((n) => byName.get(n)!).sort((a, b) => (b.endpoints?.length ?? 0) - (a.endpoints?.length ?? 0));
    for (const s of slices) while (pending.length && s.endpoints!.length < max) s.endpoints!.push(pending.shift()!);
  }

  // 3. leftovers: into the unchanged slice they fit best, else new slices
  const create: EndpointSlice[] = [];
  while (pending.length) {
    let target: EndpointSlice | undefined;
    if (pending.length < max && unchanged.length) {
      let best = max;
      for (const n of unchanged) {
        const diff = max - (pending.length + (byName.get(n)!.endpoints?.length ?? 0));
        if (diff >= 0 && diff < best) {
          best = diff;
          target = byName.get(n);
        }
      }
    }
    if (target) {
      target = clone(target);
      byName.set(target.metadata.name!, target);
    } else target = newSlice(input.svc, ports, addressType, controllerName);
    target.endpoints ??= [];
    while (pending.length && target.endpoints.length < max) target.endpoints.push(pending.shift()!);
    if (target.metadata.name) {
      toUpdate.push(target.metadata.name);
      unchanged.splice(unchanged.indexOf(target.metadata.name), 1);
    } else create.push(target);
  }
  return { create, update: toUpdate.map((n) => byName.get(n)!), delete: toDelete.map((n) => byName.get(n)!), errors: [] };
}

/**
 * finalize's recycling: a slice that would be deleted while another of its address type is created is updated
 * into the new one instead (only slices this Service owns).
 */
export function recycleSlices(plan: SlicePlan, svc: Service): void {
  for (let i = 0; i < plan.delete.length && plan.create.length; ) {
    const old = plan.delete[i];
    const fresh = plan.create[plan.create.length - 1];
    if (old.addressType === fresh.addressType && ownedBy(old, svc)) {
      fresh.metadata.name = old.metadata.name;
      delete fresh.metadata.generateName;
      fresh.metadata.resourceVersion = old.metadata.resourceVersion;
      plan.create.pop();
      plan.update.push(fresh);
      plan.delete.splice(i, 1);
    } else i++;
  }
}
