// EndpointSlice validation: ValidateEndpointSlice(Create/Update) in pkg/apis/discovery/validation/validation.go
// (1.33: hints.forNodes validated like forZones, with node names).
import { FieldError } from '../../../machinery/errors.js';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain, validateLabels } from '../../../machinery/validation.js';
import { parseIP, to4 } from '../../networking/ip.js';
import { isFullyQualifiedDomainName, orEmpty, validateEndpointIP } from '../../networking/util.js';
import type { KObject } from '../../types.js';

export interface Endpoint {
  addresses?: string[] | null;
  conditions?: { ready?: boolean | null; serving?: boolean | null; terminating?: boolean | null };
  hostname?: string | null;
  targetRef?: Record<string, unknown> | null;
  deprecatedTopology?: Record<string, string> | null;
  nodeName?: string | null;
  zone?: string | null;
  hints?: { forZones?: Array<{ name?: string }> | null; forNodes?: Array<{ name?: string }> | null } | null;
}
export interface EndpointPort {
  name?: string | null;
  protocol?: string | null;
  port?: number | null;
  appProtocol?: string | null;
}
export interface EndpointSlice extends KObject {
  addressType?: string;
  endpoints?: Endpoint[] | null;
  ports?: EndpointPort[] | null;
}

export const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_HINTS = 8;
const ZONE_LABEL = 'topology.kubernetes.io/zone';

const invalidEach = (path: string, value: unknown, msgs: readonly string[]) => msgs.map((m) => FieldError.invalid(path, value, m));

function validateAddress(type: string, address: string, path: string): FieldError[] {
  switch (type) {
    case 'IPv4':
    case 'IPv6': {
      const ip = parseIP(address);
      const ok = ip !== undefined && (type === 'IPv4') === (to4(ip) !== undefined);
      const errs = ok ? [] : [FieldError.invalid(path, address, `must be a valid ${type} address`)];
      return [...errs, ...validateEndpointIP(address, path)];
    }
    case 'FQDN':
      return isFullyQualifiedDomainName(path, address);
    default:
      return []; // unknown types are reported on addressType only
  }
}

function validateHintNames(names: Array<{ name?: string }>, path: string, check: (n: string) => string[]): FieldError[] {
  if (names.length > MAX_HINTS) return [FieldError.tooMany(path, names.length, MAX_HINTS)];
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  names.forEach((h, i) => {
    const name = h?.name ?? '';
    const p = `${path}[${i}].name`;
    if (seen.has(name)) errs.push(FieldError.duplicate(p, name));
    else seen.add(name);
    errs.push(...invalidEach(p, name, check(name)));
  });
  return errs;
}

function validateEndpoints(eps: EndpointSlice): FieldError[] {
  const endpoints = orEmpty(eps.endpoints);
  if (endpoints.length > MAX_ENDPOINTS) return [FieldError.tooMany('endpoints', endpoints.length, MAX_ENDPOINTS)];
  const errs: FieldError[] = [];
  endpoints.forEach((ep0, i) => {
    const ep = ep0 ?? {};
    const path = `endpoints[${i}]`;
    const addresses = orEmpty(ep.addresses);
    if (!addresses.length) errs.push(FieldError.required(`${path}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES) errs.push(FieldError.tooMany(`${path}.addresses`, addresses.length, MAX_ADDRESSES));
    addresses.forEach((a, j) => errs.push(...validateAddress(eps.addressType ?? '', a, `${path}.addresses[${j}]`)));
    if (ep.nodeName != null) errs.push(...invalidEach(`${path}.nodeName`, ep.nodeName, nameIsDNSSubdomain(ep.nodeName, false)));
    const topo = ep.deprecatedTopology ?? {};
    const tp = `${path}.deprecatedTopology`;
    if (Object.keys(topo).length > MAX_TOPOLOGY_LABELS) errs.push(FieldError.tooMany(tp, Object.keys(topo).length, MAX_TOPOLOGY_LABELS));
    errs.push(...validateLabels(topo, tp));
    if (Object.prototype.hasOwnProperty.call(topo, ZONE_LABEL)) {
      errs.push(FieldError.internal(`${tp}[${ZONE_LABEL}]`, 'reserved key was not removed in conversion'));
    }
    if (ep.hostname != null) errs.push(...invalidEach(`${path}.hostname`, ep.hostname, isDNS1123Label(ep.hostname)));
    if (ep.hints != null) {
      const hp = `${path}.hints`;
      const zoneErrs = validateHintNames(orEmpty(ep.hints.forZones), `${hp}.forZones`, isValidLabelValue);
      errs.push(...zoneErrs);
      if (!zoneErrs.some((e) => e.type === 'FieldValueTooMany')) {
        errs.push(...validateHintNames(orEmpty(ep.hints.forNodes), `${hp}.forNodes`, (n) => nameIsDNSSubdomain(n, false)));
      }
    }
  });
  return errs;
}

function validatePorts(eps: EndpointSlice): FieldError[] {
  const ports = orEmpty(eps.ports);
  if (ports.length > MAX_PORTS) return [FieldError.tooMany('ports', ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((p0, i) => {
    const p = p0 ?? {};
    const path = `ports[${i}]`;
    const name = p.name ?? '';
    if (name !== '') errs.push(...invalidEach(`${path}.name`, name, isDNS1123Label(name)));
    if (names.has(name)) errs.push(FieldError.duplicate(`${path}.name`, name));
    else names.add(name);
    if (p.protocol == null) errs.push(FieldError.required(`${path}.protocol`, ''));
    else if (!PROTOCOLS.includes(p.protocol)) errs.push(FieldError.notSupported(`${path}.protocol`, p.protocol, PROTOCOLS));
    if (p.appProtocol != null) errs.push(...invalidEach(`${path}.appProtocol`, p.appProtocol, isQualifiedName(p.appProtocol)));
  });
  return errs;
}

/** ValidateEndpointSlice (metadata is validated by the generic server). */
export function validateEndpointSlice(eps: EndpointSlice): FieldError[] {
  const errs: FieldError[] = [];
  const at = eps.addressType ?? '';
  if (at === '') errs.push(FieldError.required('addressType', ''));
  else if (!ADDRESS_TYPES.includes(at)) errs.push(FieldError.notSupported('addressType', at, ADDRESS_TYPES));
  return [...errs, ...validateEndpoints(eps), ...validatePorts(eps)];
}
