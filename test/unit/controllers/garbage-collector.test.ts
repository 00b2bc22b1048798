import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { garbageCollectorController, gcResourcesFrom, type GCResource } from '../../../src/controllers/garbage-collector/controller.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, type ControllerCluster } from './harness.js';

const resources: GCResource[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true },
  { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet', plural: 'replicasets', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
];

const ref = (o: KObject, extra: { blockOwnerDeletion?: boolean; controller?: boolean } = {}) => ({
  apiVersion: o.apiVersion!,
  kind: o.kind!,
  name: o.metadata.name!,
  uid: o.metadata.uid!,
  ...extra,
});

const cm = (name: string, meta: Record<string, unknown> = {}): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta } }) as KObject;

async function gone(c: ControllerCluster, plural: string, name: string, ns = 'default'): Promise<boolean> {
  try {
    await c.client.resource('v1', plural).get(ns, name);
    return false;
  } catch (e) {
    return e instanceof StatusError && e.code === 404;
  }
}

describe('garbage collector', () => {
  let c: ControllerCluster;
  before(async () => {
    c = await controllerCluster([garbageCollectorController({ resources })]);
  });
  after(() => c.close());

  it('background: dependents go after the owner is deleted', async () => {
    const cms = c.client.resource('v1', 'configmaps');
    const owner = await cms.create('default', cm('bg-owner'));
    await cms.create('default', cm('bg-dep1', { ownerReferences: [ref(owner)] }));
    const sec = await c.client.resource('v1', 'secrets').create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bg-dep2', ownerReferences: [ref(owner)] } } as KObject);
    assert.ok(sec.metadata.uid);
    await cms.delete('default', 'bg-owner', { propagationPolicy: 'Background' });
    await c.waitFor('configmap dependent deleted', () => gone(c, 'configmaps', 'bg-dep1'));
    await c.waitFor('secret dependent deleted', () => gone(c, 'secrets', 'bg-dep2'));
  });

  it('background through two levels (owner → replicaset → pod)', async () => {
    const owner = await c.client.resource('v1', 'configmaps').create('default', cm('chain-owner'));
    const rs = await c.client.resource('apps/v1', 'replicasets').create('default', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'chain-rs', ownerReferences: [ref(owner, { controller: true, blockOwnerDeletion: true })] },
      spec: { replicas: 0, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    } as KObject);
    await c.client.resource('v1', 'pods').create('default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'chain-pod', ownerReferences: [ref(rs, { controller: true, blockOwnerDeletion: true })] },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    } as KObject);
    await c.client.resource('v1', 'configmaps').delete('default', 'chain-owner');
    await c.waitFor('pod deleted', () => gone(c, 'pods', 'chain-pod'));
    await c.waitFor('replicaset deleted', async () => {
      try {
        await c.client.resource('apps/v1', 'replicasets').get('default', 'chain-rs');
        return false;
      } catch (e) {
        return (e as StatusError).code === 404;
      }
    });
  });

  it('foreground: the owner keeps its finalizer until blocking dependents are gone', async () => {
    const cms = c.client.resource('v1', 'configmaps');
    const owner = await cms.create('default', cm('fg-owner'));
    // the blocking dependent is held by a finalizer of its own, so the owner must wait for it
    await cms.create('default', cm('fg-block', { ownerReferences: [ref(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] }));
    await cms.create('default', cm('fg-free', { ownerReferences: [ref(owner)] }));
    await cms.delete('default', 'fg-owner', { propagationPolicy: 'Foreground' });
    await c.waitFor('non-blocking dependent deleted', () => gone(c, 'configmaps', 'fg-free'));
    await c.waitFor('blocking dependent marked for deletion', async () => !!(await cms.get('default', 'fg-block')).metadata.deletionTimestamp);
    await new Promise((r) => setTimeout(r, 150));
    const waiting = await cms.get('default', 'fg-owner');
    assert.ok(waiting.metadata.deletionTimestamp);
    assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);
    await cms.patch('default', 'fg-block', 'merge', { metadata: { finalizers: null } });
    await c.waitFor('owner deleted after its blocking dependent', () => gone(c, 'configmaps', 'fg-owner'));
  });

  it('orphan: dependents stay without the owner reference', async () => {
    const cms = c.client.resource('v1', 'configmaps');
    const owner = await cms.create('default', cm('or-owner'));
    const other = await cms.create('default', cm('or-other'));
    await cms.create('default', cm('or-dep', { ownerReferences: [ref(owner, { blockOwnerDeletion: true }), ref(other)] }));
    await cms.create('default', cm('or-dep2', { ownerReferences: [ref(owner)] }));
    await cms.delete('default', 'or-owner', { propagationPolicy: 'Orphan' });
    await c.waitFor('owner deleted', () => gone(c, 'configmaps', 'or-owner'));
    const dep = await cms.get('default', 'or-dep');
    assert.deepEqual(dep.metadata.ownerReferences?.map((r) => r.name), ['or-other']);
    const dep2 = await cms.get('default', 'or-dep2');
    assert.equal(dep2.metadata.ownerReferences, undefined);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(await cms.get('default', 'or-dep2'));
  });

  it('a dangling owner reference (uid that does not exist) gets the dependent deleted; a live owner keeps it', async () => {
    const cms = c.client.resource('v1', 'configmaps');
    const live = await cms.create('default', cm('dg-live'));
    await cms.create('default', cm('dg-kept', { ownerReferences: [ref(live)] }));
    await cms.create('default', cm('dg-dep', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'dg-live', uid: '00000000-0000-0000-0000-000000000001' }] }));
    await c.waitFor('dangling dependent deleted', () => gone(c, 'configmaps', 'dg-dep'));
    assert.ok(await cms.get('default', 'dg-kept'));
  });

  it('cluster-scoped owners work for namespaced dependents; a dependent with one live owner loses only the dangling reference', async () => {
    const nsOwner = await c.client.resource('rbac.authorization.k8s.io/v1', 'clusterroles').create('', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-owner-role' }, rules: [] } as KObject);
    const cms = c.client.resource('v1', 'configmaps');
    const other = await cms.create('default', cm('cs-other'));
    await cms.create('default', cm('cs-dep', { ownerReferences: [ref(nsOwner), ref(other)] }));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await cms.get('default', 'cs-dep')).metadata.ownerReferences?.length, 2);
    await c.client.resource('rbac.authorization.k8s.io/v1', 'clusterroles').delete('', 'gc-owner-role');
    await c.waitFor('dangling reference removed', async () => (await cms.get('default', 'cs-dep')).metadata.ownerReferences?.length === 1);
    await cms.delete('default', 'cs-other');
    await c.waitFor('dependent deleted once its last owner is gone', () => gone(c, 'configmaps', 'cs-dep'));
  });

  it('a cluster-scoped dependent naming a namespaced owner is reported and kept', async () => {
    const owner = await c.client.resource('v1', 'configmaps').create('default', cm('inv-owner'));
    const roles = c.client.resource('rbac.authorization.k8s.io/v1', 'clusterroles');
    await roles.create('', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-inv-dep', ownerReferences: [ref(owner)] }, rules: [] } as KObject);
    await c.waitFor('OwnerRefInvalidNamespace event', async () =>
      (await c.client.resource('v1', 'events').list('default')).items.some((e) => (e as { reason?: string }).reason === 'OwnerRefInvalidNamespace'),
    );
    assert.ok(await roles.get('', 'gc-inv-dep'));
  });
});

describe('garbage collector over every registry resource', () => {
  it('starts informers for the whole list and cascades across groups', async () => {
    let resources: GCResource[] = [];
    const c = await controllerCluster([(ctx) => garbageCollectorController({ resources })(ctx)], {
      configure(api) {
        resources = gcResourcesFrom(api.registry.definitions);
      },
    });
    try {
      assert.ok(resources.some((r) => r.plural === 'deployments') && resources.some((r) => r.plural === 'leases'));
      assert.equal(new Set(resources.map((r) => `${r.apiVersion.split('/')[0]}/${r.plural}`)).size, resources.length);
      const dep = await c.client.resource('apps/v1', 'deployments').create('default', {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'owner' },
        spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
      } as KObject);
      await c.client.resource('coordination.k8s.io/v1', 'leases').create('default', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'dep', ownerReferences: [ref(dep)] }, spec: {} } as KObject);
      await c.client.resource('apps/v1', 'deployments').delete('default', 'owner');
      await c.waitFor('lease deleted', async () => {
        try {
          await c.client.resource('coordination.k8s.io/v1', 'leases').get('default', 'dep');
          return false;
        } catch (e) {
          return (e as StatusError).code === 404;
        }
      });
    } finally {
      await c.close();
    }
  });
});
