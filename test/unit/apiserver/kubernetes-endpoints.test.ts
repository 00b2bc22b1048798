// The `default/kubernetes` Endpoints and EndpointSlice the API server keeps (with the real mirroring and
// EndpointSlice controllers running, which must leave them alone), and the extra listener that hands connections to
// the API server's own TLS server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { endpointSliceController, endpointSliceMirroringController } from '../../../src/controllers/endpointslice/controller.js';
import { KubernetesEndpoints, desiredEndpoints, desiredEndpointSlice } from '../../../src/controllers/kubernetes-endpoints.js';
import { listenAlso } from '../../../src/apiserver/extra-listener.js';
import { createCa, createClientCert, createServingCert } from '../../../src/pki/certs.js';
import type { KObject } from '../../../src/api/types.js';
import { controllerCluster } from '../controllers/harness.js';

const addr = { ip: '10.48.0.1', port: 6443 };

test('the kubernetes Endpoints and EndpointSlice as kube-apiserver writes them, restored after edits', async (t) => {
  const c = await controllerCluster([endpointSliceMirroringController(), endpointSliceController()]);
  const rec = new KubernetesEndpoints({ client: c.client, address: addr, intervalMs: 50 });
  t.after(async () => {
    await rec.stop();
    await c.close();
  });
  const eps = c.client.resource('v1', 'endpoints');
  const slices = c.client.resource('discovery.k8s.io/v1', 'endpointslices');
  // a slice left by someone else for the Service (e.g. an older mirror) is removed
  await slices.create('default', { ...desiredEndpointSlice({ ip: '10.9.9.9', port: 1 }), metadata: { name: 'kubernetes-old', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } } } as KObject);
  await rec.start();

  const ep = (await eps.get('default', 'kubernetes')) as KObject & { subsets: unknown };
  assert.deepEqual(ep.metadata.labels, { 'endpointslice.kubernetes.io/skip-mirror': 'true' });
  assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '10.48.0.1' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
  const list = (await slices.list('default', { labelSelector: 'kubernetes.io/service-name=kubernetes' })).items as Array<KObject & Record<string, unknown>>;
  assert.deepEqual(list.map((s) => s.metadata.name), ['kubernetes']);
  const slice = list[0]!;
  assert.deepEqual(slice.metadata.labels, { 'kubernetes.io/service-name': 'kubernetes' });
  assert.equal(slice.addressType, 'IPv4');
  assert.deepEqual(slice.ports, [{ name: 'https', port: 6443, protocol: 'TCP' }]);
  assert.deepEqual((slice.endpoints as Array<{ addresses: string[]; conditions: { ready: boolean } }>).map((e) => [e.addresses, e.conditions.ready]), [[['10.48.0.1'], true]]);

  // someone points the Endpoints elsewhere and deletes the slice: the next pass puts both back
  await eps.update('default', { ...ep, subsets: [{ addresses: [{ ip: '10.1.1.1' }], ports: [{ name: 'https', port: 1, protocol: 'TCP' }] }] });
  await slices.delete('default', 'kubernetes');
  await c.waitFor('restored', async () => {
    const e = (await eps.get('default', 'kubernetes')) as KObject & { subsets: unknown };
    const s = await slices.get('default', 'kubernetes').catch(() => undefined);
    return JSON.stringify(e.subsets) === JSON.stringify(desiredEndpoints(addr).subsets) && !!s;
  }, 3000);

  // the mirroring controller skips the labelled Endpoints: still exactly one slice for the Service
  await new Promise((r) => setTimeout(r, 300));
  const after = (await slices.list('default', { labelSelector: 'kubernetes.io/service-name=kubernetes' })).items;
  assert.deepEqual(after.map((s) => s.metadata.name), ['kubernetes']);
  const rv = ((await eps.get('default', 'kubernetes')) as KObject).metadata.resourceVersion;
  await rec.reconcile();
  assert.equal(((await eps.get('default', 'kubernetes')) as KObject).metadata.resourceVersion, rv, 'an unchanged pass writes nothing');
});

test('an extra listener feeds connections to the TLS server: same certificate, client-certificate auth, real peer address', async (t) => {
  const ca = await createCa();
  const serving = await createServingCert(ca, { hostnames: ['localhost'], ips: ['127.0.0.1', '127.0.0.2'] });
  const client = await createClientCert(ca, { commonName: 'alice', organizations: [] });
  const server = https.createServer({ key: serving.keyPem, cert: serving.certPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const sock = req.socket as import('node:tls').TLSSocket;
    res.end(JSON.stringify({ cn: sock.getPeerCertificate()?.subject?.CN ?? null, local: sock.localAddress }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const extra = await listenAlso(server, { host: '127.0.0.2', port });
  t.after(async () => {
    await extra.close();
    await new Promise((r) => server.close(r));
  });
  assert.deepEqual([extra.address, extra.port], ['127.0.0.2', port]);
  const get = (host: string) =>
    new Promise<string>((resolve, reject) => {
      https
        .get({ host, port, path: '/', ca: ca.certPem, cert: client.certPem, key: client.keyPem, agent: false }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
  assert.deepEqual(JSON.parse(await get('127.0.0.2')), { cn: 'alice', local: '127.0.0.2' });
  assert.deepEqual(JSON.parse(await get('127.0.0.1')), { cn: 'alice', local: '127.0.0.1' });
  await extra.close();
  await assert.rejects(get('127.0.0.2'), /ECONNREFUSED/);
});
