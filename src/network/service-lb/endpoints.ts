// Ready endpoints of a Service port, read from the Service and EndpointSlice informer caches, with round-robin
// picking. Shared by the LoadBalancer proxy and the ingress proxy: both send traffic straight to endpoints, as
// kube-proxy and ingress-nginx do, so a slice change is seen on the next connection.
import type { KObject } from '../../api/types.js';
import type { EndpointSlice } from '../../api/discovery/endpointslice/validation.js';
import type { Informer, InformerFactory } from '../../client/informer.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const SLICE_INDEX = 'k1s-network/service';

export interface Target {
  host: string;
  port: number;
}

export interface ServicePortSpec {
  name?: string;
  protocol?: string;
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpecLike {
  type?: string;
  ports?: ServicePortSpec[];
  loadBalancerClass?: string | null;
  externalName?: string;
}

export function serviceSpec(svc: KObject): ServiceSpecLike {
  return (svc.spec ?? {}) as ServiceSpecLike;
}

/**
 * The ready endpoints of one Service port among its slices. Slices name their ports after the Service port's name
 * (unnamed single port: ''); an endpoint with `ready` unset counts as ready (EndpointConditions); only the first
 * address of an endpoint is used, as kube-proxy does.
 */
export function readyTargets(slices: readonly EndpointSlice[], portName: string, protocol: string): Target[] {
  const seen = new Set<string>();
  const out: Target[] = [];
  for (const slice of slices) {
    if (slice.addressType === 'FQDN') continue;
    const p = (slice.ports ?? []).find((sp) => (sp.name ?? '') === portName && (sp.protocol ?? 'TCP') === protocol);
    if (!p || p.port == null) continue;
    for (const ep of slice.endpoints ?? []) {
      if (ep.conditions?.ready === false) continue;
      const host = ep.addresses?.[0];
      if (!host) continue;
      const k = `${host}|${p.port}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push({ host, port: p.port });
    }
  }
  out.sort((a, b) => (a.host === b.host ? a.port - b.port : a.host < b.host ? -1 : 1));
  return out;
}

/** Finds the Service port an Ingress backend names (by number or by name). */
export function findServicePort(svc: KObject, ref: { number?: number; name?: string }): ServicePortSpec | undefined {
  const ports = serviceSpec(svc).ports ?? [];
  if (ref.number) return ports.find((p) => p.port === ref.number && (p.protocol ?? 'TCP') === 'TCP');
  if (ref.name) return ports.find((p) => p.name === ref.name && (p.protocol ?? 'TCP') === 'TCP');
  return undefined;
}

/** Endpoint lookups over shared Service and EndpointSlice informers, cached until either changes. */
export class EndpointTable {
  readonly services: Informer;
  readonly slices: Informer;
  private readonly cache = new Map<string, Target[]>();
  private readonly cursors = new Map<string, number>();
  private readonly listeners: (() => void)[] = [];

  constructor(informers: InformerFactory) {
    this.services = informers.informer('v1', 'services');
    this.slices = informers.informer('discovery.k8s.io/v1', 'endpointslices');
    this.slices.addIndex(SLICE_INDEX, (o) => {
      const svc = o.metadata.labels?.[SERVICE_NAME_LABEL];
      return svc ? [`${o.metadata.namespace}/${svc}`] : [];
    });
    const changed = () => {
      this.cache.clear();
      for (const l of this.listeners) l();
    };
    const h = { add: changed, update: changed, delete: changed };
    this.services.addHandler(h);
    this.slices.addHandler(h);
  }

  /** Called after any Service or EndpointSlice change (after the cache is dropped). */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  service(namespace: string, name: string): KObject | undefined {
    return this.services.get(namespace, name);
  }

  targets(namespace: string, service: string, portName: string, protocol = 'TCP'): Target[] {
    const key = `${namespace}/${service}|${portName}|${protocol}`;
    let t = this.cache.get(key);
    if (!t) {
      t = readyTargets(this.slices.byIndex(SLICE_INDEX, `${namespace}/${service}`) as EndpointSlice[], portName, protocol);
      this.cache.set(key, t);
    }
    return t;
  }

  /** The next ready endpoint in round-robin order, or undefined when there is none. */
  pick(namespace: string, service: string, portName: string, protocol = 'TCP'): Target | undefined {
    const t = this.targets(namespace, service, portName, protocol);
    if (t.length === 0) return undefined;
    const key = `${namespace}/${service}|${portName}|${protocol}`;
    const n = this.cursors.get(key) ?? 0;
    this.cursors.set(key, (n + 1) % 1_000_000_007);
    return t[n % t.length];
  }
}
