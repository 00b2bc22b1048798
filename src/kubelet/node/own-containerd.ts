// k1s' own containerd for the embedded node: prerequisites checked, started under the data dir, the pause image
// imported. A module of its own (light to import) so the server can start containerd — another process, on the
// other core — while its own start-up (certificates, store, API) still runs on the event loop.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Containerd } from '../../runtime/containerd.js';
import { checkNodePrerequisites } from '../../runtime/prerequisites.js';

export const DEFAULT_PAUSE_IMAGE = 'k1s.local/pause:3.10';

/** dist/images, found from this file whether it runs from dist/src/kubelet or from the dist/k1s.cjs bundle. */
export function defaultImagesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    for (const cand of [path.join(dir, 'images'), path.join(dir, 'dist', 'images')]) {
      if (existsSync(path.join(cand, 'pause.tar'))) return cand;
    }
    dir = path.dirname(dir);
  }
  return path.join(process.cwd(), 'dist', 'images');
}

export interface OwnContainerdOptions {
  dataDir: string;
  cniBinDir?: string;
  imagesDir?: string;
  pauseImage?: string;
  log: (line: string) => void;
}

/** Starts k1s' containerd; rejects with what to install when the machine lacks something. */
export async function startOwnContainerd(opts: OwnContainerdOptions): Promise<Containerd> {
  const pre = checkNodePrerequisites({ cniBinDir: opts.cniBinDir });
  if (!pre.ok) throw new Error(pre.message);
  const pauseTar = path.join(opts.imagesDir ?? defaultImagesDir(), 'pause.tar');
  if (!existsSync(pauseTar)) throw new Error(`the pause image ${pauseTar} is missing: build it with npm run build:images`);
  const own = new Containerd({ dataDir: opts.dataDir, cniBinDir: opts.cniBinDir, sandboxImage: opts.pauseImage ?? DEFAULT_PAUSE_IMAGE, importOnStart: [pauseTar], log: (l) => opts.log(`k1s: agent: ${l}`) });
  await own.start();
  return own;
}
