// The aggregation layer against a real HTTPS extension API server this test starts: an APIService for
// wardle.example.com/v1alpha1 behind an ExternalName Service becomes Available, its resources show in discovery,
// kubectl's requests and watches are proxied with the user in request headers and the front-proxy client
// certificate, upgrades are piped, and a stopped server turns the APIService unavailable (503) while the rest of
// the API keeps working. Local APIServices exist for the built-in group versions and follow CRDs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createCa, createServingCert } from '../../src/pki/certs.js';
import { kubectl, kubectlPath, removeDir, startServer, until, type K1sServer } from './harness.js';

type Obj = Record<string, unknown>;
interface Seen { method: string; url: string; user?: string; groups: string[]; peerCN?: string; authorized: boolean; authorization?: string; impersonate?: string[] }

let server: K1sServer;
let k: ReturnType<typeof kubectl>;
let ext: https.Server;
let extPort = 0;
let caBundle = '';
const seen: Seen[] = [];
const GV = '/apis/wardle.example.com/v1alpha1';

const flunder = (name: string): Obj => ({
  apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder',
  metadata: { name, namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z', resourceVersion: '1' },
});

function serveExtension(req: IncomingMessage, res: ServerResponse): void {
  const sock = req.socket as TLSSocket;
  const peer = sock.getPeerCertificate?.();
  const header = (n: string) => req.headersDistinct[n] ?? [];
  seen.push({
    method: req.method ?? '', url: req.url ?? '', user: req.headers['x-remote-user'] as string | undefined, groups: header('x-remote-group'),
    peerCN: peer?.subject?.CN as string | undefined, authorized: sock.authorized, authorization: req.headers.authorization,
    impersonate: Object.keys(req.headers).filter((h) => h.startsWith('impersonate-')),
  });
  const json = (code: number, body: unknown) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const path = (req.url ?? '').split('?')[0]!;
  if (path === GV) {
    return json(200, {
      kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'wardle.example.com/v1alpha1',
      resources: [
        { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['create', 'get', 'list', 'watch'], shortNames: ['fl'] },
        { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get', 'update'] },
      ],
    });
  }
  if (path === `${GV}/namespaces/default/flunders` || path === `${GV}/flunders`) {
    if ((req.url ?? '').includes('watch=true')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: flunder('late-flunder') })}\n`);
      const t = setTimeout(() => res.write(`${JSON.stringify({ type: 'ADDED', object: flunder('later-flunder') })}\n`), 300);
      res.on('close', () => clearTimeout(t));
      return;
    }
    return json(200, { kind: 'FlunderList', apiVersion: 'wardle.example.com/v1alpha1', metadata: { resourceVersion: '1' }, items: [flunder('my-flunder')] });
  }
  json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' });
}

before(async () => {
  server = await startServer();
  k = kubectl(server, '1.33');
  const cm = JSON.parse(await k.ok(['get', 'configmap', '-n', 'kube-system', 'extension-apiserver-authentication', '-o', 'json'])) as { data: Record<string, string> };
  const ca = await createCa({ commonName: 'wardle-ca' });
  const cert = await createServingCert(ca, { hostnames: ['api.wardle.svc', 'localhost'], ips: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.certPem).toString('base64');
  ext = https.createServer({ cert: cert.certPem, key: cert.keyPem, ca: cm.data['requestheader-client-ca-file'], requestCert: true, rejectUnauthorized: false }, serveExtension);
  ext.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    seen.push({ method: 'UPGRADE', url: req.url ?? '', user: req.headers['x-remote-user'] as string, groups: req.headersDistinct['x-remote-group'] ?? [], authorized: (req.socket as TLSSocket).authorized });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    socket.pipe(socket);
  });
  ext.listen(0, '127.0.0.1');
  await once(ext, 'listening');
  extPort = (ext.address() as AddressInfo).port;
});

after(async () => {
  ext.closeAllConnections();
  ext.close();
  const code = await server.stop();
  assert.equal(code, 0, `server exit code, log:\n${server.log()}`);
  removeDir(server.dataDir);
});

const apply = (o: Obj) => k.ok(['apply', '-f', '-'], { input: JSON.stringify(o) });

describe('Local APIServices', () => {
  it('exist for the built-in group versions, with kube\'s names, priorities and onstart label', async () => {
    const out = await k.ok(['get', 'apiservices']);
    assert.match(out, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE\n/);
    for (const name of ['v1.', 'v1.apps', 'v2.autoscaling', 'v1.rbac.authorization.k8s.io', 'v1beta1.metrics.k8s.io']) {
      assert.match(out, new RegExp(`^${name.replace(/\./g, '\\.')}\\s+Local\\s+True\\s`, 'm'), name);
    }
    const apps = JSON.parse(await k.ok(['get', 'apiservice', 'v1.apps', '-o', 'json'])) as { metadata: { labels: Obj }; spec: Obj; status: { conditions: Obj[] } };
    assert.equal(apps.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
    assert.deepEqual(apps.spec, { group: 'apps', groupPriorityMinimum: 17800, version: 'v1', versionPriority: 15 });
    assert.equal(apps.status.conditions[0]!.reason, 'Local');
    assert.equal(apps.status.conditions[0]!.message, 'Local APIServices are always available');
  });

  it('follow CustomResourceDefinitions: created with automanaged=true, deleted with the CRD', async () => {
    await apply({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'crontabs.stable.example.com' },
      spec: {
        group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    const got = await until(async () => {
      const r = await k.run(['get', 'apiservice', 'v1.stable.example.com', '-o', 'json']);
      return r.code === 0 && (JSON.parse(r.stdout) as { metadata: { labels: Obj }; spec: Obj });
    }, 'the CRD\'s APIService', 20_000);
    assert.equal(got.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'true');
    assert.deepEqual(got.spec, { group: 'stable.example.com', groupPriorityMinimum: 1000, version: 'v1', versionPriority: 100 });
    await k.ok(['delete', 'crd', 'crontabs.stable.example.com']);
    await until(async () => (await k.run(['get', 'apiservice', 'v1.stable.example.com'])).code !== 0, 'the APIService to go', 20_000);
  });

  it('are validated as kube validates APIServices', async () => {
    const r = await k.run(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.wrong' }, spec: { group: 'right', version: 'v1', groupPriorityMinimum: 0, versionPriority: 10, insecureSkipTLSVerify: true } }),
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /metadata\.name: Invalid value: "v1\.wrong": must be `spec\.version\+"\."\+spec\.group`: "v1\.right"/);
    assert.match(r.stderr, /spec\.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000/);
    assert.match(r.stderr, /spec\.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify/);
  });
});

describe('a remote APIService', () => {
  before(async () => {
    await k.ok(['create', 'namespace', 'wardle']);
    await apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'wardle' }, spec: { type: 'ExternalName', externalName: 'localhost' } });
    await apply({
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.wardle.example.com' },
      spec: { group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, caBundle, service: { namespace: 'wardle', name: 'api', port: extPort } },
    });
  });

  it('becomes Available once its discovery answers', async () => {
    await until(async () => /v1alpha1\.wardle\.example\.com\s+wardle\/api\s+True\s/.test(await k.ok(['get', 'apiservices'])), 'Available True', 20_000);
    const o = JSON.parse(await k.ok(['get', 'apiservice', 'v1alpha1.wardle.example.com', '-o', 'json'])) as { status: { conditions: Obj[] } };
    assert.equal(o.status.conditions[0]!.reason, 'Passed');
    assert.equal(o.status.conditions[0]!.message, 'all checks passed');
    const check = seen.find((s) => s.url === GV);
    assert.equal(check?.user, 'system:kube-aggregator');
    assert.deepEqual(check?.groups, ['system:masters']);
  });

  it('shows its resources in kubectl api-resources and /apis', async () => {
    await until(async () => /^flunders\s+fl\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder$/m.test(await k.ok(['api-resources'])), 'flunders in api-resources', 20_000);
    const groups = JSON.parse(await k.ok(['get', '--raw', '/apis'])) as { groups: { name: string; preferredVersion: Obj }[] };
    const g = groups.groups.find((x) => x.name === 'wardle.example.com');
    assert.deepEqual(g?.preferredVersion, { groupVersion: 'wardle.example.com/v1alpha1', version: 'v1alpha1' });
    const group = JSON.parse(await k.ok(['get', '--raw', '/apis/wardle.example.com'])) as Obj;
    assert.equal(group.kind, 'APIGroup');
  });

  it('proxies kubectl\'s requests with the user in request headers and the front-proxy client certificate', async () => {
    seen.length = 0;
    const out = await k.ok(['get', 'flunders']);
    assert.match(out, /my-flunder/);
    const req = seen.find((s) => s.url.startsWith(`${GV}/namespaces/default/flunders`));
    assert.ok(req, `the request reached the extension server: ${JSON.stringify(seen)}`);
    assert.equal(req.user, 'kubernetes-admin');
    assert.deepEqual(req.groups, ['system:masters', 'system:authenticated']);
    assert.equal(req.peerCN, 'front-proxy-client');
    assert.equal(req.authorized, true, 'the client certificate verifies against requestheader-client-ca-file');
    assert.equal(req.authorization, undefined);
  });

  it('passes the impersonated user on, never the Impersonate-* headers', async () => {
    seen.length = 0;
    await k.ok(['get', 'flunders', '--as=jane', '--as-group=system:masters', '--as-group=devs']);
    const req = seen.find((s) => s.url.startsWith(`${GV}/namespaces/default/flunders`));
    assert.equal(req?.user, 'jane');
    assert.deepEqual(req?.groups, ['system:masters', 'devs', 'system:authenticated']);
    assert.deepEqual(req?.impersonate, []);
  });

  it('streams a watch', async () => {
    const child = spawn(kubectlPath('1.33'), ['get', 'flunders', '--watch', '-o', 'name'], { env: { ...process.env, KUBECONFIG: server.kubeconfig, HOME: server.dataDir } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until(async () => /later-flunder/.test(out), `both watch events (${out})`, 20_000);
      assert.match(out, /my-flunder[\s\S]*late-flunder[\s\S]*later-flunder/);
    } finally {
      child.kill();
    }
  });

  it('pipes upgrade requests', async () => {
    const kc = readFileSync(server.kubeconfig, 'utf8');
    const field = (n: string) => Buffer.from(new RegExp(`${n}: (\\S+)`).exec(kc)![1]!, 'base64').toString();
    const u = new URL(server.url);
    const req = https.request({
      host: u.hostname, port: u.port, path: `${GV}/namespaces/default/flunders/x/exec`, method: 'GET',
      ca: field('certificate-authority-data'), cert: field('client-certificate-data'), key: field('client-key-data'),
      headers: { Connection: 'Upgrade', Upgrade: 'echo', 'X-Remote-User': 'forged' },
    });
    req.end();
    const [res, socket] = (await once(req, 'upgrade')) as [IncomingMessage, Socket];
    assert.equal(res.statusCode, 101);
    socket.write('ping');
    const [data] = (await once(socket, 'data')) as [Buffer];
    assert.equal(data.toString(), 'ping');
    socket.destroy();
    const up = seen.find((s) => s.method === 'UPGRADE');
    assert.equal(up?.user, 'kubernetes-admin');
    assert.deepEqual(up?.groups, ['system:masters', 'system:authenticated']);
  });

  it('becomes unavailable when its server stops: 503 on its paths, the rest of the API still works', async () => {
    ext.closeAllConnections();
    ext.close();
    await until(async () => /v1alpha1\.wardle\.example\.com\s+wardle\/api\s+False \(FailedDiscoveryCheck\)/.test(await k.ok(['get', 'apiservices'])), 'Available False', 45_000);
    const o = JSON.parse(await k.ok(['get', 'apiservice', 'v1alpha1.wardle.example.com', '-o', 'json'])) as { status: { conditions: Obj[] } };
    assert.match(String(o.status.conditions[0]!.message), new RegExp(`^failing or missing response from https://localhost:${extPort}${GV}: Get "https://localhost:${extPort}${GV}": dial tcp .*connect: connection refused`));
    const raw = await k.run(['get', '--raw', `${GV}/namespaces/default/flunders`]);
    assert.notEqual(raw.code, 0);
    assert.match(raw.stderr, /ServiceUnavailable|service unavailable|unable to handle the request/);
    const pods = await k.run(['get', 'pods', '-A']);
    assert.equal(pods.code, 0, pods.stderr);
    const agg = JSON.parse(await k.ok(['get', '--raw', '/apis'])) as Obj;
    assert.ok(agg);
  });
});
