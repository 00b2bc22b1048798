// The serving certificate carries what in-cluster clients use: the `kubernetes` Service's cluster IP and names; a
// data directory from before (a certificate without the Service IP) gets a re-issued one, signed by the same CA.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { coversNames, isSignedBy } from '../../../src/pki/certs.js';
import { defaultServingNames, ensurePki } from '../../../src/pki/pki.js';
import { withTempDir } from './helpers.js';

const IN_CLUSTER = ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];

test('the kubernetes Service IP joins the default SANs', () => {
  const names = defaultServingNames({ serviceIPs: ['10.43.0.1'] });
  assert.deepEqual(names.ips, ['127.0.0.1', '::1', '10.43.0.1']);
  for (const h of IN_CLUSTER) assert.ok(names.hostnames.includes(h), h);
});

test('an existing serving certificate without the Service IP is re-issued; the CA and admin cert stay', async () => {
  await withTempDir(async (tmp) => {
    const dir = join(tmp, 'tls');
    const old = await ensurePki(dir, defaultServingNames());
    assert.ok(!coversNames(old.server.certPem, [], ['10.43.0.1']));
    const next = await ensurePki(dir, defaultServingNames({ serviceIPs: ['10.43.0.1'] }));
    assert.deepEqual(next.written.sort(), [join(dir, 'server.crt'), join(dir, 'server.key')].sort());
    assert.equal(next.ca.certPem, old.ca.certPem);
    assert.equal(next.admin.certPem, old.admin.certPem);
    const pem = await readFile(join(dir, 'server.crt'), 'utf8');
    assert.ok(coversNames(pem, IN_CLUSTER, ['10.43.0.1', '127.0.0.1']));
    assert.ok(isSignedBy(pem, old.ca.certPem));
    // and reused as is on the next start
    assert.deepEqual((await ensurePki(dir, defaultServingNames({ serviceIPs: ['10.43.0.1'] }))).written, []);
  });
});
