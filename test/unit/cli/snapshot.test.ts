import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterPaths, readState } from '../../../src/cli/clusters.js';
import { readManifest, restoreSnapshot, saveSnapshot, portableServerArgs } from '../../../src/cli/snapshot.js';
import { nodeImages, restoredImages } from '../../../src/cli/snapshot-images.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

function tempBase(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'k1s-snap-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A cluster data dir as the server leaves it: db/state.db (filled through the real store) and tls/ keys. */
async function makeCluster(base: string, name: string, objects: number): Promise<{ store: SqliteStore; paths: ReturnType<typeof clusterPaths> }> {
  const paths = clusterPaths(name, base);
  mkdirSync(join(paths.dir, 'db'), { recursive: true });
  mkdirSync(paths.tls, { recursive: true, mode: 0o700 });
  writeFileSync(join(paths.tls, 'ca.crt'), 'CERT', { mode: 0o644 });
  writeFileSync(join(paths.tls, 'ca.key'), 'KEY', { mode: 0o600 });
  // the writer thread: the mode `k1s start` runs the server in, whose file other processes can read
  const store = SqliteStore.open({ path: paths.db, writer: 'thread', durability: 'normal' });
  const value = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { i: String(i), pad: 'x'.repeat(200) } });
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < objects; i++) writes.push(store.create(`/registry/core/configmaps/default/cm-${i}`, value(i)));
  writes.push(store.create('/registry/core/nodes/old-node', JSON.stringify({ kind: 'Node', metadata: { name: 'old-node' } })));
  writes.push(store.create('/registry/coordination.k8s.io/leases/kube-system/kube-scheduler', JSON.stringify({ kind: 'Lease', metadata: { name: 'kube-scheduler' } })));
  await Promise.all(writes);
  return { store, paths };
}

test('snapshot of a running store at 10,000 objects: consistent, restored as a fork, well under a second each', async (t) => {
  const base = tempBase(t);
  const { store, paths } = await makeCluster(base, 'src', 10_000);
  t.after(() => store.close());
  const file = join(base, 'snap.tar');
  // writes keep landing while the snapshot is taken
  let writing = true;
  let n = 0;
  const writer = (async () => {
    while (writing) await store.create(`/registry/core/configmaps/busy/cm-${n++}`, JSON.stringify({ kind: 'ConfigMap', metadata: { name: `b${n}` } }));
  })();
  const t0 = performance.now();
  const manifest = await saveSnapshot(paths, file, { serverArgs: ['--data-dir', paths.dir, '--https-listen-port', '6443', '--simulated-nodes', '3', '--disable-agent'] });
  const saveMs = performance.now() - t0;
  writing = false;
  await writer;
  assert.ok(manifest.objects >= 10_002, `objects ${manifest.objects}`);
  // one revision: the live objects are exactly the creates up to that revision (every write here is a create)
  assert.equal(manifest.objects, manifest.revision);
  assert.deepEqual(manifest.serverArgs, ['--simulated-nodes', '3', '--disable-agent']);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual((await readManifest(file)).revision, manifest.revision);

  const target = clusterPaths('fork', base);
  const t1 = performance.now();
  const { dropped } = await restoreSnapshot(file, target);
  const restoreMs = performance.now() - t1;
  console.log(`10,000 objects: save ${saveMs.toFixed(0)} ms, restore ${restoreMs.toFixed(0)} ms, ${statSync(file).size} bytes`);
  assert.ok(saveMs < 1000, `save took ${saveMs} ms`);
  assert.ok(restoreMs < 1000, `restore took ${restoreMs} ms`);
  assert.equal(dropped, 2, 'the old node and the lease are dropped');
  assert.equal(statSync(join(target.tls, 'ca.key')).mode & 0o777, 0o600);
  assert.equal(statSync(target.dir).mode & 0o777, 0o700);
  assert.deepEqual(readState(target)?.serverArgs, ['--simulated-nodes', '3', '--disable-agent']);

  // the restored store opens and serves the same objects, without the node and lease, deleted at new revisions
  const restored = SqliteStore.open({ path: target.db, writer: 'inline' });
  try {
    const cms = await restored.list('/registry/core/configmaps/default/');
    assert.equal(cms.kvs.length, 10_000);
    assert.equal((await restored.list('/registry/core/nodes/')).kvs.length, 0);
    assert.equal((await restored.list('/registry/coordination.k8s.io/leases/')).kvs.length, 0);
    assert.equal(restored.currentRevision(), manifest.revision + 2);
  } finally {
    await restored.close();
  }

  // restoring over an existing cluster is refused and changes nothing
  await assert.rejects(restoreSnapshot(file, target), /already exists: delete it first/);
});

