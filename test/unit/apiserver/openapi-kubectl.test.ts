// Real kubectl against the generated documents, served by a tiny node:http server shaped like kube-apiserver
// (version, discovery, OpenAPI only). Skipped when the kubectl binary is absent.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ResourceDefinition } from '../../../src/api/types.js';
import {
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  discoveryVariant,
} from '../../../src/apiserver/discovery/documents.js';
import {
  negotiateOpenapiV2,
  OPENAPI_V2_PROTOBUF,
  openapiV2,
  openapiV2Protobuf,
  openapiV3GroupVersion,
  openapiV3Index,
} from '../../../src/apiserver/openapi/index.js';
import type { SchemaSet } from '../../../src/machinery/schema.js';
import { resources, schemaSet } from './openapi-fixtures.js';

const KUBECTL = process.env.KUBECTL ?? '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

interface Fake {
  url: string;
  requests: { method: string; path: string; query: string; accept: string; contentType: string; body: string }[];
  close(): Promise<void>;
}

/** The one live object the fake serves, as last applied by kubectl. */
const LIVE_TOY = '/apis/example.com/v1/namespaces/default/toys/t1';
const appliedToy = { apiVersion: 'example.com/v1', kind: 'Toy', metadata: { name: 't1', namespace: 'default' }, spec: { color: 'Red', parts: [{ name: 'a' }, { name: 'b' }] } };
const liveToy = {
  ...appliedToy,
  metadata: { ...appliedToy.metadata, uid: 'u1', resourceVersion: '5', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(appliedToy) } },
};

