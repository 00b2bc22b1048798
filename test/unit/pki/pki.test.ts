import assert from 'node:assert/strict';
import { readFile, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createServingCert, coversNames, isSignedBy, keyMatchesCert, subjectOf } from '../../../src/pki/certs.js';
import { defaultServingNames, ensurePki, issueClientCertificate } from '../../../src/pki/pki.js';
import { OPENSSL, run, withTempDir } from './helpers.js';

const FILES = [
  'ca.crt',
  'ca.key',
  'server.crt',
  'server.key',
  'admin.crt',
  'admin.key',
  'service-account.key',
  'service-account.pub',
];
const KEYS = FILES.filter((f) => f.endsWith('.key'));

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of FILES) out[f] = await readFile(join(dir, f), 'utf8');
  return out;
}

const modeOf = async (p: string) => (await stat(p)).mode & 0o777;

describe('defaultServingNames', () => {
  it('lists the usual kube-apiserver SANs and this host', () => {
    const { hostnames, ips } = defaultServingNames();
    for (const h of ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local']) {
      assert.ok(hostnames.includes(h), h);
    }
    assert.ok(hostnames.includes(hostname().toLowerCase()));
    assert.deepEqual(ips, ['127.0.0.1', '::1']);
  });
});

describe('ensurePki', () => {
  it('creates every file on first start, keys 0600 in a 0700 dir', async (t) => {
    await withTempDir(async (tmp) => {
      const dir = join(tmp, 'nested', 'pki');
      const t0 = performance.now();
      const pki = await ensurePki(dir, defaultServingNames());
      t.diagnostic(`first start: ${(performance.now() - t0).toFixed(1)} ms`);
      assert.equal(await modeOf(dir), 0o700);
      for (const f of KEYS) assert.equal(await modeOf(join(dir, f)), 0o600, f);
      assert.equal(pki.written.length, FILES.length);
      assert.deepEqual(await snapshot(dir), {
        'ca.crt': pki.ca.certPem,
        'ca.key': pki.ca.keyPem,
        'server.crt': pki.server.certPem,
        'server.key': pki.server.keyPem,
        'admin.crt': pki.admin.certPem,
        'admin.key': pki.admin.keyPem,
        'service-account.key': pki.serviceAccount.keyPem,
        'service-account.pub': pki.serviceAccount.publicKeyPem,
      });
      assert.equal(pki.server.certPath, join(dir, 'server.crt'));
      assert.equal(subjectOf(pki.admin.certPem), 'O=system:masters\nCN=kubernetes-admin');
      assert.ok(isSignedBy(pki.server.certPem, pki.ca.certPem));
      assert.ok(keyMatchesCert(pki.server.certPem, pki.server.keyPem));
    });
  });

  it('reuses everything byte for byte on a second start', async (t) => {
    await withTempDir(async (dir) => {
      await ensurePki(dir, defaultServingNames());
      const before = await snapshot(dir);
      const t0 = performance.now();
      const again = await ensurePki(dir, defaultServingNames());
      t.diagnostic(`reuse: ${(performance.now() - t0).toFixed(1)} ms`);
      assert.deepEqual(again.written, []);
      assert.deepEqual(await snapshot(dir), before);
      assert.equal(again.ca.certPem, before['ca.crt']);
    });
  });

  it('re-issues only the serving cert when a SAN is missing, keeping the CA', async () => {
    await withTempDir(async (dir) => {
      await ensurePki(dir, { hostnames: ['localhost'], ips: ['127.0.0.1'] });
      const before = await snapshot(dir);
      const pki = await ensurePki(dir, { hostnames: ['localhost', 'k1s.example'], ips: ['127.0.0.1', '10.43.0.1'] });
      assert.deepEqual(pki.written.sort(), [join(dir, 'server.crt'), join(dir, 'server.key')]);
      const after = await snapshot(dir);
      assert.equal(after['ca.crt'], before['ca.crt']);
      assert.equal(after['admin.crt'], before['admin.crt']);
      assert.notEqual(after['server.crt'], before['server.crt']);
      assert.ok(coversNames(after['server.crt']!, ['k1s.example', 'localhost'], ['10.43.0.1', '127.0.0.1']));
      // A subset of the SANs is still covered: no re-issue.
      assert.deepEqual((await ensurePki(dir, { hostnames: ['k1s.example'], ips: [] })).written, []);
    });
  });

  it('treats IPs passed as hostnames as IP SANs and rejects invalid IPs', async () => {
    await withTempDir(async (dir) => {
      const pki = await ensurePki(dir, { hostnames: ['LocalHost', '192.0.2.7'], ips: ['::1'] });
      assert.ok(coversNames(pki.server.certPem, ['localhost'], ['192.0.2.7', '0:0:0:0:0:0:0:1']));
      await assert.rejects(ensurePki(dir, { hostnames: [], ips: ['not-an-ip'] }), /invalid IP/);
    });
  });

  it('re-issues a serving cert that expires within 90 days', async () => {
    await withTempDir(async (dir) => {
      const pki = await ensurePki(dir, defaultServingNames());
      const short = await createServingCert(pki.ca, { ...defaultServingNames(), days: 30 });
      await writeFile(join(dir, 'server.crt'), short.certPem);
      await writeFile(join(dir, 'server.key'), short.keyPem);
      const again = await ensurePki(dir, defaultServingNames());
      assert.ok(again.written.includes(join(dir, 'server.crt')));
      assert.notEqual(again.server.certPem, short.certPem);
    });
  });

  it('re-issues leaves not signed by the CA, or whose key does not match', async () => {
    await withTempDir(async (dir) => {
      const first = await ensurePki(dir, defaultServingNames());
      await withTempDir(async (otherDir) => {
        const other = await ensurePki(otherDir, defaultServingNames());
        await writeFile(join(dir, 'admin.crt'), other.admin.certPem);
        await writeFile(join(dir, 'admin.key'), other.admin.keyPem);
      });
      await writeFile(join(dir, 'server.key'), first.admin.keyPem);
      const again = await ensurePki(dir, defaultServingNames());
      assert.ok(isSignedBy(again.admin.certPem, first.ca.certPem));
      assert.ok(keyMatchesCert(again.server.certPem, again.server.keyPem));
      assert.equal(again.ca.certPem, first.ca.certPem);
    });
  });

  it('regenerates a missing CA and every leaf; refuses a CA key that does not match', async () => {
    await withTempDir(async (dir) => {
      const first = await ensurePki(dir, defaultServingNames());
      await rm(join(dir, 'ca.crt'));
      const second = await ensurePki(dir, defaultServingNames());
      assert.notEqual(second.ca.certPem, first.ca.certPem);
      assert.ok(isSignedBy(second.server.certPem, second.ca.certPem));
      assert.ok(isSignedBy(second.admin.certPem, second.ca.certPem));
      assert.equal(second.serviceAccount.keyPem, first.serviceAccount.keyPem);
      await writeFile(join(dir, 'ca.key'), first.ca.keyPem);
      await assert.rejects(ensurePki(dir, defaultServingNames()), /does not match/);
    });
  });

  it('rewrites a missing service-account.pub from the key and tightens loose key modes', async () => {
    await withTempDir(async (dir) => {
      const first = await ensurePki(dir, defaultServingNames());
      await rm(join(dir, 'service-account.pub'));
      await chmod(join(dir, 'admin.key'), 0o644);
      const again = await ensurePki(dir, defaultServingNames());
      assert.deepEqual(again.written, [join(dir, 'service-account.pub')]);
      assert.equal(again.serviceAccount.publicKeyPem, first.serviceAccount.publicKeyPem);
      assert.equal(await modeOf(join(dir, 'admin.key')), 0o600);
    });
  });

  it('issues extra client certificates signed by the CA', async () => {
    await withTempDir(async (dir) => {
      const pki = await ensurePki(dir, defaultServingNames());
      const kubelet = await issueClientCertificate(pki, { commonName: 'system:node:n1', organizations: ['system:nodes'] });
      assert.ok(isSignedBy(kubelet.certPem, pki.ca.certPem));
      assert.equal(subjectOf(kubelet.certPem), 'O=system:nodes\nCN=system:node:n1');
    });
  });
});