test('snapshot save says what to do when the server holds the database exclusively', async (t) => {
  const base = tempBase(t);
  const paths = clusterPaths('excl', base);
  mkdirSync(join(paths.dir, 'db'), { recursive: true });
  // checkpoints in the commits: the store's one connection locks the file exclusively
  const store = SqliteStore.open({ path: paths.db, writer: 'inline', checkpointer: 'inline' });
  t.after(() => store.close());
  await store.create('/registry/core/configmaps/default/a', '{}');
  await assert.rejects(saveSnapshot(paths, join(base, 's.tar')), /K1S_SQLITE_CHECKPOINTER=inline.*stop it, or run it without that setting/);
});

test('snapshot save copies the database of a server committing on its main thread (k1s server)', async (t) => {
  const base = tempBase(t);
  const paths = clusterPaths('inline', base);
  mkdirSync(join(paths.dir, 'db'), { recursive: true });
  // the default: commits on the main thread, checkpoints on a thread of their own (a second connection)
  const store = SqliteStore.open({ path: paths.db, writer: 'inline' });
  t.after(() => store.close());
  await store.create('/registry/core/configmaps/default/a', '{}');
  const file = join(base, 's.tar');
  await saveSnapshot(paths, file);
  assert.equal((await readManifest(file)).revision, store.currentRevision());
});

test('a file that is not a snapshot is refused before anything is created', async (t) => {
  const base = tempBase(t);
  const bogus = join(base, 'bogus.tar');
  writeFileSync(bogus, Buffer.alloc(1024));
  const target = clusterPaths('x', base);
  await assert.rejects(restoreSnapshot(bogus, target), /not a k1s snapshot/);
  await assert.rejects(restoreSnapshot(join(base, 'missing.tar'), target), /does not exist/);
  assert.throws(() => statSync(target.dir));
});

test('portableServerArgs drops where the old cluster lived', () => {
  assert.deepEqual(portableServerArgs(['--data-dir', '/a', '--simulated-nodes', '2', '--write-kubeconfig', '/k', '--https-listen-port', '1']), ['--simulated-nodes', '2']);
});

test('the image list travels in the manifest and is what a restored cluster checks its node against', async (t) => {
  const base = tempBase(t);
  const { store, paths } = await makeCluster(base, 'imgs', 3);
  t.after(() => store.close());
  const images = [
    { name: 'k1s.local/busybox:1.35', id: 'sha256:b', size: 2_129_116 },
    { name: 'k1s.local/pause:3.10', id: 'sha256:p', size: 689_304 },
  ];
  const file = join(base, 'imgs.tar');
  const m = await saveSnapshot(paths, file, { serverArgs: ['--cni-bridge', 'k1sacc0'], images });
  assert.deepEqual(m.images, images);
  assert.deepEqual((await readManifest(file)).images, images);
  const target = clusterPaths('fork', base);
  await restoreSnapshot(file, target);
  assert.deepEqual(restoredImages(target), images);
  assert.equal(restoredImages(clusterPaths('never', base)), undefined);
  // no list (API-only cluster, or its node not running): the manifest says nothing rather than "no images"
  const plain = await saveSnapshot(paths, join(base, 'plain.tar'), { serverArgs: ['--disable-agent'] });
  assert.equal('images' in plain, false);
  assert.equal(await nodeImages(paths, ['--disable-agent']), undefined);
  assert.equal(await nodeImages(paths, []), undefined, 'no containerd answers under the data dir');
});
