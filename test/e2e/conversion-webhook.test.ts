// CRD conversion webhooks against a real HTTPS server this test starts: a kind stored as v1 (spec.size) and served
// as v2 too (spec.dimensions.size), created, read, listed and watched in both versions through real kubectl, and
// kube's errors when the webhook is down or answers with the wrong uid.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createCa, createServingCert } from '../../src/pki/certs.js';
import { freePort, kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';

type Obj = Record<string, any>;
interface Review { apiVersion: string; kind: string; request: { uid: string; desiredAPIVersion: string; objects: Obj[] } }

let server: K1sServer;
let k: ReturnType<typeof kubectl>;
let hooks: https.Server;
let hookPort = 0;
let caBundle = '';
const seen: Review[] = [];

/** v1 {spec.size} ⇄ v2 {spec.dimensions.size}; labels the object with the version it was converted to. */
function convert(o: Obj, desired: string): Obj {
  const { size, dimensions, ...rest } = (o.spec ?? {}) as Obj;
  const spec = desired.endsWith('/v2') ? { ...rest, dimensions: { size: size ?? dimensions?.size } } : { ...rest, size: dimensions?.size ?? size };
  return { ...o, apiVersion: desired, spec, metadata: { ...o.metadata, labels: { ...o.metadata?.labels, converted: desired.split('/')[1] } } };
}

const routes: Record<string, (r: Review) => Obj> = {
  '/convert': (r) => ({
    apiVersion: r.apiVersion, kind: 'ConversionReview',
    response: { uid: r.request.uid, result: { status: 'Success' }, convertedObjects: r.request.objects.map((o) => convert(o, r.request.desiredAPIVersion)) },
  }),
  '/bad-uid': (r) => ({ apiVersion: r.apiVersion, kind: 'ConversionReview', response: { uid: 'not-the-uid', result: { status: 'Success' }, convertedObjects: [] } }),
  '/refuse': (r) => ({ apiVersion: r.apiVersion, kind: 'ConversionReview', response: { uid: r.request.uid, result: { status: 'Failure', message: 'gadgets cannot be converted today' } } }),
};

const crd = (url: string): Obj => {
  const schema = (spec: Obj) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } });
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.hooks.example.com' },
    spec: {
      group: 'hooks.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'integer' } }) },
        { name: 'v2', served: true, storage: false, schema: schema({ dimensions: { type: 'object', properties: { size: { type: 'integer' } } } }) },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url, caBundle } } },
    },
  };
};
const url = (path: string, port = hookPort) => `https://127.0.0.1:${port}${path}`;
const gadgetV1 = (name: string, size: number) => JSON.stringify({ apiVersion: 'hooks.example.com/v1', kind: 'Gadget', metadata: { name, namespace: 'default' }, spec: { size } });
const gadgetV2 = (name: string, size: number) => JSON.stringify({ apiVersion: 'hooks.example.com/v2', kind: 'Gadget', metadata: { name, namespace: 'default' }, spec: { dimensions: { size } } });
const getAs = async (version: string, name: string) => JSON.parse(await k.ok(['get', `gadgets.${version}.hooks.example.com`, name, '-o', 'json'])) as Obj;

/** Points the CRD's webhook at `to` and waits until reading `probe` as v2 gives `ready`'s verdict. */
async function hookTo(to: string, ready: (r: { code: number; stdout: string; stderr: string }) => boolean): Promise<void> {
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(crd(to)) });
  await until(async () => ready(await k.run(['get', 'gadgets.v2.hooks.example.com', 'probe', '-o', 'json'])), `webhook ${to} in force`, 10_000);
}

