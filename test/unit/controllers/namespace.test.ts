import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import type { Namespace } from '../../../src/api/core/namespace.js';
import { namespaceController } from '../../../src/controllers/namespace/controller.js';
import { gcResourcesFrom } from '../../../src/controllers/garbage-collector/controller.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, createNamespace, type ControllerCluster } from './harness.js';

describe('namespace controller', () => {
  let c: ControllerCluster;
  before(async () => {
    // the resource list is built lazily from the harness's own registry
    let resources: ReturnType<typeof gcResourcesFrom> = [];
    c = await controllerCluster([(ctx) => namespaceController({ resources })(ctx)], {
      configure(api) {
        resources = gcResourcesFrom(api.registry.definitions);
      },
    });
  });
  after(() => c.close());

  const nsGone = async (name: string) => {
    try {
      await c.client.resource('v1', 'namespaces').get('', name);
      return false;
    } catch (e) {
      return e instanceof StatusError && e.code === 404;
    }
  };

  it('deleting a namespace empties it and removes the namespace', async () => {
    const nss = c.client.resource('v1', 'namespaces');
    await createNamespace(c.client, 'ns-a');
    await c.client.resource('v1', 'configmaps').create('ns-a', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' } } as KObject);
    await c.client.resource('v1', 'pods').create('ns-a', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } } as KObject);
    await c.client.resource('apps/v1', 'deployments').create('ns-a', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    } as KObject);
    await nss.delete('', 'ns-a');
    await c.waitFor('namespace ns-a removed', () => nsGone('ns-a'));
    assert.equal((await c.client.resource('v1', 'configmaps').list('ns-a')).items.length, 0);
    assert.equal((await c.client.resource('apps/v1', 'deployments').list('ns-a')).items.length, 0);
  });

  it('reports remaining content and finalizers in the namespace conditions, then finishes when they go', async () => {
    const nss = c.client.resource('v1', 'namespaces');
    await nss.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns-b' } } as KObject);
    const cms = c.client.resource('v1', 'configmaps');
    await cms.create('ns-b', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } } as KObject);
    await nss.delete('', 'ns-b');
    const ns = await c.waitFor('conditions', async () => {
      const n = (await nss.get('', 'ns-b')) as Namespace;
      return n.status?.conditions?.some((x) => x.type === 'NamespaceContentRemaining' && x.status === 'True') ? n : undefined;
    });
    assert.equal(ns.status?.phase, 'Terminating');
    const byType = Object.fromEntries((ns.status?.conditions ?? []).map((x) => [x.type, x]));
    assert.deepEqual(Object.keys(byType), [
      'NamespaceDeletionDiscoveryFailure',
      'NamespaceDeletionGroupVersionParsingFailure',
      'NamespaceDeletionContentFailure',
      'NamespaceContentRemaining',
      'NamespaceFinalizersRemaining',
    ]);
    assert.equal(byType.NamespaceDeletionDiscoveryFailure.reason, 'ResourcesDiscovered');
    assert.equal(byType.NamespaceDeletionDiscoveryFailure.status, 'False');
    assert.equal(byType.NamespaceDeletionGroupVersionParsingFailure.message, 'All legacy kube types successfully parsed');
    assert.equal(byType.NamespaceDeletionContentFailure.reason, 'ContentDeleted');
    assert.equal(byType.NamespaceContentRemaining.reason, 'SomeResourcesRemain');
    assert.equal(byType.NamespaceContentRemaining.message, 'Some resources are remaining: configmaps. has 1 resource instances');
    assert.equal(byType.NamespaceFinalizersRemaining.reason, 'SomeFinalizersRemain');
    assert.equal(byType.NamespaceFinalizersRemaining.message, 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances');
    assert.deepEqual(ns.spec?.finalizers, ['kubernetes']);
    await cms.patch('ns-b', 'held', 'merge', { metadata: { finalizers: null } });
    // kube looks again after half of the 15 s finalizer estimate
    await c.waitFor('namespace ns-b removed', () => nsGone('ns-b'), 15_000);
  });
});
