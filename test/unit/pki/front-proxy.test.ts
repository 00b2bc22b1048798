// The front-proxy CA and client certificate: created once with private key files, reused on later starts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isSignedBy, subjectOf } from '../../../src/pki/certs.js';
import { ensureFrontProxyPki } from '../../../src/pki/front-proxy.js';

describe('ensureFrontProxyPki', () => {
  it('creates a CA and a front-proxy-client certificate, then reuses them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k1s-fp-'));
    try {
      const first = await ensureFrontProxyPki(dir);
      assert.equal(first.written.length, 4);
      assert.equal(subjectOf(first.client.certPem), 'CN=front-proxy-client');
      assert.ok(isSignedBy(first.client.certPem, first.ca.certPem));
      for (const f of ['front-proxy-ca.key', 'front-proxy-client.key']) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
      const again = await ensureFrontProxyPki(dir);
      assert.deepEqual(again.written, []);
      assert.equal(again.client.certPem, first.client.certPem);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
