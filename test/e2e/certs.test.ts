// Certificates end to end with real kubectl 1.33: `k1s certs check`, `k1s certs rotate` on a running server (an
// open watch keeps receiving events, new connections get the new serving certificate, the kubeconfig gets the new
// admin certificate), the rotated files used at the next start, and a CSR signed by the cluster CA that then
// authenticates its holder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { k1sBin, kubectl, kubectlPath, removeDir, run, startServer, until, type K1sServer } from './harness.js';
import { createCa, createClientCert } from '../../src/pki/certs.js';
import { kubeconfigYaml } from '../../src/pki/kubeconfig.js';

/** The certificate the server presents on a new TLS connection, verified against the cluster CA. */
function servedCertificate(url: string, caPem: string): Promise<X509Certificate> {
  const u = new URL(url);
  return new Promise((res, rej) => {
    const s = connect({ host: u.hostname, port: Number(u.port), ca: caPem, servername: 'localhost' }, () => {
      const c = s.getPeerX509Certificate();
      s.end();
      if (c) res(c);
      else rej(new Error('no certificate'));
    });
    s.on('error', rej);
  });
}

const k1s = (...args: string[]) => run(process.execPath, [k1sBin, ...args], { env: { HOME: '/nonexistent', KUBECONFIG: '' } });

