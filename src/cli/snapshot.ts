// `k1s snapshot save|restore`: a cluster's whole state in one tar file, taken consistently while it runs.
//
// The database is copied with SQLite's online backup API in a single step, i.e. inside one read transaction of
// the WAL database: the copy is exactly one committed revision even while the server writes (its connections do
// not lock the file exclusively: they share it with the store's writer or checkpointer thread). Certificates and keys go along, so
// ServiceAccount tokens and kubeconfigs of the snapshot stay valid, and so does the --secrets-encryption key.
//
// Restoring is a fork: the objects are those of the snapshot, but what belonged to the running processes of the
// old cluster is deleted (as real deletes, with revisions, so history and watches stay consistent): Node objects
// (their kubelets do not exist here; the new cluster's nodes register again and controllers re-create pods whose
// node is gone) and Leases (leader election and node heartbeats of old processes would otherwise block the new
// controllers until they expire).
import { createRequire } from 'node:module';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type Database from 'better-sqlite3';
import * as tar from 'tar';
import { openDatabase, readCurrentRevision } from '../storage/sqlite/schema.js';
import { SqliteWrites, batchTransaction, type WriteOp } from '../storage/sqlite/writes.js';
import { clusterInfo, clusterPaths, resolveName, writeState, type ClusterPaths } from './clusters.js';
import { missingImagesReport, nodeImages, type SnapshotImage } from './snapshot-images.js';
import { DATASTORE_MARKER } from '../cluster/datastore.js';

const BetterSqlite3 = createRequire(import.meta.url)('better-sqlite3') as typeof Database;

export const SNAPSHOT_FORMAT = 'k1s.dev/snapshot/v1';

export interface SnapshotManifest {
  format: string;
  createdAt: string;
  /** name of the cluster it was taken from */
  cluster: string;
  /** the store revision the copy holds */
  revision: number;
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
      `this cluster keeps its state in etcd${where}, which this command does not read yet (it reads ${dbPath}); to save a snapshot, use "ETCDCTL_API=3 etcdctl --endpoints=… snapshot save FILE" and copy the data directory's tls/ with it`,
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
  const dropWithValue = new Set(['--data-dir', '--https-listen-port', '--write-kubeconfig']);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (dropWithValue.has(args[i])) i++;
    else out.push(args[i]);
  }
  return out;
}

/** Saves the cluster at `paths` (running or not) into the tar file `file`. */
export async function saveSnapshot(paths: ClusterPaths, file: string, opts: { serverArgs?: string[]; images?: SnapshotImage[] } = {}): Promise<SnapshotManifest> {
  const stage = mkdtempSync(join(dirname(resolve(file)), '.k1s-snapshot-'));
  try {
    mkdirSync(join(stage, 'db'), { mode: 0o700 });
    const src = openStoreReadonly(paths.db);
    let revision: number;
    let objects: number;
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

/** Creates the data dir of a new cluster `paths` from a snapshot file (the cluster must not exist yet). */
export async function restoreSnapshot(file: string, paths: ClusterPaths): Promise<{ manifest: SnapshotManifest; dropped: number }> {
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
    writeFileSync(join(stage, 'restored-from.json'), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
    renameSync(stage, paths.dir);
    writeState(paths, { name: paths.name, pid: 0, port: 0, startedAt: '', serverArgs: manifest.serverArgs });
    return { manifest, dropped };
  } catch (e) {
    rmSync(stage, { recursive: true, force: true });
    throw e;
  }
}

const help = `Usage: k1s snapshot save FILE [NAME] [--name NAME]
       k1s snapshot restore FILE --name NAME

Copies a cluster's whole state (the object store at one revision, certificates and keys, and the list of images
its node has) into one tar file while the cluster runs, and creates a new cluster from such a file. A restored
cluster has the same objects; Nodes and Leases of the old cluster are dropped (its nodes register again,
controllers re-create pods of vanished nodes). Images are not copied: restoring lists the snapshot's images, and
"k1s start" of the new cluster names those its node lacks, to load with "k1s image load".

Examples:
  k1s snapshot save golden.tar                 # snapshot of the cluster "k1s"
  k1s snapshot save ci.tar --name ci
  k1s snapshot restore golden.tar --name ci-1  # then: k1s start ci-1
  k1s start ci-2 --from-snapshot golden.tar    # restore and start in one go

Flags:
  --name NAME   the cluster (default k1s)
  -h, --help    show this help

Exit status: 0 done, 1 failed (no such cluster, the target exists, unreadable file), 2 usage error.`;

/** The snapshot's images a new cluster's node will not have: all but the sandbox image, which the node imports. */
async function imagesToLoad(manifest: SnapshotManifest): Promise<SnapshotImage[]> {
  if (!manifest.images?.length) return [];
  const i = manifest.serverArgs.indexOf('--pause-image');
  const pause = i >= 0 ? manifest.serverArgs[i + 1] : (await import('../kubelet/node/agent.js')).DEFAULT_PAUSE_IMAGE;
  return manifest.images.filter((img) => img.name !== pause);
}

export async function snapshotCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: { name: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    console.error(`k1s snapshot: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(help);
    return 0;
  }
  const [verb, file, nameArg, ...extra] = positionals;
  const usage = (msg: string) => {
    console.error(`k1s snapshot: ${msg}\n\n${help}`);
    return 2;
  };
  if (verb !== 'save' && verb !== 'restore') return usage('say save or restore');
  if (!file) return usage(`"${verb}" needs a FILE`);
  if (extra.length) return usage(`unexpected arguments: ${extra.join(' ')}`);
  if (verb === 'restore' && !values.name && !nameArg) return usage('restore needs the name of the new cluster: --name NAME');
  const r = resolveName(nameArg, values.name);
  if ('error' in r) return usage(r.error);
  const t0 = performance.now();
  try {
    if (verb === 'save') {
      const info = clusterInfo(r.name);
      if (!info.state) {
        console.error(`k1s snapshot: no cluster named "${r.name}": see k1s list`);
        return 1;
      }
      const images = info.running ? await nodeImages(info.paths, info.state.serverArgs).catch(() => undefined) : undefined;
      const m = await saveSnapshot(info.paths, file, { serverArgs: info.state.serverArgs, images });
      const imageNote = images ? `, ${images.length} image name${images.length === 1 ? '' : 's'}` : '';
      console.log(`snapshot of cluster "${r.name}" saved to ${file}: ${m.objects} objects at revision ${m.revision}${imageNote} (${Math.round(performance.now() - t0)} ms)`);
      if (!images && !info.state.serverArgs.includes('--disable-agent')) {
        console.error(`note: the image list was not recorded: the cluster's node is not running (start it and save again to record it)`);
      }
    } else {
      const paths = clusterPaths(r.name);
      const { manifest, dropped } = await restoreSnapshot(file, paths);
      console.log(
        `cluster "${r.name}" restored from ${file} (snapshot of "${manifest.cluster}", ${manifest.objects} objects, ${dropped} node/lease objects dropped; ${Math.round(performance.now() - t0)} ms)`,
      );
      // the new cluster's containerd is empty until it starts: every image of the snapshot but the sandbox image
      for (const line of missingImagesReport(await imagesToLoad(manifest), r.name)) console.error(line);
      console.log(`start it with: k1s start ${r.name}`);
    }
    return 0;
  } catch (e) {
    console.error(`k1s snapshot: ${(e as Error).message}`);
    return 1;
  }
}
