// PodsByNode (src/api/metrics/simulated-usage.ts), what NodeMetrics sums: it follows pods only from the first node-metrics
// read until reads stop for a while, so a cluster nobody asks for node metrics keeps no copy of its pods and no
// pod watch.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { PodsByNode } from '../../../../src/api/metrics/simulated-usage.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';

const KEY = (name: string) => `/registry/core/pods/default/${name}`;
const pod = (name: string, nodeName: string, phase = 'Running') =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c' }] }, status: { phase } });
const names = (pods: { metadata: { name?: string } }[]) => pods.map((p) => p.metadata.name).sort();

describe('PodsByNode', () => {
  const stores: SqliteStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  const open = () => {
    const s = SqliteStore.open({ path: ':memory:' });
    stores.push(s);
    return s;
  };

  it('watches nothing until asked, then indexes running pods by node and follows changes', async () => {
    const store = open();
    await store.create(KEY('a'), pod('a', 'n1'));
    await store.create(KEY('b'), pod('b', 'n1', 'Pending'));
    await store.create(KEY('c'), pod('c', 'n2'));
    const byNode = new PodsByNode(store);
    try {
      assert.equal(store.watched(KEY('a')), false, 'no pod watch before the first node-metrics read');
      await byNode.ready();
      assert.equal(store.watched(KEY('a')), true);
      assert.deepEqual(names(byNode.onNode('n1')), ['a']);
      assert.deepEqual(names(byNode.onNode('n2')), ['c']);
      const b = await store.get(KEY('b'));
      await store.update(KEY('b'), pod('b', 'n1'), b!.modRevision);
      await store.delete(KEY('c'));
      await store.create(KEY('d'), pod('d', 'n2'));
      assert.deepEqual(names(byNode.onNode('n1')), ['a', 'b']);
      assert.deepEqual(names(byNode.onNode('n2')), ['d']);
      assert.deepEqual(byNode.onNode('n3'), []);
    } finally {
      byNode.stop();
    }
    assert.equal(store.watched(KEY('a')), false, 'stop() ends the watch');
  });

  it('lets go of the pods when node metrics stop being read, and starts over at the next read', async () => {
    const store = open();
    await store.create(KEY('a'), pod('a', 'n1'));
    const byNode = new PodsByNode(store, '/registry/core/pods/', 50);
    try {
      await byNode.ready();
      assert.deepEqual(names(byNode.onNode('n1')), ['a']);
      const deadline = Date.now() + 5000;
      while (store.watched(KEY('a')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(store.watched(KEY('a')), false, 'idle: the watch is gone');
      await store.create(KEY('b'), pod('b', 'n1'));
      await byNode.ready();
      assert.deepEqual(names(byNode.onNode('n1')), ['a', 'b'], 'listed again, with what changed meanwhile');
    } finally {
      byNode.stop();
    }
  });
});
