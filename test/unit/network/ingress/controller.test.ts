import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { startIngressController, type IngressController } from '../../../../src/network/ingress/controller.js';
import { FAKE_CERT_CN } from '../../../../src/network/ingress/tls.js';
import { createCa, createServingCert } from '../../../../src/pki/certs.js';
import { controllerCluster, type ControllerCluster } from '../../controllers/harness.js';
import { createIngress, get, ingress, tlsSecret, upgrade } from './fixtures.js';
import { createService, createSlice, eventsFor, freePort, httpBackend, type Backend } from '../service-lb/fixtures.js';
import net from 'node:net';

const NS = 'default';
const lbOf = (o: KObject) => (o.status as { loadBalancer?: { ingress?: unknown[] } } | undefined)?.loadBalancer?.ingress;

describe('ingress controller', () => {
  let c: ControllerCluster;
  let ctl: IngressController;
  const backends: Record<string, Backend> = {};
  const ings = () => c.client.resource('networking.k8s.io/v1', 'ingresses');
  const http = (host: string, path: string, headers?: Record<string, string>) => get(ctl.ports.http, host, path, { headers });

  before(async () => {
    c = await controllerCluster([]);
    ctl = await startIngressController({ client: c.client, httpPort: 0, httpsPort: 0, address: '127.0.0.1', log: () => undefined });
    for (const n of ['web-1', 'web-2', 'api-1']) backends[n] = await httpBackend(n);
    await createService(c.client, NS, 'web', { ports: [{ name: 'http', port: 80 }] });
    await createSlice(c.client, NS, 'web', 'web-1', backends['web-1'], { portName: 'http' });
    await createSlice(c.client, NS, 'web', 'web-2', backends['web-2'], { portName: 'http' });
    await createService(c.client, NS, 'api', { ports: [{ name: 'grpc', port: 9000 }, { name: 'rest', port: 8080 }] });
    await createSlice(c.client, NS, 'api', 'api-1', backends['api-1'], { portName: 'rest' });
    await createService(c.client, NS, 'empty', { ports: [{ port: 80 }] });
  });
  after(async () => {
    await ctl?.stop();
    await Promise.all(Object.values(backends).map((b) => b.close()));
    await c?.close();
  });

  it('creates the default IngressClass k1s', async () => {
    const ic = await c.client.resource('networking.k8s.io/v1', 'ingressclasses').get('', 'k1s');
    assert.equal((ic.spec as { controller: string }).controller, 'k1s.dev/ingress');
    assert.equal(ic.metadata.annotations?.['ingressclass.kubernetes.io/is-default-class'], 'true');
  });

  it('routes two hosts and paths to Services by port number and name, round-robin, with X-Forwarded headers and status', async () => {
    await createIngress(
      c.client,
      ingress('shop', [
        { host: 'shop.test', paths: [{ path: '/', service: 'web', port: 80 }, { path: '/api', service: 'api', port: 'rest' }] },
        { host: '*.apps.test', paths: [{ path: '/v1', pathType: 'Exact', service: 'api', port: 8080 }] },
      ]),
    );
    const lb = await c.waitFor('ingress status', async () => lbOf(await ings().get(NS, 'shop'))?.length && lbOf(await ings().get(NS, 'shop')));
    assert.deepEqual(lb, [{ ip: '127.0.0.1' }]);

    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const r = await http('shop.test', '/index.html');
      assert.equal(r.status, 200);
      seen.add(r.json!.backend);
    }
    assert.deepEqual([...seen].sort(), ['web-1', 'web-2']);
    const api = await http('shop.test:8080', '/api/items?x=1', { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(api.json!.backend, 'api-1');
    assert.equal(api.json!.url, '/api/items?x=1');
    assert.equal(api.json!.headers['x-forwarded-for'], '203.0.113.9, 127.0.0.1');
    assert.equal(api.json!.headers['x-forwarded-proto'], 'http');
    assert.equal(api.json!.headers['x-forwarded-host'], 'shop.test:8080');
    assert.equal(api.json!.headers.host, 'shop.test:8080');
    assert.equal((await http('shop.test', '/apixyz')).json!.backend.startsWith('web'), true);
    assert.equal((await http('a.apps.test', '/v1')).json!.backend, 'api-1');
    assert.equal((await http('a.apps.test', '/v1/')).status, 404);
    assert.equal((await http('a.b.apps.test', '/v1')).status, 404);
    const nf = await http('other.test', '/');
    assert.deepEqual([nf.status, nf.body], [404, '404 page not found\n']);
    assert.ok((await eventsFor(c.client, NS, 'shop')).some((e) => e.reason === 'Sync' && e.type === 'Normal'));
  });

  it('answers 503 without ready endpoints, reports missing Services, and follows endpoint changes', async () => {
    await createIngress(
      c.client,
      ingress('edge', [{ host: 'edge.test', paths: [{ path: '/empty', service: 'empty', port: 80 }, { path: '/ghost', service: 'ghost', port: 80 }, { path: '/late', service: 'late', port: 80 }] }]),
    );
    await c.waitFor('edge served', async () => (await http('edge.test', '/empty')).status === 503);
    const r = await http('edge.test', '/ghost');
    assert.deepEqual([r.status, r.body], [503, 'no available server\n']);
    const warn = await c.waitFor('ServiceNotFound event', async () => (await eventsFor(c.client, NS, 'edge')).find((e) => e.reason === 'ServiceNotFound' && e.message.includes('ghost')));
    assert.equal(warn.type, 'Warning');
    assert.equal(warn.message, 'service "default/ghost" not found');

    // the Service and its endpoints appear: served without touching the Ingress
    await createService(c.client, NS, 'late', { ports: [{ port: 80 }] });
    const late = await httpBackend('late-1');
    backends['late-1'] = late;
    await createSlice(c.client, NS, 'late', 'late-1', late);
    await c.waitFor('late backend', async () => (await http('edge.test', '/late')).json?.backend === 'late-1');
    await c.client.resource('discovery.k8s.io/v1', 'endpointslices').delete(NS, 'late-1');
    await c.waitFor('503 after the slice goes', async () => (await http('edge.test', '/late')).status === 503);
  });

  it('passes WebSocket upgrades through', async () => {
    const r = await upgrade(ctl.ports.http, 'shop.test', '/api/ws', 'ping');
    assert.match(r.head, /^HTTP\/1\.1 101 /);
    assert.match(r.head, /X-Backend: api-1/i);
    assert.equal(r.echo, 'api-1:ping');
    const none = await upgrade(ctl.ports.http, 'nowhere.test', '/ws', 'x');
    assert.match(none.head, /^HTTP\/1\.1 404 /);
  });

  it('serves TLS Secrets by SNI (exact and wildcard hosts) and the fake certificate otherwise', async () => {
    const ca = await createCa({ commonName: 'test-ca' });
    const cert = await createServingCert(ca, { commonName: 'secure.test', hostnames: ['secure.test'], ips: [] });
    const wild = await createServingCert(ca, { commonName: '*.wild.test', hostnames: ['*.wild.test'], ips: [] });
    await c.client.resource('v1', 'secrets').create(NS, tlsSecret('secure-tls', cert.certPem, cert.keyPem));
    await c.client.resource('v1', 'secrets').create(NS, tlsSecret('wild-tls', wild.certPem, wild.keyPem));
    await createIngress(
      c.client,
      ingress('secure', [{ host: 'secure.test', paths: [{ path: '/', service: 'web', port: 80 }] }, { host: '*.wild.test', paths: [{ path: '/', service: 'api', port: 'rest' }] }], {
        tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }, { hosts: ['*.wild.test'], secretName: 'wild-tls' }, { hosts: ['broken.test'], secretName: 'missing-tls' }],
      }),
    );
    const https = (host: string) => get(ctl.ports.https, host, '/', { https: true });
    const r = await c.waitFor('secure.test certificate', async () => {
      const x = await https('secure.test');
      return x.cert?.subject?.CN === 'secure.test' && x;
    });
    assert.equal(r.status, 200);
    assert.ok(r.json!.backend.startsWith('web'));
    assert.equal(r.json!.headers['x-forwarded-proto'], 'https');
    const w = await https('a.wild.test');
    assert.equal(w.cert?.subject?.CN, '*.wild.test');
    assert.equal(w.json!.backend, 'api-1');
    assert.equal((await https('other.test')).cert?.subject?.CN, FAKE_CERT_CN);
    const warn = await c.waitFor('TLS secret warning', async () => (await eventsFor(c.client, NS, 'secure')).find((e) => e.reason === 'TLSSecretNotValid'));
    assert.equal(warn.message, 'secret "default/missing-tls" not found; using the default certificate');
  });

  it('ignores Ingresses of other classes and takes back its status when an Ingress changes class', async () => {
    await c.client.resource('networking.k8s.io/v1', 'ingressclasses').create('', { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'other' }, spec: { controller: 'example.com/other' } } as KObject);
    await createIngress(c.client, ingress('foreign', [{ host: 'foreign.test', paths: [{ path: '/', service: 'web', port: 80 }] }], { className: 'other' }));
    await createIngress(c.client, ingress('mine', [{ host: 'mine.test', paths: [{ path: '/', service: 'web', port: 80 }] }], { className: 'k1s' }));
    await c.waitFor('mine served', async () => lbOf(await ings().get(NS, 'mine'))?.length);
    assert.equal((await http('foreign.test', '/')).status, 404);
    assert.equal(lbOf(await ings().get(NS, 'foreign'))?.length ?? 0, 0);

    const cur = await ings().get(NS, 'mine');
    await ings().update(NS, { ...cur, spec: { ...(cur.spec as object), ingressClassName: 'other' } } as KObject);
    await c.waitFor('status taken back', async () => !lbOf(await ings().get(NS, 'mine'))?.length);
    assert.equal((await http('mine.test', '/')).status, 404);
  });

  it('refuses to start, leaving nothing listening, when its port is taken', async () => {
    const blocker = net.createServer();
    const port = await freePort();
    const httpsPort = await freePort();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    try {
      await assert.rejects(
        startIngressController({ client: c.client, httpPort: httpsPort, httpsPort: port, address: '127.0.0.1', log: () => undefined }),
        { message: `ingress HTTPS listener: listen tcp 127.0.0.1:${port}: bind: address already in use` },
      );
      // the HTTP listener that did open was closed again
      const probe = net.createServer();
      await new Promise<void>((res, rej) => probe.once('error', rej).listen(httpsPort, '127.0.0.1', res));
      await new Promise<void>((r) => probe.close(() => r()));
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });
});
