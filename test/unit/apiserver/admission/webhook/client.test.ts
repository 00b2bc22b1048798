// WebhookClients against real local HTTPS servers: trust, server names, service routing, deadlines and Go's error texts.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { MAX_RESPONSE_BYTES, WebhookCallError, WebhookClients, type PostOptions } from '../../../../../src/apiserver/admission/webhook/client.js';
import type { Webhook, WebhookClientConfig } from '../../../../../src/apiserver/admission/webhook/types.js';
import { createCa, createServingCert, type CertKeyPem } from '../../../../../src/pki/certs.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const hook = (clientConfig: WebhookClientConfig): Webhook => ({ name: 'test.k1s.dev', clientConfig, admissionReviewVersions: ['v1'] });
const noService = async (): Promise<never> => {
  throw new Error('no service expected');
};

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  servername: string | false | null;
  body: string;
  closed: Promise<unknown>;
}

async function serve(cert: CertKeyPem, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer({ cert: cert.certPem, key: cert.keyPem }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const s = req.socket as TLSSocket;
    seen.push({ url: req.url ?? '', headers: req.headers, servername: s.servername, body: Buffer.concat(chunks).toString(), closed: new Promise((done) => s.once('close', done)) });
    handler(req, res);
  });
  server.on('secureConnection', (s: TLSSocket) => {
    connections++;
    s.on('error', () => {}); // clients that refuse the certificate or hang up
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, seen, connections: () => connections };
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  const json = (status: number, v: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
  switch (path) {
    case '/ok':
    case '/validate':
      return void json(200, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u1', allowed: true } });
    case '/text':
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end('not json');
    case '/html':
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
    case '/empty':
      return void res.writeHead(200).end();
    case '/array':
      return void json(200, [1]);
    case '/boom':
      return void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom\n');
    case '/status':
      return void json(500, { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'webhook broke' });
    case '/missing':
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    case '/huge': {
      // streamed, no Content-Length: the client must stop reading on its own
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('error', () => {}); // the client hangs up mid-stream
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 8 * MAX_RESPONSE_BYTES && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    case '/flaky': {
      // a kept-alive connection the server drops when the next request arrives on it
      const sock = req.socket as TLSSocket & { served?: boolean };
      if (sock.served) return void sock.destroy();
      sock.served = true;
      return void json(200, { kind: 'AdmissionReview' });
    }
    case '/hang':
      return; // never answers
    default:
      json(404, {});
  }
}

describe('WebhookClients', () => {
  let ca: CertKeyPem;
  let otherCa: CertKeyPem;
  let main: Awaited<ReturnType<typeof serve>>;
  let narrow: Awaited<ReturnType<typeof serve>>;
  const clients = new WebhookClients();
  const opts: PostOptions = { timeoutMs: 10_000, resolveService: noService };

  before(async () => {
    ca = await createCa({ commonName: 'webhook-test-ca' });
    otherCa = await createCa({ commonName: 'other-test-ca' });
    const cert = await createServingCert(ca, { hostnames: ['localhost', 'my-hook.my-ns.svc'], ips: ['127.0.0.1'], commonName: 'webhook' });
    const narrowCert = await createServingCert(ca, { hostnames: ['a.example.com'], ips: [], commonName: 'narrow' });
    main = await serve(cert, route);
    narrow = await serve(narrowCert, route);
  });

  after(() => {
    clients.clear();
    main.server.closeAllConnections();
    narrow.server.closeAllConnections();
    main.server.close();
    narrow.server.close();
  });

  const caBundle = () => b64(ca.certPem);
  const byUrl = (path: string, port = main.port, host = '127.0.0.1') => hook({ url: `https://${host}:${port}${path}`, caBundle: caBundle() });
  const failure = async (p: Promise<unknown>): Promise<string> => {
    const err = await p.then(
      () => assert.fail('the call succeeded'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WebhookCallError, `not a WebhookCallError: ${String(err)}`);
    return err.message;
  };

  it('posts by URL with the timeout query, JSON headers, and returns the parsed answer', async () => {
    const answer = await clients.post(byUrl('/validate'), { kind: 'AdmissionReview', hello: 'world' }, opts);
    assert.deepEqual(answer, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u1', allowed: true } });
    const s = main.seen.at(-1)!;
    assert.equal(s.url, '/validate?timeout=10s');
    assert.equal(s.headers['content-type'], 'application/json');
    assert.match(String(s.headers.accept), /^application\/json/);
    assert.deepEqual(JSON.parse(s.body), { kind: 'AdmissionReview', hello: 'world' });
    assert.equal(s.servername, false); // no SNI for an IP address, as Go
  });

  it('keeps the connection alive between calls and drops it on clear()', async () => {
    clients.clear();
    const start = main.connections();
    await clients.post(byUrl('/ok'), {}, opts);
    await clients.post(byUrl('/ok'), {}, opts);
    assert.equal(main.connections(), start + 1);
    clients.clear();
    await clients.post(byUrl('/ok'), {}, opts);
    assert.equal(main.connections(), start + 2);
  });

  it('sends again on a new connection when a kept-alive one was dropped', async () => {
    clients.clear();
    const start = main.connections();
    await clients.post(byUrl('/flaky'), {}, opts);
    assert.deepEqual(await clients.post(byUrl('/flaky'), {}, opts), { kind: 'AdmissionReview' });
    assert.equal(main.connections(), start + 2);
  });

  it('rounds the timeout up to whole seconds, as kube sends it', async () => {
    await clients.post(byUrl('/ok'), {}, { ...opts, timeoutMs: 1500 });
    assert.equal(main.seen.at(-1)!.url, '/ok?timeout=2s');
  });

  it('posts to a service: server name <name>.<ns>.svc, TCP to the resolved endpoint', async () => {
    const refs: unknown[] = [];
    const h = hook({ service: { name: 'my-hook', namespace: 'my-ns', port: 8443, path: '/ok' }, caBundle: caBundle() });
    const answer = await clients.post(h, {}, {
      timeoutMs: 5000,
      resolveService: async (ref) => {
        refs.push(ref);
        return { host: '127.0.0.1', port: main.port };
      },
    });
    assert.equal((answer as { kind: string }).kind, 'AdmissionReview');
    assert.deepEqual(refs, [{ name: 'my-hook', namespace: 'my-ns', port: 8443, path: '/ok' }]);
    const s = main.seen.at(-1)!;
    assert.equal(s.servername, 'my-hook.my-ns.svc');
    assert.equal(s.headers.host, 'my-hook.my-ns.svc:8443');
    assert.equal(s.url, '/ok?timeout=5s');
  });

  it('words a failed service lookup inside the Post error', async () => {
    const h = hook({ service: { name: 'gone', namespace: 'ns' }, caBundle: caBundle() });
    const msg = await failure(clients.post(h, {}, { timeoutMs: 10_000, resolveService: async () => Promise.reject(new Error('service "gone" not found')) }));
    assert.equal(msg, 'failed to call webhook: Post "https://gone.ns.svc:443/?timeout=10s": service "gone" not found');
  });

  it('refuses a certificate from an unknown authority', async () => {
    const h = hook({ url: `https://127.0.0.1:${main.port}/ok`, caBundle: b64(otherCa.certPem) });
    const msg = await failure(clients.post(h, {}, opts));
    assert.equal(msg, `failed to call webhook: Post "https://127.0.0.1:${main.port}/ok?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
  });

  it('refuses a certificate from the system roots when no caBundle is set', async () => {
    const msg = await failure(clients.post(hook({ url: `https://127.0.0.1:${main.port}/ok` }), {}, opts));
    assert.match(msg, /tls: failed to verify certificate: x509: certificate signed by unknown authority$/);
  });

  it('refuses a certificate for another name, before looking at its chain (Go order)', async () => {
    const msg = await failure(clients.post(byUrl('/ok', narrow.port, 'localhost'), {}, opts));
    assert.equal(msg, `failed to call webhook: Post "https://localhost:${narrow.port}/ok?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for a.example.com, not localhost`);
    const wrongCa = hook({ url: `https://localhost:${narrow.port}/ok`, caBundle: b64(otherCa.certPem) });
    assert.match(await failure(clients.post(wrongCa, {}, opts)), /x509: certificate is valid for a\.example\.com, not localhost$/);
    const svc = hook({ service: { name: 'other', namespace: 'ns', path: '/ok' }, caBundle: caBundle() });
    const viaService = await failure(clients.post(svc, {}, { timeoutMs: 10_000, resolveService: async () => ({ host: '127.0.0.1', port: narrow.port }) }));
    assert.equal(viaService, 'failed to call webhook: Post "https://other.ns.svc:443/ok?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for a.example.com, not other.ns.svc');
  });

  it('refuses an IP address the certificate does not name', async () => {
    const msg = await failure(clients.post(byUrl('/ok', narrow.port), {}, opts));
    assert.match(msg, /x509: cannot validate certificate for 127\.0\.0\.1 because it doesn't contain any IP SANs$/);
  });

  it('words a refused connection as Go dials', async () => {
    const probe = createTcpServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    probe.close();
    await once(probe, 'close');
    const msg = await failure(clients.post(byUrl('/validate', port), {}, opts));
    assert.equal(msg, `failed to call webhook: Post "https://127.0.0.1:${port}/validate?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  });

  it('cuts a server that never answers at the deadline and destroys the socket', async () => {
    const start = Date.now();
    const msg = await failure(clients.post(byUrl('/hang'), {}, { ...opts, timeoutMs: 400 }));
    const took = Date.now() - start;
    assert.equal(msg, `failed to call webhook: Post "https://127.0.0.1:${main.port}/hang?timeout=1s": context deadline exceeded`);
    assert.ok(took >= 380 && took < 400 + 300, `took ${took} ms`);
    await main.seen.at(-1)!.closed; // the server sees its connection go
  });

  it('cuts a stalled service lookup at the deadline too', async () => {
    const h = hook({ service: { name: 'slow', namespace: 'ns' }, caBundle: caBundle() });
    const start = Date.now();
    const msg = await failure(clients.post(h, {}, { timeoutMs: 300, resolveService: () => new Promise(() => {}) }));
    assert.equal(msg, 'failed to call webhook: Post "https://slow.ns.svc:443/?timeout=1s": context deadline exceeded');
    assert.ok(Date.now() - start < 300 + 300);
  });

  it("words an answer that is not JSON as client-go's decoder does", async () => {
    assert.equal(await failure(clients.post(byUrl('/text'), {}, opts)), "failed to call webhook: couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')");
    assert.equal(await failure(clients.post(byUrl('/html'), {}, opts)), "failed to call webhook: couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value");
    assert.equal(
      await failure(clients.post(byUrl('/array'), {}, opts)),
      'failed to call webhook: couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    );
    assert.equal(await failure(clients.post(byUrl('/empty'), {}, opts)), 'failed to call webhook: 0-length response with status code: 200 and content type: application/json');
  });

  it('refuses an answer over the size limit without reading it all', async () => {
    const msg = await failure(clients.post(byUrl('/huge'), {}, opts));
    assert.equal(msg, `failed to call webhook: response body too large: limit is ${MAX_RESPONSE_BYTES} bytes`);
    await main.seen.at(-1)!.closed;
  });

  it('words HTTP errors as the rest client does', async () => {
    assert.equal(await failure(clients.post(byUrl('/boom'), {}, opts)), 'failed to call webhook: an error on the server ("boom") has prevented the request from succeeding');
    assert.equal(await failure(clients.post(byUrl('/status'), {}, opts)), 'failed to call webhook: webhook broke');
    assert.equal(await failure(clients.post(byUrl('/missing'), {}, opts)), 'failed to call webhook: the server could not find the requested resource');
  });

  it('words a bad caBundle and a missing target as kube does', async () => {
    const bad = hook({ url: `https://127.0.0.1:${main.port}/ok`, caBundle: b64('not a certificate') });
    assert.equal(await failure(clients.post(bad, {}, opts)), 'could not get REST client: unable to load root certificates: unable to parse bytes as PEM block');
    assert.equal(
      await failure(clients.post(hook({}), {}, opts)),
      'could not get REST client: failed calling webhook "test.k1s.dev": webhook configuration must have either service or URL',
    );
  });
});
