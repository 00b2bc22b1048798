// Admission webhooks against real HTTPS servers this test starts: validating and mutating webhooks by URL and by
// Service, AdmissionReview contents, denials, warnings, selectors, failure policies, timeouts, dry run and custom
// resources, driven by real kubectl.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createCa, createServingCert } from '../../src/pki/certs.js';
import { freePort, kubectl, removeDir, startServer, until, type K1sServer } from './harness.js';

type Obj = Record<string, unknown>;
interface Review { request: { uid: string; operation: string; name: string; namespace: string; kind: Obj; resource: Obj; userInfo: { username: string }; object?: Obj; oldObject?: Obj; dryRun?: boolean; options?: Obj } }

let server: K1sServer;
let k: ReturnType<typeof kubectl>;
let hooks: https.Server;
let hookPort = 0;
let caBundle = '';
let otherCaBundle = '';
const seen: Review[] = [];
const calls = { a: 0 };

const respond = (r: Review, response: Obj) => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: r.request.uid, ...response } });
const patchOf = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString('base64');

/** The webhook server's routes: what each path answers for a review. */
const routes: Record<string, (r: Review) => Obj | undefined> = {
  '/validate': (r) => {
    const data = (r.request.object?.data ?? {}) as Record<string, string>;
    if ('forbidden' in data) return respond(r, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'the key "forbidden" is not allowed' } });
    return respond(r, { allowed: true, warnings: ['configmap checked by validate.example.com'] });
  },
  '/mutate': (r) => respond(r, {
    allowed: true,
    patchType: 'JSONPatch',
    patch: patchOf([{ op: 'add', path: '/metadata/labels', value: { ...((r.request.object?.metadata as Obj)?.labels as Obj), mutated: 'true' } }]),
  }),
  '/gadget': (r) => {
    const size = (r.request.object?.spec as { size?: number })?.size ?? 0;
    return respond(r, size > 3 ? { allowed: false, status: { message: `size ${size} is too big` } } : { allowed: true });
  },
  '/hang': () => undefined,
  '/garbage': () => ({ raw: 'this is not json' }),
  '/huge-patch': (r) => respond(r, { allowed: true, patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/data/big', value: 'x'.repeat(3 * 1024 * 1024) }]) }),
  '/bad-patch': (r) => respond(r, { allowed: true, patchType: 'JSONPatch', patch: patchOf([{ op: 'replace', path: '/spec/nothing', value: 1 }]) }),
  '/connect': (r) => respond(r, { allowed: false, status: { code: 403, reason: 'Forbidden', message: `exec of ${JSON.stringify((r.request.object as Obj)?.command)} refused` } }),
  '/v1beta1': (r) => ({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { uid: r.request.uid, allowed: false, status: { message: 'v1beta1 says no' } } }),
  '/count-a': (r) => {
    calls.a++;
    const labels = ((r.request.object?.metadata as Obj)?.labels ?? {}) as Obj;
    return respond(r, { allowed: true, patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/metadata/labels', value: { ...labels, a: String(calls.a), sawB: String('b' in labels) } }]) });
  },
  '/add-b': (r) => {
    const labels = ((r.request.object?.metadata as Obj)?.labels ?? {}) as Obj;
    return respond(r, { allowed: true, patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/metadata/labels', value: { ...labels, b: 'yes' } }]) });
  },
  '/bad-uid': (r) => ({ ...respond(r, { allowed: true }), response: { uid: 'not-the-uid', allowed: true } }),
};

before(async () => {
  const ca = await createCa({ commonName: 'webhook-test-ca' });
  const other = await createCa({ commonName: 'other-ca' });
  const cert = await createServingCert(ca, { hostnames: ['localhost', 'hooks.default.svc'], ips: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.certPem).toString('base64');
  otherCaBundle = Buffer.from(other.certPem).toString('base64');
  hooks = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const review = JSON.parse(body) as Review;
      seen.push(review);
      const answer = routes[(req.url ?? '').split('?')[0]!]?.(review);
      if (!answer) return; // /hang: never answers
      res.setHeader('content-type', 'application/json');
      res.end(typeof answer.raw === 'string' ? answer.raw : JSON.stringify(answer));
    });
  });
  hooks.listen(0, '127.0.0.1');
  await once(hooks, 'listening');
  hookPort = (hooks.address() as AddressInfo).port;
  server = await startServer();
  k = kubectl(server, '1.33');
});

after(async () => {
  hooks.closeAllConnections();
  hooks.close();
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

const apply = (o: Obj) => k.ok(['apply', '-f', '-'], { input: JSON.stringify(o) });
const url = (path: string, port = hookPort) => `https://127.0.0.1:${port}${path}`;
const configMapRule = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
const webhookConfig = (kind: 'Validating' | 'Mutating', name: string, webhooks: Obj[]): Obj => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: `${kind}WebhookConfiguration`,
  metadata: { name },
  webhooks: webhooks.map((w) => ({ sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail', ...w })),
});
const cm = (name: string, ns: string, data: Obj = {}, labels: Obj = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data });

/** Applies a configuration and waits until the server calls it (configurations are followed by a watch). */
async function configure(o: Obj, probe: () => Promise<boolean>): Promise<void> {
  await apply(o);
  await until(probe, `${(o.metadata as Obj).name} in force`, 10_000);
}

describe('validating and mutating webhooks', () => {
  before(async () => {
    await k.ok(['create', 'namespace', 'hooked']);
    await k.ok(['label', 'namespace', 'hooked', 'webhooks=on']);
    await k.ok(['create', 'namespace', 'plain']);
    await configure(webhookConfig('Validating', 'validate', [{
      name: 'validate.example.com', clientConfig: { url: url('/validate'), caBundle }, rules: configMapRule,
      namespaceSelector: { matchLabels: { webhooks: 'on' } },
    }]), async () => {
      const r = await k.run(['create', '-f', '-', '--dry-run=server'], { input: cm('probe', 'hooked', { forbidden: 'x' }) });
      return /denied the request/.test(r.stderr);
    });
  });

  it('denies with the webhook\'s code and message and sends a full AdmissionReview', async () => {
    seen.length = 0;
    const r = await k.run(['create', '-f', '-'], { input: cm('bad', 'hooked', { forbidden: 'x' }) });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Error from server \(Forbidden\): error when creating "STDIN": admission webhook "validate\.example\.com" denied the request: the key "forbidden" is not allowed/);
    assert.notEqual((await k.run(['get', 'configmap', 'bad', '-n', 'hooked'])).code, 0, 'a denied create stores nothing');
    const req = seen.at(-1)!.request;
    assert.equal(req.operation, 'CREATE');
    assert.equal(req.namespace, 'hooked');
    assert.equal(req.name, 'bad');
    assert.deepEqual(req.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(req.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.ok(req.userInfo.username, 'userInfo.username');
    assert.equal((req.object?.data as Obj).forbidden, 'x');
    assert.equal(req.oldObject, null, 'a create has no old object (RawExtension marshals as null)');
    assert.equal(req.options?.kind, 'CreateOptions');
  });

  it('passes warnings on, sees updates with the old object, and skips namespaces the selector leaves out', async () => {
    const ok = await k.run(['create', '-f', '-'], { input: cm('good', 'hooked', { fine: 'yes' }) });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stderr, /Warning: configmap checked by validate\.example\.com/);
    seen.length = 0;
    await k.ok(['patch', 'configmap', 'good', '-n', 'hooked', '--type=merge', '-p', '{"data":{"more":"1"}}']);
    assert.equal(seen.at(-1)!.request.operation, 'UPDATE');
    assert.deepEqual(seen.at(-1)!.request.oldObject?.data, { fine: 'yes' });
    const denied = await k.run(['patch', 'configmap', 'good', '-n', 'hooked', '--type=merge', '-p', '{"data":{"forbidden":"1"}}']);
    assert.match(denied.stderr, /denied the request: the key "forbidden" is not allowed/);
    seen.length = 0;
    await k.ok(['create', '-f', '-'], { input: cm('free', 'plain', { forbidden: 'x' }) });
    assert.equal(seen.length, 0, 'a namespace without the label is not sent');
  });

  it('mutates by JSONPatch, by Service, with objectSelector', async () => {
    // an ExternalName Service reaches the test's server on loopback (Endpoints may not name loopback addresses);
    // TLS still verifies the Service's DNS name, hooks.default.svc
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks', namespace: 'default' }, spec: { type: 'ExternalName', externalName: 'localhost' } });
    await configure(webhookConfig('Mutating', 'mutate', [{
      name: 'mutate.example.com', clientConfig: { service: { namespace: 'default', name: 'hooks', path: '/mutate', port: hookPort }, caBundle }, rules: configMapRule,
      objectSelector: { matchLabels: { mutate: 'yes' } }, reinvocationPolicy: 'Never',
    }]), async () => {
      const r = await k.run(['create', '-f', '-', '--dry-run=server', '-o', 'json'], { input: cm('probe', 'plain', {}, { mutate: 'yes' }) });
      return r.code === 0 && JSON.parse(r.stdout).metadata.labels?.mutated === 'true';
    });
    await k.ok(['create', '-f', '-'], { input: cm('m1', 'plain', {}, { mutate: 'yes' }) });
    const m1 = JSON.parse(await k.ok(['get', 'configmap', 'm1', '-n', 'plain', '-o', 'json']));
    assert.deepEqual(m1.metadata.labels, { mutate: 'yes', mutated: 'true' });
    await k.ok(['create', '-f', '-'], { input: cm('m2', 'plain') });
    const m2 = JSON.parse(await k.ok(['get', 'configmap', 'm2', '-n', 'plain', '-o', 'json']));
    assert.equal(m2.metadata.labels, undefined, 'the object selector leaves it out');
  });

  it('validates custom resources', async () => {
    await apply({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.hooks.example.com' },
      spec: { group: 'hooks.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }] },
    });
    await k.ok(['wait', '--for=condition=Established', 'crd/gadgets.hooks.example.com', '--timeout=20s']);
    const gadget = (name: string, size: number) => JSON.stringify({ apiVersion: 'hooks.example.com/v1', kind: 'Gadget', metadata: { name, namespace: 'plain' }, spec: { size } });
    await configure(webhookConfig('Validating', 'gadgets', [{
      name: 'gadgets.example.com', clientConfig: { url: url('/gadget'), caBundle },
      rules: [{ operations: ['*'], apiGroups: ['hooks.example.com'], apiVersions: ['*'], resources: ['gadgets'], scope: 'Namespaced' }],
    }]), async () => /denied/.test((await k.run(['create', '--dry-run=server', '-f', '-'], { input: gadget('probe', 9) })).stderr));
    await k.ok(['create', '-f', '-'], { input: gadget('small', 2) });
    const big = await k.run(['create', '-f', '-'], { input: gadget('big', 9) });
    assert.match(big.stderr, /Error from server: error when creating "STDIN": admission webhook "gadgets\.example\.com" denied the request: size 9 is too big/);
  });
});

describe('webhook failures', () => {
  const target = async (name: string, hook: Obj) => {
    await k.ok(['create', 'namespace', name]);
    await apply(webhookConfig('Validating', name, [{ name: `${name}.example.com`, rules: configMapRule, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } }, ...hook }]));
    return (data: Obj = {}) => k.run(['create', '-f', '-'], { input: cm(`c${Math.random().toString(36).slice(2, 8)}`, name, data) });
  };

  it('reports connection refused, unknown authorities, bad answers and timeouts, or ignores them', async () => {
    const closed = await freePort();
    const refused = await target('refused', { clientConfig: { url: url('/validate', closed), caBundle } });
    const r1 = await until(async () => { const r = await refused(); return /failed calling webhook/.test(r.stderr) ? r : undefined; }, 'refused webhook in force', 10_000);
    assert.match(r1.stderr, new RegExp(`Internal error occurred: failed calling webhook "refused\\.example\\.com": failed to call webhook: Post "https://127\\.0\\.0\\.1:${closed}/validate\\?timeout=10s": dial tcp 127\\.0\\.0\\.1:${closed}: connect: connection refused`));
    const unknownCA = await target('unknown-ca', { clientConfig: { url: url('/validate'), caBundle: otherCaBundle } });
    const r2 = await until(async () => { const r = await unknownCA(); return /failed calling webhook/.test(r.stderr) ? r : undefined; }, 'unknown-CA webhook in force', 10_000);
    assert.match(r2.stderr, /failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/validate\?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority/);
    const badUid = await target('bad-uid', { clientConfig: { url: url('/bad-uid'), caBundle } });
    const r3 = await until(async () => { const r = await badUid(); return /failed calling webhook/.test(r.stderr) ? r : undefined; }, 'bad-uid webhook in force', 10_000);
    assert.match(r3.stderr, /failed calling webhook "bad-uid\.example\.com": received invalid webhook response: expected response\.uid="[^"]+", got "not-the-uid"/);
    const slow = await target('slow', { clientConfig: { url: url('/hang'), caBundle }, timeoutSeconds: 1 });
    const r4 = await until(async () => { const r = await slow(); return /failed calling webhook/.test(r.stderr) ? r : undefined; }, 'hanging webhook in force', 15_000);
    assert.match(r4.stderr, /failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=1s": context deadline exceeded/);
    const t0 = Date.now();
    await slow();
    assert.ok(Date.now() - t0 < 5_000, 'the timeout cuts the call');
    const ignored = await target('ignored', { clientConfig: { url: url('/validate', closed), caBundle }, failurePolicy: 'Ignore' });
    await until(async () => (await ignored()).code === 0, 'ignored failure lets the create through', 10_000);
    // requests the failing webhooks do not match are not slowed down
    const t1 = Date.now();
    await k.ok(['create', '-f', '-'], { input: cm('unaffected', 'default') });
    assert.ok(Date.now() - t1 < 3_000);
  });

  it('reports garbage answers, huge and bad patches', async () => {
    const garbage = await target('garbage', { clientConfig: { url: url('/garbage'), caBundle } });
    const g = await until(async () => { const r = await garbage(); return /failed calling webhook/.test(r.stderr) ? r : undefined; }, 'garbage webhook in force', 10_000);
    assert.match(g.stderr, /failed calling webhook "garbage\.example\.com": failed to call webhook: couldn't get version\/kind; json parse error: invalid character 'h' in literal true \(expecting 'r'\)/);
    await k.ok(['create', 'namespace', 'patches']);
    const mutating = async (name: string, path: string) => {
      await apply(webhookConfig('Mutating', name, [{ name: `${name}.example.com`, clientConfig: { url: url(path), caBundle }, rules: configMapRule, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'patches' } } }]));
    };
    await mutating('huge', '/huge-patch');
    const h = await until(async () => { const r = await k.run(['create', '-f', '-'], { input: cm('h', 'patches') }); return /failed calling webhook|exceeds/.test(r.stderr) ? r : undefined; }, 'huge patch webhook in force', 10_000);
    assert.match(h.stderr, /failed calling webhook "huge\.example\.com"/);
    await k.ok(['delete', 'mutatingwebhookconfiguration', 'huge']);
    await mutating('badpatch', '/bad-patch');
    const b = await until(async () => { const r = await k.run(['create', '-f', '-'], { input: cm('b', 'patches') }); return r.code !== 0 ? r : undefined; }, 'bad patch webhook in force', 10_000);
    assert.match(b.stderr, /Internal error occurred/);
    await k.ok(['delete', 'mutatingwebhookconfiguration', 'badpatch']);
    const stored = (await k.run(['get', 'configmap', '-n', 'patches', '-o', 'name'])).stdout.split('\n');
    assert.ok(!stored.includes('configmap/h') && !stored.includes('configmap/b'), 'nothing was stored');
    // the server is still fine
    await k.ok(['create', '-f', '-'], { input: cm('after', 'patches') });
  });

  it('tells webhooks about dry runs', async () => {
    // admissionregistration/v1 allows only side-effect-free webhooks (None, NoneOnDryRun), which dry runs reach
    seen.length = 0;
    await k.ok(['create', '--dry-run=server', '-f', '-'], { input: cm('dry', 'hooked', { fine: 'yes' }) });
    const req = seen.at(-1)!.request;
    assert.equal(req.dryRun, true);
    assert.deepEqual(req.options?.dryRun, ['All']);
    assert.notEqual((await k.run(['get', 'configmap', 'dry', '-n', 'hooked'])).code, 0);
  });
});

describe('webhook matching and versions', () => {
  it('reinvokes IfNeeded webhooks when a later one changed the object', async () => {
    await k.ok(['create', 'namespace', 'reinvoke']);
    const sel = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'reinvoke' } } };
    await apply(webhookConfig('Mutating', 'a-counter', [{ name: 'a.example.com', clientConfig: { url: url('/count-a'), caBundle }, rules: configMapRule, reinvocationPolicy: 'IfNeeded', ...sel }]));
    await apply(webhookConfig('Mutating', 'b-adder', [{ name: 'b.example.com', clientConfig: { url: url('/add-b'), caBundle }, rules: configMapRule, ...sel }]));
    await until(async () => {
      const r = await k.run(['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: cm('probe', 'reinvoke') });
      return r.code === 0 && JSON.parse(r.stdout).metadata.labels?.b === 'yes';
    }, 'both mutating webhooks in force', 10_000);
    calls.a = 0;
    await k.ok(['create', '-f', '-'], { input: cm('r', 'reinvoke') });
    const labels = JSON.parse(await k.ok(['get', 'configmap', 'r', '-n', 'reinvoke', '-o', 'json'])).metadata.labels;
    assert.equal(calls.a, 2, 'a ran again after b changed the object');
    assert.deepEqual(labels, { a: '2', sawB: 'true', b: 'yes' });
    await k.ok(['delete', 'mutatingwebhookconfiguration', 'a-counter', 'b-adder']);
  });

  it('evaluates match conditions with the authorizer, and reports their errors', async () => {
    await k.ok(['create', 'namespace', 'conditions']);
    const sel = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'conditions' } } };
    await apply(webhookConfig('Validating', 'conditions', [{
      name: 'conditions.example.com', clientConfig: { url: url('/validate'), caBundle }, rules: configMapRule, ...sel,
      matchConditions: [
        { name: 'not-skipped', expression: "!('skip' in object.metadata.?labels.orValue({}))" },
        { name: 'can-list-secrets', expression: "authorizer.group('').resource('secrets').namespace(request.namespace).check('list').allowed()" },
      ],
    }]));
    await until(async () => /denied the request/.test((await k.run(['create', '--dry-run=server', '-f', '-'], { input: cm('probe', 'conditions', { forbidden: 'x' }) })).stderr), 'conditions webhook in force', 10_000);
    assert.equal((await k.run(['create', '-f', '-'], { input: cm('skipped', 'conditions', { forbidden: 'x' }, { skip: 'yes' }) })).code, 0, 'a false condition skips the webhook');
    const bad = await k.run(['apply', '-f', '-'], { input: JSON.stringify(webhookConfig('Validating', 'bad-condition', [{ name: 'bad.example.com', clientConfig: { url: url('/validate'), caBundle }, rules: configMapRule, matchConditions: [{ name: 'typo', expression: 'object.metadata.name +' }] }])) });
    assert.match(bad.stderr, /webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "object\.metadata\.name \+": compilation failed: ERROR: <input>:1:/);
    await apply(webhookConfig('Validating', 'erroring', [{
      name: 'erroring.example.com', clientConfig: { url: url('/validate'), caBundle }, rules: configMapRule, ...sel,
      matchConditions: [{ name: 'needs-data', expression: "object.data.mode == 'strict'" }],
    }]));
    const e = await until(async () => { const r = await k.run(['create', '-f', '-'], { input: cm('nodata', 'conditions', {}, { skip: 'yes' }) }); return /is forbidden/.test(r.stderr) ? r : undefined; }, 'erroring condition in force', 10_000);
    assert.match(e.stderr, /configmaps "nodata" is forbidden: expression 'object\.data\.mode == 'strict'' resulted in error: no such key: (data|mode)/);
    await k.ok(['delete', 'validatingwebhookconfiguration', 'conditions', 'erroring']);
  });

  it('sends v1beta1 reviews to webhooks that list only v1beta1, and CONNECT requests of pods/exec', async () => {
    await k.ok(['create', 'namespace', 'beta']);
    await apply(webhookConfig('Validating', 'beta', [{ name: 'beta.example.com', admissionReviewVersions: ['v1beta1'], clientConfig: { url: url('/v1beta1'), caBundle }, rules: configMapRule, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'beta' } } }]));
    const r = await until(async () => { const x = await k.run(['create', '-f', '-'], { input: cm('b', 'beta') }); return /v1beta1 says no/.test(x.stderr) ? x : undefined; }, 'v1beta1 webhook in force', 10_000);
    assert.match(r.stderr, /admission webhook "beta\.example\.com" denied the request: v1beta1 says no/);
    assert.equal((seen.at(-1) as unknown as { apiVersion: string }).apiVersion, 'admission.k8s.io/v1beta1');
    await k.ok(['delete', 'validatingwebhookconfiguration', 'beta']);

    // a pod that never gets a node: admission answers before the kubelet would be asked
    await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'target', namespace: 'beta' }, spec: { nodeSelector: { nowhere: 'true' }, containers: [{ name: 'c', image: 'busybox' }] } });
    await apply(webhookConfig('Validating', 'connect', [{ name: 'connect.example.com', clientConfig: { url: url('/connect'), caBundle }, rules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'] }] }]));
    const x = await until(async () => { const o = await k.run(['exec', '-n', 'beta', 'target', '--', 'echo', 'hi']); return /refused/.test(o.stderr) ? o : undefined; }, 'connect webhook in force', 15_000);
    assert.match(x.stderr, /admission webhook "connect\.example\.com" denied the request: exec of \["echo","hi"\] refused/);
    const req = seen.at(-1)!.request as Review['request'] & { subResource?: string };
    assert.equal(req.operation, 'CONNECT');
    assert.equal(req.subResource, 'exec');
    assert.deepEqual(req.kind, { group: '', version: 'v1', kind: 'PodExecOptions' });
    assert.equal(req.name, 'target');
    await k.ok(['delete', 'validatingwebhookconfiguration', 'connect']);
  });

  it('matchPolicy Equivalent converts a request to the version the rules name; Exact does not', async () => {
    await k.ok(['create', 'namespace', 'equiv']);
    const version = (name: string, storage: boolean) => ({ name, served: true, storage, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } });
    await apply({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.equiv.example.com' },
      spec: { group: 'equiv.example.com', scope: 'Namespaced', names: { plural: 'gizmos', kind: 'Gizmo' }, versions: [version('v1', true), version('v2', false)] },
    });
    await k.ok(['wait', '--for=condition=Established', 'crd/gizmos.equiv.example.com', '--timeout=20s']);
    const v1Rule = [{ operations: ['CREATE'], apiGroups: ['equiv.example.com'], apiVersions: ['v1'], resources: ['gizmos'] }];
    await apply(webhookConfig('Validating', 'equiv', [
      { name: 'equivalent.example.com', clientConfig: { url: url('/gadget'), caBundle }, rules: v1Rule },
      { name: 'exact.example.com', clientConfig: { url: url('/validate'), caBundle }, rules: v1Rule, matchPolicy: 'Exact' },
    ]));
    const gizmo = (name: string, size: number) => JSON.stringify({ apiVersion: 'equiv.example.com/v2', kind: 'Gizmo', metadata: { name, namespace: 'equiv' }, spec: { size } });
    await until(async () => /size 9 is too big/.test((await k.run(['create', '--dry-run=server', '-f', '-'], { input: gizmo('probe', 9) })).stderr), 'equivalent webhook in force', 10_000);
    seen.length = 0;
    await k.ok(['create', '-f', '-'], { input: gizmo('small', 1) });
    assert.equal(seen.length, 1, 'only the Equivalent webhook is called for a v2 request');
    const req = seen[0]!.request as Review['request'] & { requestKind: Obj };
    assert.deepEqual(req.kind, { group: 'equiv.example.com', version: 'v1', kind: 'Gizmo' });
    assert.deepEqual(req.requestKind, { group: 'equiv.example.com', version: 'v2', kind: 'Gizmo' });
    assert.equal(req.object?.apiVersion, 'equiv.example.com/v1', 'the object is converted to the webhook\'s version');
    await k.ok(['delete', 'validatingwebhookconfiguration', 'equiv']);
  });
});
