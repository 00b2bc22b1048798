// `k1s snapshot save|restore`: a cluster's whole state in one tar file, taken consistently while it runs.
//
// The database is copied with SQLite's online backup API in a single step, i.e. inside one read transaction of
// the WAL database: the copy is exactly one committed revision even while the server writes (its connections do
// not lock the file exclusively: they share it with the store's writer or checkpointer thread). Certificates and keys go along, so
// ServiceAccount tokens and kubeconfigs of the snapshot stay valid, and so does the --secrets-encryption key.
//
// A cluster on etcd (DATA-DIR/db/etcd.json) is saved as a logical copy instead (datastore-copy.ts): its keys at one
// revision, values as stored, written into the same db/state.db a SQLite snapshot holds, so that every snapshot
// restores into SQLite or into etcd alike. etcd's own snapshot (Maintenance.Snapshot) would be the whole etcd
// database, other users' keys included, and restoring it takes `etcdutl snapshot restore` into new member
// directories, which k1s does not own.
//
// Restoring is a fork: the objects are those of the snapshot, but what belonged to the running processes of the
// old cluster is deleted (as real deletes, with revisions, so history and watches stay consistent): Node objects
// (their kubelets do not exist here; the new cluster's nodes register again and controllers re-create pods whose
// node is gone) and Leases (leader election and node heartbeats of old processes would otherwise block the new
// controllers until they expire).
import { createRequire } from 'node:module';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import * as tar from 'tar';
import { openDatabase, readCurrentRevision } from '../storage/sqlite/schema.js';
import { SqliteWrites, batchTransaction, type WriteOp } from '../storage/sqlite/writes.js';
import { writeState, type ClusterPaths } from './clusters.js';
import type { SnapshotImage } from './snapshot-images.js';
import { DATASTORE_MARKER, readDatastoreMarker, writeDatastoreMarker, type DatastoreOptions } from '../cluster/datastore.js';
import { copyStore } from './datastore-copy.js';
import { datastoreArgs } from './datastore-flags.js';

const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as typeof Database;

export const SNAPSHOT_FORMAT = 'k1s.dev/snapshot/v1';

export interface SnapshotManifest {
  format: string;
  createdAt: string;
  /** name of the cluster it was taken from */
  cluster: string;
  /** the store revision the copy holds */
  revision: number;
  /** the store it was taken from (absent: sqlite, as before etcd snapshots) */
  datastore?: 'sqlite' | 'etcd';
  /** live objects in it */
  objects: number;
  /** the server flags worth keeping for a cluster started from it (simulated nodes, --disable-agent, …) */
  serverArgs: string[];
  files: string[];
  /** the images of the cluster's real node when it was taken (absent: no real node, or it was not running) */
  images?: SnapshotImage[];
}

/**
 * A read-only connection to a cluster's store, usable while the server runs (WAL readers do not block the writer).
 * Throws a message saying what to do when the server holds the file exclusively.
 */
export function openStoreReadonly(dbPath: string): Database.Database {
  const etcd = join(dirname(dbPath), DATASTORE_MARKER);
  if (existsSync(etcd)) {
    let where = '';
    try {
      where = ` (${(JSON.parse(readFileSync(etcd, 'utf8')) as { endpoints: string[] }).endpoints.join(',')})`;
    } catch {
      // the message without the endpoints
    }
    throw new Error(
      `this cluster keeps its state in etcd${where}, which this command does not read yet (it reads ${dbPath}); to read it here, copy it into SQLite: k1s snapshot save FILE, then k1s snapshot restore FILE --data-dir NEW-DIR`,
    );
  }
  if (!existsSync(dbPath)) throw new Error(`${dbPath} does not exist: the cluster has never started`);
  const db = new BetterSqlite3(dbPath, { readonly: true, fileMustExist: true, timeout: 500 });
  try {
    db.prepare('SELECT 1 FROM meta LIMIT 1').get();
    return db;
  } catch (e) {
    db.close();
    if (/locked|busy/i.test((e as Error).message)) {
      throw new Error(
        `${dbPath} is locked by its server (run with K1S_SQLITE_CHECKPOINTER=inline, which locks the file exclusively?): stop it, or run it without that setting`,
        { cause: e },
      );
    }
    throw e;
  }
}

/** Flags of the old cluster that describe the cluster rather than where it lives. */
export function portableServerArgs(args: string[]): string[] {
  // where the state is (etcd) is not the cluster either: a snapshot restores into SQLite unless told otherwise
  const dropWithValue = new Set(['--data-dir', '--https-listen-port', '--write-kubeconfig', '--datastore-endpoint', '--datastore-cafile', '--datastore-certfile', '--datastore-keyfile', '--etcd-prefix']);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (dropWithValue.has(args[i])) i++;
    else out.push(args[i]);
  }
  return out;
}

