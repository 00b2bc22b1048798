// Importing image tarballs into containerd (there is no registry to pull from) and listing what it has.
// containerd 1.6's CRI has no import call, so import runs `ctr images import` into the k8s.io namespace
// (which unpacks for the overlayfs snapshotter); the CRI is used to skip what is already there and to
// wait until the CRI plugin has seen the new images (it learns about them from events, asynchronously).
import { createHash } from 'node:crypto';
import { execa } from 'execa';
import { Parser, type ReadEntry } from 'tar';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { CriClient } from './cri-client.js';

/** Kubernetes' CRI namespace in containerd. */
export const CRI_NAMESPACE = 'k8s.io';

export interface ArchiveImage {
  /** normalised reference, e.g. docker.io/library/busybox:1.35 */
  name: string;
  /** config digest = the image id the CRI reports */
  id: string;
}

export interface ArchiveContents {
  format: 'oci' | 'docker';
  images: ArchiveImage[];
}

/** Small JSON documents (indexes, manifests, configs) are kept; layers are only hashed when small. */
const MAX_METADATA_BYTES = 4 * 1024 * 1024;
const MANIFEST_LIST_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
]);

const GO_ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' };

/**
 * Docker's reference normalisation: `busybox` → `docker.io/library/busybox:latest`,
 * `me/app:1` → `docker.io/me/app:1`, `k1s.local/pause:3.10` unchanged.
 */
export function normalizeImageName(name: string): string {
  let ref = name.trim();
  const slash = ref.indexOf('/');
  const first = slash < 0 ? '' : ref.slice(0, slash);
  if (slash < 0) ref = `docker.io/library/${ref}`;
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') ref = `docker.io/${ref}`;
  const lastPart = ref.slice(ref.lastIndexOf('/') + 1);
  if (!ref.includes('@') && !lastPart.includes(':')) ref = `${ref}:latest`;
  return ref;
}

