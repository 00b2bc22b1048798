// `k1s image load|ls|rm`: puts image tarballs into the containerd of a k1s cluster (whose built-in registry then
// serves them too), lists what that containerd has the way `crictl images` does, and removes images the way
// `crictl rmi` does.
import { access, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { containerdPaths } from '../runtime/containerd-config.js';
import { CriClient } from '../runtime/cri-client.js';
import { importImageArchives, listImages } from '../runtime/images.js';
import { existsSync } from 'node:fs';
import { clusterPaths, DEFAULT_CLUSTER } from './clusters.js';
import { defaultDataDir } from './server.js';

const help = `Usage: k1s image <load|ls|rm> [flags] [FILE.tar…|IMAGE…]

Loads image tarballs into the containerd of a k1s cluster, lists its images and removes them.

Examples:
  k1s image load dist/images/busybox.tar my-app.tar
  k1s image load --name dev my-app.tar
  k1s image ls --data-dir /tmp/k1s
  k1s image load --data-dir /var/lib/k1s-agent my-app.tar   # on a machine joined with k1s agent: its containerd
  k1s image rm k1s.local/my-app:1.0

Commands:
  load FILE.tar…   import OCI image-layout or docker-archive (docker save) tarballs; images containerd already
                   has with the same digest are skipped
  ls               list the images of the cluster's containerd (IMAGE, TAG, IMAGE ID, SIZE)
  rm IMAGE…        remove images by reference or id, with all their tags (as crictl rmi); pods that use them
                   cannot start again until they are loaded again

Flags:
  --name NAME                    the cluster started with k1s start (default k1s)
  --data-dir DIR                 the data dir of a cluster run with k1s server (default ~/.k1s, /var/lib/k1s as
                                 root; used when no cluster was made with k1s start), or of a k1s agent
  --container-runtime-endpoint S containerd socket to use instead of the one under the data dir
  -h, --help                     show this help

Exit status: 0 done, 1 failed (containerd not running, no such file or image), 2 usage error.`;

export interface ImageCommandIO {
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/** go-units' HumanSizeWithPrecision(size, 3), which crictl uses for SIZE: decimal units, three significant digits. */
export function humanSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  let v = bytes;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${Number(v.toPrecision(3))}${units[i]}`;
}

/** Splits a reference into repository and tag the way crictl shows them ("<none>" when untagged). */
export function splitReference(name: string): { repo: string; tag: string } {
  if (/^sha256:[0-9a-f]+$/.test(name)) return { repo: '<none>', tag: '<none>' };
  const at = name.indexOf('@');
  const ref = at >= 0 ? name.slice(0, at) : name;
  const colon = ref.lastIndexOf(':');
  if (colon > ref.lastIndexOf('/')) return { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) };
  return { repo: ref, tag: '<none>' };
}

/** Columns padded like Go's tabwriter with minwidth 20 and padding 3 (crictl's table writer). */
export function formatTable(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, Math.max(c.length + 3, 20))));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join(''));
}

/** The short image id crictl prints: the first 13 hex digits of the config digest. */
export function shortImageId(id: string): string {
  return id.replace(/^sha256:/, '').slice(0, 13);
}

/** Resolves once something accepts connections on the unix socket, false when nothing listens there. */
export function socketAnswers(path: string, timeoutMs = 2000): Promise<boolean> {
  return new Promise((done) => {
    const s = connect(path);
    const timer = setTimeout(() => finish(false), timeoutMs);
    function finish(ok: boolean) {
      clearTimeout(timer);
      s.destroy();
      done(ok);
    }
    s.once('connect', () => finish(true));
    s.once('error', () => finish(false));
  });
}

export async function imageCommand(args: string[], io: ImageCommandIO = {}): Promise<number> {
  const out = io.out ?? ((l: string) => console.log(l));
  const err = io.err ?? ((l: string) => console.error(l));
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        'data-dir': { type: 'string' },
        name: { type: 'string' },
        'container-runtime-endpoint': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    err(`k1s image: ${(e as Error).message}\n\n${help}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(help);
    return 0;
  }
  const [verb, ...rest] = positionals;
  if (verb !== 'load' && verb !== 'ls' && verb !== 'rm') {
    err(verb ? `k1s image: unknown command "${verb}"\n\n${help}` : `k1s image: a command is required (load, ls or rm)\n\n${help}`);
    return 2;
  }
  if (verb === 'rm' && rest.length === 0) {
    err(`k1s image rm: name at least one IMAGE to remove (see k1s image ls)\n\n${help}`);
    return 2;
  }
  if (verb === 'load' && rest.length === 0) {
    err(`k1s image load: name at least one FILE.tar to load\n\n${help}`);
    return 2;
  }
  if (verb === 'ls' && rest.length > 0) {
    err(`k1s image ls: takes no arguments, got "${rest.join(' ')}"`);
    return 2;
  }
  const files = verb === 'load' ? rest.map((f) => resolve(f)) : [];
  for (const f of files) {
    const st = await stat(f).catch(() => undefined);
    if (!st?.isFile()) {
      err(`k1s image load: ${f}: no such file (give OCI image-layout or docker-archive .tar files)`);
      return 1;
    }
    if (!(await access(f).then(() => true, () => false))) {
      err(`k1s image load: ${f}: cannot be read`);
      return 1;
    }
  }

  const dataDir = resolve(values['data-dir'] ?? clusterDataDir(values.name));
  const endpoint = values['container-runtime-endpoint'];
  const address = endpoint ? endpoint.replace(/^unix:\/\//, '') : containerdPaths(dataDir).address;
  if (!(await socketAnswers(address))) {
    err(
      endpoint
        ? `k1s image ${verb}: nothing answers at ${address}: is containerd running there?`
        : `k1s image ${verb}: the containerd of the cluster in ${dataDir} is not running (nothing answers at ${address}).\n` +
          `Start the cluster first: k1s server --data-dir ${dataDir}  (or k1s start)`,
    );
    return 1;
  }

  if (verb === 'load') {
    try {
      const started = Date.now();
      const { imported, skipped } = await importImageArchives({ address, files, onProgress: out });
      out(`loaded ${imported.length} image(s), skipped ${skipped.length} already present, in ${Date.now() - started} ms`);
      return 0;
    } catch (e) {
      err(`k1s image load: ${(e as Error).message}`);
      return 1;
    }
  }

  if (verb === 'rm') return removeImages(address, rest, { out, err });

  const cri = new CriClient(address);
  try {
    const images = await listImages(cri);
    const rows = [['IMAGE', 'TAG', 'IMAGE ID', 'SIZE']];
    for (const img of images) {
      const { repo, tag } = splitReference(img.name);
      rows.push([repo, tag, shortImageId(img.id), humanSize(img.size)]);
    }
    for (const line of formatTable(rows)) out(line);
    return 0;
  } catch (e) {
    err(`k1s image ls: ${(e as Error).message}`);
    return 1;
  } finally {
    cri.close();
  }
}

/** the named cluster of `k1s start`; without a name, that default cluster if it exists, else `k1s server`'s dir */
function clusterDataDir(name: string | undefined): string {
  if (name) return clusterPaths(name).dir;
  const byStart = clusterPaths(DEFAULT_CLUSTER);
  return existsSync(byStart.state) ? byStart.dir : defaultDataDir();
}

/**
 * `crictl rmi`: each reference is looked up (ImageStatus), then its image removed by id, which drops every tag of
 * it; "Deleted: TAG" per tag. Every reference is tried; any failure makes the exit status 1.
 */
async function removeImages(address: string, refs: string[], io: { out: (l: string) => void; err: (l: string) => void }): Promise<number> {
  const cri = new CriClient(address);
  let code = 0;
  try {
    for (const ref of refs) {
      try {
        const { image } = await cri.imageStatus({ image: { image: ref } });
        if (!image) {
          io.err(`k1s image rm: no such image ${ref} (see k1s image ls)`);
          code = 1;
          continue;
        }
        await cri.removeImage({ image: { image: image.id } });
        const names = image.repo_tags.length ? image.repo_tags : image.repo_digests.length ? image.repo_digests : [image.id];
        for (const n of names) io.out(`Deleted: ${n}`);
      } catch (e) {
        io.err(`k1s image rm: ${ref}: ${(e as Error).message}`);
        code = 1;
      }
    }
    return code;
  } finally {
    cri.close();
  }
}
