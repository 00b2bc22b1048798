// The API server with auditing: events per stage for real HTTPS requests, the Audit-Id header (with or without
// auditing), and a log that cannot be written never failing a request.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildClusterApi, bootstrapClusterObjects, type ClusterApi } from '../../../../src/cluster/api.js';
import { buildApiServer } from '../../../../src/apiserver/server.js';
import { HealthChecks } from '../../../../src/apiserver/health.js';
import { Auditor, type AuditSink } from '../../../../src/apiserver/audit/auditor.js';
import { AuditLogWriter } from '../../../../src/apiserver/audit/log-writer.js';
import { parsePolicy, PolicyEvaluator } from '../../../../src/apiserver/audit/policy.js';
import { createCa, createClientCert, createServingCert, type CertKeyPem } from '../../../../src/pki/certs.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';

const policy = (level: string, extra = '') => new PolicyEvaluator(parsePolicy(`apiVersion: audit.k8s.io/v1\nkind: Policy\n${extra}rules:\n- level: ${level}\n`));

interface Served {
  app: FastifyInstance;
  port: number;
}

describe('API server auditing', () => {
  let ca: CertKeyPem;
  let admin: CertKeyPem;
  let serving: CertKeyPem;
  let api: ClusterApi;
  let store: SqliteStore;
  const apps: FastifyInstance[] = [];

  before(async () => {
    ca = await createCa();
    [serving, admin] = await Promise.all([
      createServingCert(ca, { hostnames: ['localhost'], ips: ['127.0.0.1'] }),
      createClientCert(ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'] }),
    ]);
    store = SqliteStore.open({ path: ':memory:' });
    api = buildClusterApi(store, { metrics: false });
    await bootstrapClusterObjects(api);
  });
  after(async () => {
    for (const a of apps) await a.close();
    api.stop();
    await store.close();
  });

  async function serve(audit?: Auditor): Promise<Served> {
    const app = await buildApiServer({
      registry: api.registry,
      tls: { key: serving.keyPem, cert: serving.certPem, ca: ca.certPem },
      health: new HealthChecks(),
      version: { major: '1', minor: '33' },
      audit,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    apps.push(app);
    const addr = app.server.address();
    return { app, port: typeof addr === 'object' && addr ? addr.port : 0 };
  }

  function call(s: Served, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    return new Promise<{ code: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: s.port, method, path, ca: ca.certPem, cert: admin.certPem, key: admin.keyPem, headers: { 'content-type': 'application/json', 'user-agent': 'unit/1.0', ...headers } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  it('sends Audit-Id on every response without auditing, and echoes the client\'s', async () => {
    const s = await serve();
    const a = await call(s, 'GET', '/api/v1/namespaces/default');
    assert.equal(a.code, 200);
    assert.match(String(a.headers['audit-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const b = await call(s, 'GET', '/api/v1/namespaces/nope', undefined, { 'Audit-ID': 'my-id-1' });
    assert.equal(b.code, 404);
    assert.equal(b.headers['audit-id'], 'my-id-1');
  });

  it('writes RequestReceived and ResponseComplete with the request object at level Request', async () => {
    const lines: string[] = [];
    const sink: AuditSink = { write: (l) => lines.push(l) };
    const s = await serve(new Auditor(policy('Request'), sink));
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'audited' }, data: { k: 'v' } };
    const r = await call(s, 'POST', '/api/v1/namespaces/default/configmaps?fieldManager=unit', cm);
    assert.equal(r.code, 201);
    await new Promise((res) => setImmediate(res));
    const events = lines.map((l) => JSON.parse(l)).filter((e) => e.auditID === r.headers['audit-id']);
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    const [received, complete] = events;
    assert.equal(received.requestReceivedTimestamp, received.stageTimestamp);
    assert.equal(received.annotations, undefined, 'authorization comes after RequestReceived');
    assert.equal(received.requestObject, undefined);
    assert.equal(complete.level, 'Request');
    assert.equal(complete.verb, 'create');
    assert.equal(complete.requestURI, '/api/v1/namespaces/default/configmaps?fieldManager=unit');
    assert.deepEqual(complete.user, { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
    assert.deepEqual(complete.sourceIPs, ['127.0.0.1']);
    assert.equal(complete.userAgent, 'unit/1.0');
    assert.deepEqual(complete.objectRef, { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' });
    assert.deepEqual(complete.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual(complete.requestObject, cm);
    assert.equal(complete.responseObject, undefined, 'responses only at RequestResponse');
    assert.deepEqual(complete.annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
    assert.match(complete.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(complete.stageTimestamp >= complete.requestReceivedTimestamp);
  });

  it('records a policy-omitted stage nowhere and a None request not at all', async () => {
    const lines: string[] = [];
    const s = await serve(new Auditor(new PolicyEvaluator(parsePolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/version"]
- level: RequestResponse
  omitManagedFields: true
`)), { write: (l) => lines.push(l) }));
    assert.equal((await call(s, 'GET', '/version')).code, 200);
    const r = await call(s, 'GET', '/api/v1/namespaces/default');
    await new Promise((res) => setImmediate(res));
    assert.equal(lines.length, 1);
    const ev = JSON.parse(lines[0]);
    assert.equal(ev.auditID, r.headers['audit-id']);
    assert.equal(ev.stage, 'ResponseComplete');
    assert.equal(ev.responseObject.metadata.name, 'default');
    assert.equal(ev.responseObject.metadata.managedFields, undefined);
    assert.deepEqual(ev.objectRef, { resource: 'namespaces', namespace: 'default', name: 'default', apiVersion: 'v1' });
  });

  it('serves every request when the log cannot be written, counting what it dropped', async () => {
    const writer = new AuditLogWriter({ path: '/dev/full', log: () => {} });
    const s = await serve(new Auditor(policy('Metadata'), writer));
    for (let i = 0; i < 3; i++) {
      const r = await call(s, 'POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `full-${i}` } });
      assert.equal(r.code, 201);
    }
    await writer.flush();
    await new Promise((res) => setTimeout(res, 20));
    await writer.flush();
    assert.equal(writer.dropped, 6, 'two events per request, all dropped');
  });
});
