// Custom resources beyond the basics, on one shared k1s server: cluster scope, watch in two versions, pagination,
// dry-run, deletecollection, garbage collection both ways, RBAC on subresources, server-side apply list types,
// transition rules, embedded resources, name conflicts, schema changes, discovery and OpenAPI, restarts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';

let server: K1sServer;
let k: ReturnType<typeof kubectl>;
const G = 'api.example.com';

type Obj = Record<string, unknown>;
const crd = (plural: string, kind: string, scope: 'Namespaced' | 'Cluster', spec: Obj, extra: Obj = {}): Obj => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${G}` },
  spec: {
    group: G,
    scope,
    names: { plural, singular: kind.toLowerCase(), kind, ...((extra.names as Obj) ?? {}) },
    versions: (extra.versions as Obj[]) ?? [
      { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', properties: { spec, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } },
    ],
  },
});
const apply = async (o: Obj, args: string[] = []) => k.ok(['apply', ...args, '-f', '-'], { input: JSON.stringify(o) });
const establish = async (o: Obj) => {
  await apply(o);
  await k.ok(['wait', '--for=condition=Established', `crd/${(o.metadata as Obj).name}`, '--timeout=20s']);
};
const json = async (args: string[]) => JSON.parse(await k.ok([...args, '-o', 'json']));

const gadgetSpec = { type: 'object', properties: { size: { type: 'integer' }, parts: { type: 'array', items: { type: 'string' } } } };

before(async () => {
  server = await startServer();
  k = kubectl(server, '1.33');
  await establish(crd('gadgets', 'Gadget', 'Namespaced', gadgetSpec, {
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: gadgetSpec } } } },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: gadgetSpec } } } },
    ],
  }));
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

const gadget = (name: string, size = 1, extra: Obj = {}): Obj => ({ apiVersion: `${G}/v1`, kind: 'Gadget', metadata: { name, namespace: 'default', ...extra }, spec: { size } });

describe('custom resources: scope, watch, pages, dry-run and collections', () => {
  it('serves a cluster-scoped kind without namespaces', async () => {
    await establish(crd('planets', 'Planet', 'Cluster', { type: 'object', properties: { moons: { type: 'integer' } } }));
    await apply({ apiVersion: `${G}/v1`, kind: 'Planet', metadata: { name: 'mars' }, spec: { moons: 2 } });
    const p = await json(['get', 'planet', 'mars']);
    assert.equal(p.metadata.namespace, undefined);
    assert.equal(p.metadata.selfLink, undefined);
    const r = await k.run(['get', 'planets', '-n', 'default', 'mars', '-o', 'name']);
    assert.equal(r.stdout.trim(), `planet.${G}/mars`, 'a namespace flag is ignored for cluster-scoped kinds');
  });

  it('watches in any served version, with bookmarks and initial events', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const seen: Array<[string, string, string]> = [];
    const watch = new k8s.Watch(kc);
    const req = await watch.watch(`/apis/${G}/v2/namespaces/default/gadgets`, { allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' },
      (type, obj: { apiVersion: string; metadata: { name?: string; annotations?: Obj } }) => seen.push([type, obj.apiVersion, obj.metadata.name ?? String(obj.metadata.annotations?.['k8s.io/initial-events-end'])]),
      () => undefined);
    try {
      await apply(gadget('w-1'));
      await until(async () => seen.some(([t, , n]) => t === 'ADDED' && n === 'w-1'), 'ADDED through the v2 watch', 20_000);
      assert.ok(seen.some(([t, , n]) => t === 'BOOKMARK' && n === 'true'), `initial-events-end bookmark in ${JSON.stringify(seen)}`);
      assert.ok(seen.filter(([t]) => t === 'ADDED').every(([, v]) => v === `${G}/v2`));
    } finally {
      req.abort();
    }
  });

  it('lists in pages, dry-runs and deletes collections by label', async () => {
    for (let i = 0; i < 5; i++) await apply(gadget(`p-${i}`, i, { labels: { batch: 'p' } }));
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const api = kc.makeApiClient(k8s.CustomObjectsApi);
    const args = { group: G, version: 'v1', namespace: 'default', plural: 'gadgets', labelSelector: 'batch=p', limit: 2 };
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = (await api.listNamespacedCustomObject({ ...args, _continue: cont })) as { items: Array<{ metadata: { name: string } }>; metadata: { continue?: string; remainingItemCount?: number } };
      names.push(...page.items.map((i) => i.metadata.name));
      cont = page.metadata.continue || undefined;
      pages++;
    } while (cont);
    assert.deepEqual(names, ['p-0', 'p-1', 'p-2', 'p-3', 'p-4']);
    assert.equal(pages, 3);
    const dry = await k.ok(['create', '--dry-run=server', '-f', '-', '-o', 'name'], { input: JSON.stringify(gadget('dry')) });
    assert.equal(dry.trim(), `gadget.${G}/dry`);
    assert.notEqual((await k.run(['get', 'gadget', 'dry'])).code, 0, 'a dry run stores nothing');
    await k.ok(['delete', 'gadgets', '-l', 'batch=p']);
    assert.equal((await k.ok(['get', 'gadgets', '-l', 'batch=p', '-o', 'name'])).trim(), '');
  });
});

const gizmoSpec = {
  type: 'object',
  properties: {
    size: { type: 'integer' },
    limit: { type: 'integer' },
    mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
    },
    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
  },
  'x-kubernetes-validations': [
    { rule: '!has(self.limit) || self.limit >= self.size', messageExpression: "'limit ' + string(self.limit) + ' is below size ' + string(self.size)", reason: 'FieldValueForbidden', fieldPath: '.limit' },
  ],
};
const gizmo = (name: string, spec: Obj): Obj => ({ apiVersion: `${G}/v1`, kind: 'Gizmo', metadata: { name, namespace: 'default' }, spec });

/** GET through HTTPS with the admin's client certificate, for what kubectl does not show (headers). */
function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfig);
  const user = kc.getCurrentUser()!;
  const cluster = kc.getCurrentCluster()!;
  const b = (s?: string) => (s ? Buffer.from(s, 'base64') : undefined);
  return new Promise((res, rej) => {
    const req = https.request(`${server.url}${path}`, { cert: b(user.certData), key: b(user.keyData), ca: b(cluster.caData), headers }, (r) => {
      let body = '';
      r.on('data', (d) => (body += d));
      r.on('end', () => res({ status: r.statusCode ?? 0, headers: r.headers, body }));
    });
    req.on('error', rej);
    req.end();
  });
}

describe('custom resources: owners, RBAC, apply, rules and schemas', () => {
  before(async () => {
    await establish(crd('gizmos', 'Gizmo', 'Namespaced', gizmoSpec));
  });

  it('collects garbage in both directions', async () => {
    const owner = JSON.parse(await k.ok(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(gadget('owner')) }));
    const ref = (o: { apiVersion: string; kind: string; metadata: { name: string; uid: string } }) => [{ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid }];
    await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned-by-gadget', namespace: 'default', ownerReferences: ref(owner) } });
    const cm = JSON.parse(await k.ok(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner-cm', namespace: 'default' } }) }));
    await apply(gadget('owned-by-cm', 1, { ownerReferences: ref(cm) }));
    await k.ok(['delete', 'gadget', 'owner']);
    await until(async () => (await k.run(['get', 'configmap', 'owned-by-gadget'])).code !== 0, 'the ConfigMap a Gadget owned collected', 30_000);
    await k.ok(['delete', 'configmap', 'owner-cm']);
    await until(async () => (await k.run(['get', 'gadget', 'owned-by-cm'])).code !== 0, 'the Gadget a ConfigMap owned collected', 30_000);
  });

  it('authorizes the resource and its subresources apart', async () => {
    await apply(gizmo('g-rbac', { size: 1 }));
    await k.ok(['create', 'serviceaccount', 'gizmo-reader']);
    await k.ok(['create', 'role', 'gizmo-reader', `--resource=gizmos.${G}`, '--verb=get,list,patch']);
    await k.ok(['create', 'rolebinding', 'gizmo-reader', '--role=gizmo-reader', '--serviceaccount=default:gizmo-reader']);
    const token = (await k.ok(['create', 'token', 'gizmo-reader'])).trim();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const cfg = join(server.dataDir, 'reader.kubeconfig');
    writeFileSync(cfg, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'r',
      clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': kc.getCurrentCluster()!.caData } }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'r', context: { cluster: 'c', user: 'u', namespace: 'default' } }],
    }), { mode: 0o600 });
    const env = { KUBECONFIG: cfg };
    assert.equal((await k.ok(['get', 'gizmos', '-o', 'name'], { env })).trim(), `gizmo.${G}/g-rbac`);
    await k.ok(['patch', 'gizmo', 'g-rbac', '--type=merge', '-p', '{"spec":{"size":2}}'], { env });
    // kubectl reads the subresource before patching it: the role grants gizmos, not gizmos/status
    const denied = await k.run(['patch', 'gizmo', 'g-rbac', '--subresource=status', '--type=merge', '-p', '{"status":{"ok":true}}'], { env });
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, new RegExp(`gizmos.${G} "g-rbac" is forbidden: User "system:serviceaccount:default:gizmo-reader" cannot get resource "gizmos/status" in API group "${G}" in the namespace "default"`));
    await k.ok(['create', 'role', 'gizmo-status', `--resource=gizmos.${G}/status`, '--verb=get']);
    await k.ok(['create', 'rolebinding', 'gizmo-status', '--role=gizmo-status', '--serviceaccount=default:gizmo-reader']);
    const patchDenied = await until(async () => {
      const r = await k.run(['patch', 'gizmo', 'g-rbac', '--subresource=status', '--type=merge', '-p', '{"status":{"ok":true}}'], { env });
      return /cannot patch/.test(r.stderr) ? r : undefined;
    }, 'get on gizmos/status granted', 10_000);
    assert.match(patchDenied.stderr, new RegExp(`User "system:serviceaccount:default:gizmo-reader" cannot patch resource "gizmos/status" in API group "${G}" in the namespace "default"`));
    assert.equal((await k.run(['auth', 'can-i', 'delete', `gizmos.${G}`], { env })).stdout.trim(), 'no');
  });

  it('applies server-side by list and map types, with conflicts on atomic maps', async () => {
    const ssa = (manager: string, spec: Obj, force = false) =>
      k.run(['apply', '--server-side', `--field-manager=${manager}`, ...(force ? ['--force-conflicts'] : []), '-f', '-'], { input: JSON.stringify(gizmo('g-ssa', spec)) });
    assert.equal((await ssa('a', { size: 1, ports: [{ name: 'http', port: 80 }], tags: ['a'], selector: { x: '1' } })).code, 0);
    assert.equal((await ssa('b', { ports: [{ name: 'https', port: 443 }], tags: ['b'] })).code, 0);
    const conflict = await ssa('b', { ports: [{ name: 'https', port: 443 }], tags: ['b'], selector: { y: '2' } });
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "a": \.spec\.selector/);
    assert.equal((await ssa('b', { ports: [{ name: 'https', port: 443 }], tags: ['b'], selector: { y: '2' } }, true)).code, 0);
    const g = await json(['get', 'gizmo', 'g-ssa']);
    assert.deepEqual(g.spec.ports, [{ name: 'http', port: 80 }, { name: 'https', port: 443 }]);
    assert.deepEqual(g.spec.tags, ['a', 'b']);
    assert.deepEqual(g.spec.selector, { y: '2' });
  });

  it('checks transition rules, messageExpression, reason and fieldPath', async () => {
    await apply(gizmo('g-rules', { size: 1, mode: 'fast' }));
    const immutable = await k.run(['patch', 'gizmo', 'g-rules', '--type=merge', '-p', '{"spec":{"mode":"slow"}}']);
    assert.match(immutable.stderr, /"g-rules" is invalid: spec\.mode: Invalid value: "string": mode is immutable/);
    const below = await k.run(['patch', 'gizmo', 'g-rules', '--type=merge', '-p', '{"spec":{"size":3,"limit":1}}']);
    assert.match(below.stderr, /"g-rules" is invalid: spec\.limit: Forbidden: limit 1 is below size 3/);
    assert.equal((await json(['get', 'gizmo', 'g-rules'])).spec.size, 1, 'a refused patch changes nothing');
  });

  it('validates embedded resources and prunes their unknown metadata', async () => {
    const bad = await k.run(['create', '-f', '-'], { input: JSON.stringify(gizmo('g-embed', { template: { metadata: { name: 'x' } } })) });
    assert.match(bad.stderr, /spec\.template\.apiVersion: Required value: must not be empty/);
    assert.match(bad.stderr, /spec\.template\.kind: Required value: must not be empty/);
    await k.ok(['create', '--validate=false', '-f', '-'], { input: JSON.stringify(gizmo('g-embed', { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', bogus: 1 }, spec: { any: 'thing' } } })) });
    const g = await json(['get', 'gizmo', 'g-embed']);
    assert.deepEqual(g.spec.template, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { any: 'thing' } });
  });

  it('refuses conflicting names and accepts them once mended', async () => {
    const names = { plural: 'doohickeys', singular: 'doohickey', kind: 'Doohickey', shortNames: ['gadget'] };
    await apply({ ...crd('doohickeys', 'Doohickey', 'Namespaced', { type: 'object' }), spec: { ...(crd('doohickeys', 'Doohickey', 'Namespaced', { type: 'object' }).spec as Obj), names } });
    const c = await until(async () => {
      const o = await json(['get', 'crd', `doohickeys.${G}`]);
      return o.status?.conditions?.length ? o : undefined;
    }, 'CRD conditions');
    const cond = (t: string) => c.status.conditions.find((x: { type: string }) => x.type === t);
    assert.deepEqual([cond('NamesAccepted').status, cond('NamesAccepted').reason, cond('NamesAccepted').message], ['False', 'ShortNamesConflict', '"gadget" is already in use']);
    assert.equal(cond('Established').status, 'False');
    await apply(crd('doohickeys', 'Doohickey', 'Namespaced', { type: 'object' }));
    await k.ok(['wait', '--for=condition=Established', `crd/doohickeys.${G}`, '--timeout=20s']);
  });

  it('applies schema changes to the next request and changes the discovery ETag', async () => {
    const before = await raw('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    assert.equal(before.status, 200);
    const etag = String(before.headers.etag);
    assert.equal((await raw('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', 'if-none-match': etag })).status, 304);
    await apply(crd('gadgets', 'Gadget', 'Namespaced', gadgetSpec, {
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { ...gadgetSpec, properties: { ...gadgetSpec.properties, color: { type: 'string' } } } } } } },
        { name: 'v2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object', properties: { spec: gadgetSpec } } } },
      ],
    }));
    await until(async () => {
      await apply(gadget('colored'), ['--validate=false']);
      // by full name: kubectl's cached discovery still prefers v2 (served until this change)
      await k.ok(['patch', `gadgets.v1.${G}`, 'colored', '--type=merge', '-p', '{"spec":{"color":"red"}}']);
      return (await json(['get', `gadgets.v1.${G}`, 'colored'])).spec.color === 'red';
    }, 'the new field kept', 10_000);
    const now = await raw('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    assert.notEqual(String(now.headers.etag), etag);
    const group = JSON.parse(now.body).items.find((g: { metadata: { name: string } }) => g.metadata.name === G);
    assert.deepEqual(group.versions.map((v: { version: string }) => v.version), ['v1'], 'v2 is no longer served');
  });

  it('publishes the schemas in OpenAPI v2 and v3 with their extensions', async () => {
    const v3 = JSON.parse((await raw(`/openapi/v3/apis/${G}/v1`)).body);
    const name = Object.keys(v3.components.schemas).find((n) => n.endsWith('.v1.Gizmo'))!;
    const spec = v3.components.schemas[name].properties.spec;
    assert.equal(spec.properties.ports['x-kubernetes-list-type'], 'map');
    assert.deepEqual(spec.properties.ports['x-kubernetes-list-map-keys'], ['name']);
    assert.equal(spec.properties.selector['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(v3.components.schemas[name]['x-kubernetes-group-version-kind'], [{ group: G, kind: 'Gizmo', version: 'v1' }]);
    const v2 = JSON.parse((await raw('/openapi/v2')).body);
    assert.ok(v2.definitions[name], `${name} in /openapi/v2`);
    assert.ok(v2.paths[`/apis/${G}/v1/namespaces/{namespace}/gizmos/{name}/status`]);
    const explain = await k.ok(['explain', `gizmos.${G}.spec.ports`]);
    assert.match(explain, /port\s+<integer>/);
  });
});

/** An operator-sized generated CRD: many documented fields, enums, bounded strings and CEL rules. */
function generatedSchema(fields: number): Obj {
  const props: Obj = {};
  for (let i = 0; i < fields; i++) {
    const inner: Obj = {};
    for (let j = 0; j < 25; j++) {
      inner[`setting${j}`] = { type: 'string', maxLength: 253, description: `Setting ${j} of section ${i}. `.repeat(12), ...(j % 5 === 0 ? { enum: Array.from({ length: 40 }, (_, n) => `value-${n}`) } : {}) };
    }
    inner.count = { type: 'integer', minimum: 0, maximum: 1000, default: 1 };
    inner.items = { type: 'array', maxItems: 16, items: { type: 'object', properties: { name: { type: 'string', maxLength: 63 }, weight: { type: 'integer' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] };
    props[`section${i}`] = {
      type: 'object', description: `Section ${i}. `.repeat(20), properties: inner,
      'x-kubernetes-validations': [{ rule: 'self.count <= 1000 && (!has(self.items) || self.items.all(x, x.name.size() > 0))', message: `section${i} is inconsistent` }],
    };
  }
  return { type: 'object', properties: props };
}

describe('custom resources: large and hostile definitions', () => {
  it('installs a large generated CRD with server-side apply and validates its own example', async () => {
    const big = crd('bigs', 'Big', 'Namespaced', generatedSchema(60));
    const text = JSON.stringify(big);
    assert.ok(text.length > 400_000, `generated CRD is ${text.length} bytes`);
    const plain = await k.run(['apply', '-f', '-'], { input: text });
    assert.match(plain.stderr, /metadata.annotations: Too long: may not be more than 262144 bytes/, 'client-side apply cannot carry its annotation, as on Kubernetes');
    await k.ok(['apply', '--server-side', '-f', '-'], { input: text });
    await k.ok(['wait', '--for=condition=Established', `crd/bigs.${G}`, '--timeout=20s']);
    const example = { apiVersion: `${G}/v1`, kind: 'Big', metadata: { name: 'example', namespace: 'default' }, spec: { section0: { setting0: 'value-3', items: [{ name: 'a', weight: 1 }] }, section59: { setting1: 'free text' } } };
    await apply(example);
    const got = await json(['get', 'big', 'example']);
    assert.equal(got.spec.section0.count, 1, 'defaulted');
    const bad = await k.run(['apply', '-f', '-'], { input: JSON.stringify({ ...example, spec: { section3: { setting5: 'value-99', items: [{ name: '' }] } } }) });
    assert.match(bad.stderr, /spec\.section3\.setting5: Unsupported value: "value-99"/);
  });

  it('refuses uncompilable and too expensive rules, and bodies nested too deep', async () => {
    const costly = crd('costlies', 'Costly', 'Namespaced', {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y || x != y))' }] },
        name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.foo == 1' }] },
      },
    });
    const r = await k.run(['create', '-f', '-'], { input: JSON.stringify(costly) });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)/);
    assert.match(r.stderr, /compilation failed: ERROR: <input>:1:5: type 'string' does not support field selection/);
    let deep: Obj = { type: 'string' };
    for (let i = 0; i < 600; i++) deep = { type: 'object', properties: { a: deep } };
    const d = await k.run(['create', '-f', '-'], { input: JSON.stringify(crd('deeps', 'Deep', 'Namespaced', deep)) });
    assert.match(d.stderr, /BadRequest.*exceeded max depth of 1000/);
    assert.notEqual((await k.run(['get', 'crd', `costlies.${G}`])).code, 0);
    assert.notEqual((await k.run(['get', 'crd', `deeps.${G}`])).code, 0);
  });

  it('serves a CRD with a 10,000-value enum', async () => {
    const values = Array.from({ length: 10_000 }, (_, i) => `v${i}`);
    await establish(crd('enums', 'Enum', 'Namespaced', { type: 'object', properties: { pick: { type: 'string', enum: values } } }));
    await apply({ apiVersion: `${G}/v1`, kind: 'Enum', metadata: { name: 'e1', namespace: 'default' }, spec: { pick: 'v9999' } });
    const bad = await k.run(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: `${G}/v1`, kind: 'Enum', metadata: { name: 'e2', namespace: 'default' }, spec: { pick: 'nope' } }) });
    assert.match(bad.stderr, /spec\.pick: Unsupported value: "nope": supported values: "v0", "v1"/);
  });
});

describe('custom resources under a HorizontalPodAutoscaler', () => {
  it('scales a custom resource through its scale subresource', async () => {
    const replicas = { type: 'object', properties: { replicas: { type: 'integer' } } };
    await establish(crd('scalers', 'Scaler', 'Namespaced', replicas, {
      versions: [{
        name: 'v1', served: true, storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: replicas, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
      }],
    }));
    await apply({ apiVersion: `${G}/v1`, kind: 'Scaler', metadata: { name: 's1', namespace: 'default' }, spec: { replicas: 1 } });
    await apply({
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 's1', namespace: 'default' },
      spec: { scaleTargetRef: { apiVersion: `${G}/v1`, kind: 'Scaler', name: 's1' }, minReplicas: 3, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
    });
    await until(async () => (await json(['get', 'scaler', 's1'])).spec.replicas === 3, 'the HPA raising the Scaler to minReplicas', 30_000);
    const hpa = await json(['get', 'hpa', 's1']);
    const able = hpa.status.conditions.find((c: { type: string }) => c.type === 'AbleToScale');
    assert.equal(able.reason, 'SucceededRescale');
    const events = await k.ok(['get', 'events', '--field-selector', 'involvedObject.name=s1,involvedObject.kind=HorizontalPodAutoscaler', '-o', 'jsonpath={.items[*].message}']);
    assert.match(events, /New size: 3; reason: Current number of replicas below Spec.MinReplicas/);
  });
});

describe('custom resources across a restart', () => {
  it('keeps CRDs and objects, served as soon as the server is ready', async () => {
    await apply(gadget('survivor', 7));
    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir: server.dataDir });
    k = kubectl(server, '1.33');
    const g = await json(['get', 'gadget', 'survivor']);
    assert.equal(g.spec.size, 7);
    assert.equal((await json(['get', 'gizmo', 'g-rules'])).spec.mode, 'fast');
  });
});
