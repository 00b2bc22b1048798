// Test fixtures for the runtime layer: temp data dirs, a tiny image (static pause + busybox-static) as an
// OCI image-layout tar and as a docker-archive tar, and clean-up of what pods leave on the host.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildTar, layerEntries, ociArchitecture, writeOciImageTar, type ImageFile } from '../../../src/runtime/oci-layout.js';

/** A short temp dir (socket paths must stay under 108 bytes). */
export function tempDir(prefix = 'k1s-h1-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join('/tmp', prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const PAUSE_C = `
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
static void stop(int s) { (void)s; _exit(0); }
static void reap(int s) { (void)s; while (waitpid(-1, 0, WNOHANG) > 0) {} }
int main(void) {
  signal(SIGTERM, stop); signal(SIGINT, stop); signal(SIGCHLD, reap);
  for (;;) pause();
}
`;

/** Compiles the pause program statically into `dir` (0.3 s). */
export function buildPause(dir: string): string {
  const src = path.join(dir, 'pause.c');
  const out = path.join(dir, 'pause');
  writeFileSync(src, PAUSE_C);
  execFileSync('gcc', ['-static', '-O2', '-s', '-o', out, src]);
  return out;
}

/** The files of the test image: /pause, /bin/busybox and the applets the tests call. */
export function tinyImageFiles(workDir: string): ImageFile[] {
  const files: ImageFile[] = [
    { path: '/pause', mode: 0o755, source: buildPause(workDir) },
    { path: '/bin/busybox', mode: 0o755, source: '/bin/busybox' },
    { path: '/tmp', mode: 0o1777, dir: true },
  ];
  for (const applet of ['sh', 'sleep', 'echo', 'cat', 'id', 'hostname']) {
    files.push({ path: `/bin/${applet}`, mode: 0o777, symlink: 'busybox' });
  }
  return files;
}

/** Writes the tiny image as an OCI image-layout tar; returns the file and the image's config digest. */
export async function writeTinyOciImage(workDir: string, name: string): Promise<{ file: string; manifest: string }> {
  const file = path.join(workDir, `${name.replace(/[/:]/g, '_')}.oci.tar`);
  const { digest } = await writeOciImageTar({ out: file, name, files: tinyImageFiles(workDir), config: { entrypoint: ['/pause'] } });
  return { file, manifest: digest };
}

/** Writes the tiny image as a docker-archive (`docker save`) tar; returns the file and the image id. */
export async function writeTinyDockerArchive(workDir: string, repoTag: string): Promise<{ file: string; id: string }> {
  const layer = buildTar(await layerEntries(tinyImageFiles(workDir)));
  const diffId = `sha256:${createHash('sha256').update(layer).digest('hex')}`;
  const config = Buffer.from(
    JSON.stringify({
      architecture: ociArchitecture(),
      os: 'linux',
      config: { Cmd: ['/bin/sh'] },
      rootfs: { type: 'layers', diff_ids: [diffId] },
    }),
  );
  const hex = createHash('sha256').update(config).digest('hex');
  const manifest = Buffer.from(JSON.stringify([{ Config: `${hex}.json`, RepoTags: [repoTag], Layers: ['layer0/layer.tar'] }]));
  const file = path.join(workDir, `${repoTag.replace(/[/:]/g, '_')}.docker.tar`);
  writeFileSync(
    file,
    buildTar([
      { name: `${hex}.json`, type: 'file', mode: 0o644, content: config },
      { name: 'layer0/', type: 'dir', mode: 0o755 },
      { name: 'layer0/layer.tar', type: 'file', mode: 0o644, content: layer },
      { name: 'manifest.json', type: 'file', mode: 0o644, content: manifest },
    ]),
  );
  return { file, id: `sha256:${hex}` };
}

/** Removes a cgroup (children first) from every v1 hierarchy; runc creates pod parents and nobody removes them. */
export function removeCgroup(relative: string): string[] {
  const left: string[] = [];
  const root = '/sys/fs/cgroup';
  if (!existsSync(root)) return left;
  for (const h of readdirSync(root)) {
    const dir = path.join(root, h, relative);
    if (!existsSync(dir)) continue;
    const rm = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) rm(path.join(d, e.name));
      try {
        rmdirSync(d);
      } catch {
        left.push(d);
      }
    };
    rm(dir);
  }
  return left;
}

/** cgroup dirs named `name` that still exist in any hierarchy */
export function cgroupLeftovers(relative: string): string[] {
  const root = '/sys/fs/cgroup';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((h) => path.join(root, h, relative))
    .filter((d) => existsSync(d));
}
