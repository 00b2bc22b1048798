import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { discoveryDefinitions, discoveryResources, endpointSliceResource, formatDiscoveryPorts } from '../../../../src/api/discovery/index.js';
import type { EndpointSlice } from '../../../../src/api/discovery/endpointslice/resource.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';

const st = endpointSliceResource.strategy;
const eps = (extra: Partial<EndpointSlice>): EndpointSlice => ({ metadata: { name: 'web-abc', namespace: 'default' }, addressType: 'IPv4', ...extra });
const errs = (o: EndpointSlice) => {
  st.defaults!(o);
  return st.validate!(o).map(String);
};

describe('EndpointSlice defaults', () => {
  it('writes null endpoints/ports, empty conditions, and defaults port name and protocol', () => {
    const o = eps({});
    st.defaults!(o);
    assert.equal(o.endpoints, null);
    assert.equal(o.ports, null);
    const p = eps({ endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] });
    st.defaults!(p);
    assert.deepEqual(p.endpoints, [{ addresses: ['10.0.0.1'], conditions: {} }]);
    assert.deepEqual(p.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
  });
  it('drops deprecatedTopology and (alpha) hints.forNodes written through v1', () => {
    const o = eps({ endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { a: 'b' }, hints: { forZones: [{ name: 'z' }], forNodes: [{ name: 'n' }] } }] });
    st.prepareForCreate!(o);
    assert.deepEqual(o.endpoints, [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'z' }] } }]);
  });
});

describe('EndpointSlice validation', () => {
  it('requires a supported addressType, immutable on update', () => {
    assert.deepEqual(errs(eps({ addressType: '' })), ['addressType: Required value']);
    assert.deepEqual(errs(eps({ addressType: 'IP' })), ['addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"']);
    assert.deepEqual(st.validateUpdate!(eps({ addressType: 'IPv6' }), eps({})).map(String), ['addressType: Invalid value: "IPv6": field is immutable']);
  });

  it('checks endpoints and their addresses by type', () => {
    assert.deepEqual(errs(eps({ endpoints: [{ addresses: [] }, { addresses: ['10.0.0.1', '::1', '127.0.0.1'], hostname: 'A', nodeName: 'N_1' }] })), [
      'endpoints[0].addresses: Required value: must contain at least 1 address',
      'endpoints[1].addresses[1]: Invalid value: "::1": must be a valid IPv4 address',
      'endpoints[1].addresses[1]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'endpoints[1].addresses[2]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      `endpoints[1].nodeName: Invalid value: "N_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      `endpoints[1].hostname: Invalid value: "A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
    assert.deepEqual(errs(eps({ addressType: 'FQDN', endpoints: [{ addresses: ['example.com', 'web'] }] })), [
      'endpoints[0].addresses[1]: Invalid value: "web": should be a domain with at least two segments separated by dots',
    ]);
    const many = Array.from({ length: 1001 }, () => ({ addresses: ['10.0.0.1'] }));
    assert.deepEqual(errs(eps({ endpoints: many })), ['endpoints: Too many: 1001: must have at most 1000 items']);
    assert.deepEqual(errs(eps({ endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }, { name: 'a' }] } }] })), [
      'endpoints[0].hints.forZones[1].name: Duplicate value: "a"',
    ]);
  });

  it('checks ports', () => {
    assert.deepEqual(errs(eps({ ports: [{ name: 'http', port: 80 }, { name: 'http', protocol: 'ICMP' }, { name: 'Web', appProtocol: 'a b' }] })), [
      'ports[1].name: Duplicate value: "http"',
      'ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      `ports[2].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `ports[2].appProtocol: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });
});

describe('EndpointSlice table', () => {
  it('prints NAME ADDRESSTYPE PORTS ENDPOINTS AGE', () => {
    const now = Date.parse('2024-01-01T00:05:00Z');
    const o = eps({
      ports: [{ port: 80 }, { name: 'dns' }, {}, { port: 9 }],
      endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4'] }],
    });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(endpointSliceResource.columns.map((c) => c.name), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    assert.deepEqual(endpointSliceResource.columns.map((c) => c.cell(o, { now })), [
      'web-abc',
      'IPv4',
      '80,dns,* + 1 more...',
      '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...',
      '5m',
    ]);
    assert.equal(formatDiscoveryPorts(null), '<unset>');
    assert.equal(endpointSliceResource.columns[3].cell(eps({ endpoints: null }), { now }), '<unset>');
  });
});

describe('EndpointSlice through the registry', () => {
  let store: SqliteStore;
  let client: LocalClient;
  before(async () => {
    store = SqliteStore.open({ path: ':memory:' });
    const registry = new Registry(store, [namespaceResource, ...discoveryResources], [metaDefinitions, coreDefinitions, discoveryDefinitions]);
    client = new LocalClient(registry);
    await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  after(() => store.close());

  it('creates with defaults, selects by service label and keeps addressType', async () => {
    const r = client.resource('discovery.k8s.io/v1', 'endpointslices');
    const created = await r.create('default', {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'http', port: 8080 }],
    });
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const list = await r.list('default', { labelSelector: 'kubernetes.io/service-name=web' });
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['web-abc']);
    await assert.rejects(
      r.update('default', { ...created, addressType: 'IPv6', endpoints: [{ addresses: ['2001:db8::1'] }] }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 422 &&
        e.message === 'EndpointSlice.discovery.k8s.io "web-abc" is invalid: addressType: Invalid value: "IPv6": field is immutable',
    );
    const updated = await r.update('default', { ...created, endpoints: [{ addresses: ['10.0.0.2'] }] });
    assert.equal(updated.metadata.generation, 2);
    const relabelled = await r.update('default', { ...updated, metadata: { ...updated.metadata, labels: { 'kubernetes.io/service-name': 'web2' } } });
    assert.equal(relabelled.metadata.generation, 3);
    const annotated = await r.update('default', { ...relabelled, metadata: { ...relabelled.metadata, annotations: { a: 'b' } } });
    assert.equal(annotated.metadata.generation, 3);
  });
});
