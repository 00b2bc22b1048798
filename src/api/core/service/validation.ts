// Service validation: ValidateService, ValidateServiceClusterIPsRelatedFields, the update-only checks of
// ValidateServiceUpdate and ValidateServiceStatusUpdate (pkg/apis/core/validation/validation.go, 1.33 defaults).
// Paths and messages are Kubernetes', quirks included ("spec.LoadBalancerSourceRanges", a top-level
// "allocateLoadBalancerNodePorts" path).
import { FieldError, goQuote } from '../../../machinery/errors.js';
import { validateLabels } from '../../../machinery/validation.js';
import {
  bare, dns1123Label, dns1123Subdomain, invalidEach, isValidPortName, isValidPortNum, parseIPSloppy, qualifiedName, validIP,
} from '../pod/validation-util.js';
import { familyOf, validateNonSpecialIP, validCIDR } from './net.js';
import {
  clusterIPsOf, externallyAccessible, isHeadless, isSet, needsHealthCheck, NONE, type Service, type ServicePort,
} from './types.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const MAX_AFFINITY_SECONDS = 86400;
const TOPOLOGY_HINTS = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
const LB_SOURCE_RANGES = 'service.beta.kubernetes.io/load-balancer-source-ranges';
const LB_ONLY = "may only be used when `type` is 'LoadBalancer'";

