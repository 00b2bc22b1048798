import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createCa, createClientCert, isSignedBy, keyMatchesCert } from '../../../src/pki/certs.js';
import { ensureFrontProxyPki } from '../../../src/pki/front-proxy.js';
import { describeCertificate, expiryWarnings, readInventory } from '../../../src/pki/inventory.js';
import { replaceKubeconfigCredentials } from '../../../src/pki/kubeconfig-credentials.js';
import { kubeconfigYaml } from '../../../src/pki/kubeconfig.js';
import { ensurePki } from '../../../src/pki/pki.js';
import { rotateLeafCertificates } from '../../../src/pki/rotate.js';
import { YAML } from '../../../src/machinery/yaml.js';
import { withTempDir } from './helpers.js';

const names = { hostnames: ['localhost', 'kubernetes.default.svc'], ips: ['127.0.0.1', '::1', '10.43.0.1'] };

describe('readInventory', () => {
  it('lists every certificate of a data dir, CAs first, with validity and days left', async () => {
    await withTempDir(async (dir) => {
      await ensurePki(dir, names);
      await ensureFrontProxyPki(dir);
      const inv = await readInventory(dir);
      assert.deepEqual(inv.certificates.map((c) => c.name), ['ca', 'front-proxy-ca', 'admin', 'front-proxy-client', 'server']);
      const server = inv.certificates.find((c) => c.name === 'server')!;
      assert.equal(server.subject, 'CN=kube-apiserver');
      assert.match(server.issuer, /^CN=k1s-ca@\d+$/);
      assert.ok(server.daysLeft >= 364 && server.daysLeft <= 365, String(server.daysLeft));
      assert.equal(server.expired, false);
      assert.ok(server.subjectAltNames.includes('IP Address:10.43.0.1'));
      assert.equal(inv.certificates.find((c) => c.name === 'admin')!.subject, 'O=system:masters, CN=kubernetes-admin');
      assert.deepEqual(expiryWarnings(inv.certificates), []);
    });
  });

  it('reports unreadable .crt files and an absent dir as empty', async () => {
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'junk.crt'), 'not a certificate');
      const inv = await readInventory(dir);
      assert.equal(inv.certificates.length, 0);
      assert.equal(inv.unreadable.length, 1);
      assert.deepEqual(await readInventory(join(dir, 'missing')), { certificates: [], unreadable: [] });
    });
  });
});

describe('expiryWarnings', () => {
  it('warns within 30 days and after expiry, telling leaves to rotate and CAs what happens instead', async () => {
    const ca = await createCa({ days: 20 });
    const leaf = await createClientCert(ca, { commonName: 'x', days: 10 });
    const now = new Date();
    const soon = [describeCertificate('ca', '/d/ca.crt', ca.certPem, now), describeCertificate('extra', '/d/extra.crt', leaf.certPem, now)];
    const w = expiryWarnings(soon);
    assert.equal(w.length, 2);
    assert.match(w[0], /^CA certificate "ca" expires in 19 days \(\d{4}-\d\d-\d\d\): "k1s certs rotate" renews only/);
    assert.match(w[1], /^certificate "extra" \(client certificate\) expires in 9 days .*: run "k1s certs rotate" to renew it$/);
    const later = new Date(now.getTime() + 15 * 86400_000);
    const expired = describeCertificate('extra', '/d/extra.crt', leaf.certPem, later);
    assert.equal(expired.expired, true);
    assert.match(expiryWarnings([expired])[0], /^certificate "extra" \(client certificate\) expired on \d{4}-\d\d-\d\d: run "k1s certs rotate"/);
    assert.deepEqual(expiryWarnings(soon, 5), []);
  });
});

