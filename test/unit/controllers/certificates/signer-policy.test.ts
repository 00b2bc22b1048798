import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apiServerClientError, certificateDurationMs, DEFAULT_SIGNING_DURATION_MS, kubeletClientError, kubeletServingError } from '../../../../src/controllers/certificates/signer-policy.js';
import type { ParsedRequest } from '../../../../src/pki/csr-sign.js';

const req = (o: Partial<ParsedRequest>): ParsedRequest => ({
  commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: [], ipAddresses: [], emailAddresses: [], uris: [], subject: new Map(), spkiDer: new ArrayBuffer(0), ...o,
});

describe('signer policy', () => {
  it('duration: the signer default without expirationSeconds, capped by it, at least 10 minutes', () => {
    assert.equal(certificateDurationMs(undefined), DEFAULT_SIGNING_DURATION_MS);
    assert.equal(certificateDurationMs(null), 8760 * 3600_000);
    assert.equal(certificateDurationMs(3600), 3600_000);
    assert.equal(certificateDurationMs(600), 600_000);
    assert.equal(certificateDurationMs(60), 600_000);
    assert.equal(certificateDurationMs(100 * 86400, 86400_000), 86400_000);
  });

  it('kubelet serving: the checks in kube order', () => {
    const u = ['digital signature', 'key encipherment', 'server auth'];
    assert.equal(kubeletServingError(req({ dnsNames: ['n1'] }), u), undefined);
    assert.equal(kubeletServingError(req({ ipAddresses: ['10.0.0.1'] }), ['server auth', 'digital signature']), undefined);
    assert.equal(kubeletServingError(req({ organizations: ['system:nodes', 'x'], dnsNames: ['n1'] }), u), 'subject organization is not system:nodes');
    assert.equal(kubeletServingError(req({ emailAddresses: ['a@b'], dnsNames: ['n1'] }), u), 'Email subjectAltNames are not allowed');
    assert.equal(kubeletServingError(req({ uris: ['spiffe://x'], dnsNames: ['n1'] }), u), 'URI subjectAltNames are not allowed');
    assert.equal(kubeletServingError(req({ dnsNames: ['n1'] }), ['server auth']), 'usages did not match [digital signature key encipherment server auth]');
    // usages are checked before the CN
    assert.equal(kubeletServingError(req({ commonName: 'n1', dnsNames: ['n1'] }), ['server auth']), 'usages did not match [digital signature key encipherment server auth]');
    assert.equal(kubeletServingError(req({ commonName: 'n1', dnsNames: ['n1'] }), u), 'subject common name does not begin with system:node:');
  });

  it('kubelet client: no SANs, system:node: CN before the usages', () => {
    assert.equal(kubeletClientError(req({}), ['digital signature', 'key encipherment', 'client auth']), undefined);
    assert.equal(kubeletClientError(req({}), ['client auth', 'digital signature', 'client auth']), undefined);
    assert.equal(kubeletClientError(req({ dnsNames: ['n1'] }), ['client auth']), 'DNS subjectAltNames are not allowed');
    assert.equal(kubeletClientError(req({ commonName: 'x' }), ['client auth']), 'subject common name does not begin with system:node:');
    assert.equal(kubeletClientError(req({}), ['client auth', 'server auth']), 'usages did not match [client auth digital signature key encipherment]');
  });

  it('kube-apiserver client: client auth needed, only signature/encipherment besides', () => {
    assert.equal(apiServerClientError(['client auth']), undefined);
    assert.equal(apiServerClientError(['key encipherment', 'digital signature', 'client auth']), undefined);
    assert.equal(apiServerClientError(['signing', 'client auth']), 'invalid usage for client certificate: signing');
    assert.equal(apiServerClientError([]), 'missing required usage for client certificate: client auth');
  });
});
