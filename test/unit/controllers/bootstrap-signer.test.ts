import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { bootstrapSigner, signedData, signingToken } from '../../../src/controllers/bootstrap-signer.js';
import { bootstrapTokenSecret, generateBootstrapToken } from '../../../src/cluster/bootstrap-tokens.js';
import { caCertHash, detachedJws, detachedJwsValid } from '../../../src/pki/bootstrap-jws.js';
import { createCa } from '../../../src/pki/certs.js';
import { controllerCluster } from './harness.js';

type ConfigMap = { data?: Record<string, string> };

describe('detached JWS of cluster-info', () => {
  it('is <protected>..<signature>, HS256 with the token id as kid, keyed by the secret; only that token verifies it', () => {
    const jws = detachedJws('kubeconfig text', 'abcdef', '0123456789abcdef');
    const [header, payload, sig] = jws.split('.');
    assert.equal(payload, '');
    assert.equal(Buffer.from(header!, 'base64url').toString(), '{"alg":"HS256","kid":"abcdef"}');
    // HMAC-SHA256 over "<header>.<base64url(payload)>", as RFC 7515 defines it (computed by openssl here)
    const input = `${header}.${Buffer.from('kubeconfig text').toString('base64url')}`;
    const mac = execFileSync('openssl', ['dgst', '-sha256', '-mac', 'HMAC', '-macopt', 'key:0123456789abcdef', '-binary'], { input });
    assert.equal(sig, mac.toString('base64url'));
    assert.ok(detachedJwsValid(jws, 'kubeconfig text', 'abcdef', '0123456789abcdef'));
    assert.ok(!detachedJwsValid(jws, 'kubeconfig text', 'abcdef', '0123456789abcdeX'));
    assert.ok(!detachedJwsValid(jws, 'other text', 'abcdef', '0123456789abcdef'));
  });

  it("the CA hash is kubeadm's: sha256 of the public key's DER (what openssl prints)", async () => {
    const ca = await createCa();
    const pub = execFileSync('openssl', ['x509', '-pubkey', '-noout'], { input: ca.certPem });
    const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: pub });
    const hex = execFileSync('openssl', ['dgst', '-sha256', '-hex'], { input: der, encoding: 'utf8' }).trim().split(' ').pop();
    assert.equal(caCertHash(ca.certPem), `sha256:${hex}`);
  });
});

describe('bootstrapsigner', () => {
  it('signs for tokens with usage-bootstrap-signing that are valid, and drops the others', () => {
    const now = Date.now();
    const ok = bootstrapTokenSecret({ ...generateBootstrapToken(), expires: new Date(now + 60_000) });
    const authOnly = bootstrapTokenSecret({ ...generateBootstrapToken(), usages: ['authentication'] });
    const expired = bootstrapTokenSecret({ ...generateBootstrapToken(), expires: new Date(now - 1000) });
    assert.ok(signingToken(ok, now));
    assert.equal(signingToken(authOnly, now), undefined);
    assert.equal(signingToken(expired, now), undefined);
    const data = signedData({ kubeconfig: 'k', 'jws-kubeconfig-zzzzzz': 'stale', other: 'x' }, [{ id: 'abcdef', secret: '0123456789abcdef' }]);
    assert.deepEqual(Object.keys(data).sort(), ['jws-kubeconfig-abcdef', 'kubeconfig', 'other']);
  });

  it('keeps kube-public/cluster-info signed as tokens come, go and expire', async () => {
    const c = await controllerCluster([bootstrapSigner()]);
    try {
      const cms = c.client.resource('v1', 'configmaps');
      const secrets = c.client.resource('v1', 'secrets');
      const keep = generateBootstrapToken();
      const soon = generateBootstrapToken();
      await secrets.create('kube-system', bootstrapTokenSecret(keep));
      await secrets.create('kube-system', bootstrapTokenSecret({ ...soon, expires: new Date(Date.now() + 1500) }));
      await cms.create('kube-public', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' }, data: { kubeconfig: 'the text' } });
      const data = async () => ((await cms.get('kube-public', 'cluster-info')) as ConfigMap).data ?? {};
      await c.waitFor('both tokens signed', async () => !!(await data())[`jws-kubeconfig-${soon.id}`] && !!(await data())[`jws-kubeconfig-${keep.id}`]);
      assert.ok(detachedJwsValid((await data())[`jws-kubeconfig-${keep.id}`]!, 'the text', keep.id, keep.secret));
      await c.waitFor('the expired token unsigned', async () => !(await data())[`jws-kubeconfig-${soon.id}`], 10_000);
      await secrets.delete('kube-system', `bootstrap-token-${keep.id}`);
      await c.waitFor('the deleted token unsigned', async () => !(await data())[`jws-kubeconfig-${keep.id}`]);
      assert.equal((await data()).kubeconfig, 'the text');
    } finally {
      await c.close();
    }
  });
});
