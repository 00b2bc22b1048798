// The copy engine of `k1s datastore migrate` and etcd snapshots against a real etcd member: what it refuses (a
// target holding keys, a data dir in use, a SQLite file that is not the state), what --force replaces, and the
// command's bookkeeping for a `k1s start` cluster (its stored flags, db/etcd.json, the next line it prints).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { copyStore, type StoreRef } from '../../../src/cli/datastore-copy.js';
import { readDatastoreMarker } from '../../../src/cluster/datastore.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';
import { EtcdCluster } from '../../etcd-member.js';
import { fixture, run } from './cli-fixture.js';

let etcd: EtcdCluster;
before(async () => {
  etcd = await EtcdCluster.start(1);
});
after(async () => {
  await etcd?.stop();
});

async function sqliteCluster(dir: string, n: number): Promise<void> {
  mkdirSync(join(dir, 'db'), { recursive: true });
  const store = SqliteStore.open({ path: join(dir, 'db', 'state.db'), writer: 'inline', durability: 'normal' });
  for (let i = 0; i < n; i++) await store.create(`/registry/core/configmaps/default/cm-${i}`, JSON.stringify({ i }));
  await store.close();
}

test('refusals and --force, both ways', async (t) => {
  const { dir } = fixture(t);
  const a = join(dir, 'a');
  await sqliteCluster(a, 5);
  const src: StoreRef = { kind: 'sqlite', dataDir: a };
  const to: StoreRef = { kind: 'etcd', etcd: { endpoints: etcd.endpoints, prefix: '/copy' } };

  // a server holds the source's lock
  const running = SqliteStore.open({ path: join(a, 'db', 'state.db'), writer: 'inline', durability: 'normal' });
  await assert.rejects(copyStore(src, to), /^Error: a server is running on .*\/a \(.*state\.db is in use\): stop it first$/);
  await running.close();

  assert.equal((await copyStore(src, to)).copied, 5);
  await assert.rejects(copyStore(src, to), /holds 5 keys under \/copy\/: pick an empty --etcd-prefix, or pass --force to replace them/);
  const forced = await copyStore(src, to, { force: true });
  assert.deepEqual([forced.copied, forced.replaced], [5, 5]);

  // into a SQLite file that holds keys: refused, then replaced
  const b = join(dir, 'b');
  await sqliteCluster(b, 2);
  await assert.rejects(copyStore(to, { kind: 'sqlite', dataDir: b }), /state\.db holds 2 keys: pass --force to replace them/);
  const back = await copyStore(to, { kind: 'sqlite', dataDir: b }, { force: true });
  assert.deepEqual([back.copied, back.replaced], [5, 2]);

  // a data dir whose state is in etcd is not copied from its (stale) SQLite file
  writeFileSync(join(b, 'db', 'etcd.json'), JSON.stringify({ endpoints: etcd.endpoints, prefix: '/copy' }));
  await assert.rejects(copyStore({ kind: 'sqlite', dataDir: b }, { ...to, etcd: { ...to.etcd, prefix: '/other' } }), /the state of .*\/b is in etcd .*: copy from etcd:/);
  await assert.rejects(copyStore(src, src), /the source and the target are the same/);
});

test('k1s datastore migrate of a k1s start cluster: its flags and db/etcd.json follow the store', async (t) => {
  const { k1s, env } = fixture(t);
  const dev = join(env.K1S_HOME!, 'dev');
  await sqliteCluster(dev, 3);
  const url = etcd.endpoints[0]!;
  const there = await run(k1s, ['datastore', 'migrate', '--from', `sqlite:${dev}`, '--to', `etcd:${url}`, '--etcd-prefix', '/dev'], { env });
  assert.equal(there.code, 0, there.stderr);
  assert.match(there.stderr, /^copying the objects of SQLite in .*\/dev to etcd .* under \/dev…$/m);
  assert.match(there.stdout, /^copied 3 objects from SQLite in .*\/dev to etcd http:\/\/127\.0\.0\.1:\d+ under \/dev \(source revision 3; \d+ ms\)\nnext: k1s start dev \(its server flags now name the etcd\)$/m);
  const state = () => (JSON.parse(readFileSync(join(dev, 'k1s-cluster.json'), 'utf8')) as { serverArgs: string[] }).serverArgs;
  assert.deepEqual(state(), ['--disable-agent', '--datastore-endpoint', url, '--etcd-prefix', '/dev']);
  assert.deepEqual(readDatastoreMarker(dev), { endpoints: [url], prefix: '/dev', caFile: undefined, certFile: undefined, keyFile: undefined });

  const back = await run(k1s, ['datastore', 'migrate', '--from', `etcd:${url}`, '--etcd-prefix', '/dev', '--to', `sqlite:${dev}`, '--force'], { env });
  assert.equal(back.code, 0, back.stderr);
  assert.match(back.stdout, /^next: k1s start dev \(its server flags no longer name an etcd\)$/m);
  assert.deepEqual(state(), ['--disable-agent']);
  assert.equal(existsSync(join(dev, 'db', 'etcd.json')), false);
});