/** The (protocol, port) key Kubernetes reports for a duplicate port: a core.ServicePort printed with %#v. */
function goPortKey(protocol: string, port: number): { toString(): string } {
  return bare(
    `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );
}

function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'number') return invalidEach(path, port, isValidPortNum(port));
  if (typeof port === 'string') return invalidEach(path, port, isValidPortName(port));
  return [FieldError.internal(path, `unknown type: ${typeof port}`)];
}

function validateServicePort(sp: ServicePort, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = sp.name ?? '';
  if (requireName && !name) errs.push(FieldError.required(`${path}.name`));
  else if (name) {
    errs.push(...dns1123Label(name, `${path}.name`));
    if (names.has(name)) errs.push(FieldError.duplicate(`${path}.name`, name));
    else names.add(name);
  }
  errs.push(...invalidEach(`${path}.port`, sp.port ?? 0, isValidPortNum(sp.port ?? 0)));
  if (!sp.protocol) errs.push(FieldError.required(`${path}.protocol`));
  else if (!PROTOCOLS.includes(sp.protocol)) errs.push(FieldError.notSupported(`${path}.protocol`, sp.protocol, PROTOCOLS));
  errs.push(...validatePortNumOrName(sp.targetPort ?? 0, `${path}.targetPort`));
  if (isSet(sp.appProtocol)) errs.push(...qualifiedName(sp.appProtocol, `${path}.appProtocol`));
  return errs;
}

function validateClientIPAffinity(svc: Service): FieldError[] {
  const path = 'spec.sessionAffinityConfig';
  const why = 'when session affinity type is ClientIP';
  const cfg = svc.spec?.sessionAffinityConfig;
  if (!isSet(cfg)) return [FieldError.required(path, why)];
  if (!isSet(cfg.clientIP)) return [FieldError.required(`${path}.clientIP`, why)];
  const t = cfg.clientIP.timeoutSeconds;
  if (!isSet(t)) return [FieldError.required(`${path}.clientIP.timeoutSeconds`, why)];
  if (t <= 0 || t > MAX_AFFINITY_SECONDS) {
    return [FieldError.invalid(`${path}.clientIP.timeoutSeconds`, t, `must be greater than 0 and less than ${MAX_AFFINITY_SECONDS}`)];
  }
  return [];
}

/** ValidateServiceClusterIPsRelatedFields: clusterIP ⇄ clusterIPs, families and policy (nil policy is fine). */
export function validateClusterIPsRelatedFields(svc: Service): FieldError[] {
  const spec = svc.spec ?? {};
  if (spec.type === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const ips = clusterIPsOf(svc);
  const families = spec.ipFamilies ?? [];
  if (spec.clusterIP) {
    if (!ips.length) errs.push(FieldError.required('spec.clusterIPs'));
    else if (ips[0] !== spec.clusterIP) errs.push(FieldError.invalid('spec.clusterIPs', ips, 'first value must match `clusterIP`'));
  } else if (ips.length) {
    errs.push(FieldError.invalid('spec.clusterIPs', ips, 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  families.forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') errs.push(FieldError.notSupported(`spec.ipFamilies[${i}]`, f, ['IPv4', 'IPv6']));
    if (seen.has(f)) errs.push(FieldError.duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  const policy = spec.ipFamilyPolicy;
  if (isSet(policy) && !['PreferDualStack', 'RequireDualStack', 'SingleStack'].includes(policy)) {
    errs.push(FieldError.notSupported('spec.ipFamilyPolicy', policy, ['PreferDualStack', 'RequireDualStack', 'SingleStack']));
  }
  let badIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === NONE) {
      if (ips.length > 1) {
        badIPs = true;
        errs.push(FieldError.invalid('spec.clusterIPs', ips, "'None' must be the first and only value"));
      }
      return;
    }
    const e = validIP(ip, `spec.clusterIPs[${i}]`);
    if (e.length) badIPs = true;
    errs.push(...e);
  });
  if (ips.length > 2) errs.push(FieldError.invalid('spec.clusterIPs', ips, 'may only hold up to 2 values'));
  if (badIPs) return errs;
  if (ips.length > 1) {
    const fams = new Set(ips.map((ip) => familyOf(ip)));
    if (ips.length > 2 || fams.size !== 2) errs.push(FieldError.invalid('spec.clusterIPs', ips, 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(svc) && ips.length && families.length) {
    ips.forEach((ip, i) => {
      if (i > families.length - 1) return;
      const v6 = parseIPSloppy(ip) === 6;
      if (families[i] === 'IPv4' && v6) errs.push(FieldError.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && !v6) errs.push(FieldError.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

function validateSourceRanges(svc: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec = svc.spec ?? {};
  const isLB = spec.type === 'LoadBalancer';
  const ranges = spec.loadBalancerSourceRanges ?? [];
  const annotation = svc.metadata.annotations?.[LB_SOURCE_RANGES];
  if (ranges.length) {
    const path = 'spec.LoadBalancerSourceRanges';
    if (!isLB) errs.push(FieldError.forbidden(path, LB_ONLY));
    // Historically these may be space-padded (they came from the annotation).
    ranges.forEach((v, i) => errs.push(...validCIDR(v.trim(), `${path}[${i}]`)));
  } else if (annotation !== undefined) {
    const path = `metadata.annotations[${LB_SOURCE_RANGES}]`;
    if (!isLB) errs.push(FieldError.forbidden(path, LB_ONLY));
    const val = annotation.trim();
    if (val) for (const v of val.split(',')) errs.push(...validCIDR(v.trim(), path));
  }
  return errs;
}

function validateTrafficPolicies(svc: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec = svc.spec ?? {};
  const etp = spec.externalTrafficPolicy ?? '';
  if (!externallyAccessible(svc)) {
    if (etp) errs.push(FieldError.invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
  } else if (!etp) errs.push(FieldError.required('spec.externalTrafficPolicy'));
  else if (etp !== 'Cluster' && etp !== 'Local') errs.push(FieldError.notSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  const hc = spec.healthCheckNodePort ?? 0;
  if (!needsHealthCheck(svc)) {
    if (hc) {
      errs.push(FieldError.invalid('spec.healthCheckNodePort', hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
    }
  } else if (hc) {
    // Zero is allowed here: the allocator (apiserver/admission/service-ip.ts) runs after validation and fills it in.
    errs.push(...invalidEach('spec.healthCheckNodePort', hc, isValidPortNum(hc)));
  }
  const itp = spec.internalTrafficPolicy;
  if (!isSet(itp)) {
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP') errs.push(FieldError.required('spec.internalTrafficPolicy'));
  } else if (itp !== 'Cluster' && itp !== 'Local') errs.push(FieldError.notSupported('spec.internalTrafficPolicy', itp, ['Cluster', 'Local']));
  const td = spec.trafficDistribution;
  // PreferSameZone/PreferSameNode need the PreferSameTrafficDistribution gate, alpha (off) in 1.33.
  if (isSet(td) && td !== 'PreferClose') errs.push(FieldError.notSupported('spec.trafficDistribution', td, ['PreferClose']));
  return errs;
}

export function validateService(svc: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec = svc.spec ?? {};
  const ann = svc.metadata.annotations ?? {};
  if (ann[TOPOLOGY_HINTS] !== undefined && ann[TOPOLOGY_MODE] !== undefined && ann[TOPOLOGY_HINTS] !== ann[TOPOLOGY_MODE]) {
    errs.push(FieldError.invalid(`metadata.annotations[${TOPOLOGY_MODE}]`, ann[TOPOLOGY_MODE], `must match annotations[${TOPOLOGY_HINTS}] when both are specified`));
  }
  const ports = spec.ports ?? [];
  const headless = isHeadless(svc);
  if (!ports.length && !headless && spec.type !== 'ExternalName') errs.push(FieldError.required('spec.ports'));
  if ((spec.type === 'LoadBalancer' || spec.type === 'NodePort') && headless) {
    errs.push(FieldError.invalid('spec.clusterIPs[0]', NONE, `may not be set to 'None' for ${spec.type} services`));
  } else if (spec.type === 'ExternalName') {
    const msg = 'may not be set for ExternalName services';
    if (clusterIPsOf(svc).length) errs.push(FieldError.forbidden('spec.clusterIPs', msg));
    if (spec.ipFamilies?.length) errs.push(FieldError.forbidden('spec.ipFamilies', msg));
    if (isSet(spec.ipFamilyPolicy)) errs.push(FieldError.forbidden('spec.ipFamilyPolicy', msg));
    // A trailing dot marks the CNAME as fully qualified.
    const cname = (spec.externalName ?? '').replace(/\.$/, '');
    if (cname) errs.push(...dns1123Subdomain(cname, 'spec.externalName'));
    else errs.push(FieldError.required('spec.externalName'));
  }
  const names = new Set<string>();
  ports.forEach((p, i) => errs.push(...validateServicePort(p, ports.length > 1, names, `spec.ports[${i}]`)));
  if (isSet(spec.selector)) errs.push(...validateLabels(spec.selector, 'spec.selector'));
  const affinity = spec.sessionAffinity ?? '';
  if (!affinity) errs.push(FieldError.required('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(FieldError.notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (affinity === 'ClientIP') errs.push(...validateClientIPAffinity(svc));
  else if (affinity === 'None' && isSet(spec.sessionAffinityConfig)) {
    errs.push(FieldError.forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }
  errs.push(...validateClusterIPsRelatedFields(svc));
  (spec.externalIPs ?? []).forEach((ip, i) => {
    const e = validIP(ip, `spec.externalIPs[${i}]`);
    errs.push(...(e.length ? e : validateNonSpecialIP(ip, `spec.externalIPs[${i}]`)));
  });
  if (!spec.type) errs.push(FieldError.required('spec.type'));
  else if (!TYPES.includes(spec.type)) errs.push(FieldError.notSupported('spec.type', spec.type, TYPES));
  if (spec.type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p.nodePort) errs.push(FieldError.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const key = `${p.protocol ?? ''}/${p.nodePort}`;
    if (nodePorts.has(key)) errs.push(FieldError.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((p, i) => {
    const key = `${p.protocol ?? ''}/${p.port ?? 0}`;
    if (portKeys.has(key)) errs.push(FieldError.duplicate(`spec.ports[${i}]`, goPortKey(p.protocol ?? '', p.port ?? 0)));
    portKeys.add(key);
  });
  errs.push(...validateSourceRanges(svc));
  if (isSet(spec.allocateLoadBalancerNodePorts) && spec.type !== 'LoadBalancer') errs.push(FieldError.forbidden('spec.allocateLoadBalancerNodePorts', LB_ONLY));
  if (spec.type === 'LoadBalancer' && !isSet(spec.allocateLoadBalancerNodePorts)) errs.push(FieldError.required('allocateLoadBalancerNodePorts'));
  if (spec.type === 'LoadBalancer') {
    if (isSet(spec.loadBalancerClass)) errs.push(...qualifiedName(spec.loadBalancerClass, 'spec.loadBalancerClass'));
  } else if (isSet(spec.loadBalancerClass)) errs.push(FieldError.forbidden('spec.loadBalancerClass', LB_ONLY));
  errs.push(...validateTrafficPolicies(svc));
  return errs;
}

function validateUpgradeDowngradeClusterIPs(old: Service, svc: Service): FieldError[] {
  if (svc.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName') return [];
  if (isHeadless(old) && isHeadless(svc)) return [];
  const errs: FieldError[] = [];
  const before = clusterIPsOf(old);
  const after = clusterIPsOf(svc);
  const changed = 'may not change once set';
  if (before.length === after.length) {
    before.forEach((ip, i) => {
      if (ip !== after[i]) errs.push(FieldError.invalid(`spec.clusterIPs[${i}]`, after, changed));
    });
  } else if (before.length > after.length) {
    if (!after.length) errs.push(FieldError.invalid('spec.clusterIPs[0]', after, 'primary clusterIP can not be unset'));
    if (before.length && after.length && after[0] !== before[0]) errs.push(FieldError.invalid('spec.clusterIPs[0]', after, changed));
    if (after.length === 1 && svc.spec?.ipFamilyPolicy !== 'SingleStack') {
      errs.push(FieldError.invalid('spec.ipFamilyPolicy', svc.spec?.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (before.length && after[0] !== before[0]) {
    errs.push(FieldError.invalid('spec.clusterIPs[0]', after, changed));
  }
  return errs;
}

/** A []core.IPFamily bad value as Go's %#v prints it. */
const goFamilies = (f: string[]): { toString(): string } => bare(`[]core.IPFamily{${f.map((x) => goQuote(x)).join(', ')}}`);

function validateUpgradeDowngradeIPFamilies(old: Service, svc: Service): FieldError[] {
  if (svc.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName') return [];
  if (isHeadless(old) !== isHeadless(svc) || isHeadless(svc)) return [];
  const errs: FieldError[] = [];
  const before = old.spec?.ipFamilies ?? [];
  const after = svc.spec?.ipFamilies ?? [];
  const ips = clusterIPsOf(svc);
  const changed = 'may not change once set';
  if (before.length === after.length) {
    before.forEach((f, i) => {
      if (f !== after[i]) errs.push(FieldError.invalid('spec.ipFamilies[0]', goFamilies(after), changed));
    });
  } else if (before.length > after.length) {
    if (!ips.length) errs.push(FieldError.invalid('spec.ipFamilies[0]', goFamilies(after), 'primary ipFamily can not be unset'));
    if (after.length && after[0] !== before[0]) errs.push(FieldError.invalid('spec.ipFamilies[0]', ips, changed));
    if (after.length === 1 && svc.spec?.ipFamilyPolicy !== 'SingleStack') {
      errs.push(FieldError.invalid('spec.ipFamilyPolicy', svc.spec?.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (before.length && after.length && after[0] !== before[0]) {
    errs.push(FieldError.invalid('spec.ipFamilies[0]', ips, changed));
  }
  return errs;
}

/** ValidateServiceUpdate's own checks (ValidateService runs separately as the strategy's validate). */
export function validateServiceUpdate(svc: Service, old: Service): FieldError[] {
  const errs = [...validateUpgradeDowngradeClusterIPs(old, svc), ...validateUpgradeDowngradeIPFamilies(old, svc)];
  if (old.spec?.type === 'LoadBalancer' && svc.spec?.type === 'LoadBalancer' && (old.spec.loadBalancerClass ?? null) !== (svc.spec.loadBalancerClass ?? null)) {
    errs.push(FieldError.invalid('spec.loadBalancerClass', svc.spec.loadBalancerClass ?? null, 'may not change once set'));
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && (svc.spec?.healthCheckNodePort ?? 0) !== (old.spec?.healthCheckNodePort ?? 0)) {
    errs.push(FieldError.forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  return errs;
}

/** ValidateServiceStatusUpdate: the load balancer status (AllowServiceLBStatusOnNonLB is off in 1.33). */
export function validateServiceStatus(svc: Service): FieldError[] {
  const errs: FieldError[] = [];
  const ingress = svc.status?.loadBalancer?.ingress ?? [];
  const path = 'status.loadBalancer.ingress';
  if (svc.spec?.type !== 'LoadBalancer' && ingress.length) return [FieldError.forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  ingress.forEach((ing, i) => {
    const p = `${path}[${i}]`;
    const ip = ing.ip ?? '';
    if (ip) errs.push(...validIP(ip, `${p}.ip`));
    if (!isSet(ing.ipMode)) {
      if (ip) errs.push(FieldError.required(`${p}.ipMode`, 'must be specified when `ip` is set'));
    } else if (!ip) errs.push(FieldError.forbidden(`${p}.ipMode`, 'may not be specified when `ip` is not set'));
    else if (ing.ipMode !== 'Proxy' && ing.ipMode !== 'VIP') errs.push(FieldError.notSupported(`${p}.ipMode`, ing.ipMode, ['Proxy', 'VIP']));
    const host = ing.hostname ?? '';
    if (host) {
      errs.push(...dns1123Subdomain(host, `${p}.hostname`));
      if (parseIPSloppy(host)) errs.push(FieldError.invalid(`${p}.hostname`, host, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}