async function serve(defs: ResourceDefinition[], set: SchemaSet, opts: { aggregated: boolean }): Promise<Fake> {
  const requests: Fake['requests'] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const accept = req.headers.accept ?? '';
    let body = '';
    for await (const chunk of req) body += chunk;
    requests.push({ method: req.method ?? '', path: url.pathname, query: url.search, accept, contentType: req.headers['content-type'] ?? '', body });
    const json = (body: unknown, contentType = 'application/json') => {
      res.writeHead(200, { 'content-type': contentType });
      res.end(JSON.stringify(body));
    };
    const p = url.pathname.replace(/\/$/, '');
    const variant = opts.aggregated ? discoveryVariant(accept) : undefined;
    const gv = /^\/apis\/([^/]+)\/([^/]+)$/.exec(p);
    const g = /^\/apis\/([^/]+)$/.exec(p);
    if (p === LIVE_TOY && (req.method === 'GET' || req.method === 'PATCH')) return json(liveToy);
    if (p === '/version') return json({ major: '1', minor: '33', gitVersion: 'v1.33.0', platform: 'linux/amd64' });
    if (p === '/api') return variant ? json(aggregatedDiscovery(defs, 'api', variant.version), variant.contentType) : json(apiVersions('127.0.0.1'));
    if (p === '/apis') return variant ? json(aggregatedDiscovery(defs, 'apis', variant.version), variant.contentType) : json(apiGroupList(defs));
    if (p === '/api/v1') return json(apiResourceList(defs, '', 'v1'));
    if (gv) return json(apiResourceList(defs, gv[1], gv[2]));
    if (g && apiGroup(defs, g[1])) return json(apiGroup(defs, g[1]));
    if (p === '/openapi/v2') {
      const doc = openapiV2(defs, set, { version: 'v1.33.0' });
      const form = negotiateOpenapiV2(accept);
      if (form === 'protobuf') {
        res.writeHead(200, { 'content-type': OPENAPI_V2_PROTOBUF });
        return res.end(openapiV2Protobuf(doc));
      }
      if (form === 'json') return json(doc);
    }
    if (p === '/openapi/v3') return json(openapiV3Index(defs, set));
    if (p.startsWith('/openapi/v3/')) {
      const doc = openapiV3GroupVersion(defs, set, p.slice('/openapi/v3/'.length));
      if (doc) return json(doc);
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address() as { port: number };
  return { url: `http://127.0.0.1:${addr.port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let dir = '';

function kubectl(fake: Fake, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, KUBECONFIG: join(dir, 'no-kubeconfig') };
  return new Promise((resolve) => {
    execFile(KUBECTL, ['--server', fake.url, '--cache-dir', join(dir, `cache-${fake.url.split(':').pop()}`), ...args], { env, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function ok(fake: Fake, ...args: string[]): Promise<string> {
  const r = await kubectl(fake, ...args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

describe('kubectl against the generated documents', () => {
  let agg: Fake;
  let legacy: Fake;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'k1s-openapi-'));
    agg = await serve(resources, schemaSet(), { aggregated: true });
    legacy = await serve(resources, schemaSet(), { aggregated: false });
  });
  after(async () => {
    await agg?.close();
    await legacy?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('discovers resources through aggregated discovery', async () => {
    const out = await ok(agg, 'api-resources', '--no-headers');
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(rows, [
      ['widgets', 'v1', 'false', 'Widget'],
      ['toys', 'ty', 'example.com/v1', 'true', 'Toy'],
    ]);
    assert.ok(agg.requests.some((r) => r.path === '/apis' && r.accept.includes('g=apidiscovery.k8s.io;v=v2')));
    assert.ok(!agg.requests.some((r) => r.path === '/apis/example.com/v1'), 'no per-group-version requests were needed');
    const cats = await ok(agg, 'api-resources', '--categories=all', '-o', 'name');
    assert.deepEqual(cats.trim().split('\n'), ['toys.example.com']);
  });

  it('discovers resources through legacy discovery', async () => {
    const out = await ok(legacy, 'api-resources', '--no-headers', '--api-group=example.com');
    assert.deepEqual(out.trim().split(/\s+/), ['toys', 'ty', 'example.com/v1', 'true', 'Toy']);
    assert.ok(legacy.requests.some((r) => r.path === '/apis/example.com/v1'));
  });

  it('explains a resource from OpenAPI v3', async () => {
    const out = await ok(agg, 'explain', 'toys.spec');
    assert.match(out, /^GROUP:\s+example\.com\nKIND:\s+Toy\nVERSION:\s+v1\n/);
    assert.match(out, /FIELD: spec <ToySpec>/);
    assert.match(out, /ToySpec is the desired state of a toy\./);
    assert.match(out, /color\t<string> -required-\n\s+enum: Blue, Green, Red\n\s+Colour of the toy\./);
    assert.match(out, /parts\t<\[\]ToyPart>\n\s+Parts of the toy, merged by name\./);
    assert.match(out, /labels\t<map\[string\]string>/);
    assert.match(out, /madeAt\t<string>\n\s+When the toy was made\./);
    const top = await ok(agg, 'explain', 'ty');
    assert.match(top, /Toy is a thing to play with\./);
    assert.match(top, /metadata\t<ObjectMeta>\n\s+Standard object metadata\./);
    const beta = await ok(agg, 'explain', 'toys.spec', '--api-version=example.com/v1beta1');
    assert.match(beta, /VERSION:\s+v1beta1/);
    assert.match(beta, /colour\t<string>/);
    const core = await ok(agg, 'explain', 'widgets.spec.size');
    assert.match(core, /^KIND:\s+Widget\nVERSION:\s+v1\n\nFIELD: size <integer>/);
    const deep = await ok(agg, 'explain', 'toys.spec.parts.weight');
    // A ref to a string-typed definition reads as its type; both descriptions are shown.
    assert.match(deep, /FIELD: weight <string>\n\n\nDESCRIPTION:\n\s+Weight of the part.\n\s+Quantity is a fixed-point/);
    assert.ok(agg.requests.some((r) => r.path === '/openapi/v3/apis/example.com/v1'));
  });

  it('explains a resource from OpenAPI v2 (protobuf)', async () => {
    const out = await ok(agg, 'explain', 'toys.spec', '--output=plaintext-openapiv2');
    assert.match(out, /KIND:\s+Toy\nVERSION:\s+example\.com\/v1/);
    assert.match(out, /RESOURCE: spec <Object>/);
    assert.match(out, /color\t<string> -required-\n\s+Colour of the toy\./);
    assert.match(out, /parts\t<\[\]Object>/);
    const v2req = agg.requests.find((r) => r.path === '/openapi/v2');
    assert.ok(v2req?.accept.includes('protobuf'), 'kubectl asked for protobuf');
  });

  it('leaves field validation to the server when PATCH takes fieldValidation, else validates client-side', async () => {
    const toyFile = join(dir, 'toy.yaml');
    await writeFile(toyFile, 'apiVersion: example.com/v1\nkind: Toy\nmetadata: {name: t1, namespace: default}\nspec: {color: Red, bogus: 1}\n');
    const created = await ok(agg, 'create', '--dry-run=client', '-f', toyFile);
    assert.match(created, /toy\.example\.com\/t1 created \(dry run\)/);

    // Widgets have no PATCH operation, so kubectl validates them itself against /openapi/v2.
    const good = join(dir, 'widget.yaml');
    await writeFile(good, 'apiVersion: v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3, owner: me}\n');
    assert.match(await ok(agg, 'create', '--dry-run=client', '-f', good), /widget\/w1 created \(dry run\)/);
    const bad = join(dir, 'widget-bad.yaml');
    await writeFile(bad, 'apiVersion: v1\nkind: Widget\nmetadata: {name: w2}\nspec: {size: three, bogus: 1}\n');
    const r = await kubectl(agg, 'create', '--dry-run=client', '-f', bad);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /unknown field "spec\.bogus"|unknown field "bogus"/);
    assert.match(r.stderr, /spec\.size/);
  });

  it('applies client-side with a strategic merge patch built from the v3 patch metadata', async () => {
    const file = join(dir, 'toy-apply.yaml');
    await writeFile(file, 'apiVersion: example.com/v1\nkind: Toy\nmetadata: {name: t1, namespace: default}\nspec:\n  color: Blue\n  parts: [{name: b}, {name: c}]\n');
    assert.match(await ok(agg, 'apply', '-f', file), /toy\.example\.com\/t1 configured/);
    const patch = agg.requests.find((r) => r.method === 'PATCH');
    assert.ok(patch, 'kubectl sent a PATCH');
    assert.equal(patch.contentType, 'application/strategic-merge-patch+json');
    assert.match(patch.query, /fieldValidation=Strict/);
    const spec = JSON.parse(patch.body).spec;
    assert.deepEqual(spec['$setElementOrder/parts'], [{ name: 'b' }, { name: 'c' }]);
    assert.deepEqual(spec.parts, [{ name: 'c' }, { $patch: 'delete', name: 'a' }]);
    assert.equal(spec.color, 'Blue');
  });
});
