// Impersonation, anonymous requests and hostile input end to end, with real kubectl 1.33 and 1.27: --as, --as-group,
// --as-uid, auth can-i and auth whoami as another user; a user allowed to impersonate one named user only, a
// service account impersonated; the audit line with both users; anonymous requests on and off; oversized heads,
// bad header values, huge group lists and path names that are no path segment, each refused as kube refuses them
// with nothing stored and the server still answering.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { kubectl, kubectlVersions, removeDir, startServer, until, type K1sServer } from './harness.js';

const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/openapi*"]
- level: Metadata
`;

let server: K1sServer;
let logDir: string;
let k: ReturnType<typeof kubectl>;
let cred: { cert: Buffer; key: Buffer };
let impToken: string;

function credentials(kubeconfig: string): { cert: Buffer; key: Buffer } {
  const text = readFileSync(kubeconfig, 'utf8');
  const field = (n: string) => Buffer.from(new RegExp(`${n}: (\\S+)`).exec(text)![1]!, 'base64');
  return { cert: field('client-certificate-data'), key: field('client-key-data') };
}

interface Answer {
  code: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** one HTTPS request, as the admin (client certificate) unless `anonymous` or a token */
function call(srv: K1sServer, method: string, path: string, o: { headers?: Record<string, string | string[]>; body?: unknown; anonymous?: boolean; token?: string; cert?: { cert: Buffer; key: Buffer } } = {}): Promise<Answer> {
  const u = new URL(srv.url);
  const c = o.cert ?? (o.anonymous || o.token ? {} : srv === server ? cred : credentials(srv.kubeconfig));
  const headers: Record<string, string | string[]> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] ??= 'application/json';
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers, rejectUnauthorized: false, agent: false, ...c }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch { /* text */ }
        resolve({ code: res.statusCode!, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(o.body === undefined ? undefined : JSON.stringify(o.body));
  });
}

/** a raw request head (what node's client refuses to send), and what the server wrote back until it closed */
function rawRequest(srv: K1sServer, head: string): Promise<string> {
  const u = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const s = connect({ host: u.hostname, port: Number(u.port), rejectUnauthorized: false, ...cred }, () => s.write(head));
    let out = '';
    s.on('data', (d) => (out += d));
    // the server may close while the rest of an oversized head is still being sent: what it answered counts
    s.on('error', (e) => (out ? resolve(out) : reject(e)));
    s.on('close', () => resolve(out));
    setTimeout(() => s.destroy(), 5000);
  });
}

const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const whoami = (headers: Record<string, string | string[]>) => call(server, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { headers, body: review });

before(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'k1s-imp-e2e-'));
  writeFileSync(join(logDir, 'policy.yaml'), policy);
  server = await startServer({ extraArgs: ['--audit-policy-file', join(logDir, 'policy.yaml'), '--audit-log-path', join(logDir, 'audit.log')] });
  cred = credentials(server.kubeconfig);
  k = kubectl(server, '1.33');
  await k.ok(['create', 'namespace', 'imp']);
  await k.ok(['create', 'serviceaccount', 'impersonator', '-n', 'imp']);
  await k.ok(['create', 'serviceaccount', 'worker', '-n', 'imp']);
  // may impersonate the user jane and the service account imp:worker, nothing else
  await k.ok(['create', 'clusterrole', 'as-jane', '--verb=impersonate', '--resource=users', '--resource-name=jane']);
  await k.ok(['create', 'clusterrolebinding', 'as-jane', '--clusterrole=as-jane', '--serviceaccount=imp:impersonator']);
  await k.ok(['create', 'role', 'as-worker', '-n', 'imp', '--verb=impersonate', '--resource=serviceaccounts', '--resource-name=worker']);
  await k.ok(['create', 'rolebinding', 'as-worker', '-n', 'imp', '--role=as-worker', '--serviceaccount=imp:impersonator']);
  await k.ok(['create', 'role', 'pod-reader', '-n', 'imp', '--verb=get,list', '--resource=pods']);
  await k.ok(['create', 'rolebinding', 'worker-reads', '-n', 'imp', '--role=pod-reader', '--serviceaccount=imp:worker']);
  impToken = (await k.ok(['create', 'token', 'impersonator', '-n', 'imp'])).trim();
  await until(async () => (await whoami({ 'impersonate-user': 'jane' })).code === 201 && (await call(server, 'GET', '/api/v1/namespaces/imp/pods', { token: impToken, headers: { 'impersonate-user': 'system:serviceaccount:imp:worker' } })).code === 200, 'the bindings', 10_000);
});

after(async () => {
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
  removeDir(logDir);
});

for (const version of kubectlVersions) {
  describe(`impersonation with kubectl ${version}`, () => {
    const kv = () => kubectl(server, version);
    const asImp = (args: string[]) => kv().run(['--kubeconfig=/dev/null', `--server=${server.url}`, '--insecure-skip-tls-verify', `--token=${impToken}`, ...args]);
    const imp = 'system:serviceaccount:imp:impersonator';

    it('runs a request as the one user it may impersonate, and refuses another with kube\'s 403', async () => {
      const jane = await asImp(['get', 'pods', '-n', 'imp', '--as=jane']);
      assert.equal(jane.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "imp"');
      const bob = await asImp(['get', 'pods', '-n', 'imp', '--as=bob']);
      assert.equal(bob.stderr.trim(), `Error from server (Forbidden): users "bob" is forbidden: User "${imp}" cannot impersonate resource "users" in API group "" at the cluster scope`);
      const group = await asImp(['get', 'pods', '-n', 'imp', '--as=jane', '--as-group=devs']);
      assert.equal(group.stderr.trim(), `Error from server (Forbidden): groups "devs" is forbidden: User "${imp}" cannot impersonate resource "groups" in API group "" at the cluster scope`);
      const uid = await asImp(['get', 'pods', '-n', 'imp', '--as=jane', '--as-uid=1234']);
      assert.equal(uid.stderr.trim(), `Error from server (Forbidden): uids.authentication.k8s.io "1234" is forbidden: User "${imp}" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`);
    });

    it('impersonates a service account in its namespace only', async () => {
      const worker = await asImp(['get', 'pods', '-n', 'imp', '--as=system:serviceaccount:imp:worker']);
      assert.equal(worker.code, 0, worker.stderr);
      const other = await asImp(['get', 'pods', '-n', 'imp', '--as=system:serviceaccount:default:worker']);
      assert.equal(other.stderr.trim(), `Error from server (Forbidden): serviceaccounts "worker" is forbidden: User "${imp}" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "default"`);
      const asDefault = await kv().run(['get', 'pods', '--as=system:serviceaccount:default:default']);
      assert.equal(asDefault.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"');
    });

    it('answers auth can-i as the impersonated user and groups', async () => {
      assert.equal((await kv().run(['auth', 'can-i', 'list', 'pods', '-n', 'imp', '--as=jane'])).stdout.trim(), 'no');
      assert.equal((await kv().run(['auth', 'can-i', 'list', 'pods', '-n', 'imp', '--as=jane', '--as-group=system:masters'])).stdout.trim(), 'yes');
      assert.equal((await kv().run(['auth', 'can-i', 'list', 'pods', '-n', 'imp', '--as=system:serviceaccount:imp:worker'])).stdout.trim(), 'yes');
      assert.equal((await asImp(['auth', 'can-i', 'list', 'pods', '-n', 'imp', '--as=bob'])).code, 1);
    });

    if (version === '1.33') {
      // kubectl 1.27's whoami asks for authentication.k8s.io/v1beta1, which 1.33 no longer serves
      it('shows the impersonated user in auth whoami, uid and groups included', async () => {
        const out = JSON.parse(await kv().ok(['auth', 'whoami', '--as=jane', '--as-group=g1', '--as-group=g2', '--as-uid=u-1', '-o', 'json']));
        assert.deepEqual(out.status.userInfo, { username: 'jane', uid: 'u-1', groups: ['g1', 'g2', 'system:authenticated'] });
        const sa = JSON.parse(await kv().ok(['auth', 'whoami', '--as=system:serviceaccount:imp:worker', '-o', 'json']));
        assert.deepEqual(sa.status.userInfo.groups, ['system:serviceaccounts', 'system:serviceaccounts:imp', 'system:authenticated']);
        // system:anonymous is not bound to system:basic-user: kubectl's own text for the 403
        const anon = await kv().run(['auth', 'whoami', '--as=system:anonymous']);
        assert.match(anon.stderr, /the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it/);
      });
    }

    it('refuses groups or a uid without a user in kubectl itself', async () => {
      const r = await kv().run(['get', 'pods', '--as-group=devs']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /without impersonating a user/);
    });
  });
}

describe('impersonation over HTTP', () => {
  it('records the requester as user and the impersonated one as impersonatedUser in the audit log', async () => {
    await call(server, 'GET', '/api/v1/namespaces/imp/pods', { token: impToken, headers: { 'impersonate-user': 'system:serviceaccount:imp:worker' } });
    const ev = await until(async () => readFileSync(join(logDir, 'audit.log'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
      .find((e) => e.impersonatedUser?.username === 'system:serviceaccount:imp:worker' && e.stage === 'ResponseComplete' && e.verb === 'list'), 'the audit event', 10_000);
    assert.equal(ev.user.username, 'system:serviceaccount:imp:impersonator');
    assert.deepEqual(ev.impersonatedUser.groups, ['system:serviceaccounts', 'system:serviceaccounts:imp', 'system:authenticated']);
    assert.equal(ev.responseStatus.code, 200);
    assert.equal(ev.annotations['authorization.k8s.io/decision'], 'allow');
  });

  it('applies to watches', async () => {
    const r = await call(server, 'GET', '/api/v1/namespaces/imp/pods?watch=true', { token: impToken, headers: { 'impersonate-user': 'jane' } });
    assert.equal(r.code, 403);
    assert.equal(r.json!.message, 'pods is forbidden: User "jane" cannot watch resource "pods" in API group "" in the namespace "imp"');
  });

  it('answers groups, extras or a uid without a user with kube\'s internal error text', async () => {
    const r = await call(server, 'GET', '/api/v1/namespaces?limit=1', { headers: { 'impersonate-group': 'devs' } });
    assert.equal(r.code, 500);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.text, 'Internal Server Error: "/api/v1/namespaces?limit=1": requested [{Group  devs    }] without impersonating a user\n');
  });

  it('decodes extra keys, keeps repeated values, and takes a header-injection attempt as a plain key', async () => {
    const r = await whoami({ 'impersonate-user': 'jane', 'Impersonate-Extra-Example.COM%2fScopes': ['read', 'write'], 'Impersonate-Extra-a%0d%0aX-Injected': 'v' });
    assert.equal(r.code, 201, r.text);
    assert.deepEqual(r.json!.status.userInfo.extra, { 'example.com/scopes': ['read', 'write'], 'a\r\nx-injected': ['v'] });
    // a value with a control character never gets past the HTTP parser: Go's 400, connection closed
    const bad = await rawRequest(server, 'GET /version HTTP/1.1\r\nHost: x\r\nImpersonate-User: bob\x01x\r\n\r\n');
    assert.match(bad, /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\n400 Bad Request: invalid header value$/);
  });

  it('accepts a huge group list within the head limit, and answers a head over 1 MiB with 431', async () => {
    const groups = Array.from({ length: 20_000 }, (_, i) => `g${i}`);
    const r = await whoami({ 'impersonate-user': 'jane', 'impersonate-group': groups });
    assert.equal(r.code, 201, r.text.slice(0, 300));
    assert.equal(r.json!.status.userInfo.groups.length, 20_001);
    const big = await call(server, 'GET', '/version', { headers: { 'x-big': 'a'.repeat(1_000_000) } });
    assert.equal(big.code, 200);
    const huge = await rawRequest(server, `GET /version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(1_100_000)}\r\n\r\n`);
    assert.equal(huge, 'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large');
    assert.equal((await call(server, 'GET', '/version')).code, 200);
  });

  it('authorizes upgrades (exec) as the impersonated user', async () => {
    const r = await rawRequest(server, 'POST /api/v1/namespaces/imp/pods/nope/exec?command=ls&stdout=true HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nImpersonate-User: jane\r\n\r\n');
    assert.match(r, /^HTTP\/1\.1 403 Forbidden\r\n/);
    assert.match(r, /pods \\"nope\\" is forbidden: User \\"jane\\" cannot create resource \\"pods\/exec\\" in API group \\"\\" in the namespace \\"imp\\"/);
  });
});

describe('names that are no path segment', () => {
  it('are refused on get, update, delete and patch with kube\'s 400, nothing stored', async () => {
    const cm = (name: string) => `/api/v1/namespaces/imp/configmaps/${name}`;
    for (const [name, shown, msg] of [['..', '..', "may not be '..'"], ['.', '.', "may not be '.'"], ['a%25b', 'a%b', "may not contain '%'"]] as const) {
      const want = `Name parameter invalid: "${shown}": ${msg}`;
      for (const [method, body] of [['GET', undefined], ['PUT', { metadata: { name: shown } }], ['DELETE', undefined]] as const) {
        const r = await call(server, method, cm(name), { body });
        assert.equal(r.code, 400, `${method} ${name}: ${r.text}`);
        assert.equal(r.json!.message, want);
        assert.equal(r.json!.reason, 'BadRequest');
      }
      const p = await call(server, 'PATCH', cm(name), { headers: { 'content-type': 'application/merge-patch+json' }, body: { data: { a: 'b' } } });
      assert.equal(p.code, 400, p.text);
    }
    // an escaped slash splits the path as Go's URL.Path does: a subresource of "a", which configmaps have not
    assert.equal((await call(server, 'GET', cm('a%2Fb'))).code, 404);
    const role = await call(server, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body: { metadata: { name: 'a%b' } } });
    assert.equal(role.code, 422);
    assert.equal(role.json!.message, 'ClusterRole.rbac.authorization.k8s.io "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain \'%\'');
    const list = await call(server, 'GET', '/api/v1/namespaces/imp/configmaps');
    assert.deepEqual(list.json!.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['kube-root-ca.crt']);
  });
});

describe('anonymous requests', () => {
  it('are system:anonymous by default: public paths served, others 403, a bad token 401', async () => {
    assert.equal((await call(server, 'GET', '/healthz', { anonymous: true })).text, 'ok');
    assert.equal((await call(server, 'GET', '/version', { anonymous: true })).code, 200);
    const api = await call(server, 'GET', '/api', { anonymous: true });
    assert.equal(api.code, 403);
    assert.equal(api.json!.message, 'forbidden: User "system:anonymous" cannot get path "/api"');
    const pods = await call(server, 'GET', '/api/v1/namespaces/imp/pods', { anonymous: true });
    assert.equal(pods.json!.message, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "imp"');
    const bad = await call(server, 'GET', '/healthz', { token: 'not-a-token' });
    assert.equal(bad.code, 401);
    assert.equal(bad.json!.reason, 'Unauthorized');
  });

  it('get 401 everywhere with --anonymous-auth=false', async () => {
    const off = await startServer({ extraArgs: ['--anonymous-auth=false'] });
    try {
      for (const p of ['/healthz', '/version', '/api', '/api/v1/pods']) {
        const r = await call(off, 'GET', p, { anonymous: true });
        assert.equal(r.code, 401, p);
        assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
      }
      assert.equal((await call(off, 'GET', '/healthz')).code, 200);
      // a certificate another CA signed is a failed login, never anonymous
      assert.equal((await call(server, 'GET', '/healthz', { cert: credentials(off.kubeconfig) })).code, 401);
    } finally {
      await off.stop();
      removeDir(off.dataDir);
    }
  });
});
