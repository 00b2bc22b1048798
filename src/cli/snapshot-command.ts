// `k1s snapshot save|restore`: the command line of snapshot.ts (which cluster, which store, what to tell the user).
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { clusterInfo, clusterPaths, readState, resolveName, type ClusterInfo } from './clusters.js';
import { datastoreArgs, datastoreFlags } from './datastore-flags.js';
import { copyError, progressLines } from './datastore-copy.js';
import { missingImagesReport, nodeImages, type SnapshotImage } from './snapshot-images.js';
import { restoreSnapshot, saveSnapshot, type SnapshotManifest } from './snapshot.js';

const help = `Usage: k1s snapshot save FILE [NAME] [--name NAME | --data-dir DIR]
       k1s snapshot restore FILE (--name NAME | --data-dir DIR) [--datastore-endpoint URLS [--etcd-prefix P] [--force]]

Copies a cluster's whole state (the object store at one revision, certificates and keys, and the list of images
its node has) into one tar file while the cluster runs, and creates a new cluster from such a file. A restored
cluster has the same objects; Nodes and Leases of the old cluster are dropped (its nodes register again,
controllers re-create pods of vanished nodes). Images are not copied: restoring lists the snapshot's images, and
"k1s start" of the new cluster names those its node lacks, to load with "k1s image load".

A cluster whose state is in etcd (k1s server --datastore-endpoint) is saved from that etcd: its keys under the
prefix at one revision. Snapshots restore into SQLite (the default) or, with --datastore-endpoint, into an etcd,
whichever store they were taken from. Restored into etcd, objects keep their content but get new resourceVersions
(clients relist).

Examples:
  k1s snapshot save golden.tar                 # snapshot of the cluster "k1s"
  k1s snapshot save ci.tar --name ci
  k1s snapshot save etcd.tar --data-dir /var/lib/k1s
  k1s snapshot restore golden.tar --name ci-1  # then: k1s start ci-1
  k1s snapshot restore golden.tar --name ci-2 --datastore-endpoint http://127.0.0.1:2379 --etcd-prefix /ci-2
  k1s start ci-3 --from-snapshot golden.tar    # restore and start in one go

Flags:
  --name NAME                 the cluster (default k1s)
  --data-dir DIR              the data dir of a cluster run with k1s server, instead of a name
  --datastore-endpoint URLS   restore: load the objects into this etcd (http(s)://host:port, comma-separated)
  --datastore-cafile FILE     restore: the CA of the etcd members' serving certificates
  --datastore-certfile FILE   restore: the client certificate for etcd
  --datastore-keyfile FILE    restore: its key
  --etcd-prefix PREFIX        restore: the root of the keys in etcd (default /registry)
  --force                     restore: replace what the etcd holds under the prefix
  -h, --help                  show this help

Exit status: 0 done, 1 failed (no such cluster, the target exists or holds data, unreadable file), 2 usage error.`;

/** The snapshot's images a new cluster's node will not have: all but the sandbox image, which the node imports. */
async function imagesToLoad(manifest: SnapshotManifest): Promise<SnapshotImage[]> {
  if (!manifest.images?.length) return [];
  const i = manifest.serverArgs.indexOf('--pause-image');
  const pause = i >= 0 ? manifest.serverArgs[i + 1] : (await import('../kubelet/node/agent.js')).DEFAULT_PAUSE_IMAGE;
  return manifest.images.filter((img) => img.name !== pause);
}

/** A cluster by its data dir (k1s server's, which has no state file unless k1s start made it). */
function dataDirCluster(dir: string): ClusterInfo {
  const d = resolve(dir);
  const paths = clusterPaths(basename(d), dirname(d));
  return { paths, state: readState(paths), running: false };
}

export async function snapshotCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        'data-dir': { type: 'string' },
        'datastore-endpoint': { type: 'string' },
        'datastore-cafile': { type: 'string' },
        'datastore-certfile': { type: 'string' },
        'datastore-keyfile': { type: 'string' },
        'etcd-prefix': { type: 'string' },
        force: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
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
  const dataDir = values['data-dir'];
  if (dataDir && (values.name || nameArg)) return usage('give a cluster name or --data-dir, not both');
  if (verb === 'restore' && !values.name && !nameArg && !dataDir) return usage('restore needs the name of the new cluster: --name NAME (or --data-dir DIR)');
  const etcd = datastoreFlags(values);
  if (typeof etcd === 'string') return usage(etcd);
  if (verb === 'save' && (etcd || values.force)) return usage('save reads the store the cluster uses: the etcd flags and --force are for restore');
  if (values.force && !etcd) return usage('--force replaces what an etcd holds: it needs --datastore-endpoint');
  const r = dataDir ? { name: basename(resolve(dataDir)) } : resolveName(nameArg, values.name);
  if ('error' in r) return usage(r.error);
  const t0 = performance.now();
  try {
    if (verb === 'save') {
      const info = dataDir ? dataDirCluster(dataDir) : clusterInfo(r.name);
      if (!info.state && !dataDir) {
        console.error(`k1s snapshot: no cluster named "${r.name}": see k1s list`);
        return 1;
      }
      const serverArgs = info.state?.serverArgs ?? [];
      const images = info.running ? await nodeImages(info.paths, serverArgs).catch(() => undefined) : undefined;
      const m = await saveSnapshot(info.paths, file, { serverArgs, images, onProgress: progressLines() });
      const imageNote = images ? `, ${images.length} image name${images.length === 1 ? '' : 's'}` : '';
      const from = m.datastore === 'etcd' ? ' (from etcd)' : '';
      console.log(`snapshot of cluster "${r.name}" saved to ${file}: ${m.objects} objects at revision ${m.revision}${from}${imageNote} (${Math.round(performance.now() - t0)} ms)`);
      if (!images && info.state && !serverArgs.includes('--disable-agent')) {
        console.error(`note: the image list was not recorded: the cluster's node is not running (start it and save again to record it)`);
      }
    } else {
      const paths = dataDir ? dataDirCluster(dataDir).paths : clusterPaths(r.name);
      const { manifest, dropped } = await restoreSnapshot(file, paths, { etcd, force: values.force, onProgress: progressLines() });
      const into = etcd ? ` into etcd ${etcd.endpoints.join(',')} under ${etcd.prefix ?? '/registry'}` : '';
      console.log(
        `cluster "${r.name}" restored from ${file}${into} (snapshot of "${manifest.cluster}", ${manifest.objects} objects, ${dropped} node/lease objects dropped; ${Math.round(performance.now() - t0)} ms)`,
      );
      // the new cluster's containerd is empty until it starts: every image of the snapshot but the sandbox image
      for (const line of missingImagesReport(await imagesToLoad(manifest), r.name)) console.error(line);
      if (etcd) console.error('note: the objects have new resourceVersions in etcd: clients of the old cluster relist (informers do by themselves)');
      if (dataDir) console.log(`start it with: k1s server --data-dir ${paths.dir}${etcd ? ` ${datastoreArgs(etcd).join(' ')}` : ''}`);
      else console.log(`start it with: k1s start ${r.name}`);
    }
    return 0;
  } catch (e) {
    console.error(`k1s snapshot: ${copyError(e)}`);
    return 1;
  }
}
