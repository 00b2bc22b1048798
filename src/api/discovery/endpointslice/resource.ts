// discovery.k8s.io/v1 EndpointSlice: staging/src/k8s.io/api/discovery/v1/types.go, SetDefaults_EndpointPort in
// pkg/apis/discovery/v1/defaults.go, pkg/registry/discovery/endpointslice/strategy.go, printEndpointSlice.
import { s, type Definitions } from '../../../machinery/schema.js';
import { validateImmutableField } from '../../../machinery/validation.js';
import { CORE } from '../../core/common.js';
import { ageColumn, jsonEqual, nameColumn } from '../../format.js';
import { kindHeader, listDefinition } from '../../meta.js';
import { orEmpty } from '../../networking/util.js';
import { validateEndpointSlice, type Endpoint, type EndpointPort, type EndpointSlice } from './validation.js';
import { defineResource } from '../../types.js';

export type { EndpointSlice } from './validation.js';

export const DISCOVERY = 'io.k8s.api.discovery.v1.';
/** Label tying a slice to its Service (set by the EndpointSlice controller; selectable with label selectors). */
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';

const item = (name: string) => s.ref(DISCOVERY + name, undefined, { default: {} });
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

export const discoveryDefinitions: Definitions = {
  [`${DISCOVERY}EndpointSlice`]: s.obj(
    {
      ...kindHeader(),
      addressType: s.str(
        'addressType is the type of every address in this slice: IPv4, IPv6 or FQDN. It cannot be changed after creation.',
        { default: '' },
      ),
      endpoints: s.arr(item('Endpoint'), { description: 'endpoints is a list of unique endpoints in this slice, at most 1000.' }),
      ports: s.arr(item('EndpointPort'), {
        description:
          'ports lists the network ports every endpoint of the slice exposes, each with a unique name, at most 20000. Empty means no ports are defined; a port with no number means "all ports".',
      }),
    },
    {
      description:
        'EndpointSlice represents a subset of the endpoints that implement a service. A service may have several slices, selected by labels, which together give its full set of endpoints.',
      required: ['addressType', 'endpoints'],
    },
  ),
  [`${DISCOVERY}Endpoint`]: s.obj(
    {
      addresses: s.strSet('addresses of this endpoint, interpreted according to the addressType of the slice. At least 1 and at most 100.'),
      conditions: s.ref(`${DISCOVERY}EndpointConditions`, 'conditions contains information about the current status of the endpoint.', { default: {} }),
      deprecatedTopology: s.strMap(
        'deprecatedTopology holds topology information from the v1beta1 API. It cannot be written through v1 (writes are silently ignored); use zone and nodeName instead.',
      ),
      hints: s.ref(`${DISCOVERY}EndpointHints`, 'hints contains information associated with how an endpoint should be consumed.'),
      hostname: s.str('hostname of this endpoint, usable by consumers to tell endpoints apart (e.g. in DNS names). Must be a lowercase RFC 1123 label.'),
      nodeName: s.str('nodeName is the name of the Node hosting this endpoint.'),
      targetRef: s.ref(`${CORE}ObjectReference`, 'targetRef is a reference to a Kubernetes object that represents this endpoint.'),
      zone: s.str('zone is the name of the Zone this endpoint exists in.'),
    },
    { description: 'Endpoint represents a single logical "backend" implementing a service.', required: ['addresses'] },
  ),
  [`${DISCOVERY}EndpointConditions`]: s.obj(
    {
      ready: s.bool('ready says the endpoint is prepared to receive traffic. Unset means unknown, which consumers should usually treat as ready. Never true for a terminating endpoint.'),
      serving: s.bool('serving is like ready but set regardless of the terminating state: a ready endpoint that is terminating is serving. Unset: defer to ready.'),
      terminating: s.bool('terminating says the endpoint is terminating. Unset means unknown, to be treated as not terminating.'),
    },
    { description: 'EndpointConditions represents the current condition of an endpoint.' },
  ),
  [`${DISCOVERY}EndpointHints`]: s.obj(
    {
      forNodes: s.arr(item('ForNode'), { description: 'forNodes lists the node(s) that should consume this endpoint under traffic distribution. (Alpha: needs the PreferSameTrafficDistribution feature gate.)' }),
      forZones: s.arr(item('ForZone'), { description: 'forZones lists the zone(s) that should consume this endpoint, for topology aware routing.' }),
    },
    { description: 'EndpointHints provides hints describing how an endpoint should be consumed.' },
  ),
  [`${DISCOVERY}ForZone`]: s.obj(
    { name: s.str('name represents the name of the zone.', { default: '' }) },
    { description: 'ForZone provides information about which zones should consume this endpoint.', required: ['name'] },
  ),
  [`${DISCOVERY}ForNode`]: s.obj(
    { name: s.str('name represents the name of the node.', { default: '' }) },
    { description: 'ForNode provides information about which nodes should consume this endpoint.', required: ['name'] },
  ),
  [`${DISCOVERY}EndpointPort`]: s.obj(
    {
      appProtocol: s.str(
        'appProtocol is the application protocol of this port, in label syntax: un-prefixed names are reserved for IANA service names, others should look like mycompany.com/my-protocol.',
      ),
      name: s.str('name of this port, unique within the slice: empty or a DNS label. For a slice derived from a Service it is the Service port name. Defaults to "".'),
      port: s.int32('port is the port number of the endpoint. When unset, ports are not restricted and must be interpreted by the consumer.'),
      protocol: s.enumOf(PROTOCOLS, 'protocol is the IP protocol of this port: UDP, TCP, or SCTP. Defaults to TCP.'),
    },
    { description: 'EndpointPort represents a Port used by an EndpointSlice', mapType: 'atomic' },
  ),
  [`${DISCOVERY}EndpointSliceList`]: listDefinition(`${DISCOVERY}EndpointSlice`, 'EndpointSliceList represents a list of endpoint slices', 'items is the list of endpoint slices'),
};

