// Dumps and loads between SQLite and a real etcd member: every key arrives with its bytes as stored (encrypted
// Secrets stay encrypted), at one revision, and the copies are readable by the stores (with the same keys).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { loadEncryptionConfig } from '../../../src/apiserver/encryption/config.js';
import { KeyTransformers } from '../../../src/storage/encryption/key-transformers.js';
import { EtcdClient } from '../../../src/storage/etcd/client.js';
import { countEtcd, dumpEtcd, loadEtcd } from '../../../src/storage/etcd/dump.js';
import { KeyLayout } from '../../../src/storage/etcd/keys.js';
import { EtcdStore } from '../../../src/storage/etcd/store.js';
import { countSqlite, dumpSqlite, loadSqlite } from '../../../src/storage/sqlite/dump.js';
import { openDatabase, readMeta } from '../../../src/storage/sqlite/schema.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';
import type { Dump, DumpRow } from '../../../src/storage/dump.js';
import { EtcdCluster } from '../../etcd-member.js';

const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as typeof Database;

const dir = mkdtempSync(join(tmpdir(), 'k1s-dump-'));
let etcd: EtcdCluster;
let client: EtcdClient;
before(async () => {
  etcd = await EtcdCluster.start(1);
  client = new EtcdClient({ endpoints: etcd.endpoints, timeoutMs: 5000 });
});
after(async () => {
  client?.close();
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function transformers(): KeyTransformers {
  const path = join(dir, 'enc.yaml');
  const secret = randomBytes(32).toString('base64');
  writeFileSync(path, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n      - name: k1\n        secret: ${secret}\n  - identity: {}\n`);
  return new KeyTransformers(loadEncryptionConfig(path).overrides);
}

const SECRET = '/registry/core/secrets/default/s1';
const secretValue = JSON.stringify({ kind: 'Secret', metadata: { name: 's1' }, data: { p: Buffer.from('hunter2').toString('base64') } });
const keys = [
  ...Array.from({ length: 7 }, (_, i) => `/registry/core/configmaps/default/cm-${i}`),
  '/registry/core/events/default/ev-1',
  '/registry/apiextensions.k8s.io/customresourcedefinitions/crontabs.stable.example.com',
  '/registry/stable.example.com/crontabs/default/c1',
  '/registry/apps/deployments/default/web',
];
const valueOf = (k: string) => JSON.stringify({ key: k, pad: 'é'.repeat(3) });

/** All live rows of a SQLite file, as stored. */
function rowsOf(path: string): Map<string, { value: string | Buffer; rev: number }> {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT c.key, l.value, l.rev FROM current c JOIN log l ON l.rev = c.rev').all() as { key: string; value: string | Buffer; rev: number }[];
    return new Map(rows.map((r) => [r.key, { value: r.value, rev: r.rev }]));
  } finally {
    db.close();
  }
}

const collect = async (dump: Dump) => {
  const out: DumpRow[] = [];
  for await (const p of dump.pages()) out.push(...p);
  return out;
};

describe('dump and load between SQLite and etcd', () => {
  const t = transformers();
  const srcPath = join(dir, 'src.db');
  const backPath = join(dir, 'back.db');
  const prefix = '/dump-a';
  const layout = new KeyLayout(prefix);

  it('SQLite → etcd: every key with its stored bytes, new revisions, old ones compacted', async () => {
    const store = SqliteStore.open({ path: srcPath, transformers: t, writer: 'inline' });
    for (const k of keys) assert.ok((await store.create(k, valueOf(k))).ok);
    assert.ok((await store.create(SECRET, secretValue)).ok);
    // a deleted key and an updated one: only the latest live state is copied
    await store.create('/registry/core/configmaps/default/gone', '{}');
    await store.delete('/registry/core/configmaps/default/gone');
    const cm0 = await store.get(keys[0]!);
    await store.update(keys[0]!, '{"updated":true}', cm0!.modRevision);
    await store.close();

    const db = new BetterSqlite3(srcPath, { readonly: true });
    let loaded;
    try {
      const dump = dumpSqlite(db, { pageSize: 3 });
      loaded = await loadEtcd(client, layout, dump);
    } finally {
      db.close();
    }
    assert.equal(loaded.copied, keys.length + 1);
    assert.equal(await countEtcd(client, layout), keys.length + 1);
    // the Secret is in etcd exactly as SQLite stored it: encrypted, the same bytes
    const stored = rowsOf(srcPath).get(SECRET)!.value as Buffer;
    assert.ok(Buffer.isBuffer(stored) && stored.toString().startsWith('k8s:enc:aescbc:v1:k1:'));
    const inEtcd = (await client.range({ key: Buffer.from(layout.toEtcd(SECRET)) })).kvs[0]!.value;
    assert.ok(inEtcd.equals(stored));
    assert.equal((await etcd.etcdctl('get', '--print-value-only', `${prefix}/configmaps/default/cm-3`)).trim(), valueOf(keys[3]!));
    assert.equal((await etcd.etcdctl('get', '--print-value-only', `${prefix}/configmaps/default/cm-0`)).trim(), '{"updated":true}');
    assert.equal((await etcd.etcdctl('get', '--keys-only', `${prefix}/configmaps/default/gone`)).trim(), '');

    const s = await EtcdStore.open({ endpoints: etcd.endpoints, prefix, transformers: t, timeoutMs: 5000 });
    try {
      const secret = (await s.get(SECRET))!;
      assert.equal(secret.value, secretValue);
      // below the compaction, its revision is still its latest: whether it is stale is answered, not Compacted
      assert.equal(await s.stale(SECRET, secret.modRevision), false);
      assert.equal((await s.get(keys[9]!))!.value, valueOf(keys[9]!));
      // one revision per object, and everything before the load's last one is compacted (clients relist)
      const cms = await s.list('/registry/core/configmaps/');
      assert.equal(new Set(cms.kvs.map((kv) => kv.modRevision)).size, 7);
      assert.equal(s.compactedRevision(), loaded.revision);
    } finally {
      await s.close();
    }
  });

  it('etcd → SQLite: at one revision across pages, revisions kept, foreign keys left out', async () => {
    await etcd.etcdctl('put', `${prefix}/not-k1s`, 'x');
    const dump = await dumpEtcd(client, layout, { pageSize: 2 });
    // a write after the dump started is not in it: every page is read at the first page's revision
    await etcd.etcdctl('put', `${prefix}/configmaps/default/late`, '{}');
    const db = openDatabase(backPath, { durability: 'normal' });
    try {
      const r = await loadSqlite(db, dump);
      assert.equal(r.copied, keys.length + 1);
      assert.equal(readMeta(db, 'compacted'), dump.revision);
    } finally {
      db.close();
    }
    assert.equal(dump.skipped, 1);
    const back = rowsOf(backPath);
    const src = rowsOf(srcPath);
    assert.deepEqual([...back.keys()].sort(), [...src.keys()].sort());
    for (const [k, v] of src) assert.deepEqual(back.get(k)!.value, v.value, k);
    const inEtcd = (await client.range({ key: Buffer.from(layout.toEtcd(keys[4]!)) })).kvs[0]!;
    assert.equal(back.get(keys[4]!)!.rev, inEtcd.mod_revision);

    const s = SqliteStore.open({ path: backPath, transformers: t, writer: 'inline' });
    try {
      assert.equal((await s.get(SECRET))!.value, secretValue);
      assert.equal(s.currentRevision(), dump.revision);
      assert.ok((await s.create('/registry/core/configmaps/default/new', '{}')).ok);
    } finally {
      await s.close();
    }
  });

  it('a revision two keys share gets a new one in SQLite, and a load into a store holding keys is refused', async () => {
    const rows: DumpRow[] = [
      { key: '/registry/core/configmaps/default/a', value: '{"a":1}', modRevision: 5, createRevision: 5 },
      { key: '/registry/core/configmaps/default/b', value: '{"b":1}', modRevision: 5, createRevision: 5 },
    ];
    const dump: Dump = { revision: 9, pages: async function* () { yield rows; } };
    const path = join(dir, 'clash.db');
    const db = openDatabase(path, { durability: 'normal' });
    try {
      assert.equal((await loadSqlite(db, dump)).copied, 2);
      assert.equal(countSqlite(db), 2);
      await assert.rejects(loadSqlite(db, dump), /already holds keys/);
    } finally {
      db.close();
    }
    const back = rowsOf(path);
    assert.equal(back.get(rows[0]!.key)!.rev, 5);
    assert.equal(back.get(rows[1]!.key)!.rev, 10);
    assert.deepEqual(await collect(dump), rows);
    // etcd: a key that exists already fails the load
    await assert.rejects(loadEtcd(client, layout, { revision: 1, pages: async function* () { yield [{ ...rows[0]!, key: keys[1]! }]; } }), /exists in etcd already/);
  });
});
