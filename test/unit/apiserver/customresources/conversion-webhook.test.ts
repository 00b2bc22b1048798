// The CRD conversion webhook client against a real local HTTPS server: the review sent, the answer's checks and
// kube's error texts, metadata restored but for labels and annotations.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CustomResourceDefinition } from '../../../../src/api/apiextensions/index.js';
import type { KObject } from '../../../../src/api/types.js';
import { WebhookClients } from '../../../../src/apiserver/admission/webhook/client.js';
import { conversionWebhook } from '../../../../src/apiserver/customresources/conversion-webhook.js';
import { createCa, createServingCert } from '../../../../src/pki/certs.js';

type Obj = Record<string, any>;
interface Review { apiVersion: string; kind: string; request: { uid: string; desiredAPIVersion: string; objects: Obj[] } }

let server: Server;
let port = 0;
let caBundle = '';
const clients = new WebhookClients();
const seen: Review[] = [];
/** what the server answers for a review (set per test) */
let answer: (r: Review) => unknown = () => ({});

before(async () => {
  const ca = await createCa({ commonName: 'conversion-unit-ca' });
  const cert = await createServingCert(ca, { hostnames: ['localhost'], ips: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.certPem).toString('base64');
  server = createServer({ cert: cert.certPem, key: cert.keyPem }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const review = JSON.parse(Buffer.concat(chunks).toString()) as Review;
    seen.push(review);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(review)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

after(() => {
  clients.clear();
  server.closeAllConnections();
  server.close();
});

const crd = (reviewVersions: string[], url = `https://127.0.0.1:${port}/convert`): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.hooks.example.com' },
  spec: { group: 'hooks.example.com', conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: reviewVersions, clientConfig: { url, caBundle } } } },
});
const noService = async (): Promise<never> => {
  throw new Error('no service expected');
};
const converter = (versions = ['v1'], url?: string) => conversionWebhook(crd(versions, url), clients, noService);

