// Objects and lists as kube-apiserver writes them, checked against its documented output: Go's field order of
// the built-in types, lists' items without kind/apiVersion, custom resources sorted as unstructured maps.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { buildClusterApi, bootstrapClusterObjects } from '../../../src/cluster/api.js';
import type { KObject } from '../../../src/api/types.js';
import { handleResource } from '../../../src/apiserver/handlers/rest.js';
import { parseRequestInfo } from '../../../src/apiserver/handlers/request-info.js';
import { jsonOf } from '../../../src/apiserver/registry/stored-json.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

describe('wire order of objects and lists', () => {
  const store = SqliteStore.open({ path: ':memory:' });
  const api = buildClusterApi(store, { metrics: false });
  after(async () => {
    api.stop();
    await store.close();
  });
  const admin = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
  const call = async (method: string, path: string, body?: unknown) => {
    const [p, qs] = path.split('?');
    const query = new URLSearchParams(qs ?? '');
    const res = await handleResource(api.registry, {
      info: parseRequestInfo(method, p!, query),
      query,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      user: admin,
      serializesResponse: true,
      respondsWithJson: true,
    });
    return { code: res.code, text: jsonOf(res.body, res.wire) };
  };

  it('a Service as kube writes it: ServiceSpec and ServicePort in Go field order, whatever order the body had', async () => {
    await bootstrapClusterObjects(api);
    const body = {
      spec: { type: 'ClusterIP', selector: { b: '1', a: '2' }, ports: [{ targetPort: 9376, port: 80, protocol: 'TCP', name: 'http' }] },
      metadata: { labels: { z: '1', a: '2' }, name: 's' },
      kind: 'Service',
      apiVersion: 'v1',
    };
    const created = await call('POST', '/api/v1/namespaces/default/services', body);
    assert.equal(created.code, 201);
    const got = await call('GET', '/api/v1/namespaces/default/services/s');
    for (const { text } of [created, got]) {
      const o = JSON.parse(text) as KObject & { spec: Record<string, unknown> };
      assert.deepEqual(Object.keys(o), ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
      assert.deepEqual(Object.keys(o.metadata), ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'labels', 'managedFields']);
      assert.deepEqual(Object.keys(o.metadata.labels!), ['a', 'z']);
      assert.deepEqual(Object.keys(o.spec), [
        'ports', 'selector', 'clusterIP', 'clusterIPs', 'type', 'sessionAffinity', 'ipFamilies', 'ipFamilyPolicy', 'internalTrafficPolicy',
      ]);
      assert.deepEqual(Object.keys((o.spec.ports as object[])[0]!), ['name', 'protocol', 'port', 'targetPort']);
      assert.deepEqual(Object.keys(o.spec.selector as object), ['a', 'b']);
    }
    assert.equal(created.text, got.text);
  });

  it('a typed list: kind, apiVersion, ListMeta, then items without kind and apiVersion', async () => {
    for (const n of ['a', 'b']) await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, data: { y: '1', x: '2' } });
    const page = JSON.parse((await call('GET', '/api/v1/namespaces/default/configmaps?limit=1')).text) as Record<string, unknown> & { items: Record<string, unknown>[] };
    assert.deepEqual(Object.keys(page), ['kind', 'apiVersion', 'metadata', 'items']);
    assert.deepEqual(Object.keys(page.metadata as object), ['resourceVersion', 'continue', 'remainingItemCount']);
    assert.deepEqual(Object.keys(page.items[0]!), ['metadata', 'data']);
    assert.deepEqual(Object.keys(page.items[0]!.data as object), ['x', 'y']);
    const all = JSON.parse((await call('GET', '/api/v1/namespaces/default/configmaps')).text) as { metadata: object };
    assert.deepEqual(Object.keys(all.metadata), ['resourceVersion']);
    // the in-process client keeps kind and apiVersion on items: only the wire drops them
    const listed = await api.client.resource('v1', 'configmaps').list('default');
    assert.equal(listed.items[0]!.kind, 'ConfigMap');
  });

  it('a custom resource and its list are sorted maps, the list\'s metadata with an empty continue', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'crontabs.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        scope: 'Namespaced',
        names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    await api.customResources.start();
    assert.equal((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).code, 201);
    for (let i = 0; i < 100 && !api.registry.forKind('stable.example.com/v1', 'CronTab'); i++) await new Promise((r) => setTimeout(r, 20));
    const cr = { spec: { z: 1, a: { y: 2, b: 3 } }, metadata: { name: 't', labels: { z: '1', a: '2' } }, kind: 'CronTab', apiVersion: 'stable.example.com/v1' };
    const created = await call('POST', '/apis/stable.example.com/v1/namespaces/default/crontabs', cr);
    assert.equal(created.code, 201);
    const o = JSON.parse(created.text) as KObject & { spec: Record<string, unknown> };
    assert.deepEqual(Object.keys(o), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.deepEqual(Object.keys(o.metadata), ['creationTimestamp', 'generation', 'labels', 'managedFields', 'name', 'namespace', 'resourceVersion', 'uid']);
    assert.deepEqual(Object.keys(o.spec.a as object), ['b', 'y']);
    const list = JSON.parse((await call('GET', '/apis/stable.example.com/v1/namespaces/default/crontabs')).text) as Record<string, unknown> & { items: KObject[] };
    assert.deepEqual(Object.keys(list), ['apiVersion', 'items', 'kind', 'metadata']);
    assert.deepEqual(list.metadata, { continue: '', resourceVersion: (list.metadata as { resourceVersion: string }).resourceVersion });
    assert.equal(list.items[0]!.kind, 'CronTab');
    assert.equal(JSON.stringify(list.items[0]), created.text);
  });
});
