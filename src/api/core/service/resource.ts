// core/v1 Service as a served resource: SetDefaults_Service (pkg/apis/core/v1/defaults.go), the REST storage's
// normalizeClusterIPs / patchAllocatedValues (pkg/registry/core/service/storage/storage.go), svcStrategy and
// dropTypeDependentFields (pkg/registry/core/service/strategy.go), GetWarningsForService and printService.
// ClusterIP and NodePort allocation happens in admission (src/apiserver/admission/service-ip.ts).
import { clone } from '../../../machinery/object.js';
import { compareGoStrings, nameIsDNS1035Label } from '../../../machinery/validation.js';
import { goQuote } from '../../../machinery/errors.js';
import { ageColumn, CELL_NONE, CELL_UNKNOWN, formatLabels, nameColumn } from '../../format.js';
import { parseIPSloppy } from '../pod/validation-util.js';
import { serviceDefinitions } from './schema.js';
import { bigIntToIp, ipToBigInt, parseCIDR } from './net.js';
import {
  externallyAccessible, isSet, needsClusterIP, needsHealthCheck, needsNodePort, NONE, sameClusterIPs, sameStrings, type Service,
  type ServicePort,
} from './types.js';
import { validateService, validateServiceStatus, validateServiceUpdate } from './validation.js';
import { CORE } from '../common.js';
import { defineResource, type KObject, type TableColumn } from '../../types.js';

export type { Service } from './types.js';
export { serviceDefinitions } from './schema.js';

/** SetDefaults_Service, plus the Go zero values a Service always serialises (status.loadBalancer). */
export function defaultService(svc: Service): void {
  const spec = (svc.spec ??= {});
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && !isSet(spec.sessionAffinityConfig?.clientIP?.timeoutSeconds)) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  spec.type ||= 'ClusterIP';
  for (const p of spec.ports ?? []) {
    p.protocol ||= 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port ?? 0;
  }
  if (externallyAccessible(svc) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (!isSet(spec.internalTrafficPolicy) && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(spec.type)) spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer' && !isSet(spec.allocateLoadBalancerNodePorts)) spec.allocateLoadBalancerNodePorts = true;
  const status = (svc.status ??= {});
  const lb = (status.loadBalancer ??= {});
  // LoadBalancerIPMode (GA in 1.32): IP ingress points default to VIP.
  if (spec.type === 'LoadBalancer') for (const ing of lb.ingress ?? []) if (ing.ip && !isSet(ing.ipMode)) ing.ipMode = 'VIP';
}

/** normalizeClusterIPs: keeps clusterIP and clusterIPs in step for clients that only know one of them. */
export function normalizeClusterIPs(svc: Service, old?: Service): void {
  const spec = (svc.spec ??= {});
  const ip = spec.clusterIP ?? '';
  if (!old) {
    if (ip && !spec.clusterIPs?.length) spec.clusterIPs = [ip];
    return;
  }
  const oldSpec = old.spec ?? {};
  if (oldSpec.clusterIPs?.length && !spec.clusterIPs?.length && (oldSpec.clusterIP ?? '') === ip) spec.clusterIPs = oldSpec.clusterIPs;
  if ((oldSpec.clusterIP ?? '') !== ip) {
    if (oldSpec.clusterIP && !ip) {
      if (sameStrings(oldSpec.clusterIPs, spec.clusterIPs)) delete spec.clusterIPs;
    } else if (sameStrings(oldSpec.clusterIPs, spec.clusterIPs)) spec.clusterIPs = [ip];
  }
}

