// Builds OCI image-layout tarballs (the format `ctr images import` and `docker load` accept) without a registry or
// a container engine: one layer, its config and manifest, and an index naming the image. The tar is written by hand so
// every byte is under our control: fixed owners and mtimes make a rebuild from the same inputs give the same digest.
import { createHash } from 'node:crypto';
import { readFile, writeFile, rename } from 'node:fs/promises';

export interface ImageFile {
  /** Path inside the image, with or without a leading slash. */
  path: string;
  /** Permission bits (including setuid/setgid/sticky), e.g. 0o755, 0o1777. */
  mode: number;
  /** File content given inline. */
  content?: Buffer;
  /** File content read from this host file. */
  source?: string;
  /** Makes the entry a symbolic link to this target. */
  symlink?: string;
  /** Makes the entry a directory. */
  dir?: boolean;
}

export interface ImageConfig {
  entrypoint?: string[];
  cmd?: string[];
  env?: string[];
  workingDir?: string;
  user?: string;
  stopSignal?: string;
  /** "80/tcp", "53/udp" or a bare "8080" (tcp). */
  exposedPorts?: string[];
}

export interface OciImageOptions {
  /** Tar file to write. */
  out: string;
  /** Full image reference, e.g. k1s.local/pause:3.10. */
  name: string;
  files: ImageFile[];
  config: ImageConfig;
  /** OCI architecture (amd64, arm64, …); defaults to the one of this process. */
  arch?: string;
}

export const MEDIA_TYPES = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar',
} as const;

/** Node's process.arch → the GOARCH names OCI platforms use. */
export function ociArchitecture(nodeArch: string = process.arch): string {
  const map: Record<string, string> = {
    x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64',
    loong64: 'loong64', mips: 'mips', mipsel: 'mipsle',
  };
  const a = map[nodeArch];
  if (!a) throw new Error(`no OCI architecture is known for Node's process.arch "${nodeArch}"`);
  return a;
}

/** The tag part of a reference (what `org.opencontainers.image.ref.name` holds), "latest" when there is none. */
export function referenceTag(name: string): string {
  const at = name.indexOf('@');
  const path = at >= 0 ? name.slice(0, at) : name;
  const lastSlash = path.lastIndexOf('/');
  const colon = path.lastIndexOf(':');
  return colon > lastSlash ? path.slice(colon + 1) : 'latest';
}

export interface TarEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink';
  mode: number;
  content?: Buffer;
  linkname?: string;
}

const BLOCK = 512;

function writeString(h: Buffer, offset: number, length: number, value: string, what: string): void {
  const b = Buffer.from(value, 'utf8');
  if (b.length > length) throw new Error(`tar: ${what} "${value}" is longer than ${length} bytes`);
  b.copy(h, offset);
}

function writeOctal(h: Buffer, offset: number, length: number, value: number): void {
  // length-1 octal digits, zero padded, then NUL (the form GNU tar and Go's archive/tar both read).
  const s = value.toString(8).padStart(length - 1, '0');
  if (s.length > length - 1) throw new Error(`tar: value ${value} does not fit in ${length} bytes`);
  h.write(s + '\0', offset, 'ascii');
}

/** ustar splits a long name at a slash into prefix (≤155 bytes) and name (≤100 bytes). */
function splitName(name: string): { prefix: string; base: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', base: name };
  for (let i = name.indexOf('/'); i >= 0; i = name.indexOf('/', i + 1)) {
    const prefix = name.slice(0, i);
    const base = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(base) <= 100 && base !== '') return { prefix, base };
  }
  throw new Error(`tar: path "${name}" is too long for a ustar header`);
}

function header(e: TarEntry): Buffer {
  const h = Buffer.alloc(BLOCK);
  const { prefix, base } = splitName(e.name);
  writeString(h, 0, 100, base, 'name');
  writeOctal(h, 100, 8, e.mode & 0o7777);
  writeOctal(h, 108, 8, 0); // uid
  writeOctal(h, 116, 8, 0); // gid
  writeOctal(h, 124, 12, e.type === 'file' ? (e.content?.length ?? 0) : 0);
  writeOctal(h, 136, 12, 0); // mtime: fixed so output is reproducible
  h.write(e.type === 'file' ? '0' : e.type === 'dir' ? '5' : '2', 156, 'ascii');
  if (e.type === 'symlink') writeString(h, 157, 100, e.linkname ?? '', 'symlink target');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  writeString(h, 265, 32, 'root', 'uname');
  writeString(h, 297, 32, 'root', 'gname');
  writeOctal(h, 329, 8, 0);
  writeOctal(h, 337, 8, 0);
  writeString(h, 345, 155, prefix, 'prefix');
  // The checksum is computed with its own field read as eight spaces.
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return h;
}

