import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bootstrapTokenAuthenticator, bootstrapTokenUser, BOOTSTRAP_TOKEN_PATTERN } from '../../../../src/apiserver/auth/bootstrap-token.js';
import { bootstrapTokenSecret, generateBootstrapToken, NODE_JOIN_GROUP } from '../../../../src/cluster/bootstrap-tokens.js';
import { buildClusterApi, bootstrapClusterObjects } from '../../../../src/cluster/api.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';
import type { KObject } from '../../../../src/api/types.js';

type SecretShape = Parameters<typeof bootstrapTokenUser>[0];
const secretOf = (o: KObject) => o as unknown as SecretShape;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('bootstrap tokens', () => {
  it('are made as kubeadm makes them: <6>.<16> of [a-z0-9], a Secret kube-system/bootstrap-token-<id>', () => {
    const t = generateBootstrapToken();
    assert.match(t.token, BOOTSTRAP_TOKEN_PATTERN);
    const s = bootstrapTokenSecret({ ...t, description: 'd', expires: new Date('2030-01-02T03:04:05.678Z') }) as KObject & { type: string; data: Record<string, string> };
    assert.equal(s.metadata.name, `bootstrap-token-${t.id}`);
    assert.equal(s.metadata.namespace, 'kube-system');
    assert.equal(s.type, 'bootstrap.kubernetes.io/token');
    const data = Object.fromEntries(Object.entries(s.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
    assert.deepEqual(data, {
      'token-id': t.id,
      'token-secret': t.secret,
      description: 'd',
      expiration: '2030-01-02T03:04:05Z',
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': NODE_JOIN_GROUP,
    });
  });

  it('authenticate as system:bootstrap:<id> in system:bootstrappers and the extra groups, while valid', () => {
    const t = { id: 'abcdef', secret: '0123456789abcdef' };
    const ok = bootstrapTokenUser(secretOf(bootstrapTokenSecret(t)), t.id, t.secret);
    assert.deepEqual(ok, { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', NODE_JOIN_GROUP, 'system:authenticated'] });
    const now = Date.parse('2030-01-01T00:00:00Z');
    assert.equal(typeof bootstrapTokenUser(secretOf(bootstrapTokenSecret({ ...t, expires: new Date(now + 1000) })), t.id, t.secret, now), 'object');
    const refused = (s: SecretShape, secret = t.secret) => assert.equal(typeof bootstrapTokenUser(s, t.id, secret, now), 'string');
    refused(secretOf(bootstrapTokenSecret({ ...t, expires: new Date(now - 1) })));
    refused(secretOf(bootstrapTokenSecret(t)), '0123456789abcdee');
    refused(secretOf(bootstrapTokenSecret({ ...t, usages: ['signing'] })));
    refused({ ...secretOf(bootstrapTokenSecret(t)), type: 'Opaque' });
    refused({ ...secretOf(bootstrapTokenSecret(t)), metadata: { deletionTimestamp: '2029-12-31T00:00:00Z' } });
    const bad = secretOf(bootstrapTokenSecret(t));
    refused({ ...bad, data: { ...bad.data, 'auth-extra-groups': b64('system:masters') } });
    refused({ ...bad, data: { ...bad.data, expiration: b64('tomorrow') } });
  });

  it('are looked up by the API server for bearer tokens, and stop working once their Secret is deleted', async () => {
    const store = SqliteStore.open({ path: ':memory:' });
    const api = buildClusterApi(store);
    try {
      await bootstrapClusterObjects(api);
      const t = generateBootstrapToken();
      const auth = bootstrapTokenAuthenticator(api.registry);
      assert.equal(await auth(t.token), undefined, 'no Secret yet');
      await api.client.resource('v1', 'secrets').create('kube-system', bootstrapTokenSecret(t));
      assert.equal((await auth(t.token))?.name, `system:bootstrap:${t.id}`);
      assert.equal(await auth(`${t.id}.${'x'.repeat(16)}`), undefined);
      assert.equal(await auth('not-a-token'), undefined);
      await api.client.resource('v1', 'secrets').delete('kube-system', `bootstrap-token-${t.id}`);
      assert.equal(await auth(t.token), undefined);
    } finally {
      api.stop();
      store.close();
    }
  });
});
