// Bootstrap tokens end to end with real kubectl: `k1s token create|list|delete`, a token authenticating as
// system:bootstrap:<id>, filing a kubelet client CSR that the controllers approve and sign (TLS bootstrapping, as a
// joining node does), the server's own join token in DATA-DIR/token, and a deleted token refused.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { k1sBin, kubectl, kubectlPath, removeDir, run, startServer, until, type K1sServer } from './harness.js';

let server: K1sServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
});

const k1sToken = (...args: string[]) => run(process.execPath, [k1sBin, 'token', ...args, '--kubeconfig', server.kubeconfig]);
/** kubectl with nothing but the bearer token (and the CA) */
const withToken = (token: string, args: string[], input?: string) =>
  run(kubectlPath('1.33'), ['--kubeconfig', '/dev/null', '--server', server.url, '--certificate-authority', join(server.dataDir, 'tls', 'ca.crt'), '--token', token, ...args], { input });

describe('bootstrap tokens', () => {
  it('k1s token create makes one that authenticates as system:bootstrap:<id>, listed with its TTL and groups', async () => {
    const created = await k1sToken('create', '--ttl', '2h', '--description', 'e2e join');
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    assert.match(token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    const id = token.split('.')[0]!;
    const who = await withToken(token, ['auth', 'whoami', '-o', 'json']);
    assert.equal(who.code, 0, who.stderr);
    const info = JSON.parse(who.stdout).status.userInfo as { username: string; groups: string[] };
    assert.equal(info.username, `system:bootstrap:${id}`);
    assert.deepEqual(info.groups, ['system:bootstrappers', 'system:bootstrappers:k1s:default-node-token', 'system:authenticated']);
    const list = await k1sToken('list');
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^TOKEN\s+TTL\s+EXPIRES\s+USAGES\s+DESCRIPTION\s+EXTRA GROUPS$/m);
    assert.match(list.stdout, new RegExp(`^${token.replace('.', '\\.')}\\s+2h\\s+\\S+Z\\s+authentication,signing\\s+e2e join\\s+system:bootstrappers:k1s:default-node-token$`, 'm'));
    const secretType = await kubectl(server, '1.33').ok(['-n', 'kube-system', 'get', 'secret', `bootstrap-token-${id}`, '-o', 'jsonpath={.type}']);
    assert.equal(secretType, 'bootstrap.kubernetes.io/token');
    // what a bootstrap identity may not do
    const forbidden = await withToken(token, ['get', 'secrets', '-A']);
    assert.notEqual(forbidden.code, 0);
    assert.match(forbidden.stderr, /Error from server \(Forbidden\): secrets is forbidden: User "system:bootstrap:[a-z0-9]{6}" cannot list resource "secrets"/);
  });

  it("the server's join token (DATA-DIR/token, 0600) gets a node's client certificate: CSR filed, approved and signed", async () => {
    const file = join(server.dataDir, 'token');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const token = readFileSync(file, 'utf8').trim();
    const key = join(server.dataDir, 'node-x.key');
    const csr = join(server.dataDir, 'node-x.csr');
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', csr, '-subj', '/O=system:nodes/CN=system:node:node-x'], { stdio: 'ignore' });
    const request = readFileSync(csr).toString('base64');
    const manifest = `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: node-csr-x\nspec:\n  request: ${request}\n  signerName: kubernetes.io/kube-apiserver-client-kubelet\n  usages: ["digital signature", "client auth"]\n`;
    const filed = await withToken(token, ['create', '-f', '-'], manifest);
    assert.equal(filed.code, 0, filed.stderr);
    const cert = await until(async () => {
      const r = await withToken(token, ['get', 'csr', 'node-csr-x', '-o', 'jsonpath={.status.certificate}']);
      return r.code === 0 && r.stdout.trim() ? Buffer.from(r.stdout.trim(), 'base64').toString() : undefined;
    }, 'the CSR to be approved and signed', 20_000);
    const cond = await kubectl(server, '1.33').ok(['get', 'csr', 'node-csr-x', '-o', 'jsonpath={.status.conditions[0].type}/{.status.conditions[0].reason}']);
    assert.equal(cond, 'Approved/AutoApproved');
    const subject = execFileSync('openssl', ['x509', '-noout', '-subject'], { input: cert, encoding: 'utf8' });
    assert.match(subject, /O ?= ?system:nodes, CN ?= ?system:node:node-x/);
    // the certificate is a node's credential now
    const certFile = join(server.dataDir, 'node-x.crt');
    execFileSync('sh', ['-c', `cat > ${certFile}`], { input: cert });
    const who = await run(kubectlPath('1.33'), ['--kubeconfig', '/dev/null', '--server', server.url, '--certificate-authority', join(server.dataDir, 'tls', 'ca.crt'), '--client-certificate', certFile, '--client-key', key, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(who.stdout, 'system:node:node-x', who.stderr);
  });

  it('k1s token delete revokes a token: it no longer authenticates; bad input is a usage error', async () => {
    const token = (await k1sToken('create')).stdout.trim();
    assert.equal((await withToken(token, ['auth', 'whoami'])).code, 0);
    const del = await k1sToken('delete', token.split('.')[0]!);
    assert.equal(del.code, 0, del.stderr);
    assert.match(del.stdout, /^bootstrap token "[a-z0-9]{6}" deleted$/m);
    // successful authentications are cached for 10 s, as kube-apiserver's token cache does
    await until(async () => {
      const r = await withToken(token, ['auth', 'whoami']);
      return r.code !== 0 && /Unauthorized/.test(r.stderr);
    }, 'the deleted token to be refused', 20_000);
    const again = await k1sToken('delete', token);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no bootstrap token "[a-z0-9]{6}"/);
    const bad = await k1sToken('create', '--ttl', 'soon');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--ttl soon: not a duration/);
  });
});