test('k1s certs check and rotate on a running server; CSRs signed by the cluster CA authenticate', { timeout: 180_000 }, async (t) => {
  let server: K1sServer = await startServer();
  const dataDir = server.dataDir;
  const tls = join(dataDir, 'tls');
  t.after(async () => {
    await server.stop();
    removeDir(dataDir);
  });
  const k = kubectl(server, '1.33');
  const caPem = readFileSync(join(tls, 'ca.crt'), 'utf8');

  // check: every certificate, valid for a year
  const check = await k1s('certs', 'check', '--data-dir', dataDir);
  assert.equal(check.code, 0, check.stderr);
  const lines = check.stdout.trim().split('\n');
  assert.match(lines[0], /^CERTIFICATE\s+SUBJECT\s+ISSUER\s+NOT BEFORE\s+NOT AFTER\s+DAYS LEFT\s+STATUS$/);
  const rows = Object.fromEntries(lines.slice(1).map((l) => [l.split(/\s+/)[0], l]));
  assert.deepEqual(Object.keys(rows), ['ca', 'front-proxy-ca', 'admin', 'front-proxy-client', 'server']);
  assert.match(rows.server, /^server\s+CN=kube-apiserver\s+CN=k1s-ca@\d+\s+\S+Z\s+\S+Z\s+36[45]\s+ok$/);
  assert.match(rows.admin, /O=system:masters, CN=kubernetes-admin/);
  assert.equal(check.stderr, '');

  // an expiring and an expired certificate: warnings, and exit 1 for the expired one
  const other = await createCa();
  const soon = await createClientCert(other, { commonName: 'soon', days: 10 });
  writeFileSync(join(tls, 'soon.crt'), soon.certPem);
  const warned = await k1s('certs', 'check', '--data-dir', dataDir);
  assert.equal(warned.code, 0);
  assert.match(warned.stderr, /^warning: certificate "soon" \(client certificate\) expires in 9 days \(\d{4}-\d\d-\d\d\): run "k1s certs rotate" to renew it$/m);
  const old = await createClientCert(other, { commonName: 'old', days: 1, now: new Date(Date.now() - 3 * 86400_000) });
  writeFileSync(join(tls, 'old.crt'), old.certPem);
  const expired = await k1s('certs', 'check', '--data-dir', dataDir);
  assert.equal(expired.code, 1);
  assert.match(expired.stdout, /^old\s.*\s0\s+EXPIRED$/m);
  assert.match(expired.stderr, /k1s certs check: expired: old: renew with "k1s certs rotate"/);
  rmSync(join(tls, 'soon.crt'));
  rmSync(join(tls, 'old.crt'));

  // a watch opened before the rotation
  await k.ok(['create', 'configmap', 'before-rotation']);
  const watch = spawn(kubectlPath('1.33'), ['get', 'configmaps', '--watch', '-o', 'name'], { env: { ...process.env, KUBECONFIG: server.kubeconfig, HOME: dataDir } });
  let watched = '';
  watch.stdout.on('data', (d: Buffer) => (watched += d.toString()));
  t.after(() => watch.kill());
  await until(async () => watched.includes('configmap/before-rotation'), 'the watch to start');

  const servedBefore = await servedCertificate(server.url, caPem);
  const adminBefore = readFileSync(join(tls, 'admin.crt'), 'utf8');
  const rotated = await k1s('certs', 'rotate', '--data-dir', dataDir);
  assert.equal(rotated.code, 0, rotated.stderr);
  for (const name of ['admin', 'front-proxy-client', 'server']) assert.match(rotated.stdout, new RegExp(`^rotated ${name}: serial [0-9a-f]+, valid until \\S+Z$`, 'm'));
  assert.match(rotated.stdout, new RegExp(`^updated ${join(dataDir, 'kubeconfig')} \\(user k1s: new admin certificate\\)$`, 'm'));
  const newServer = new X509Certificate(readFileSync(join(tls, 'server.crt')));
  assert.notEqual(newServer.serialNumber, servedBefore.serialNumber);
  assert.equal(readFileSync(join(tls, 'ca.crt'), 'utf8'), caPem, 'the CA stays');

  // new connections get the new certificate (verified against the same CA), without a restart
  await until(async () => (await servedCertificate(server.url, caPem)).serialNumber === newServer.serialNumber, 'the new serving certificate');
  assert.match(server.log(), /k1s: server certificate reloaded \(serial [0-9a-f]+, valid until /);
  // the open watch carries on
  await k.ok(['create', 'configmap', 'after-rotation']);
  await until(async () => watched.includes('configmap/after-rotation'), 'the watch to see an event after the rotation');
  assert.equal(watch.exitCode, null);
  // a fresh kubectl with the refreshed kubeconfig: the new admin certificate
  const kubeconfig = readFileSync(server.kubeconfig, 'utf8');
  const adminNow = readFileSync(join(tls, 'admin.crt'), 'utf8');
  assert.notEqual(adminNow, adminBefore);
  assert.ok(kubeconfig.includes(Buffer.from(adminNow).toString('base64')));
  assert.deepEqual(JSON.parse(await k.ok(['auth', 'whoami', '-o', 'json'])).status.userInfo.username, 'kubernetes-admin');
  const openssl = execFileSync('openssl', ['s_client', '-connect', new URL(server.url).host, '-CAfile', join(tls, 'ca.crt'), '-verify_return_error'], { input: '', encoding: 'utf8', stdio: ['pipe', 'pipe', 'ignore'] });
  assert.match(openssl, /Verify return code: 0 \(ok\)/);
  assert.ok(openssl.includes(newServer.toString().trim().split('\n')[1]!), 'openssl sees the new certificate');

  // a CSR from an openssl key, approved with kubectl, signed, then used to authenticate
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dataDir, 'jane.key'), '-out', join(dataDir, 'jane.csr'), '-subj', '/O=devs/O=ops/CN=jane'], { stdio: 'ignore' });
  const request = readFileSync(join(dataDir, 'jane.csr')).toString('base64');
  const csr = (name: string, signerName: string, usages: string[], req = request, extra = '') =>
    `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: ${name}\nspec:\n  request: ${req}\n  signerName: ${signerName}\n  usages: [${usages.map((u) => `"${u}"`).join(', ')}]\n${extra}`;
  await k.ok(['apply', '-f', '-'], { input: csr('jane', 'kubernetes.io/kube-apiserver-client', ['client auth'], request, '  expirationSeconds: 86400\n') });
  assert.match(await k.ok(['certificate', 'approve', 'jane']), /certificatesigningrequest.certificates.k8s.io\/jane approved/);
  const certB64 = await until(async () => (await k.ok(['get', 'csr', 'jane', '-o', 'jsonpath={.status.certificate}'])) || undefined, 'the certificate');
  const janeCert = Buffer.from(certB64, 'base64').toString();
  const jane = new X509Certificate(janeCert);
  assert.ok(jane.checkIssued(new X509Certificate(caPem)));
  const days = (new Date(jane.validTo).getTime() - new Date(jane.validFrom).getTime()) / 86400_000;
  assert.ok(Math.abs(days - 1) < 0.01, `one day (+5 min backdate), got ${days}`);
  assert.match(await k.ok(['get', 'csr', 'jane']), /jane\s+\S+\s+kubernetes.io\/kube-apiserver-client\s+kubernetes-admin\s+24h\s+Approved,Issued/);
  const janeConfig = join(dataDir, 'jane.kubeconfig');
  writeFileSync(janeConfig, kubeconfigYaml({ server: server.url, caPem, clientCertPem: janeCert, clientKeyPem: readFileSync(join(dataDir, 'jane.key'), 'utf8') }), { mode: 0o600 });
  const whoami = JSON.parse(await k.ok(['auth', 'whoami', '-o', 'json'], { env: { KUBECONFIG: janeConfig } }));
  assert.equal(whoami.status.userInfo.username, 'jane');
  assert.deepEqual(whoami.status.userInfo.groups, ['devs', 'ops', 'system:authenticated']);

  // a kubelet-serving request the signer refuses: Failed, never issued
  await k.ok(['apply', '-f', '-'], { input: csr('bad-serving', 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth']) });
  await k.ok(['certificate', 'approve', 'bad-serving']);
  await until(async () => (await k.ok(['get', 'csr', 'bad-serving'])).includes('Approved,Failed'), 'the Failed condition');
  assert.equal(await k.ok(['get', 'csr', 'bad-serving', '-o', 'jsonpath={.status.conditions[?(@.type=="Failed")].message}']), 'subject organization is not system:nodes');

  // stopped: a rotation is used at the next start
  watch.kill();
  assert.equal(await server.stop(), 0);
  const again = await k1s('certs', 'rotate', '--data-dir', dataDir);
  assert.equal(again.code, 0, again.stderr);
  const restarted = new X509Certificate(readFileSync(join(tls, 'server.crt')));
  server = await startServer({ dataDir });
  assert.equal((await servedCertificate(server.url, caPem)).serialNumber, restarted.serialNumber);
  assert.match(server.log(), /certificates loaded from/);
  assert.ok((await kubectl(server, '1.33').ok(['get', 'configmap', 'after-rotation', '-o', 'name'])).includes('configmap/after-rotation'));
});
