// Copying a cluster's keys from one store to another (SQLite in a data dir, or etcd under a prefix): the engine of
// `k1s datastore migrate` and of snapshots of etcd clusters. The copy is logical (../storage/dump.ts): live keys at
// one revision, values as stored (Secrets stay encrypted), no history. The target must hold nothing under its
// prefix (or `force` replaces what it holds); a SQLite source or target must not be in use by a server (its lock).
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { readDatastoreMarker, writeDatastoreMarker, DATASTORE_MARKER, type DatastoreOptions } from '../cluster/datastore.js';
import type { Dump } from '../storage/dump.js';
import { EtcdClient } from '../storage/etcd/client.js';
import { clearEtcd, countEtcd, dumpEtcd, loadEtcd } from '../storage/etcd/dump.js';
import { KeyLayout } from '../storage/etcd/keys.js';
import { countSqlite, dumpSqlite, loadSqlite } from '../storage/sqlite/dump.js';
import { lockDatabase } from '../storage/sqlite/lock.js';
import { openDatabase } from '../storage/sqlite/schema.js';
import { dataDirTarget } from './clusters.js';

const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as typeof Database;

/** One end of a copy: the SQLite store of a data dir, or k1s' keys in an etcd. */
export type StoreRef = { kind: 'sqlite'; dataDir: string } | { kind: 'etcd'; etcd: DatastoreOptions };

export interface CopyResult {
  copied: number;
  /** the source's revision the copy was read at */
  revision: number;
  /** keys under the source etcd prefix that k1s did not write (left out) */
  skipped: number;
  /** keys the target held and `force` replaced */
  replaced: number;
}

export function describeRef(ref: StoreRef): string {
  if (ref.kind === 'sqlite') return `SQLite in ${ref.dataDir}`;
  return `etcd ${ref.etcd.endpoints.join(',')} under ${ref.etcd.prefix ?? '/registry'}`;
}

const dbPath = (dataDir: string) => join(dataDir, 'db', 'state.db');

/** Throws when a server runs on the data dir (its state file), or holds its database's lock; returns the release. */
function lockDataDir(dataDir: string): () => void {
  const running = dataDirTarget(dataDir, undefined).running;
  if (running) throw new Error(`a server (pid ${running.pid}) is running on ${dataDir}: stop it first`);
  mkdirSync(join(dataDir, 'db'), { recursive: true, mode: 0o700 });
  try {
    return lockDatabase(dbPath(dataDir), 0);
  } catch {
    throw new Error(`a server is running on ${dataDir} (${dbPath(dataDir)} is in use): stop it first`);
  }
}

interface Source {
  dump: Dump;
  skipped(): number;
  close(): void;
}

async function openSource(ref: StoreRef): Promise<Source> {
  if (ref.kind === 'etcd') {
    const client = new EtcdClient(ref.etcd);
    try {
      const dump = await dumpEtcd(client, new KeyLayout(ref.etcd.prefix));
      return { dump, skipped: () => dump.skipped, close: () => client.close() };
    } catch (e) {
      client.close();
      throw e;
    }
  }
  const marker = readDatastoreMarker(ref.dataDir);
  if (marker) throw new Error(`the state of ${ref.dataDir} is in etcd (${marker.endpoints.join(',')}), not in its SQLite file: copy from etcd:${marker.endpoints.join(',')}`);
  if (!existsSync(dbPath(ref.dataDir))) throw new Error(`${dbPath(ref.dataDir)} does not exist: no cluster state in ${ref.dataDir}`);
  const unlock = lockDataDir(ref.dataDir);
  try {
    const db = new BetterSqlite3(dbPath(ref.dataDir), { readonly: true, fileMustExist: true });
    return {
      dump: dumpSqlite(db),
      skipped: () => 0,
      close: () => {
        db.close();
        unlock();
      },
    };
  } catch (e) {
    unlock();
    throw e;
  }
}

/** Copies every key of `from` into `to`; `onProgress` is told the count after each page. */
export async function copyStore(from: StoreRef, to: StoreRef, opts: { force?: boolean; onProgress?: (copied: number) => void } = {}): Promise<CopyResult> {
  if (from.kind === 'sqlite' && to.kind === 'sqlite' && from.dataDir === to.dataDir) throw new Error('the source and the target are the same');
  const source = await openSource(from);
  try {
    if (to.kind === 'etcd') return await intoEtcd(source, to.etcd, opts);
    return await intoSqlite(source, to.dataDir, opts);
  } finally {
    source.close();
  }
}

async function intoEtcd(source: Source, etcd: DatastoreOptions, opts: { force?: boolean; onProgress?: (copied: number) => void }): Promise<CopyResult> {
  const client = new EtcdClient(etcd);
  const layout = new KeyLayout(etcd.prefix);
  try {
    const held = await countEtcd(client, layout);
    if (held && !opts.force) {
      throw new Error(`etcd ${etcd.endpoints.join(',')} holds ${held} keys under ${layout.root}: pick an empty --etcd-prefix, or pass --force to replace them`);
    }
    const replaced = held ? await clearEtcd(client, layout) : 0;
    const r = await loadEtcd(client, layout, source.dump, { onPage: opts.onProgress });
    return { copied: r.copied, revision: source.dump.revision, skipped: source.skipped(), replaced };
  } finally {
    client.close();
  }
}

async function intoSqlite(source: Source, dataDir: string, opts: { force?: boolean; onProgress?: (copied: number) => void }): Promise<CopyResult> {
  const unlock = lockDataDir(dataDir);
  try {
    const path = dbPath(dataDir);
    let replaced = 0;
    if (existsSync(path)) {
      const old = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
      try {
        replaced = countSqlite(old);
      } catch {
        replaced = 1; // not a k1s database: replace it only when told to
      } finally {
        old.close();
      }
      if (replaced && !opts.force) throw new Error(`${path} holds ${replaced} keys: pass --force to replace them`);
      for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
    }
    const db = openDatabase(path, { durability: 'full', locking: 'exclusive' });
    let r;
    try {
      r = await loadSqlite(db, source.dump, opts.onProgress);
    } finally {
      db.close();
    }
    // the state is in SQLite now: commands reading the data dir look there, not in the etcd it came from
    rmSync(join(dataDir, 'db', DATASTORE_MARKER), { force: true });
    return { copied: r.copied, revision: source.dump.revision, skipped: source.skipped(), replaced };
  } finally {
    unlock();
  }
}

/** After a copy from a data dir into etcd: the data dir names its new store, as a server on it would. */
export function markMovedToEtcd(dataDir: string, etcd: DatastoreOptions): void {
  writeDatastoreMarker(dataDir, etcd);
}

/** A copy's `copied N objects…` lines on stderr, at most one a second (a small copy prints none). */
export function progressLines(write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): (copied: number) => void {
  let last = performance.now();
  return (copied) => {
    const now = performance.now();
    if (now - last < 1000) return;
    last = now;
    write(`copied ${copied} objects…`);
  };
}

/** A failed copy's one-line message, with what to check when etcd did not answer. */
export function copyError(e: unknown): string {
  // grpc-js ends a connection error with an empty "Resolution note:"
  const msg = (e as Error).message.replace(/\.?\s*Resolution note:\s*$/, '');
  return /: UNAVAILABLE: /.test(msg) ? `${msg}: is etcd running there? check the URLs and the --datastore-* files` : msg;
}