/** printers.go listWithMoreString: up to three entries, "+ N more...", <unset> when empty. */
function listWithMore(items: string[], total: number): string {
  const max = 3;
  if (total > max) return `${items.slice(0, max).join(',')} + ${total - max} more...`;
  return items.length ? items.join(',') : '<unset>';
}

export function formatDiscoveryPorts(ports: EndpointPort[] | null | undefined): string {
  const list = orEmpty(ports).map((p) => (p?.port != null ? String(p.port) : p?.name != null ? p.name : '*'));
  return listWithMore(list, list.length);
}

export function formatDiscoveryEndpoints(endpoints: Endpoint[] | null | undefined): string {
  const list = orEmpty(endpoints).flatMap((e) => orEmpty(e?.addresses));
  return listWithMore(list, list.length);
}

function defaultEndpointSlice(eps: EndpointSlice): void {
  // endpoints and ports have no omitempty: Go writes null for a nil slice.
  if (eps.endpoints === undefined) eps.endpoints = null;
  if (eps.ports === undefined) eps.ports = null;
  for (const ep of orEmpty(eps.endpoints)) if (ep && typeof ep === 'object') ep.conditions ??= {};
  for (const p of orEmpty(eps.ports)) {
    if (!p || typeof p !== 'object') continue;
    p.name ??= '';
    p.protocol ??= 'TCP';
  }
}

/** deprecatedTopology is not writable through v1; hints.forNodes needs PreferSameTrafficDistribution (alpha in 1.33). */
function dropV1Fields(eps: EndpointSlice, keepForNodes: boolean, clearTopology: boolean): void {
  for (const ep of orEmpty(eps.endpoints)) {
    if (!ep || typeof ep !== 'object') continue;
    if (clearTopology) delete ep.deprecatedTopology;
    if (!keepForNodes && ep.hints) delete ep.hints.forNodes;
  }
}

export const endpointSliceResource = defineResource<EndpointSlice>({
  group: 'discovery.k8s.io',
  version: 'v1',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  singular: 'endpointslice',
  namespaced: true,
  schemaRef: `${DISCOVERY}EndpointSlice`,
  definitions: discoveryDefinitions,
  hasGeneration: true,
  columns: [
    nameColumn(),
    {
      name: 'AddressType',
      type: 'string',
      description: discoveryDefinitions[`${DISCOVERY}EndpointSlice`].properties!.addressType.description!,
      cell: (o) => o.addressType ?? '',
    },
    {
      name: 'Ports',
      type: 'string',
      description: discoveryDefinitions[`${DISCOVERY}EndpointSlice`].properties!.ports.description!,
      cell: (o) => formatDiscoveryPorts(o.ports),
    },
    {
      name: 'Endpoints',
      type: 'string',
      description: discoveryDefinitions[`${DISCOVERY}EndpointSlice`].properties!.endpoints.description!,
      cell: (o) => formatDiscoveryEndpoints(o.endpoints),
    },
    ageColumn(),
  ],
  strategy: {
    defaults: defaultEndpointSlice,
    prepareForCreate: (eps) => dropV1Fields(eps, false, true),
    prepareForUpdate(eps, old) {
      const keep = orEmpty(old.endpoints).some((ep) => ep?.hints?.forNodes != null);
      // dropTopologyOnV1 leaves deprecatedTopology alone when the endpoints did not change.
      dropV1Fields(eps, keep, !jsonEqual(eps.endpoints ?? null, old.endpoints ?? null));
    },
    // The strategy bumps the generation when anything but metadata changes, and when the labels change.
    generationChanged(eps, old) {
      const body = (o: EndpointSlice) => ({ addressType: o.addressType, endpoints: o.endpoints ?? null, ports: o.ports ?? null });
      return !jsonEqual(body(eps), body(old)) || !jsonEqual(eps.metadata.labels ?? {}, old.metadata.labels ?? {});
    },
    validate: validateEndpointSlice,
    validateUpdate: (eps, old) => validateImmutableField(eps.addressType ?? '', old.addressType ?? '', 'addressType'),
    allowCreateOnUpdate: false,
  },
});