/** Reads the image names and ids an OCI image-layout or docker-archive tar holds, without unpacking it. */
export async function readArchive(file: string): Promise<ArchiveContents> {
  const docs = new Map<string, Buffer>();
  await pipeline(
    createReadStream(file),
    new Parser({
      strict: true,
      onReadEntry: (e: ReadEntry) => {
        const name = e.path.replace(/^\.\//, '');
        if (e.type !== 'File' || (e.size ?? 0) > MAX_METADATA_BYTES) return e.resume();
        const chunks: Buffer[] = [];
        e.on('data', (c: Buffer) => chunks.push(c));
        e.on('end', () => docs.set(name, Buffer.concat(chunks)));
      },
    }),
  );
  const json = (name: string): unknown => {
    const b = docs.get(name);
    if (!b) throw new Error(`${file}: ${name} is missing from the archive`);
    try {
      return JSON.parse(b.toString('utf8'));
    } catch {
      throw new Error(`${file}: ${name} is not valid JSON`);
    }
  };
  if (docs.has('index.json')) return { format: 'oci', images: ociImages(file, json) };
  if (docs.has('manifest.json')) return { format: 'docker', images: dockerImages(file, json, docs) };
  throw new Error(
    `${file}: neither an OCI image layout (index.json) nor a docker-archive (manifest.json); ` +
      'build images with `npm run build:images` or save them with `docker save` / `skopeo copy … oci-archive:`',
  );
}

interface Descriptor {
  mediaType?: string;
  digest: string;
  annotations?: Record<string, string>;
  platform?: { architecture?: string; os?: string };
}

function ociImages(file: string, json: (name: string) => unknown): ArchiveImage[] {
  const blob = (d: Descriptor) => json(`blobs/${d.digest.replace(':', '/')}`) as Record<string, unknown>;
  const configOf = (d: Descriptor): string => {
    let doc = blob(d);
    // an index (multi-platform) inside index.json: take this machine's platform, as ctr does without --all-platforms
    if (MANIFEST_LIST_TYPES.has(String(doc.mediaType ?? d.mediaType ?? '')) || Array.isArray(doc.manifests)) {
      const list = (doc.manifests ?? []) as Descriptor[];
      const arch = GO_ARCH[process.arch] ?? process.arch;
      const pick = list.find((m) => m.platform?.os === 'linux' && m.platform.architecture === arch) ?? list[0];
      if (!pick) throw new Error(`${file}: image index ${d.digest} lists no manifests`);
      doc = blob(pick);
    }
    const config = (doc.config as Descriptor | undefined)?.digest;
    if (!config) throw new Error(`${file}: manifest ${d.digest} has no config`);
    return config;
  };
  const index = json('index.json') as { manifests?: Descriptor[] };
  const images: ArchiveImage[] = [];
  for (const d of index.manifests ?? []) {
    const a = d.annotations ?? {};
    const ref = a['io.containerd.image.name'] ?? a['org.opencontainers.image.ref.name'];
    // a bare tag ("latest") cannot be imported under a name without --base-name: name the fix
    if (!ref || !/[/:@]/.test(ref)) {
      throw new Error(
        `${file}: manifest ${d.digest} has no full image name (annotation io.containerd.image.name, ` +
          `or org.opencontainers.image.ref.name holding e.g. example.com/app:1.0); re-export it with a full name`,
      );
    }
    images.push({ name: normalizeImageName(ref), id: configOf(d) });
  }
  if (images.length === 0) throw new Error(`${file}: index.json lists no images`);
  return images;
}

function dockerImages(file: string, json: (name: string) => unknown, docs: Map<string, Buffer>): ArchiveImage[] {
  const manifest = json('manifest.json') as { Config?: string; RepoTags?: string[] | null }[];
  const images: ArchiveImage[] = [];
  for (const m of Array.isArray(manifest) ? manifest : []) {
    const config = m.Config ? docs.get(m.Config.replace(/^\.\//, '')) : undefined;
    if (!config) throw new Error(`${file}: the config ${m.Config ?? '(none)'} named in manifest.json is missing`);
    const id = `sha256:${createHash('sha256').update(config).digest('hex')}`;
    const tags = m.RepoTags ?? [];
    if (tags.length === 0) throw new Error(`${file}: image ${id} has no RepoTags; tag it before \`docker save\``);
    for (const t of tags) images.push({ name: normalizeImageName(t), id });
  }
  if (images.length === 0) throw new Error(`${file}: manifest.json lists no images`);
  return images;
}

export interface ImportOptions {
  /** containerd socket path (unix:// prefix allowed) */
  address: string;
  files: string[];
  onProgress?: (line: string) => void;
  /** the ctr binary (default `ctr` on PATH) */
  ctrPath?: string;
}

/**
 * Imports OCI image-layout and docker-archive tarballs into containerd's k8s.io namespace, skipping images
 * containerd already has with the same id; resolves once the CRI plugin reports every imported image.
 */
export async function importImageArchives(opts: ImportOptions): Promise<{ imported: string[]; skipped: string[] }> {
  const address = opts.address.replace(/^unix:\/\//, '');
  const progress = opts.onProgress ?? (() => {});
  const cri = new CriClient(address, { timeoutMs: 10_000 });
  const imported: string[] = [];
  const skipped: string[] = [];
  try {
    for (const file of opts.files) {
      const started = Date.now();
      const contents = await readArchive(file);
      const present = await Promise.all(contents.images.map(async (img) => (await imageId(cri, img.name)) === img.id));
      const missing = contents.images.filter((_, i) => !present[i]);
      const base = path.basename(file);
      if (missing.length === 0) {
        skipped.push(...contents.images.map((i) => i.name));
        progress(`${base}: ${contents.images.map((i) => i.name).join(', ')} already present, skipped`);
        continue;
      }
      await ctrImport(opts.ctrPath ?? 'ctr', address, file);
      await waitForCri(cri, missing, file);
      imported.push(...missing.map((i) => i.name));
      skipped.push(...contents.images.filter((_, i) => present[i]).map((i) => i.name));
      progress(`${base}: imported ${missing.map((i) => i.name).join(', ')} in ${Date.now() - started} ms`);
    }
  } finally {
    cri.close();
  }
  return { imported, skipped };
}

async function imageId(cri: CriClient, name: string): Promise<string | undefined> {
  const res = await cri.imageStatus({ image: { image: name } });
  return res.image?.id || undefined;
}

async function ctrImport(ctr: string, address: string, file: string): Promise<void> {
  const args = ['--address', address, '--namespace', CRI_NAMESPACE, 'images', 'import', '--snapshotter', 'overlayfs', file];
  const r = await execa(ctr, args, { reject: false, all: true });
  if (r.failed) {
    if (r.code === 'ENOENT') throw new Error(`${file}: cannot import: ${ctr} is not on PATH; apt-get install -y containerd`);
    const out = String(r.all ?? '').trim() || r.message;
    throw new Error(`${file}: ctr images import failed: ${out}\n(is it an OCI image-layout or docker-archive tar for this machine's platform?)`);
  }
}

/** The CRI plugin caches images from containerd events; wait until it serves the new ones. */
async function waitForCri(cri: CriClient, images: ArchiveImage[], file: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (const img of images) {
    for (;;) {
      const id = await imageId(cri, img.name);
      if (id === img.id) break;
      if (Date.now() > until) {
        throw new Error(`${file}: imported ${img.name} but the CRI reports ${id ? `id ${id}, not ${img.id}` : 'no such image'}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

export interface ListedImage {
  /** repo:tag, or repo@digest for an untagged image */
  name: string;
  /** sha256:… config digest */
  id: string;
  size: number;
}

/** The images the CRI sees, one row per repo tag, sorted by name. */
export async function listImages(cri: CriClient): Promise<ListedImage[]> {
  const { images } = await cri.listImages({});
  const rows: ListedImage[] = [];
  for (const img of images) {
    const names = img.repo_tags.length > 0 ? img.repo_tags : img.repo_digests.slice(0, 1);
    for (const name of names.length > 0 ? names : [img.id]) rows.push({ name, id: img.id, size: Number(img.size) });
  }
  return rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id.localeCompare(b.id)));
}
