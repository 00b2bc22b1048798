// A list whose field selector names one object (metadata.name=X, as a kubelet's informer of its own Node) reads that
// key instead of every object of the kind, and answers as the full list would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildClusterApi, bootstrapClusterObjects } from '../../../src/cluster/api.js';
import type { KObject } from '../../../src/api/types.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';
import type { Store } from '../../../src/storage/types.js';

async function harness() {
  const store = SqliteStore.open({ path: ':memory:' });
  const listed: string[] = [];
  const seen: Store = new Proxy(store, {
    get(target, prop) {
      const v = (target as unknown as Record<string | symbol, unknown>)[prop];
      if (prop === 'list') return (prefix: string, o?: unknown) => (listed.push(prefix), store.list(prefix, o as never));
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const api = buildClusterApi(seen, { metrics: false });
  await bootstrapClusterObjects(api);
  return { api, store, listed, close: async () => (api.stop(), await store.close()) };
}

const cm = (name: string, labels: Record<string, string> = {}): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: name } }) as KObject;

describe('list with a metadata.name field selector', () => {
  it('reads the one key and answers as a full list would', async (t) => {
    const h = await harness();
    t.after(() => h.close());
    const cms = h.api.client.resource('v1', 'configmaps');
    for (const n of ['a', 'b', 'c']) await cms.create('default', cm(n, { tier: n === 'b' ? 'web' : 'db' }));
    const b = await cms.get('default', 'b');
    h.listed.length = 0;

    const one = await cms.list('default', { fieldSelector: 'metadata.name=b' });
    assert.deepEqual(one.items.map((o) => o.metadata.name), ['b']);
    assert.ok(Number(one.metadata.resourceVersion) >= Number(b.metadata.resourceVersion), 'the list covers the object');
    assert.deepEqual(h.listed, [], 'no prefix was listed');
    // the other requirements still apply
    assert.deepEqual((await cms.list('default', { fieldSelector: 'metadata.name=b', labelSelector: 'tier=db' })).items, []);
    assert.deepEqual((await cms.list('default', { fieldSelector: 'metadata.name=b,metadata.namespace=other' })).items, []);
    assert.deepEqual((await cms.list('default', { fieldSelector: 'metadata.name=absent' })).items, []);
    // a cluster-scoped kind
    const ns = await h.api.client.resource('v1', 'namespaces').list('', { fieldSelector: 'metadata.name=default' });
    assert.deepEqual(ns.items.map((o) => o.metadata.name), ['default']);
    assert.deepEqual(h.listed, []);
    // across namespaces the key is not known: the full list, filtered
    const all = await cms.list('', { fieldSelector: 'metadata.name=b' });
    assert.deepEqual(all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`), ['default/b']);
    assert.equal(h.listed.length, 1);
    // != is no single name
    const not = await cms.list('default', { fieldSelector: 'metadata.name!=b' });
    assert.deepEqual(not.items.map((o) => o.metadata.name ?? "").filter((n) => n.length === 1).sort(), ["a", "c"]);
  });

  it('serves an exact resourceVersion from the key\'s history', async (t) => {
    const h = await harness();
    t.after(() => h.close());
    const cms = h.api.client.resource('v1', 'configmaps');
    const first = await cms.create('default', cm('x'));
    await cms.update('default', { ...first, data: { k: 'changed' } } as KObject);
    const rv = first.metadata.resourceVersion!;
    const old = await cms.list('default', { fieldSelector: 'metadata.name=x', resourceVersion: rv, resourceVersionMatch: 'Exact' });
    assert.equal(old.metadata.resourceVersion, rv);
    assert.deepEqual(old.items.map((o) => (o as unknown as { data: { k: string } }).data.k), ['x']);
  });
});
