// The availability checks of remote APIServices: each of kube's reasons and messages, against a real HTTPS server.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { APIService } from '../../../../src/api/apiregistration/index.js';
import { checkAvailability } from '../../../../src/apiserver/aggregator/availability.js';
import { buildClusterApi, bootstrapClusterObjects, type ClusterApi } from '../../../../src/cluster/api.js';
import { createCa, createServingCert } from '../../../../src/pki/certs.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';

let store: SqliteStore;
let api: ClusterApi;
let ext: https.Server;
let port = 0;
let status = 200;
let seenUser: string | undefined;

const apiService = (ref: { name: string; port?: number }): APIService => ({
  metadata: { name: 'v1.wardle.example.com' },
  spec: { group: 'wardle.example.com', version: 'v1', groupPriorityMinimum: 1, versionPriority: 1, service: { namespace: 'default', ...ref } },
});
const check = (o: APIService) => checkAvailability(api.registry, o).then(({ status, reason, message }) => ({ status, reason, message }));
const create = (plural: string, apiVersion: string, o: object) => api.client.resource(apiVersion, plural).create('default', o as never);

before(async () => {
  store = SqliteStore.open({ path: ':memory:' });
  api = buildClusterApi(store, { metrics: false });
  await bootstrapClusterObjects(api);
  const ca = await createCa();
  const cert = await createServingCert(ca, { hostnames: ['localhost'], ips: [] });
  ext = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    seenUser = req.headers['x-remote-user'] as string;
    res.writeHead(status).end('{}');
  });
  ext.listen(0, '127.0.0.1');
  await once(ext, 'listening');
  port = (ext.address() as AddressInfo).port;
  await create('services', 'v1', { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'localhost' } });
  await create('services', 'v1', { metadata: { name: 'cip' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } });
});

after(async () => {
  ext.close();
  api.stop();
  await store.close();
});

describe('checkAvailability', () => {
  it('ServiceNotFound', async () => {
    assert.deepEqual(await check(apiService({ name: 'missing' })), { status: 'False', reason: 'ServiceNotFound', message: 'service/missing in "default" is not present' });
  });

  it('ServicePortError', async () => {
    assert.deepEqual(await check(apiService({ name: 'cip', port: 444 })), { status: 'False', reason: 'ServicePortError', message: 'service/cip in "default" is not listening on port 444' });
  });

  it('EndpointsNotFound, then MissingEndpoints for a slice without the port', async () => {
    assert.deepEqual(await check(apiService({ name: 'cip' })), { status: 'False', reason: 'EndpointsNotFound', message: 'cannot find endpointslices for service/cip in "default"' });
    await create('endpointslices', 'discovery.k8s.io/v1', {
      metadata: { name: 'cip-1', labels: { 'kubernetes.io/service-name': 'cip' } }, addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ name: 'other', port: 8443 }],
    });
    assert.deepEqual(await check(apiService({ name: 'cip' })), {
      status: 'False', reason: 'MissingEndpoints', message: 'endpointslices for service/cip in "default" have no addresses with port name "https"',
    });
  });

  it('Passed when the discovery answers, as system:kube-aggregator', async () => {
    status = 200;
    assert.deepEqual(await check(apiService({ name: 'ext', port })), { status: 'True', reason: 'Passed', message: 'all checks passed' });
    assert.equal(seenUser, 'system:kube-aggregator');
  });

  it('FailedDiscoveryCheck on a bad status or no answer', async () => {
    status = 503;
    const url = `https://localhost:${port}/apis/wardle.example.com/v1`;
    assert.deepEqual(await check(apiService({ name: 'ext', port })), {
      status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from ${url}: bad status from ${url}: 503`,
    });
    const closed = https.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const free = (closed.address() as AddressInfo).port;
    closed.close();
    const r = await check(apiService({ name: 'ext', port: free }));
    assert.equal(r.reason, 'FailedDiscoveryCheck');
    assert.match(r.message ?? "", new RegExp(`^failing or missing response from https://localhost:${free}/apis/wardle\\.example\\.com/v1: Get "https://localhost:${free}/apis/wardle\\.example\\.com/v1": dial tcp .*:${free}: connect: connection refused$`));
  });

  it('Local APIServices are always available', async () => {
    const r = await checkAvailability(api.registry, { metadata: { name: 'v1.x' }, spec: { group: 'x', version: 'v1' } });
    assert.deepEqual([r.status, r.reason, r.message], ['True', 'Local', 'Local APIServices are always available']);
  });
});
