// Ingress validation: ValidateIngressCreate / ValidateIngressUpdate / ValidateIngressStatusUpdate in
// pkg/apis/networking/validation/validation.go (1.33: service names are DNS-1035 labels).
import { FieldError } from '../../../machinery/errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName, nameIsDNSSubdomain } from '../../../machinery/validation.js';
import { isValidPortName, isValidPortNum } from '../../core/pod/validation-util.js';
import { parseIP } from '../ip.js';
import type { HTTPIngressPath, Ingress, IngressBackend, IngressRule, IngressSpec } from './schema.js';
import { bare, isWildcardDNS1123Subdomain, orEmpty } from '../util.js';

export const ANNOTATION_INGRESS_CLASS = 'kubernetes.io/ingress.class';
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_SUFFIXES = ['/..', '/.'];

export interface IngressValidationOptions {
  /** tolerate spec.tls[*].secretName values already stored that are not valid Secret names */
  allowInvalidSecretName?: boolean;
  /** tolerate invalid rule values under wildcard hosts already stored */
  allowInvalidWildcardHostRule?: boolean;
}

const invalidEach = (path: string, value: unknown, msgs: string[]) => msgs.map((m) => FieldError.invalid(path, value, m));

/** validateIngressTypedLocalObjectReference: a resource backend. */
function validateResourceRef(ref: NonNullable<IngressBackend['resource']>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (ref.apiGroup != null) errs.push(...invalidEach(`${path}.apiGroup`, ref.apiGroup, isDNS1123Subdomain(ref.apiGroup)));
  for (const f of ['kind', 'name'] as const) {
    const v = ref[f] ?? '';
    if (v === '') errs.push(FieldError.required(`${path}.${f}`, ''));
    else errs.push(...invalidEach(`${path}.${f}`, v, isValidPathSegmentName(v)));
  }
  return errs;
}

