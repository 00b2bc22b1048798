// TypeScript shape of core/v1 Service (JSON form) and the type predicates the strategy, validation and the
// ClusterIP/NodePort allocator share (pkg/api/service/util.go, pkg/registry/core/service/strategy.go).
import type { KObject } from '../../types.js';

export interface ServicePort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
  [k: string]: unknown;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: string;
  ports?: unknown[];
  [k: string]: unknown;
}

export interface ServiceSpec {
  ports?: ServicePort[];
  selector?: Record<string, string> | null;
  clusterIP?: string;
  clusterIPs?: string[] | null;
  type?: string;
  externalIPs?: string[] | null;
  sessionAffinity?: string;
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[] | null;
  externalName?: string;
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  publishNotReadyAddresses?: boolean;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number | null } | null } | null;
  ipFamilies?: string[] | null;
  ipFamilyPolicy?: string | null;
  allocateLoadBalancerNodePorts?: boolean | null;
  loadBalancerClass?: string | null;
  internalTrafficPolicy?: string | null;
  trafficDistribution?: string | null;
  [k: string]: unknown;
}

export interface Service extends KObject {
  spec?: ServiceSpec;
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] | null }; conditions?: unknown[]; [k: string]: unknown };
}

export const NONE = 'None';

export const specOf = (s: Service): ServiceSpec => (s.spec ??= {});
export const clusterIPsOf = (s: Service): string[] => s.spec?.clusterIPs ?? [];
export const portsOf = (s: Service): ServicePort[] => s.spec?.ports ?? [];
export const isSet = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/** isHeadlessService (validation): exactly one clusterIP, "None". */
export function isHeadless(s: Service): boolean {
  const ips = clusterIPsOf(s);
  return ips.length === 1 && ips[0] === NONE;
}

export const needsClusterIP = (s: Service): boolean => s.spec?.type !== 'ExternalName';
export const needsNodePort = (s: Service): boolean => s.spec?.type === 'NodePort' || s.spec?.type === 'LoadBalancer';

/** apiservice.ExternallyAccessible: NodePort, LoadBalancer, or ClusterIP with external IPs. */
export function externallyAccessible(s: Service): boolean {
  const t = s.spec?.type;
  return t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && (s.spec?.externalIPs?.length ?? 0) > 0);
}

/** apiservice.NeedsHealthCheck: a LoadBalancer with externalTrafficPolicy Local. */
export const needsHealthCheck = (s: Service): boolean => s.spec?.type === 'LoadBalancer' && s.spec?.externalTrafficPolicy === 'Local';

/** shouldAllocateNodePorts: NodePort, or LoadBalancer unless allocateLoadBalancerNodePorts is false. */
export function shouldAllocateNodePorts(s: Service): boolean {
  if (s.spec?.type === 'NodePort') return true;
  if (s.spec?.type === 'LoadBalancer') return s.spec.allocateLoadBalancerNodePorts !== false;
  return false;
}

export function sameStrings(a: string[] | null | undefined, b: string[] | null | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

export const sameClusterIPs = (a: Service, b: Service): boolean =>
  (a.spec?.clusterIP ?? '') === (b.spec?.clusterIP ?? '') && sameStrings(a.spec?.clusterIPs, b.spec?.clusterIPs);
