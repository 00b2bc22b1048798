import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bootstrapTokenCleaner } from '../../../src/controllers/bootstrap-token-cleaner.js';
import { bootstrapTokenSecret, generateBootstrapToken } from '../../../src/cluster/bootstrap-tokens.js';
import { controllerCluster } from './harness.js';

describe('tokencleaner', () => {
  it('deletes a bootstrap token Secret when it expires, and leaves tokens without expiry and other Secrets alone', async () => {
    const c = await controllerCluster([bootstrapTokenCleaner()]);
    try {
      const secrets = c.client.resource('v1', 'secrets');
      const soon = generateBootstrapToken();
      const never = generateBootstrapToken();
      const past = generateBootstrapToken();
      await secrets.create('kube-system', bootstrapTokenSecret({ ...soon, expires: new Date(Date.now() + 1500) }));
      await secrets.create('kube-system', bootstrapTokenSecret(never));
      await secrets.create('kube-system', bootstrapTokenSecret({ ...past, expires: new Date(Date.now() - 1000) }));
      // the same shape outside kube-system is not a bootstrap token
      const elsewhere = bootstrapTokenSecret({ ...generateBootstrapToken(), expires: new Date(Date.now() - 1000) });
      await secrets.create('default', { ...elsewhere, metadata: { ...elsewhere.metadata, namespace: 'default' } });
      const gone = (id: string) => async () => !(await secrets.get('kube-system', `bootstrap-token-${id}`).catch(() => undefined));
      await c.waitFor('the expired token deleted', gone(past.id));
      assert.equal(await gone(soon.id)(), false, 'not before its expiration');
      await c.waitFor('the token deleted at its expiration', gone(soon.id), 10_000);
      assert.equal(await gone(never.id)(), false);
      assert.ok(await secrets.get('default', elsewhere.metadata.name!));
    } finally {
      await c.close();
    }
  });
});