describe('ensurePki output checked with openssl', () => {
  it('verifies against the CA and shows the SANs, usages and O=system:masters', async () => {
    await withTempDir(async (dir) => {
      await ensurePki(dir, defaultServingNames());
      const ca = join(dir, 'ca.crt');
      for (const leaf of ['server.crt', 'admin.crt']) {
        assert.equal(run(OPENSSL!, ['verify', '-CAfile', ca, join(dir, leaf)]).trim(), `${join(dir, leaf)}: OK`);
      }
      const server = run(OPENSSL!, ['x509', '-noout', '-text', '-in', join(dir, 'server.crt')]);
      for (const san of ['DNS:localhost', 'DNS:kubernetes.default.svc.cluster.local', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1']) {
        assert.ok(server.includes(san), `missing ${san}`);
      }
      assert.match(server, /TLS Web Server Authentication/);
      assert.match(server, /Digital Signature, Key Encipherment/);
      const admin = run(OPENSSL!, ['x509', '-noout', '-text', '-in', join(dir, 'admin.crt')]);
      assert.match(admin, /Subject: O\s*=\s*system:masters, CN\s*=\s*kubernetes-admin/);
      assert.match(admin, /TLS Web Client Authentication/);
      const caText = run(OPENSSL!, ['x509', '-noout', '-text', '-in', ca]);
      assert.match(caText, /CA:TRUE/);
      // Validity: CA ~10 years, leaves ~1 year.
      const years = (f: string) => {
        const end = run(OPENSSL!, ['x509', '-noout', '-enddate', '-in', join(dir, f)]).trim().replace('notAfter=', '');
        return (new Date(end).getTime() - Date.now()) / (365 * 24 * 3600 * 1000);
      };
      assert.ok(Math.abs(years('ca.crt') - 10) < 0.05, `ca: ${years('ca.crt')}`);
      assert.ok(Math.abs(years('server.crt') - 1) < 0.01, `server: ${years('server.crt')}`);
      // The service-account key is a usable EC keypair.
      assert.match(run(OPENSSL!, ['pkey', '-in', join(dir, 'service-account.key'), '-noout', '-text']), /prime256v1/);
    });
  });
});
