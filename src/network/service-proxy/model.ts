// What the service proxy programs, computed from Services and EndpointSlices (kube-proxy's ServicePortMap and
// EndpointsMap, pkg/proxy/servicechangetracker.go, endpointschangetracker.go and topology.go, 1.33): one entry per
// IPv4 service port, with the endpoints that traffic may reach.
import type { KObject } from '../../api/types.js';
import type { Endpoint, EndpointPort, EndpointSlice } from '../../api/discovery/endpointslice/validation.js';

export type ProxyProtocol = 'TCP' | 'UDP' | 'SCTP';

export interface ProxyEndpoint {
  ip: string;
  port: number;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  /** the endpoint runs on this node (its `nodeName`) */
  local: boolean;
}

export interface ServicePortInfo {
  /** kube-proxy's ServicePortName string: `ns/name:port` (`ns/name` for an unnamed port) */
  name: string;
  protocol: ProxyProtocol;
  clusterIP: string;
  port: number;
  nodePort?: number;
  externalIPs: string[];
  /** `sessionAffinity: ClientIP` timeout in seconds */
  affinitySeconds?: number;
  internalLocal: boolean;
  externalLocal: boolean;
  /** every endpoint of the port, sorted by address */
  endpoints: ProxyEndpoint[];
}

interface ServiceLike extends KObject {
  spec?: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[];
    externalIPs?: string[];
    sessionAffinity?: string;
    sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } };
    internalTrafficPolicy?: string;
    externalTrafficPolicy?: string;
    ports?: Array<{ name?: string; protocol?: string; port: number; nodePort?: number }>;
  };
}

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** v1.DefaultClientIPServiceAffinitySeconds */
const DEFAULT_AFFINITY_SECONDS = 10800;

const isIPv4 = (ip: string | undefined): ip is string => !!ip && /^\d{1,3}(\.\d{1,3}){3}$/.test(ip);

/** The service ports the proxy must program; ExternalName and headless Services have none. */
export function buildServicePorts(services: KObject[], slices: KObject[], opts: { nodeName: string }): ServicePortInfo[] {
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const s of slices as EndpointSlice[]) {
    const svc = s.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!svc || (s.addressType ?? 'IPv4') !== 'IPv4') continue;
    const key = `${s.metadata.namespace}/${svc}`;
    const list = slicesByService.get(key) ?? [];
    list.push(s);
    slicesByService.set(key, list);
  }
  const out: ServicePortInfo[] = [];
  for (const svc of services as ServiceLike[]) {
    const spec = svc.spec ?? {};
    if (spec.type === 'ExternalName') continue;
    const clusterIP = [spec.clusterIP, ...(spec.clusterIPs ?? [])].find(isIPv4);
    if (!clusterIP) continue; // headless (None), not yet allocated, or IPv6-only
    const svcKey = `${svc.metadata.namespace}/${svc.metadata.name}`;
    const external = spec.type === 'NodePort' || spec.type === 'LoadBalancer' || (spec.externalIPs?.length ?? 0) > 0;
    for (const p of spec.ports ?? []) {
      const protocol = (p.protocol ?? 'TCP') as ProxyProtocol;
      out.push({
        name: p.name ? `${svcKey}:${p.name}` : svcKey,
        protocol,
        clusterIP,
        port: p.port,
        nodePort: spec.type === 'NodePort' || spec.type === 'LoadBalancer' ? p.nodePort || undefined : undefined,
        externalIPs: (spec.externalIPs ?? []).filter(isIPv4),
        affinitySeconds:
          spec.sessionAffinity === 'ClientIP' ? spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_SECONDS : undefined,
        internalLocal: spec.internalTrafficPolicy === 'Local',
        externalLocal: external && spec.externalTrafficPolicy === 'Local',
        endpoints: endpointsFor(slicesByService.get(svcKey) ?? [], p.name ?? '', protocol, opts.nodeName),
      });
    }
  }
  return out.sort((a, b) => (a.name + a.protocol < b.name + b.protocol ? -1 : a.name + a.protocol > b.name + b.protocol ? 1 : 0));
}

function endpointsFor(slices: EndpointSlice[], portName: string, protocol: ProxyProtocol, nodeName: string): ProxyEndpoint[] {
  const seen = new Map<string, ProxyEndpoint>();
  for (const slice of slices) {
    const port = (slice.ports ?? []).find((sp: EndpointPort) => (sp.name ?? '') === portName && (sp.protocol ?? 'TCP') === protocol);
    if (!port?.port) continue;
    for (const ep of slice.endpoints ?? []) {
      const ip = ep.addresses?.[0];
      if (!isIPv4(ip)) continue;
      const key = `${ip}:${port.port}`;
      if (!seen.has(key)) seen.set(key, toEndpoint(ep, ip, port.port, nodeName));
    }
  }
  return [...seen.values()].sort(compareEndpoints);
}

function toEndpoint(ep: Endpoint, ip: string, port: number, nodeName: string): ProxyEndpoint {
  // nil ready/serving mean "unknown", which consumers treat as ready (discovery/v1 EndpointConditions)
  const ready = ep.conditions?.ready ?? true;
  return { ip, port, ready, serving: ep.conditions?.serving ?? ready, terminating: ep.conditions?.terminating ?? false, local: !!nodeName && ep.nodeName === nodeName };
}

function compareEndpoints(a: ProxyEndpoint, b: ProxyEndpoint): number {
  const na = ipNumber(a.ip);
  const nb = ipNumber(b.ip);
  return na !== nb ? na - nb : a.port - b.port;
}

function ipNumber(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

/**
 * The endpoints traffic may go to (topology.CategorizeEndpoints): ready ones; when none is ready, serving and
 * terminating ones (so connections drain during a rollout instead of failing).
 */
export function usableEndpoints(eps: ProxyEndpoint[]): ProxyEndpoint[] {
  const ready = eps.filter((e) => e.ready);
  return ready.length > 0 ? ready : eps.filter((e) => e.serving && e.terminating);
}

export interface CategorizedEndpoints {
  cluster: ProxyEndpoint[];
  local: ProxyEndpoint[];
  internal: ProxyEndpoint[];
  external: ProxyEndpoint[];
}

export function categorizeEndpoints(sp: ServicePortInfo): CategorizedEndpoints {
  const cluster = usableEndpoints(sp.endpoints);
  const local = usableEndpoints(sp.endpoints.filter((e) => e.local));
  return { cluster, local, internal: sp.internalLocal ? local : cluster, external: sp.externalLocal ? local : cluster };
}