/** A ustar archive of the entries in the order given (root-owned, mtime 0), ending with two zero blocks. */
export function buildTar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header(e));
    if (e.type === 'file' && e.content && e.content.length > 0) {
      parts.push(e.content);
      const pad = (BLOCK - (e.content.length % BLOCK)) % BLOCK;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function cleanPath(p: string): string {
  const segs = p.split('/').filter((s) => s !== '' && s !== '.');
  if (segs.length === 0 || segs.includes('..')) throw new Error(`image file path "${p}" must name something below /`);
  return segs.join('/');
}

/** The layer's entries: parents before children (missing parents added as 0755 directories), sorted by path. */
export async function layerEntries(files: ImageFile[]): Promise<TarEntry[]> {
  const byPath = new Map<string, TarEntry>();
  for (const f of files) {
    const name = cleanPath(f.path);
    const kinds = [f.dir, f.symlink !== undefined, f.content !== undefined || f.source !== undefined].filter(Boolean);
    if (kinds.length !== 1) {
      throw new Error(`image file "${f.path}" must be exactly one of: dir, symlink, content/source`);
    }
    if (f.content !== undefined && f.source !== undefined) {
      throw new Error(`image file "${f.path}" has both content and source`);
    }
    if (byPath.has(name)) throw new Error(`image file "${f.path}" is listed twice`);
    let entry: TarEntry;
    if (f.dir) entry = { name: name + '/', type: 'dir', mode: f.mode };
    else if (f.symlink !== undefined) entry = { name, type: 'symlink', mode: f.mode, linkname: f.symlink };
    else entry = { name, type: 'file', mode: f.mode, content: f.content ?? (await readFile(f.source!)) };
    byPath.set(name, entry);
  }
  for (const name of [...byPath.keys()]) {
    const segs = name.split('/');
    for (let i = 1; i < segs.length; i++) {
      const parent = segs.slice(0, i).join('/');
      const existing = byPath.get(parent);
      if (!existing) byPath.set(parent, { name: parent + '/', type: 'dir', mode: 0o755 });
      else if (existing.type !== 'dir') throw new Error(`image file "${name}" is below "${parent}", which is not a directory`);
    }
  }
  return [...byPath.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
}

function sha256(b: Buffer): string {
  return 'sha256:' + createHash('sha256').update(b).digest('hex');
}

/** JSON with keys in a fixed order (the order objects are written in here), no whitespace. */
function json(v: unknown): Buffer {
  return Buffer.from(JSON.stringify(v), 'utf8');
}

function imageConfigJson(c: ImageConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (c.user !== undefined) out.User = c.user;
  if (c.exposedPorts?.length) {
    const ports: Record<string, object> = {};
    for (const p of c.exposedPorts) ports[p.includes('/') ? p : `${p}/tcp`] = {};
    out.ExposedPorts = ports;
  }
  if (c.env?.length) out.Env = c.env;
  if (c.entrypoint?.length) out.Entrypoint = c.entrypoint;
  if (c.cmd?.length) out.Cmd = c.cmd;
  if (c.workingDir !== undefined) out.WorkingDir = c.workingDir;
  if (c.stopSignal !== undefined) out.StopSignal = c.stopSignal;
  return out;
}

/**
 * Writes an OCI image-layout tar holding one single-layer image and returns the manifest digest (what containerd
 * reports as the image's target digest).
 */
export async function writeOciImageTar(opts: OciImageOptions): Promise<{ digest: string }> {
  const tagged = opts.name.lastIndexOf(':') > opts.name.lastIndexOf('/') && !opts.name.includes('@');
  if (!tagged || !/^[\w.-]{1,128}$/.test(referenceTag(opts.name)) || /\s/.test(opts.name)) {
    throw new Error(`image name "${opts.name}" must be a full reference with a tag, e.g. k1s.local/pause:3.10`);
  }
  const layer = buildTar(await layerEntries(opts.files));
  const layerDigest = sha256(layer); // uncompressed: the layer digest is also its diff_id
  const config = json({
    architecture: opts.arch ?? ociArchitecture(),
    os: 'linux',
    config: imageConfigJson(opts.config),
    rootfs: { type: 'layers', diff_ids: [layerDigest] },
    history: [{ created_by: 'k1s build-images', comment: opts.name }],
  });
  const configDigest = sha256(config);
  const manifest = json({
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.manifest,
    config: { mediaType: MEDIA_TYPES.config, digest: configDigest, size: config.length },
    layers: [{ mediaType: MEDIA_TYPES.layer, digest: layerDigest, size: layer.length }],
  });
  const manifestDigest = sha256(manifest);
  const index = json({
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.index,
    manifests: [
      {
        mediaType: MEDIA_TYPES.manifest,
        digest: manifestDigest,
        size: manifest.length,
        annotations: {
          'io.containerd.image.name': opts.name,
          'org.opencontainers.image.ref.name': referenceTag(opts.name),
        },
      },
    ],
  });
  const blob = (digest: string, content: Buffer): TarEntry => ({
    name: `blobs/sha256/${digest.slice('sha256:'.length)}`, type: 'file', mode: 0o644, content,
  });
  const archive = buildTar([
    { name: 'oci-layout', type: 'file', mode: 0o644, content: json({ imageLayoutVersion: '1.0.0' }) },
    { name: 'index.json', type: 'file', mode: 0o644, content: index },
    { name: 'blobs/', type: 'dir', mode: 0o755 },
    { name: 'blobs/sha256/', type: 'dir', mode: 0o755 },
    blob(configDigest, config),
    blob(manifestDigest, manifest),
    blob(layerDigest, layer),
  ]);
  // Write then rename so a reader never sees half a tar.
  const tmp = `${opts.out}.tmp-${process.pid}`;
  await writeFile(tmp, archive);
  await rename(tmp, opts.out);
  return { digest: manifestDigest };
}