/** patchAllocatedValues: a resubmitted manifest keeps what was allocated for it (cluster IPs, node ports). */
export function patchAllocatedValues(svc: Service, old: Service): void {
  const spec = (svc.spec ??= {});
  const oldSpec = old.spec ?? {};
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (!spec.clusterIP && oldSpec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
    if (!spec.clusterIPs?.length && oldSpec.clusterIPs?.length) spec.clusterIPs = [...oldSpec.clusterIPs];
  }
  if (needsNodePort(old) && needsNodePort(svc)) {
    const used = (s: Service) => new Set((s.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((p) => p));
    const newUsed = used(svc);
    const inBoth = new Set([...used(old)].filter((p) => newUsed.has(p)));
    // Node ports are matched by port name; Go's map keeps the last port of a name.
    const byName = new Map((oldSpec.ports ?? []).map((p) => [p.name ?? '', p.nodePort ?? 0]));
    for (const p of spec.ports ?? []) {
      if (p.nodePort) continue;
      const v = byName.get(p.name ?? '') ?? 0;
      if (!inBoth.has(v) && v) p.nodePort = v;
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && !spec.healthCheckNodePort && oldSpec.healthCheckNodePort) {
    spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
}

/** dropTypeDependentFields: on a type change, fields the new type cannot use are wiped if the user left them. */
export function dropTypeDependentFields(svc: Service, old: Service): void {
  const spec = (svc.spec ??= {});
  const oldSpec = old.spec ?? {};
  if (needsClusterIP(old) && !needsClusterIP(svc)) {
    if (sameClusterIPs(old, svc)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameStrings(oldSpec.ipFamilies, spec.ipFamilies)) delete spec.ipFamilies;
    if ((oldSpec.ipFamilyPolicy ?? '') === (spec.ipFamilyPolicy ?? '')) delete spec.ipFamilyPolicy;
  }
  const nodePorts = (s: Service) => (s.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((p) => p);
  if (needsNodePort(old) && !needsNodePort(svc)) {
    const before = new Set(nodePorts(old));
    if (nodePorts(svc).every((p) => before.has(p))) for (const p of spec.ports ?? []) delete p.nodePort;
  }
  if (needsHealthCheck(old) && !needsHealthCheck(svc) && (oldSpec.healthCheckNodePort ?? 0) === (spec.healthCheckNodePort ?? 0)) {
    delete spec.healthCheckNodePort;
  }
  if (oldSpec.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (isSet(spec.allocateLoadBalancerNodePorts) && spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts) {
      delete spec.allocateLoadBalancerNodePorts;
    }
    if ((oldSpec.loadBalancerClass ?? null) === (spec.loadBalancerClass ?? null)) delete spec.loadBalancerClass;
  }
  if (externallyAccessible(old) && !externallyAccessible(svc) && (oldSpec.externalTrafficPolicy ?? '') === (spec.externalTrafficPolicy ?? '')) {
    delete spec.externalTrafficPolicy;
  }
  if (spec.type !== 'LoadBalancer') svc.status = { ...svc.status, loadBalancer: {} };
}

/** GetWarningsForIP for the legacy IP fields: non-standard forms that a future release will reject. */
function ipWarnings(path: string, ip: string): string[] {
  const fam = parseIPSloppy(ip);
  const v = ipToBigInt(ip);
  if (!fam || v === undefined) return [];
  const canonical = fam === 4 ? bigIntToIp(v, 'IPv4') : v >> 32n === 0xffffn ? bigIntToIp(v & 0xffffffffn, 'IPv4') : bigIntToIp(v, 'IPv6');
  if (fam === 4 ? canonical !== ip : v >> 32n === 0xffffn) {
    return [`${path}: non-standard IP address ${goQuote(ip)} will be considered invalid in a future Kubernetes release: use ${goQuote(canonical)}`];
  }
  if (fam === 6 && canonical !== ip) return [`${path}: IPv6 address ${goQuote(ip)} should be in RFC 5952 canonical format (${goQuote(canonical)})`];
  return [];
}

/** GetWarningsForService as of 1.33. */
export function serviceWarnings(svc: Service): string[] {
  const w: string[] = [];
  const spec = svc.spec ?? {};
  if (svc.metadata.annotations?.['service.kubernetes.io/topology-aware-hints'] !== undefined) {
    w.push('annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead');
  }
  if (spec.clusterIP && spec.clusterIP !== NONE) (spec.clusterIPs ?? []).forEach((ip, i) => w.push(...ipWarnings(`spec.clusterIPs[${i}]`, ip)));
  if (spec.type === 'ClusterIP' && spec.clusterIP === NONE) {
    if (spec.loadBalancerIP) w.push('spec.loadBalancerIP is ignored for headless services');
    if (spec.externalIPs?.length) w.push('spec.externalIPs is ignored for headless services');
    if (spec.sessionAffinity !== 'None') w.push('spec.SessionAffinity is ignored for headless services');
  }
  (spec.externalIPs ?? []).forEach((ip, i) => w.push(...ipWarnings(`spec.externalIPs[${i}]`, ip)));
  if (spec.loadBalancerIP) w.push(...ipWarnings('spec.loadBalancerIP', spec.loadBalancerIP));
  if (spec.type === 'ExternalName' && spec.externalIPs?.length) w.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  if (spec.type !== 'ExternalName' && spec.externalName) w.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  return w;
}

/** makePortString: `80/TCP`, or `80:30080/TCP` with a node port. */
export function servicePorts(ports: ServicePort[] | undefined): string {
  const s = (ports ?? []).map((p) => (p.nodePort ? `${p.port ?? 0}:${p.nodePort}/${p.protocol ?? ''}` : `${p.port ?? 0}/${p.protocol ?? ''}`)).join(',');
  return s || CELL_NONE;
}

/** getServiceExternalIP (the server prints wide, so load balancer addresses are not clipped). */
export function serviceExternalIP(svc: Service): string {
  const spec = svc.spec ?? {};
  const ext = spec.externalIPs ?? [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return ext.length ? ext.join(',') : CELL_NONE;
    case 'LoadBalancer': {
      const lb = [...new Set((svc.status?.loadBalancer?.ingress ?? []).map((i) => i.ip || i.hostname || '').filter((x) => x))].sort(compareGoStrings);
      if (ext.length) return [...lb, ...ext].join(',');
      return lb.length ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
  }
  return CELL_UNKNOWN;
}

const specDoc = (f: string): string => serviceDefinitions[`${CORE}ServiceSpec`].properties![f].description!;

const serviceColumns: TableColumn<Service>[] = [
  nameColumn(),
  { name: 'Type', type: 'string', description: specDoc('type'), cell: (s) => s.spec?.type ?? '' },
  { name: 'Cluster-IP', type: 'string', description: specDoc('clusterIP'), cell: (s) => s.spec?.clusterIPs?.[0] ?? CELL_NONE },
  { name: 'External-IP', type: 'string', description: specDoc('externalIPs'), cell: serviceExternalIP },
  { name: 'Port(s)', type: 'string', description: specDoc('ports'), cell: (s) => servicePorts(s.spec?.ports) },
  ageColumn(),
  { name: 'Selector', type: 'string', priority: 1, description: specDoc('selector'), cell: (s) => formatLabels(s.spec?.selector) },
];

export const serviceResource = defineResource<Service>({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  singular: 'service',
  shortNames: ['svc'],
  categories: ['all'],
  namespaced: true,
  schemaRef: `${CORE}Service`,
  definitions: serviceDefinitions,
  subresources: { status: true },
  columns: serviceColumns,
  selectableFields: {
    'spec.clusterIP': (s) => s.spec?.clusterIP ?? '',
    'spec.type': (s) => s.spec?.type ?? '',
  },
  strategy: {
    defaults: defaultService,
    prepareForCreate(svc) {
      svc.status = { loadBalancer: {} };
      normalizeClusterIPs(svc);
    },
    prepareForUpdate(svc, old) {
      // The generic store already kept the old status; these are the REST storage's beginUpdate steps that need
      // no allocator, then the strategy's type-dependent wiping.
      patchAllocatedValues(svc, old);
      normalizeClusterIPs(svc, old);
      dropTypeDependentFields(svc, old);
    },
    validate: validateService,
    validateUpdate: validateServiceUpdate,
    canonicalize(svc) {
      // The REST storage drops internalTrafficPolicy of ExternalName services on read (defaultOnRead).
      if (svc.spec?.type === 'ExternalName') delete svc.spec.internalTrafficPolicy;
    },
    validateStatusUpdate: validateServiceStatus,
    validateName: nameIsDNS1035Label,
    warnings: serviceWarnings,
    allowCreateOnUpdate: true,
  },
});

/**
 * The `kubernetes` Service in `default` that points clients at the API server: the first address of the service
 * CIDR, port https 443 → 6443, no selector (its endpoints are maintained by the API server itself).
 */
export function kubernetesService(serviceCIDR = '10.43.0.0/16'): KObject {
  const cidr = parseCIDR(serviceCIDR);
  if (!cidr) throw new Error(`invalid service CIDR ${serviceCIDR}`);
  const ip = bigIntToIp(cidr.base + 1n, cidr.family);
  return clone({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: ip,
      clusterIPs: [ip],
      ipFamilies: [cidr.family],
      ipFamilyPolicy: 'SingleStack',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
    },
  });
}
