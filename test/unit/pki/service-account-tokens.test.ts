import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { createSigningKeyPair } from '../../../src/pki/certs.js';
import { ServiceAccountTokens } from '../../../src/pki/service-account-tokens.js';

const subject = { namespace: 'default', serviceAccount: { name: 'sa', uid: 'u1' }, bound: { kind: 'Pod', name: 'p', uid: 'u2' } };

describe('ServiceAccountTokens', () => {
  it('signs tokens it then verifies, for the right audience only', async () => {
    const { privateKeyPem, publicKeyPem } = createSigningKeyPair();
    const tokens = await ServiceAccountTokens.load(privateKeyPem, publicKeyPem);
    const { token, expiresAt } = await tokens.sign(subject, { audiences: ['api'], expirationSeconds: 600 });
    assert.ok(expiresAt > Date.now());
    const claims = await tokens.verify(token, ['api']);
    assert.equal(claims?.sub, 'system:serviceaccount:default:sa');
    assert.deepEqual(claims?.['kubernetes.io']?.pod, { name: 'p', uid: 'u2' });
    assert.equal(await tokens.verify(token, ['other']), undefined);
    assert.equal(await tokens.verify(token.slice(0, -4) + 'AAAA', ['api']), undefined);
    const other = await ServiceAccountTokens.load(createSigningKeyPair().privateKeyPem, createSigningKeyPair().publicKeyPem);
    assert.equal(await other.verify(token, ['api']), undefined);
  });

  it('refuses unusable keys when loading, before any token is asked for', async () => {
    const { privateKeyPem, publicKeyPem } = createSigningKeyPair();
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pkcs1 = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    await assert.rejects(ServiceAccountTokens.load(pkcs1, publicKeyPem), /must be PKCS#8/);
    await assert.rejects(ServiceAccountTokens.load(privateKeyPem, privateKeyPem), /must be SPKI/);
    await assert.rejects(ServiceAccountTokens.load('-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----\n', publicKeyPem));
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    await assert.rejects(ServiceAccountTokens.load(p384.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKeyPem), /not usable/);
  });
});
