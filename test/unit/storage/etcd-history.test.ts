// A key's history read from a real etcd member: every put and delete back to the compaction, a deleted and
// re-created key included, the same rows SQLite's log holds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EtcdClient } from '../../../src/storage/etcd/client.js';
import { etcdKeyHistory } from '../../../src/storage/etcd/history.js';
import { EtcdStore } from '../../../src/storage/etcd/store.js';
import { EtcdCluster } from '../../etcd-member.js';

let etcd: EtcdCluster;
let client: EtcdClient;
let store: EtcdStore;
before(async () => {
  etcd = await EtcdCluster.start(1);
  client = new EtcdClient({ endpoints: etcd.endpoints, timeoutMs: 5000 });
  store = await EtcdStore.open({ endpoints: etcd.endpoints, prefix: '/h', timeoutMs: 5000 });
});
after(async () => {
  await store?.close();
  client?.close();
  await etcd?.stop();
});

const K = '/registry/core/configmaps/default/cfg';
const etcdKey = '/h/configmaps/default/cfg';

test('every revision of a key, across a delete and a re-create, and from the compaction on', async () => {
  const c1 = await store.create(K, '{"v":1}');
  assert.ok(c1.ok);
  await store.create('/registry/core/configmaps/default/other', '{}');
  const u1 = await store.update(K, '{"v":2}', c1.kv.modRevision);
  assert.ok(u1.ok);
  const d = await store.delete(K);
  assert.ok(d.ok);
  const c2 = await store.create(K, '{"v":3}');
  assert.ok(c2.ok);
  const u2 = await store.update(K, '{"v":4}', c2.kv.modRevision);
  assert.ok(u2.ok);

  const all = await etcdKeyHistory(client, etcdKey);
  assert.deepEqual(all.map((r) => [r.revision, r.deleted, r.value]), [
    [c1.kv.modRevision, false, '{"v":1}'],
    [u1.kv.modRevision, false, '{"v":2}'],
    [d.kv.modRevision, true, '{"v":2}'],
    [c2.kv.modRevision, false, '{"v":3}'],
    [u2.kv.modRevision, false, '{"v":4}'],
  ]);
  assert.equal(all[3]!.createRevision, c2.kv.modRevision);
  assert.equal(all[4]!.createRevision, c2.kv.modRevision);

  // compacted after the re-create: the value at the compaction, then what followed
  await store.compact(c2.kv.modRevision + 0);
  const since = await etcdKeyHistory(client, etcdKey);
  assert.deepEqual(since.map((r) => r.revision), [c2.kv.modRevision, u2.kv.modRevision]);

  // a deleted key: its events up to the delete (the watch ends once etcd has nothing more)
  const gone = '/registry/core/configmaps/default/gone';
  const g = await store.create(gone, '{"g":1}');
  assert.ok(g.ok);
  const gd = await store.delete(gone);
  assert.ok(gd.ok);
  const t0 = Date.now();
  const h = await etcdKeyHistory(client, '/h/configmaps/default/gone', { quietMs: 300 });
  assert.deepEqual(h.map((r) => [r.revision, r.deleted]), [[g.kv.modRevision, false], [gd.kv.modRevision, true]]);
  assert.ok(Date.now() - t0 < 3000);
  assert.deepEqual(await etcdKeyHistory(client, '/h/configmaps/default/never', { quietMs: 200 }), []);
});
