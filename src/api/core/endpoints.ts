// core/v1 Endpoints: schema (k8s.io/api/core/v1 types.go, 1.33), SetDefaults_Endpoints, ValidateEndpoints,
// the strategy's RepackSubsets canonicalisation (pkg/api/v1/endpoints) and printEndpoints' formatEndpoints.
import { FieldError } from '../../machinery/errors.js';
import { s, type Definitions, type Schema } from '../../machinery/schema.js';
import { compareGoStrings, nameIsDNSSubdomain } from '../../machinery/validation.js';
import { CORE, type ObjectReference } from './common.js';
import { dns1123Label, invalidEach, isValidPortNum, qualifiedName, validIP } from './pod/validation-util.js';
import { validateNonSpecialIP } from './service/net.js';
import { ageColumn, CELL_NONE, nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string | null;
  targetRef?: ObjectReference | null;
}

export interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string | null;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[] | null;
  notReadyAddresses?: EndpointAddress[] | null;
  ports?: EndpointPort[] | null;
}

export interface Endpoints extends KObject {
  subsets?: EndpointSubset[] | null;
}

/** The warning kube-apiserver 1.33 adds to every request for v1 Endpoints (APILifecycleDeprecated 1.33). */
export const ENDPOINTS_DEPRECATION_WARNING = 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice';

const r = (name: string, description?: string): Schema => s.ref(CORE + name, description, { default: {} });

export const endpointsDefinitions: Definitions = {
  [`${CORE}Endpoints`]: s.obj(
    {
      ...kindHeader(),
      subsets: s.arr(r('EndpointSubset'), {
        description: 'The endpoints: groups of addresses that share a set of ports. An address may appear in several subsets, ready for some ports and not ready for others.',
      }),
    },
    {
      description:
        'Endpoints lists the network endpoints behind a service (deprecated in 1.33 in favour of discovery.k8s.io/v1 EndpointSlice).',
    },
  ),
  [`${CORE}EndpointSubset`]: s.obj(
    {
      addresses: s.arr(r('EndpointAddress'), { description: 'Addresses that are ready to receive traffic on the ports of this subset.' }),
      notReadyAddresses: s.arr(r('EndpointAddress'), { description: 'Addresses not ready yet (e.g. still starting or failing readiness checks).' }),
      ports: s.arr(r('EndpointPort'), { description: 'Ports offered by every address of this subset.' }),
    },
    { description: 'A group of addresses that all offer the same ports.' },
  ),
  [`${CORE}EndpointAddress`]: s.obj(
    {
      ip: s.str('IP of the endpoint. Loopback, link-local and link-local multicast addresses are not allowed.', { default: '' }),
      hostname: s.str('Hostname of the endpoint.'),
      nodeName: s.str('Node hosting the endpoint; used to find endpoints local to a node.'),
      targetRef: s.ref(`${CORE}ObjectReference`, 'The object (usually a pod) providing the endpoint.'),
    },
    { required: ['ip'], mapType: 'atomic', description: 'One endpoint address.' },
  ),
  [`${CORE}EndpointPort`]: s.obj(
    {
      name: s.str('Name of the port; must match the service port name. Required when there is more than one port.'),
      port: s.int32('Port number.', { default: 0 }),
      protocol: s.enumOf(['SCTP', 'TCP', 'UDP'], 'IP protocol: TCP (default), UDP or SCTP.'),
      appProtocol: s.str('Application protocol of the port, as in the service port.'),
    },
    { required: ['port'], mapType: 'atomic', description: 'A port of an endpoint.' },
  ),
  [`${CORE}EndpointsList`]: listDefinition(`${CORE}Endpoints`, 'EndpointsList is a list of endpoints.', 'List of endpoints.'),
};

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validateAddress(a: EndpointAddress, path: string): FieldError[] {
  const ip = a.ip ?? '';
  const errs = validIP(ip, `${path}.ip`);
  if (a.hostname) errs.push(...dns1123Label(a.hostname, `${path}.hostname`));
  if (a.nodeName !== undefined && a.nodeName !== null) errs.push(...invalidEach(`${path}.nodeName`, a.nodeName, nameIsDNSSubdomain(a.nodeName, false)));
  errs.push(...validateNonSpecialIP(ip, `${path}.ip`));
  return errs;
}

function validatePort(p: EndpointPort, requireName: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (requireName && !p.name) errs.push(FieldError.required(`${path}.name`));
  else if (p.name) errs.push(...dns1123Label(p.name, `${path}.name`));
  errs.push(...invalidEach(`${path}.port`, p.port ?? 0, isValidPortNum(p.port ?? 0)));
  if (!p.protocol) errs.push(FieldError.required(`${path}.protocol`));
  else if (!PROTOCOLS.includes(p.protocol)) errs.push(FieldError.notSupported(`${path}.protocol`, p.protocol, PROTOCOLS));
  if (p.appProtocol !== undefined && p.appProtocol !== null) errs.push(...qualifiedName(p.appProtocol, `${path}.appProtocol`));
  return errs;
}

