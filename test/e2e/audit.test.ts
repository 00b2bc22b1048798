// Audit logging end to end with real kubectl: a policy file, the events of create/get/watch/delete, a forbidden
// and an unauthenticated request, read back from the log line by line; rotation at a small --audit-log-maxsize;
// a bad policy refused at start-up.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { k1sBin, kubectl, removeDir, run, startServer, until, type K1sServer } from './harness.js';

const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/openapi*"]
- level: RequestResponse
  resources: [{group: "", resources: ["configmaps"]}]
  namespaces: ["audited"]
  omitManagedFields: true
- level: Request
  resources: [{group: "", resources: ["secrets"]}]
  omitStages: [ResponseStarted]
- level: Metadata
`;

type Event = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const micro = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const backupFile = /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/;

let server: K1sServer;
let k: ReturnType<typeof kubectl>;
let logDir: string;

/** every event in the log and its rotated files, oldest first */
function events(): Event[] {
  const files = readdirSync(logDir).filter((f) => backupFile.test(f)).sort();
  files.push('audit.log');
  return files.flatMap((f) => readFileSync(join(logDir, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Event));
}

const find = (what: string, pred: (e: Event) => boolean, count = 1) =>
  until(async () => {
    const found = events().filter(pred);
    return found.length >= count && found;
  }, what, 10_000);

before(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'k1s-audit-e2e-'));
  writeFileSync(join(logDir, 'policy.yaml'), policy);
  server = await startServer({
    extraArgs: ['--audit-policy-file', join(logDir, 'policy.yaml'), '--audit-log-path', join(logDir, 'audit.log'), '--audit-log-maxsize', '1', '--audit-log-maxbackup', '3'],
  });
  k = kubectl(server, '1.33');
  await k.ok(['create', 'namespace', 'audited']);
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
  removeDir(logDir);
});

describe('audit log (kubectl 1.33)', () => {
  it('records a create with its request and response objects, managedFields omitted', async () => {
    await k.ok(['create', 'configmap', 'one', '-n', 'audited', '--from-literal=greeting=<hello & bye>']);
    const [ev] = await find('the create event', (e) => e.verb === 'create' && e.objectRef?.name === 'one');
    assert.equal(statSync(join(logDir, 'audit.log')).mode & 0o777, 0o600);
    assert.equal(ev.kind, 'Event');
    assert.equal(ev.apiVersion, 'audit.k8s.io/v1');
    assert.equal(ev.level, 'RequestResponse');
    assert.match(ev.auditID, uuid);
    assert.equal(ev.stage, 'ResponseComplete');
    assert.equal(ev.requestURI, '/api/v1/namespaces/audited/configmaps?fieldManager=kubectl-create&fieldValidation=Strict');
    assert.deepEqual(ev.user, { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
    assert.equal(ev.impersonatedUser, undefined);
    assert.deepEqual(ev.sourceIPs, ['127.0.0.1']);
    assert.match(ev.userAgent, /^kubectl\S*\/v1\.33\.\d+ /);
    assert.deepEqual(ev.objectRef, { resource: 'configmaps', namespace: 'audited', name: 'one', apiVersion: 'v1' });
    assert.deepEqual(ev.responseStatus, { metadata: {}, code: 201 });
    // kubectl 1.33 sends protobuf: the request object is the decoded body
    assert.deepEqual(ev.requestObject, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'one', namespace: 'audited' }, data: { greeting: '<hello & bye>' } });
    assert.equal(ev.responseObject.kind, 'ConfigMap');
    assert.equal(ev.responseObject.metadata.name, 'one');
    assert.ok(ev.responseObject.metadata.uid);
    assert.equal(ev.responseObject.metadata.managedFields, undefined);
    assert.match(ev.requestReceivedTimestamp, micro);
    assert.match(ev.stageTimestamp, micro);
    assert.ok(ev.stageTimestamp >= ev.requestReceivedTimestamp);
    assert.deepEqual(ev.annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
    // Go's encoder escapes <, > and & in the line itself
    const raw = readFileSync(join(logDir, 'audit.log'), 'utf8').split('\n').find((l) => l.includes(ev.auditID))!;
    assert.ok(raw.includes('\\u003chello \\u0026 bye\\u003e') && !raw.includes('<hello'), raw);
  });

  it('records a get under the Audit-Id the response carried', async () => {
    const r = await k.run(['get', 'configmap', 'one', '-n', 'audited', '-o', 'name', '-v=8']);
    assert.equal(r.code, 0, r.stderr);
    const ids = [...r.stderr.matchAll(/Audit-Id: ([0-9a-f-]{36})/g)].map((m) => m[1]);
    assert.ok(ids.length >= 1, r.stderr);
    const id = ids[ids.length - 1];
    const [ev] = await find('the get event', (e) => e.auditID === id);
    assert.equal(ev.verb, 'get');
    assert.deepEqual(ev.objectRef, { resource: 'configmaps', namespace: 'audited', name: 'one', apiVersion: 'v1' });
    assert.deepEqual(ev.responseStatus, { metadata: {}, code: 200 });
    assert.equal(ev.responseObject.metadata.name, 'one');
    assert.equal(ev.requestObject, undefined);
  });

  it('records a watch as ResponseStarted then ResponseComplete', async () => {
    const w = await k.run(['get', 'configmaps', '-n', 'audited', '-w'], { timeoutMs: 2500 });
    assert.match(w.stdout, /one/);
    const evs = await find('the watch events', (e) => e.verb === 'watch' && e.objectRef?.namespace === 'audited', 2);
    const [started, complete] = evs;
    assert.equal(started.auditID, complete.auditID);
    assert.equal(started.stage, 'ResponseStarted');
    assert.equal(complete.stage, 'ResponseComplete');
    assert.match(started.requestURI, /^\/api\/v1\/namespaces\/audited\/configmaps\?.*watch=true/);
    assert.deepEqual(started.responseStatus, { metadata: {}, code: 200 });
    assert.deepEqual(complete.responseStatus, { metadata: {}, code: 200 });
    assert.equal(complete.requestReceivedTimestamp, started.requestReceivedTimestamp);
    assert.ok(complete.stageTimestamp > started.stageTimestamp);
    assert.equal(complete.responseObject, undefined, 'watch events are not logged');
    assert.equal(started.annotations['authorization.k8s.io/decision'], 'allow');
  });

  it('records a delete with its DeleteOptions and Status', async () => {
    await k.ok(['delete', 'configmap', 'one', '-n', 'audited', '--wait=false']);
    const [ev] = await find('the delete event', (e) => e.verb === 'delete' && e.objectRef?.name === 'one');
    assert.equal(ev.requestObject.kind, 'DeleteOptions');
    assert.equal(ev.requestObject.apiVersion, 'meta.k8s.io/v1');
    assert.equal(ev.requestObject.propagationPolicy, 'Background');
    assert.equal(ev.responseStatus.code, 200);
  });

  it('records a forbidden request with decision forbid and the Status', async () => {
    await k.ok(['create', 'serviceaccount', 'robot', '-n', 'audited']);
    const token = (await k.ok(['create', 'token', 'robot', '-n', 'audited'])).trim();
    const r = await k.run(['--kubeconfig=/dev/null', `--server=${server.url}`, '--insecure-skip-tls-verify', `--token=${token}`, 'get', 'secrets', '-n', 'audited']);
    assert.notEqual(r.code, 0);
    const [ev] = await find('the forbidden event', (e) => e.user?.username === 'system:serviceaccount:audited:robot' && e.objectRef?.resource === 'secrets');
    assert.equal(ev.level, 'Request');
    assert.equal(ev.stage, 'ResponseComplete');
    assert.equal(ev.verb, 'list');
    assert.deepEqual(ev.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:audited', 'system:authenticated']);
    assert.deepEqual(ev.responseStatus, {
      metadata: {},
      status: 'Failure',
      message: 'secrets is forbidden: User "system:serviceaccount:audited:robot" cannot list resource "secrets" in API group "" in the namespace "audited"',
      reason: 'Forbidden',
      details: { kind: 'secrets' },
      code: 403,
    });
    assert.deepEqual(ev.annotations, { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' });
  });

  it('records a failed login as one ResponseStarted event without a user', async () => {
    const r = await k.run(['--kubeconfig=/dev/null', `--server=${server.url}`, '--insecure-skip-tls-verify', '--token=not-a-token', 'get', 'pods', '-n', 'audited']);
    assert.notEqual(r.code, 0);
    const [ev] = await find('the 401 event', (e) => e.responseStatus?.code === 401 && e.objectRef?.resource === 'pods');
    assert.equal(ev.stage, 'ResponseStarted');
    assert.deepEqual(ev.user, {});
    assert.deepEqual(ev.responseStatus, { metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    assert.equal(ev.annotations, undefined);
    assert.equal(events().filter((e) => e.auditID === ev.auditID).length, 1);
  });

  it('records kubectl 1.27 JSON bodies too', async () => {
    await kubectl(server, '1.27').ok(['create', 'configmap', 'old', '-n', 'audited', '--from-literal=a=b']);
    const [ev] = await find('the 1.27 create', (e) => e.verb === 'create' && e.objectRef?.name === 'old');
    assert.deepEqual(ev.requestObject.data, { a: 'b' });
    assert.match(ev.userAgent, /^kubectl\S*\/v1\.27\.\d+ /);
  });

  it('rotates at --audit-log-maxsize into <name>-<time>.<ext>, keeping --audit-log-maxbackup files', async () => {
    const big = join(logDir, 'big.txt');
    writeFileSync(big, 'x'.repeat(300 * 1024));
    // each create logs the request and the response: ~600 KiB an event, so a new file every other create
    for (let i = 0; i < 8; i++) await k.ok(['create', 'configmap', `big-${i}`, '-n', 'audited', `--from-file=data=${big}`]);
    await find('the last big create', (e) => e.verb === 'create' && e.objectRef?.name === 'big-7');
    const files = readdirSync(logDir).filter((f) => f.startsWith('audit'));
    const backups = files.filter((f) => backupFile.test(f));
    assert.equal(backups.length, 3, files.join(' '));
    for (const f of [...backups, 'audit.log']) {
      const st = statSync(join(logDir, f));
      assert.ok(st.size <= 1024 * 1024, `${f} is ${st.size} bytes`);
      assert.equal(st.mode & 0o777, 0o600, f);
    }
    // every line of every file is a whole event; the newest creates are all there, in order
    const names = events().filter((e) => e.verb === 'create' && /^big-/.test(e.objectRef?.name)).map((e) => e.objectRef.name);
    assert.deepEqual(names.slice(-4), ['big-4', 'big-5', 'big-6', 'big-7']);
  });
});

describe('audit flags', () => {
  it('refuses an invalid policy at start-up with kube\'s message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-audit-bad-'));
    try {
      const file = join(dir, 'policy.yaml');
      writeFileSync(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n');
      const r = await run(process.execPath, [k1sBin, 'server', '--data-dir', join(dir, 'data'), '--disable-agent', '--audit-policy-file', file, '--audit-log-path', join(dir, 'a.log')], { timeoutMs: 20_000 });
      assert.equal(r.code, 2);
      assert.equal(r.stderr.trim(), `k1s server: loading audit policy file: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${file}`);
      const neg = await run(process.execPath, [k1sBin, 'server', '--data-dir', join(dir, 'data'), '--audit-log-path', join(dir, 'a.log'), '--audit-log-maxage=-1']);
      assert.equal(neg.code, 2);
      assert.equal(neg.stderr.trim(), "k1s server: --audit-log-maxage -1 can't be a negative number");
    } finally {
      removeDir(dir);
    }
  });
});