/** Saves the cluster at `paths` (running or not) into the tar file `file`. */
export async function saveSnapshot(
  paths: ClusterPaths,
  file: string,
  opts: { serverArgs?: string[]; images?: SnapshotImage[]; onProgress?: (copied: number) => void } = {},
): Promise<SnapshotManifest> {
  const stage = mkdtempSync(join(dirname(resolve(file)), '.k1s-snapshot-'));
  try {
    mkdirSync(join(stage, 'db'), { mode: 0o700 });
    const etcd = readDatastoreMarker(paths.dir);
    let revision: number;
    let objects: number;
    if (etcd) {
      const r = await copyStore({ kind: 'etcd', etcd }, { kind: 'sqlite', dataDir: stage }, { onProgress: opts.onProgress });
      revision = r.revision;
      objects = r.copied;
    } else {
      const src = openStoreReadonly(paths.db);
      try {
        // one step (all pages at once): the copy is one read transaction, so one revision
        await src.backup(join(stage, 'db', 'state.db'), { progress: () => 0x7fffffff });
      } finally {
        src.close();
      }
      const copy = new BetterSqlite3(join(stage, 'db', 'state.db'), { readonly: true });
      try {
        revision = readCurrentRevision(copy);
        objects = copy.prepare('SELECT count(*) FROM current').pluck().get() as number;
      } finally {
        copy.close();
      }
    }
    chmodSync(join(stage, 'db', 'state.db'), 0o600);
    const files = ['db/state.db'];
    if (existsSync(paths.tls)) {
      // certificates and keys keep their modes (keys 0600) inside the tar
      cpSync(paths.tls, join(stage, 'tls'), { recursive: true });
      files.push('tls');
    }
    const cred = join(paths.dir, 'cred');
    if (existsSync(cred)) {
      // the --secrets-encryption key: without it the snapshot's Secrets could not be read
      cpSync(cred, join(stage, 'cred'), { recursive: true });
      files.push('cred');
    }
    const manifest: SnapshotManifest = {
      format: SNAPSHOT_FORMAT,
      createdAt: new Date().toISOString(),
      cluster: paths.name,
      revision,
      datastore: etcd ? 'etcd' : 'sqlite',
      objects,
      serverArgs: portableServerArgs(opts.serverArgs ?? []),
      files,
      ...(opts.images ? { images: opts.images } : {}),
    };
    writeFileSync(join(stage, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
    const tmp = `${file}.${process.pid}.tmp`;
    await tar.c({ cwd: stage, file: tmp, portable: true }, ['manifest.json', ...files]);
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
    return manifest;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Reads the manifest of a snapshot file without extracting the rest. */
export async function readManifest(file: string): Promise<SnapshotManifest> {
  let text: string | undefined;
  await tar.t({
    file,
    filter: (p) => p === 'manifest.json',
    onReadEntry: (e) => {
      const chunks: Buffer[] = [];
      e.on('data', (c: Buffer) => chunks.push(c));
      e.on('end', () => (text = Buffer.concat(chunks).toString('utf8')));
    },
  });
  if (!text) throw new Error(`${file} is not a k1s snapshot (no manifest.json)`);
  const m = JSON.parse(text) as SnapshotManifest;
  if (m.format !== SNAPSHOT_FORMAT) throw new Error(`${file}: unknown snapshot format "${m.format}"`);
  return m;
}

/** Key prefixes of the objects a fork drops (see the file comment). */
export const FORK_DROPPED_PREFIXES = ['/registry/core/nodes/', '/registry/coordination.k8s.io/leases/'];

/** Deletes the old cluster's process-bound objects from a restored database; returns how many. */
export function forkDatabase(dbPath: string): number {
  const db = openDatabase(dbPath, { durability: 'full', locking: 'exclusive' });
  try {
    const keys: string[] = [];
    const scan = db.prepare('SELECT key FROM current WHERE key >= ? AND key < ?').pluck();
    for (const p of FORK_DROPPED_PREFIXES) keys.push(...(scan.all(p, p.slice(0, -1) + '0') as string[]));
    if (!keys.length) return 0;
    const ops: WriteOp[] = keys.map((key) => ({ kind: 'delete', key }));
    const applied = batchTransaction(db, new SqliteWrites(db))(ops, readCurrentRevision(db) + 1);
    return applied.filter((a) => a.result.ok).length;
  } finally {
    db.close();
  }
}

export interface RestoreOptions {
  /** load the objects into this etcd instead of the new data dir's SQLite */
  etcd?: DatastoreOptions;
  /** replace what the etcd holds under its prefix */
  force?: boolean;
  onProgress?: (copied: number) => void;
}

/**
 * Creates the data dir of a new cluster `paths` from a snapshot file (the cluster must not exist yet), its objects
 * in its SQLite file or, with `etcd`, in that etcd (the data dir then names it, as a server on etcd leaves it).
 */
export async function restoreSnapshot(file: string, paths: ClusterPaths, opts: RestoreOptions = {}): Promise<{ manifest: SnapshotManifest; dropped: number }> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`snapshot file ${file} does not exist`);
  if (existsSync(paths.dir)) throw new Error(`cluster "${paths.name}" already exists: delete it first (k1s delete ${paths.name}) or pick another --name`);
  const manifest = await readManifest(file);
  mkdirSync(dirname(paths.dir), { recursive: true, mode: 0o700 });
  // extracted next to the final dir and renamed, so a failed restore leaves no half cluster behind
  const stage = mkdtempSync(join(dirname(paths.dir), `.${basename(paths.dir)}-restore-`));
  try {
    chmodSync(stage, 0o700);
    await tar.x({ file, cwd: stage, filter: (p) => p !== 'manifest.json' });
    const dropped = forkDatabase(join(stage, 'db', 'state.db'));
    let serverArgs = manifest.serverArgs;
    if (opts.etcd) {
      await copyStore({ kind: 'sqlite', dataDir: stage }, { kind: 'etcd', etcd: opts.etcd }, { force: opts.force, onProgress: opts.onProgress });
      // the state lives in etcd: no second copy in the data dir to drift apart from it
      for (const f of ['state.db', 'state.db-wal', 'state.db-shm', 'state.db.lock']) rmSync(join(stage, 'db', f), { force: true });
      writeDatastoreMarker(stage, opts.etcd);
      serverArgs = [...serverArgs, ...datastoreArgs(opts.etcd)];
    }
    writeFileSync(join(stage, 'restored-from.json'), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
    renameSync(stage, paths.dir);
    writeState(paths, { name: paths.name, pid: 0, port: 0, startedAt: '', serverArgs });
    return { manifest, dropped };
  } catch (e) {
    rmSync(stage, { recursive: true, force: true });
    throw e;
  }
}
