// The image list a snapshot carries: what the cluster's real node had in containerd when it was taken. There is no
// registry to pull from, so a cluster restored elsewhere (or after `k1s delete`) must get the same images loaded
// again; `k1s start --from-snapshot` and `k1s snapshot restore` say which are missing and how to load them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterPaths } from './clusters.js';

export interface SnapshotImage {
  /** repo:tag (or repo@digest when untagged) */
  name: string;
  /** sha256:… config digest */
  id: string;
  size: number;
}

/** The CRI socket of a cluster's node: --container-runtime-endpoint, else its own containerd under the data dir. */
export async function nodeCriAddress(paths: ClusterPaths, serverArgs: string[]): Promise<string | undefined> {
  if (serverArgs.includes('--disable-agent')) return undefined;
  const i = serverArgs.indexOf('--container-runtime-endpoint');
  if (i >= 0) return serverArgs[i + 1]?.replace(/^unix:\/\//, '');
  const { containerdPaths } = await import('../runtime/containerd-config.js');
  return containerdPaths(paths.dir).address;
}

/**
 * The images of the cluster's node when its container runtime answers; undefined when the cluster has no real
 * node or it is not running (the caller says so rather than recording an empty list).
 */
export async function nodeImages(paths: ClusterPaths, serverArgs: string[]): Promise<SnapshotImage[] | undefined> {
  const address = await nodeCriAddress(paths, serverArgs);
  if (!address) return undefined;
  const { socketAnswers } = await import('./image.js');
  if (!(await socketAnswers(address, 1000))) return undefined;
  const { CriClient } = await import('../runtime/cri-client.js');
  const { listImages } = await import('../runtime/images.js');
  const cri = new CriClient(address);
  try {
    return (await listImages(cri)).map((i) => ({ name: i.name, id: i.id, size: i.size }));
  } finally {
    cri.close();
  }
}

/** Images of `wanted` the node lacks: by name, or (untagged) by id. */
export function missingImages(wanted: SnapshotImage[], present: SnapshotImage[]): SnapshotImage[] {
  const names = new Set(present.map((p) => p.name));
  const ids = new Set(present.map((p) => p.id));
  return wanted.filter((w) => !names.has(w.name) && !(w.name.includes('@') && ids.has(w.id)));
}

/** The lines telling the user which images to load (none when nothing is missing). */
export function missingImagesReport(missing: SnapshotImage[], cluster: string): string[] {
  if (!missing.length) return [];
  const name = cluster === 'k1s' ? '' : ` --name ${cluster}`;
  return [
    `${missing.length} image${missing.length === 1 ? '' : 's'} of the snapshot ${missing.length === 1 ? 'is' : 'are'} not in the node's containerd (pods using ${missing.length === 1 ? 'it' : 'them'} will fail with ErrImageNeverPull or ErrImagePull):`,
    ...missing.map((m) => `  ${m.name}`),
    `load them from their image tarballs with: k1s image load${name} FILE.tar…`,
  ];
}

/** The image list a restored cluster's snapshot recorded (undefined: not restored, or recorded none). */
export function restoredImages(paths: ClusterPaths): SnapshotImage[] | undefined {
  try {
    const m = JSON.parse(readFileSync(join(paths.dir, 'restored-from.json'), 'utf8')) as { images?: SnapshotImage[] };
    return m.images;
  } catch {
    return undefined;
  }
}
