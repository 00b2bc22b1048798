// Autoregistration of Local APIServices: the built-in group versions at start, CRD ones as CRDs come and go, and
// APIServices nobody manages left alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { APIService } from '../../../../src/api/apiregistration/index.js';
import { buildClusterApi, bootstrapClusterObjects, type ClusterApi } from '../../../../src/cluster/api.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';
import { until } from '../../../e2e/harness.js';

let store: SqliteStore;
let api: ClusterApi;
const apiservices = () => api.client.resource('apiregistration.k8s.io/v1', 'apiservices');
const get = (name: string) => apiservices().get('', name).then((o) => o as APIService, () => undefined);
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
};

before(async () => {
  store = SqliteStore.open({ path: ':memory:' });
  api = buildClusterApi(store);
  await bootstrapClusterObjects(api);
  // a stale onstart APIService from an earlier start, and one somebody else manages
  await apiservices().create('', { metadata: { name: 'v1beta1.gone.k8s.io', labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } }, spec: { group: 'gone.k8s.io', version: 'v1beta1', groupPriorityMinimum: 10, versionPriority: 10 } } as never);
  await apiservices().create('', { metadata: { name: 'v1.mine.example.com' }, spec: { group: 'mine.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10 } } as never);
  await api.customResources.start();
  await api.aggregator.start();
});

after(async () => {
  api.stop();
  await store.close();
});

describe('autoregistration', () => {
  it('registers the built-in group versions with kube\'s priorities, metrics.k8s.io included, and drops stale ones', async () => {
    const core = await get('v1.');
    assert.deepEqual(core?.spec, { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    assert.equal(core?.metadata.labels?.['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
    assert.equal(core?.status?.conditions?.[0]?.reason, 'Local');
    assert.ok(await get('v1beta1.metrics.k8s.io'));
    assert.ok(await get('v2.autoscaling'));
    assert.equal(await get('v1.apiregistration.k8s.io'), undefined, 'the aggregator\'s own group has none');
    assert.equal(await get('v1beta1.gone.k8s.io'), undefined);
    assert.ok(await get('v1.mine.example.com'), 'unmanaged APIServices stay');
  });

  it('follows a CRD\'s served versions', async () => {
    await api.client.resource('apiextensions.k8s.io/v1', 'customresourcedefinitions').create('', crd as never);
    await until(async () => (await get('v1.example.com')) && (await get('v1beta1.example.com')), 'the CRD\'s APIServices', 10_000);
    const v1 = await get('v1.example.com');
    assert.equal(v1?.metadata.labels?.['kube-aggregator.kubernetes.io/automanaged'], 'true');
    assert.deepEqual(v1?.spec, { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    await api.client.resource('apiextensions.k8s.io/v1', 'customresourcedefinitions').delete('', 'widgets.example.com');
    await until(async () => !(await get('v1.example.com')) && !(await get('v1beta1.example.com')), 'the APIServices to go', 10_000);
  });
});
