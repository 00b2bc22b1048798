// The e2e tests' store matrix: with K1S_TEST_DATASTORE=etcd every server an e2e test starts keeps its state in a
// real etcd member (one per test process, started on first use) instead of SQLite, under a key prefix of its own
// derived from its data directory, so a server restarted on the same directory finds its objects again.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { DatastoreOptions } from '../../src/cluster/datastore.js';
import { EtcdCluster } from '../etcd-member.js';

export const testDatastoreKind: 'sqlite' | 'etcd' = process.env.K1S_TEST_DATASTORE === 'etcd' ? 'etcd' : 'sqlite';

let member: Promise<EtcdCluster> | undefined;

function sharedMember(): Promise<EtcdCluster> {
  member ??= EtcdCluster.start(1).then((c) => {
    // the member outlives the test file's servers; it goes with the test process
    for (const m of c.members) m.unref();
    process.once('exit', () => {
      for (const m of c.members) m.stopNow();
      rmSync(c.dir, { recursive: true, force: true, maxRetries: 3 });
    });
    return c;
  });
  return member;
}

/** The datastore of a server on `dataDir`: undefined on SQLite (the default). */
export async function testDatastore(dataDir: string): Promise<DatastoreOptions | undefined> {
  if (testDatastoreKind === 'sqlite') return undefined;
  const etcd = await sharedMember();
  return { endpoints: etcd.endpoints, prefix: `/k1s-e2e/${basename(dataDir)}` };
}

/** The same as `k1s server` flags; none when the test chose its own store. */
export async function testDatastoreArgs(dataDir: string, extraArgs: string[] = []): Promise<string[]> {
  if (extraArgs.includes('--datastore-endpoint')) return [];
  const ds = await testDatastore(dataDir);
  return ds ? ['--datastore-endpoint', ds.endpoints.join(','), '--etcd-prefix', ds.prefix!] : [];
}

/** What the server on `dataDir` has stored, as someone with the disk (SQLite: the file and its WAL) or with etcd
 *  access (the latest values under its prefix) would read it. */
export async function storedBytes(dataDir: string): Promise<Buffer> {
  const ds = await testDatastore(dataDir);
  if (!ds) {
    const db = join(dataDir, 'db', 'state.db');
    return Buffer.concat([db, `${db}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
  }
  const etcd = await sharedMember();
  return Buffer.from(await etcd.etcdctl('get', '--prefix', `${ds.prefix}/`), 'latin1');
}