before(async () => {
  const ca = await createCa({ commonName: 'conversion-test-ca' });
  const cert = await createServingCert(ca, { hostnames: ['localhost'], ips: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.certPem).toString('base64');
  hooks = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const review = JSON.parse(body) as Review;
      seen.push(review);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(routes[(req.url ?? '').split('?')[0]!]!(review)));
    });
  });
  hooks.listen(0, '127.0.0.1');
  await once(hooks, 'listening');
  hookPort = (hooks.address() as AddressInfo).port;
  server = await startServer();
  k = kubectl(server, '1.33');
  await k.ok(['apply', '-f', '-'], { input: JSON.stringify(crd(url('/convert'))) });
  await k.ok(['wait', '--for=condition=Established', 'crd/gadgets.hooks.example.com', '--timeout=20s']);
  await until(async () => (await k.run(['create', '-f', '-'], { input: gadgetV1('probe', 1) })).code === 0, 'gadgets served', 10_000);
});

after(async () => {
  hooks.closeAllConnections();
  hooks.close();
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

describe('conversion webhook', () => {
  it('keeps the webhook configuration as given', async () => {
    const stored = JSON.parse(await k.ok(['get', 'crd', 'gadgets.hooks.example.com', '-o', 'json'])) as Obj;
    assert.deepEqual(stored.spec.conversion, { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: url('/convert'), caBundle } } });
  });

  it('stores an object created as v2 in v1 and reads it back in both versions', async () => {
    seen.length = 0;
    const created = JSON.parse(await k.ok(['create', '-f', '-', '-o', 'json'], { input: gadgetV2('made-as-v2', 3) })) as Obj;
    // the answer is what was stored, converted back (two reviews: to the storage version and back)
    assert.equal(created.apiVersion, 'hooks.example.com/v2');
    assert.deepEqual(created.spec, { dimensions: { size: 3 } });
    assert.deepEqual(seen.map((r) => r.request.desiredAPIVersion), ['hooks.example.com/v1', 'hooks.example.com/v2']);
    const review = seen[0]!;
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(review.kind, 'ConversionReview');
    assert.equal(review.request.objects.length, 1);
    assert.equal(review.request.objects[0]!.apiVersion, 'hooks.example.com/v2');
    assert.equal(review.request.objects[0]!.metadata.resourceVersion, undefined, 'a stored object has no resourceVersion');

    seen.length = 0;
    const v1 = await getAs('v1', 'made-as-v2');
    assert.equal(v1.apiVersion, 'hooks.example.com/v1');
    assert.deepEqual(v1.spec, { size: 3 }, 'stored in the storage version');
    assert.equal(v1.metadata.labels.converted, 'v1', 'labels the webhook set are kept');
    assert.equal(seen.length, 0, 'an object in the desired version is not sent');

    const v2 = await getAs('v2', 'made-as-v2');
    assert.equal(v2.apiVersion, 'hooks.example.com/v2');
    assert.deepEqual(v2.spec, { dimensions: { size: 3 } });
    assert.equal(v2.metadata.uid, v1.metadata.uid);
    assert.equal(v2.metadata.resourceVersion, v1.metadata.resourceVersion);
    assert.equal(seen.length, 1);
  });

  it('updates through v2 against the stored v1 object', async () => {
    await k.ok(['patch', 'gadgets.v2.hooks.example.com', 'made-as-v2', '--type=merge', '-p', '{"spec":{"dimensions":{"size":7}}}']);
    assert.deepEqual((await getAs('v1', 'made-as-v2')).spec, { size: 7 });
    await k.ok(['label', 'gadgets.v2.hooks.example.com', 'made-as-v2', 'colour=red']);
    assert.equal((await getAs('v1', 'made-as-v2')).metadata.labels.colour, 'red');
  });

  it('lists in v2, converting each item', async () => {
    await k.ok(['create', '-f', '-'], { input: gadgetV1('made-as-v1', 5) });
    const list = JSON.parse(await k.ok(['get', 'gadgets.v2.hooks.example.com', '-o', 'json'])) as Obj;
    const byName = Object.fromEntries((list.items as Obj[]).map((o) => [o.metadata.name, o]));
    assert.deepEqual(byName['made-as-v1']!.spec, { dimensions: { size: 5 } });
    assert.deepEqual(byName['made-as-v2']!.spec, { dimensions: { size: 7 } });
    for (const o of list.items as Obj[]) assert.equal(o.apiVersion, 'hooks.example.com/v2');
    const selected = JSON.parse(await k.ok(['get', 'gadgets.v2.hooks.example.com', '-l', 'colour=red', '-o', 'json'])) as Obj;
    assert.deepEqual((selected.items as Obj[]).map((o) => o.metadata.name), ['made-as-v2']);
  });

  it('watches in v2, in order', async () => {
    // kubectl's -o json wraps items in a List of its own, without the list's resourceVersion
    const rv = JSON.parse(await k.ok(['get', '--raw', '/apis/hooks.example.com/v2/namespaces/default/gadgets'])).metadata.resourceVersion as string;
    assert.match(rv, /^\d+$/);
    const watching = k.run(['get', '--raw', `/apis/hooks.example.com/v2/namespaces/default/gadgets?watch=1&resourceVersion=${rv}&timeoutSeconds=4`]);
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 1; i <= 3; i++) await k.ok(['patch', 'gadgets.v1.hooks.example.com', 'made-as-v1', '--type=merge', '-p', JSON.stringify({ spec: { size: 10 + i } })]);
    await k.ok(['create', '-f', '-'], { input: gadgetV2('watched', 1) });
    await k.ok(['delete', 'gadgets.v2.hooks.example.com', 'watched']);
    const out = await watching;
    assert.equal(out.code, 0, out.stderr);
    const events = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as Obj);
    assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), [
      'MODIFIED made-as-v1', 'MODIFIED made-as-v1', 'MODIFIED made-as-v1', 'ADDED watched', 'DELETED watched',
    ]);
    assert.deepEqual(events.slice(0, 3).map((e) => e.object.spec.dimensions.size), [11, 12, 13]);
    for (const e of events) assert.equal(e.object.apiVersion, 'hooks.example.com/v2');
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b));
  });

  it('fails with kube\'s errors when the webhook is down, refuses or answers with the wrong uid', async () => {
    const closed = await freePort();
    await hookTo(url('/convert', closed), (r) => r.code !== 0);
    const down = await k.run(['get', 'gadgets.v2.hooks.example.com', 'probe']);
    assert.match(down.stderr, new RegExp(`Error from server: conversion webhook for hooks\\.example\\.com/v1, Kind=Gadget failed: Post "https://127\\.0\\.0\\.1:${closed}/convert\\?timeout=30s": dial tcp 127\\.0\\.0\\.1:${closed}: connect: connection refused`));
    const create = await k.run(['create', '-f', '-'], { input: gadgetV2('not-made', 1) });
    assert.match(create.stderr, /Error from server: error when creating "STDIN": conversion webhook for hooks\.example\.com\/v2, Kind=Gadget failed: Post .*connection refused/);
    assert.equal((await k.run(['get', 'gadgets.v1.hooks.example.com', 'not-made'])).code, 1, 'nothing stored');
    assert.equal((await k.run(['get', 'gadgets.v1.hooks.example.com', 'probe'])).code, 0, 'the storage version needs no webhook');
    const list = await k.run(['get', 'gadgets.v2.hooks.example.com']);
    assert.match(list.stderr, /conversion webhook for hooks\.example\.com\/v1, Kind=Gadget failed: Post/);

    await hookTo(url('/bad-uid'), (r) => /response\.uid/.test(r.stderr));
    const badUid = await k.run(['get', 'gadgets.v2.hooks.example.com', 'probe']);
    assert.match(badUid.stderr, /Error from server: conversion webhook for hooks\.example\.com\/v1, Kind=Gadget failed: expected response\.uid="[0-9a-f-]{36}", got "not-the-uid"/);

    await hookTo(url('/refuse'), (r) => /cannot be converted/.test(r.stderr));
    const refused = await k.run(['get', 'gadgets.v2.hooks.example.com', 'probe']);
    assert.match(refused.stderr, /Error from server: conversion webhook for hooks\.example\.com\/v1, Kind=Gadget failed: gadgets cannot be converted today/);

    await hookTo(url('/convert'), (r) => r.code === 0);
  });
});