const gadget = (): KObject => ({
  apiVersion: 'hooks.example.com/v1',
  kind: 'Gadget',
  metadata: { name: 'g', namespace: 'ns', uid: 'u-1', generation: 2, labels: { a: '1' }, annotations: { n: 'x' } },
  spec: { size: 3 },
});
/** a well-formed answer converting each object with `edit` */
const success = (edit: (o: Obj) => Obj = (o) => o) => (r: Review) => ({
  apiVersion: r.apiVersion,
  kind: 'ConversionReview',
  response: { uid: r.request.uid, result: { status: 'Success' }, convertedObjects: r.request.objects.map((o) => edit({ ...o, apiVersion: r.request.desiredAPIVersion })) },
});
const failsWith = async (p: Promise<unknown>, message: string | RegExp) => {
  await assert.rejects(p, (e: Error & { code?: number }) => {
    assert.equal(e.code, 500);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
};
const prefix = 'conversion webhook for hooks.example.com/v1, Kind=Gadget';

describe('conversion webhook client', () => {
  it('sends one object in a v1 ConversionReview and restores all metadata but labels and annotations', async () => {
    seen.length = 0;
    answer = success((o) => ({ ...o, spec: { dimensions: { size: o.spec.size } }, metadata: { ...o.metadata, generation: 99, finalizers: ['x'], labels: { b: '2' }, annotations: undefined } }));
    const out = await converter()(gadget(), 'hooks.example.com/v2');
    assert.equal(seen.length, 1);
    const review = seen[0]!;
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(review.kind, 'ConversionReview');
    assert.equal(review.request.desiredAPIVersion, 'hooks.example.com/v2');
    assert.match(review.request.uid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(review.request.objects, [gadget()]);
    assert.deepEqual(out, {
      apiVersion: 'hooks.example.com/v2',
      kind: 'Gadget',
      // generation and finalizers come back as they were; labels as the webhook set them; annotations dropped with it
      metadata: { name: 'g', namespace: 'ns', uid: 'u-1', generation: 2, labels: { b: '2' } },
      spec: { dimensions: { size: 3 } },
    });
  });

  it('uses v1beta1 when that is the only review version it knows, without the uid check', async () => {
    seen.length = 0;
    answer = (r) => ({ ...success()(r), apiVersion: 'apiextensions.k8s.io/v1beta1', response: { ...success()(r).response, uid: 'other' } });
    const out = await converter(['v9', 'v1beta1'])(gadget(), 'hooks.example.com/v2');
    assert.equal(seen[0]!.apiVersion, 'apiextensions.k8s.io/v1beta1');
    assert.equal(out.apiVersion, 'hooks.example.com/v2');
  });

  it('checks the review: kind, uid, result and count', async () => {
    const c = converter();
    answer = (r) => ({ ...success()(r), apiVersion: 'apiextensions.k8s.io/v1beta1' });
    await failsWith(c(gadget(), 'hooks.example.com/v2'), `${prefix} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview`);
    answer = () => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' });
    await failsWith(c(gadget(), 'hooks.example.com/v2'), `${prefix} failed: no response provided`);
    answer = (r) => ({ ...success()(r), response: { ...success()(r).response, uid: 'not-the-uid' } });
    await failsWith(c(gadget(), 'hooks.example.com/v2'), /failed: expected response\.uid="[0-9a-f-]{36}", got "not-the-uid"$/);
    answer = (r) => ({ ...success()(r), response: { uid: r.request.uid, result: { status: 'Failure', message: 'no can do' } } });
    await failsWith(c(gadget(), 'hooks.example.com/v2'), `${prefix} failed: no can do`);
    answer = (r) => ({ ...success()(r), response: { uid: r.request.uid, result: { status: 'Failure' } } });
    await failsWith(c(gadget(), 'hooks.example.com/v2'), `${prefix} failed: response.result.status was 'Failure', not 'Success'`);
    answer = (r) => ({ ...success()(r), response: { uid: r.request.uid, result: { status: 'Success' }, convertedObjects: [] } });
    await failsWith(c(gadget(), 'hooks.example.com/v2'), `${prefix} returned 0 objects, expected 1`);
  });

  it('checks the converted object', async () => {
    const c = converter();
    const editing = async (edit: (o: Obj) => Obj, message: string | RegExp) => {
      answer = success(edit);
      await failsWith(c(gadget(), 'hooks.example.com/v2'), message);
    };
    await editing((o) => ({ ...o, apiVersion: 'hooks.example.com/v3' }), `${prefix} returned invalid object at index 0: invalid groupVersion (expected hooks.example.com/v2, received hooks.example.com/v3)`);
    await editing((o) => ({ ...o, kind: 'Widget' }), `${prefix} returned invalid object at index 0: invalid kind (expected Gadget, received Widget)`);
    await editing(({ kind: _k, ...o }) => o, /^Object 'Kind' is missing in '\{/);
    await editing((o) => ({ ...o, metadata: { ...o.metadata, name: 'h' } }), `${prefix} returned invalid object: must have the same name: g != h`);
    await editing((o) => ({ ...o, metadata: { ...o.metadata, uid: 'u-2' } }), `${prefix} returned invalid object: must have the same UID: u-1 != u-2`);
    await editing((o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 1 } } }), `${prefix} returned invalid metadata: metadata.labels[a] must be a string, but is int64 in converted object`);
    await editing((o) => ({ ...o, metadata: { ...o.metadata, annotations: 'x' } }), `${prefix} returned invalid metadata: invalid metadata.annotations of type string in converted object`);
    await editing((o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'not valid!' } } }), /returned invalid metadata: metadata\.labels: Invalid value: "not valid!": /);
  });

  it('reports a webhook it cannot reach as the rest client does', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const p = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    await failsWith(converter(['v1'], `https://127.0.0.1:${p}/convert`)(gadget(), 'hooks.example.com/v2'),
      `${prefix} failed: Post "https://127.0.0.1:${p}/convert?timeout=30s": dial tcp 127.0.0.1:${p}: connect: connection refused`);
  });
});