describe('rotateLeafCertificates', () => {
  it('re-issues every leaf with the same subject, SANs and issuer and a new key; CAs stay', async () => {
    await withTempDir(async (dir) => {
      const pki = await ensurePki(dir, names);
      const fp = await ensureFrontProxyPki(dir);
      const caBefore = await readFile(join(dir, 'ca.crt'), 'utf8');
      const result = await rotateLeafCertificates(dir);
      assert.deepEqual(result.rotated.map((r) => r.name).sort(), ['admin', 'front-proxy-client', 'server']);
      assert.deepEqual(result.skipped, []);
      assert.deepEqual(result.cas.sort(), ['ca', 'front-proxy-ca']);
      assert.equal(await readFile(join(dir, 'ca.crt'), 'utf8'), caBefore);
      for (const [base, ca, before] of [['server', pki.ca, pki.server], ['admin', pki.ca, pki.admin], ['front-proxy-client', fp.ca, fp.client]] as const) {
        const certPem = await readFile(join(dir, `${base}.crt`), 'utf8');
        const keyPem = await readFile(join(dir, `${base}.key`), 'utf8');
        assert.notEqual(certPem, before.certPem);
        assert.notEqual(keyPem, before.keyPem, `${base}: a new key`);
        assert.ok(keyMatchesCert(certPem, keyPem));
        assert.ok(isSignedBy(certPem, ca.certPem));
        const [a, b] = [new X509Certificate(before.certPem), new X509Certificate(certPem)];
        assert.equal(b.subject, a.subject);
        assert.equal(b.subjectAltName, a.subjectAltName);
        assert.deepEqual(b.keyUsage, a.keyUsage);
        assert.notEqual(b.serialNumber, a.serialNumber);
        assert.equal((await stat(join(dir, `${base}.key`))).mode & 0o777, 0o600);
      }
      // the next start reuses them as they are
      const again = await ensurePki(dir, names);
      assert.deepEqual(again.written, []);
    });
  });

  it('skips leaves it cannot re-issue and says why', async () => {
    await withTempDir(async (dir) => {
      await ensurePki(dir, names);
      const other = await createCa();
      const foreign = await createClientCert(other, { commonName: 'someone' });
      await writeFile(join(dir, 'foreign.crt'), foreign.certPem);
      await writeFile(join(dir, 'foreign.key'), foreign.keyPem);
      await writeFile(join(dir, 'lonely.crt'), foreign.certPem);
      const result = await rotateLeafCertificates(dir);
      assert.deepEqual(result.skipped.sort((a, b) => a.name.localeCompare(b.name)), [
        { name: 'foreign', reason: 'not signed by a CA of this directory' },
        { name: 'lonely', reason: `no key file ${join(dir, 'lonely.key')}` },
      ]);
      assert.equal(await readFile(join(dir, 'foreign.crt'), 'utf8'), foreign.certPem);
    });
  });
});

describe('replaceKubeconfigCredentials', () => {
  it('replaces only the users holding the old certificate', async () => {
    await withTempDir(async (dir) => {
      const ca = await createCa();
      const [oldAdmin, newAdmin, bob] = await Promise.all(['admin', 'admin', 'bob'].map((cn) => createClientCert(ca, { commonName: cn })));
      const path = join(dir, 'config');
      const doc = YAML.parse(kubeconfigYaml({ server: 'https://127.0.0.1:6443', caPem: ca.certPem, clientCertPem: oldAdmin.certPem, clientKeyPem: oldAdmin.keyPem })) as { users: { name: string; user: Record<string, string> }[] };
      doc.users.push({ name: 'bob', user: { 'client-certificate-data': Buffer.from(bob.certPem).toString('base64'), 'client-key-data': Buffer.from(bob.keyPem).toString('base64') } });
      await writeFile(path, YAML.stringify(doc), { mode: 0o644 });
      assert.deepEqual(await replaceKubeconfigCredentials(path, oldAdmin, newAdmin), ['k1s']);
      const after = YAML.parse(await readFile(path, 'utf8')) as typeof doc;
      assert.equal(Buffer.from(after.users[0].user['client-certificate-data'], 'base64').toString(), newAdmin.certPem);
      assert.equal(Buffer.from(after.users[0].user['client-key-data'], 'base64').toString(), newAdmin.keyPem);
      assert.deepEqual(after.users[1], doc.users[1]);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      // nothing to change: not rewritten
      assert.deepEqual(await replaceKubeconfigCredentials(path, oldAdmin, newAdmin), []);
      assert.deepEqual(await replaceKubeconfigCredentials(join(dir, 'missing'), oldAdmin, newAdmin), []);
    });
  });
});
