// A watch whose field selector pins spec.nodeName (every kubelet's pod watch) is indexed by that value in the
// watch hub; it must see exactly what an unindexed, filtered watch would: its pods arriving (binding), changing,
// leaving and being deleted, and nothing of other nodes' pods.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildClusterApi, bootstrapClusterObjects } from '../../../src/cluster/api.js';
import type { KObject } from '../../../src/api/types.js';
import type { ClientWatchEvent } from '../../../src/client/types.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

const pod = (name: string, nodeName?: string): KObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] } }) as KObject;

describe('watch indexed by spec.nodeName', () => {
  it('sees its node’s pods arrive, change and go, and nothing else', async (t) => {
    const store = SqliteStore.open({ path: ':memory:' });
    const api = buildClusterApi(store, { metrics: false });
    await bootstrapClusterObjects(api);
    await api.client.resource('v1', 'serviceaccounts').create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } });
    t.after(async () => (api.stop(), await store.close()));
    const pods = api.client.resource('v1', 'pods');
    const seen = (sel: string) => {
      const out: string[] = [];
      return { out, start: () => pods.watch('', { fieldSelector: sel }, (e: ClientWatchEvent) => out.push(`${e.type} ${e.object.metadata.name}`)) };
    };
    const a = seen('spec.nodeName=node-a');
    const b = seen('spec.nodeName=node-b');
    const both = seen('spec.nodeName=node-a,metadata.namespace=default'); // also indexed: by spec.nodeName
    const unbound = seen('spec.nodeName=');
    const watches = await Promise.all([a.start(), b.start(), both.start(), unbound.start()]);
    t.after(() => watches.forEach((w) => w.stop()));

    await pods.create('default', pod('p1'));
    await pods.create('default', { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p1' }, target: { kind: 'Node', name: 'node-a' } } as KObject, { subresource: 'binding' });
    await pods.patch('default', 'p1', 'merge', { metadata: { labels: { x: 'y' } } });
    await pods.create('default', pod('p2', 'node-b'));
    await pods.delete('default', 'p1', { gracePeriodSeconds: 0 });
    await new Promise((r) => setTimeout(r, 30));

    assert.deepEqual(a.out, ['ADDED p1', 'MODIFIED p1', 'DELETED p1']);
    assert.deepEqual(both.out, a.out);
    assert.deepEqual(b.out, ['ADDED p2']);
    assert.deepEqual(unbound.out, ['ADDED p1', 'DELETED p1'], 'binding moves the pod out of spec.nodeName=');
  });
});