/** ValidateEndpoints (create and update alike; ValidateEndpointsUpdate adds only metadata checks). */
export function validateEndpoints(ep: Endpoints): FieldError[] {
  const errs: FieldError[] = [];
  (ep.subsets ?? []).forEach((ss, i) => {
    const p = `subsets[${i}]`;
    // Headless services may have endpoints without ports, never without addresses.
    if (!ss.addresses?.length && !ss.notReadyAddresses?.length) errs.push(FieldError.required(p, 'must specify `addresses` or `notReadyAddresses`'));
    (ss.addresses ?? []).forEach((a, j) => errs.push(...validateAddress(a, `${p}.addresses[${j}]`)));
    (ss.notReadyAddresses ?? []).forEach((a, j) => errs.push(...validateAddress(a, `${p}.notReadyAddresses[${j}]`)));
    (ss.ports ?? []).forEach((port, j) => errs.push(...validatePort(port, (ss.ports?.length ?? 0) > 1, `${p}.ports[${j}]`)));
  });
  return errs;
}

const addrKey = (a: EndpointAddress): string => `${a.ip ?? ''}\u0000${a.targetRef?.uid ?? ''}`;
const portKey = (p: EndpointPort): string => JSON.stringify([p.name ?? '', p.port ?? 0, p.protocol ?? '', p.appProtocol ?? null]);

/** LessEndpointAddress: by IP bytes, then by target UID (no target first). */
function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  const c = compareGoStrings(a.ip ?? '', b.ip ?? '');
  if (c) return c;
  if (!b.targetRef) return a.targetRef ? 1 : 0;
  if (!a.targetRef) return -1;
  return compareGoStrings(a.targetRef.uid ?? '', b.targetRef.uid ?? '');
}

/**
 * RepackSubsets: expands subsets to (address, port, ready) triples and regroups them so each subset holds the
 * addresses sharing one set of ports; an address ready on a port in any subset is ready on it. Kubernetes orders
 * ports and subsets by a hash of their contents; we order them by name/number and first address instead.
 */
export function repackSubsets(subsets: EndpointSubset[]): EndpointSubset[] {
  const addrs = new Map<string, EndpointAddress>();
  const byPort = new Map<string, { port?: EndpointPort; ready: Map<string, boolean> }>();
  const note = (a: EndpointAddress, port: EndpointPort | undefined, ready: boolean) => {
    const k = addrKey(a);
    if (!addrs.has(k)) addrs.set(k, { ...a });
    const pk = port ? portKey(port) : 'none';
    const entry = byPort.get(pk) ?? { port, ready: new Map<string, boolean>() };
    byPort.set(pk, entry);
    if (!entry.ready.get(k)) entry.ready.set(k, ready);
  };
  for (const ss of subsets) {
    const ports: (EndpointPort | undefined)[] = ss.ports?.length ? ss.ports : [undefined];
    for (const port of ports) {
      for (const a of ss.addresses ?? []) note(a, port, true);
      for (const a of ss.notReadyAddresses ?? []) note(a, port, false);
    }
  }
  const groups = new Map<string, { ready: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, ready } of byPort.values()) {
    const sig = JSON.stringify([...ready.entries()].sort());
    const g = groups.get(sig) ?? { ready, ports: [] };
    groups.set(sig, g);
    if (port) g.ports.push({ ...port });
  }
  const out: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const ss: EndpointSubset = {};
    const ready = [...g.ready].filter(([, r]) => r).map(([k]) => addrs.get(k)!).sort(compareAddresses);
    const notReady = [...g.ready].filter(([, r]) => !r).map(([k]) => addrs.get(k)!).sort(compareAddresses);
    if (ready.length) ss.addresses = ready;
    if (notReady.length) ss.notReadyAddresses = notReady;
    if (g.ports.length) {
      ss.ports = g.ports.sort((a, b) => compareGoStrings(a.name ?? '', b.name ?? '') || (a.port ?? 0) - (b.port ?? 0) || compareGoStrings(a.protocol ?? '', b.protocol ?? ''));
    }
    out.push(ss);
  }
  const first = (ss: EndpointSubset) => ss.addresses?.[0] ?? ss.notReadyAddresses?.[0] ?? {};
  return out.sort((a, b) => compareAddresses(first(a), first(b)));
}

/** net.JoinHostPort: IPv6 hosts are bracketed. */
const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** formatEndpoints: up to three host:port pairs, then "+ N more...". */
export function formatEndpoints(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (!subsets.length) return CELL_NONE;
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports?.length ? ss.ports : [undefined];
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(port ? joinHostPort(a.ip ?? '', port.port ?? 0) : (a.ip ?? ''));
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - max} more...` : ret;
}

export const endpointsResource = defineResource<Endpoints>({
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  plural: 'endpoints',
  singular: 'endpoints',
  shortNames: ['ep'],
  namespaced: true,
  schemaRef: `${CORE}Endpoints`,
  definitions: endpointsDefinitions,
  columns: [
    nameColumn(),
    { name: 'Endpoints', type: 'string', description: endpointsDefinitions[`${CORE}Endpoints`].properties!.subsets.description!, cell: formatEndpoints },
    ageColumn(),
  ],
  strategy: {
    defaults(ep) {
      for (const ss of ep.subsets ?? []) for (const p of ss.ports ?? []) p.protocol ||= 'TCP';
    },
    validate: validateEndpoints,
    canonicalize(ep) {
      const packed = repackSubsets(ep.subsets ?? []);
      if (packed.length) ep.subsets = packed;
      else delete ep.subsets;
    },
    // The apiserver warns on every v1 Endpoints request; a strategy can only do it for writes.
    warnings: () => [ENDPOINTS_DEPRECATION_WARNING],
    allowCreateOnUpdate: true,
  },
});