function validateBackend(backend: IngressBackend, path: string): FieldError[] {
  const hasResource = backend.resource != null;
  const svc = backend.service;
  if (hasResource && svc != null) return [FieldError.invalid(path, '', 'cannot set both resource and service backends')];
  if (hasResource) return validateResourceRef(backend.resource!, `${path}.resource`);
  if (svc == null) return [FieldError.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  const name = svc.name ?? '';
  if (name === '') errs.push(FieldError.required(`${path}.service.name`, ''));
  else errs.push(...invalidEach(`${path}.service.name`, name, isDNS1035Label(name)));
  const portName = svc.port?.name ?? '';
  const portNumber = svc.port?.number ?? 0;
  if (portName !== '' && portNumber !== 0) errs.push(FieldError.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName !== '') errs.push(...invalidEach(`${path}.service.port.name`, portName, isValidPortName(portName)));
  else if (portNumber !== 0) errs.push(...invalidEach(`${path}.service.port.number`, portNumber, isValidPortNum(portNumber)));
  else errs.push(FieldError.required(path, 'port name or number is required'));
  return errs;
}

function validatePath(p: HTTPIngressPath, path: string): FieldError[] {
  if (p.pathType == null) return [FieldError.required(`${path}.pathType`, 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = p.path ?? '';
  const pp = `${path}.path`;
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(FieldError.invalid(pp, value, 'must be an absolute path'));
      for (const seq of INVALID_SEQUENCES) if (value.includes(seq)) errs.push(FieldError.invalid(pp, value, `must not contain '${seq}'`));
      for (const suf of INVALID_SUFFIXES) if (value.endsWith(suf)) errs.push(FieldError.invalid(pp, value, `cannot end with '${suf}'`));
      break;
    case 'ImplementationSpecific':
      if (value !== '' && !value.startsWith('/')) errs.push(FieldError.invalid(pp, value, 'must be an absolute path'));
      break;
    default:
      errs.push(FieldError.notSupported(`${path}.pathType`, p.pathType, PATH_TYPES));
  }
  errs.push(...validateBackend(p.backend ?? {}, `${path}.backend`));
  return errs;
}

function validateRuleValue(rule: IngressRule, path: string): FieldError[] {
  if (rule.http == null) return [];
  const paths = orEmpty(rule.http.paths);
  const errs: FieldError[] = [];
  if (!paths.length) errs.push(FieldError.required(`${path}.http.paths`, ''));
  paths.forEach((p, i) => errs.push(...validatePath(p ?? {}, `${path}.http.paths[${i}]`)));
  return errs;
}

function validateRules(rules: IngressRule[], opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  rules.forEach((rule, i) => {
    const path = `spec.rules[${i}]`;
    const host = rule.host ?? '';
    let wildcard = false;
    if (host !== '') {
      if (parseIP(host)) errs.push(FieldError.invalid(`${path}.host`, host, 'must be a DNS name, not an IP address'));
      if (host.includes('*')) {
        errs.push(...invalidEach(`${path}.host`, host, isWildcardDNS1123Subdomain(host)));
        wildcard = true;
      } else errs.push(...invalidEach(`${path}.host`, host, isDNS1123Subdomain(host)));
    }
    if (!wildcard || !opts.allowInvalidWildcardHostRule) errs.push(...validateRuleValue(rule, path));
  });
  return errs;
}

function validateTLS(spec: IngressSpec, opts: IngressValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  orEmpty(spec.tls).forEach((tls, i) => {
    orEmpty(tls?.hosts).forEach((host, j) => {
      const check = host.includes('*') ? isWildcardDNS1123Subdomain : isDNS1123Subdomain;
      errs.push(...invalidEach(`spec.tls[${i}].hosts[${j}]`, host, check(host)));
    });
    const secret = tls?.secretName ?? '';
    if (!opts.allowInvalidSecretName && secret !== '') {
      errs.push(...invalidEach(`spec.tls[${i}].secretName`, secret, nameIsDNSSubdomain(secret, false)));
    }
  });
  return errs;
}

/** ValidateIngressSpec. */
export function validateIngressSpec(spec: IngressSpec, opts: IngressValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const rules = orEmpty(spec.rules);
  if (!rules.length && spec.defaultBackend == null) {
    // Go prints the (empty) internal slice with %#v.
    const shown = bare(Array.isArray(spec.rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)');
    errs.push(FieldError.invalid('spec', shown, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (spec.defaultBackend != null) errs.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  if (rules.length) errs.push(...validateRules(rules, opts));
  if (orEmpty(spec.tls).length) errs.push(...validateTLS(spec, opts));
  if (spec.ingressClassName != null) {
    errs.push(...invalidEach('spec.ingressClassName', spec.ingressClassName, nameIsDNSSubdomain(spec.ingressClassName, false)));
  }
  return errs;
}

/** ValidateIngressCreate's own check: the legacy class annotation must agree with ingressClassName. */
export function validateIngressClassAnnotation(ing: Ingress): FieldError[] {
  const ann = ing.metadata.annotations?.[ANNOTATION_INGRESS_CLASS];
  const cls = ing.spec?.ingressClassName;
  if (ann !== undefined && cls != null && ann !== cls) {
    return [FieldError.invalid(`annotations.${ANNOTATION_INGRESS_CLASS}`, ann, 'must match `ingressClassName` when both are specified')];
  }
  return [];
}

/** The compatibility options ValidateIngressUpdate derives from the stored object. */
export function updateOptions(old: Ingress): IngressValidationOptions {
  const spec = old.spec ?? {};
  return {
    allowInvalidSecretName: orEmpty(spec.tls).some((t) => !!t?.secretName && nameIsDNSSubdomain(t.secretName, false).length > 0),
    allowInvalidWildcardHostRule: orEmpty(spec.rules).some((r) => (r.host ?? '').includes('*') && validateRuleValue(r, '').length > 0),
  };
}

/** ValidateIngressLoadBalancerStatus (legacy IP validation: StrictIPCIDRValidation is off in 1.33). */
export function validateIngressStatus(ing: Ingress): FieldError[] {
  const errs: FieldError[] = [];
  orEmpty(ing.status?.loadBalancer?.ingress).forEach((lb, i) => {
    const path = `status.loadBalancer.ingress[${i}]`;
    const ip = lb?.ip ?? '';
    if (ip !== '' && !parseIP(ip)) {
      errs.push(FieldError.invalid(`${path}.ip`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    }
    const host = lb?.hostname ?? '';
    if (host !== '') {
      errs.push(...invalidEach(`${path}.hostname`, host, isDNS1123Subdomain(host)));
      if (parseIP(host)) errs.push(FieldError.invalid(`${path}.hostname`, host, 'must be a DNS name, not an IP address'));
    }
  });
  return errs;
}
