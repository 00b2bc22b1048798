// Registry figures: a ~100 MB image (one incompressible layer) imported with `ctr images import` into a fresh
// containerd, beside the same image pulled by the CRI through the mirror configuration (upstream unreachable, k1s'
// registry serving the other containerd's store) into another fresh containerd, and the pull with policy Always on
// the node that already has the image (what a pod with :latest costs offline). Same run, same machine. Needs root.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Containerd } from '../src/runtime/containerd.js';
import { ContainerdStore } from '../src/runtime/containerd-store.js';
import { CriClient } from '../src/runtime/cri-client.js';
import { writeOciImageTar } from '../src/runtime/oci-layout.js';
import { registryConfigDir, writeRegistryHosts } from '../src/runtime/registry-hosts.js';
import { ImageRegistry } from '../src/registry/server.js';

type Row = (k: string, v: string) => void;
const IMAGE = 'docker.io/library/k1s-bench:latest';
const MB = 1_000_000;

export async function benchRegistry(row: Row, sizeMb = Number(process.env.K1S_BENCH_IMAGE_MB ?? 100)): Promise<void> {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/containerd')) {
    row(`registry: ${sizeMb} MB image, pull through the mirror vs ctr import`, 'skipped: needs root and containerd');
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'k1s-bench-reg-'));
  const stops: (() => Promise<void> | void)[] = [];
  try {
    const tar = path.join(dir, 'image.tar');
    await writeOciImageTar({ out: tar, name: IMAGE, files: [{ path: '/data.bin', mode: 0o644, content: randomBytes(sizeMb * MB) }], config: { cmd: ['/data.bin'] } });
    const start = async (name: string) => {
      const c = new Containerd({ dataDir: path.join(dir, name), sandboxImage: 'k1s.local/pause:3.10' });
      await c.start();
      stops.unshift(() => c.stop());
      return c;
    };
    const [source, imported, pulled] = [await start('a'), await start('b'), await start('c')];
    const ctrImport = (c: Containerd) => {
      const t0 = performance.now();
      execFileSync('ctr', ['--address', c.paths.address, '--namespace', 'k8s.io', 'images', 'import', '--snapshotter', 'overlayfs', tar], { stdio: 'ignore' });
      return performance.now() - t0;
    };
    ctrImport(source);
    const importMs = ctrImport(imported);
    const store = new ContainerdStore({ address: source.paths.address, root: source.paths.root });
    stops.unshift(() => store.close());
    const registry = new ImageRegistry({ store, uploadDir: path.join(dir, 'uploads'), port: 0 });
    const port = await registry.start();
    stops.unshift(() => registry.stop());
    // the upstream stays in hosts.toml: here its name does not resolve, as on a machine with no network
    for (const c of [source, pulled]) await writeRegistryHosts(registryConfigDir(c.paths.dir), port);
    const pull = async (c: Containerd) => {
      const cri = new CriClient(c.endpoint, { pullTimeoutMs: 300_000 });
      try {
        const t0 = performance.now();
        await cri.pullImage({ image: { image: IMAGE } });
        return performance.now() - t0;
      } finally {
        cri.close();
      }
    };
    const mirrorMs = await pull(pulled);
    const presentMs = await pull(source);
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    row(`registry: ${sizeMb} MB image into a fresh containerd, ctr images import`, s(importMs));
    row(`registry: ${sizeMb} MB image into a fresh containerd, CRI pull through the mirror (offline)`, `${s(mirrorMs)} (${((sizeMb * MB) / (mirrorMs / 1000) / MB).toFixed(0)} MB/s)`);
    row(`registry: pull policy Always of a ${sizeMb} MB image the node has (offline)`, `${presentMs.toFixed(0)} ms`);
  } finally {
    for (const stop of stops) await Promise.resolve(stop()).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
