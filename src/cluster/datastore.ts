// The cluster's store: SQLite in the data directory (the default), or etcd with --datastore-endpoint. What differs
// between them for the rest of the cluster is here: how big the database is, and what the `etcd` health check asks.
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyTransformers } from '../storage/encryption/key-transformers.js';
import { EtcdStore } from '../storage/etcd/store.js';
import { SqliteStore } from '../storage/sqlite/store.js';
import type { Store } from '../storage/types.js';
import { etcdUnreachable } from './start-refused.js';

export interface DatastoreOptions {
  /** etcd endpoints, http(s)://host:port (k3s' --datastore-endpoint, comma-separated) */
  endpoints: string[];
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** the root of k1s' keys (--etcd-prefix, default /registry) */
  prefix?: string;
  /** deadline of each etcd call (default 10 s) */
  timeoutMs?: number;
}

export interface OpenedStore {
  store: Store;
  kind: 'sqlite' | 'etcd';
  /** the database's size in bytes (etcd's as its member reports it; the last known one when it does not answer) */
  dbSize(): Promise<number>;
  /** the `etcd` health check: throws when the store cannot serve */
  check(): Promise<void>;
}

/** DIR/db/<this> names the etcd a cluster's state is in, while it runs on etcd */
export const DATASTORE_MARKER = 'etcd.json';

/**
 * The etcd a data dir's state is in (DIR/db/etcd.json: endpoints, prefix and TLS files), or undefined when the
 * state is in SQLite. Commands run without the server's flags (snapshot save) connect with it.
 */
export function readDatastoreMarker(dataDir: string): DatastoreOptions | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, 'db', DATASTORE_MARKER), 'utf8');
  } catch {
    return undefined;
  }
  let m: DatastoreOptions;
  try {
    m = JSON.parse(text) as DatastoreOptions;
  } catch {
    m = { endpoints: [] };
  }
  if (!Array.isArray(m.endpoints) || !m.endpoints.length) {
    throw new Error(`${join(dataDir, 'db', DATASTORE_MARKER)} names no etcd endpoint: start the server on etcd once to write it again, or remove it if the state is in SQLite`);
  }
  return { endpoints: m.endpoints, prefix: m.prefix, caFile: m.caFile, certFile: m.certFile, keyFile: m.keyFile };
}

/** Writes DIR/db/etcd.json (see readDatastoreMarker). */
export function writeDatastoreMarker(dataDir: string, ds: DatastoreOptions): void {
  const { endpoints, prefix = '/registry', caFile, certFile, keyFile } = ds;
  writeFileSync(join(dataDir, 'db', DATASTORE_MARKER), `${JSON.stringify({ endpoints, prefix, caFile, certFile, keyFile })}\n`, { mode: 0o600 });
}


const fileSize = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

/** kube-apiserver's --etcd-healthcheck-timeout default */
const HEALTH_TIMEOUT_MS = 2000;

export async function openDatastore(opts: {
  dataDir: string;
  durability?: 'full' | 'normal';
  transformers?: KeyTransformers;
  datastore?: DatastoreOptions;
}): Promise<OpenedStore> {
  const ds = opts.datastore;
  // tools that read DIR/db/state.db directly (snapshot, history) tell from this file that the state is elsewhere
  const marker = join(opts.dataDir, 'db', DATASTORE_MARKER);
  if (!ds) {
    rmSync(marker, { force: true });
    const db = join(opts.dataDir, 'db', 'state.db');
    const store = SqliteStore.open({ path: db, durability: opts.durability, transformers: opts.transformers });
    return {
      store,
      kind: 'sqlite',
      dbSize: async () => fileSize(db) + fileSize(`${db}-wal`),
      check: async () => {
        store.currentRevision();
      },
    };
  }
  const store = await EtcdStore.open({ ...ds, transformers: opts.transformers }).catch((e: Error) => {
    throw etcdUnreachable(ds.endpoints, e);
  });
  writeDatastoreMarker(opts.dataDir, ds);
  let size = 0;
  return {
    store,
    kind: 'etcd',
    dbSize: async () => (size = await store.status().then((s) => s.dbSize, () => size)),
    check: () => store.check(HEALTH_TIMEOUT_MS),
  };
}
