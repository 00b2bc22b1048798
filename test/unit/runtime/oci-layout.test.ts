import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser } from 'tar';
import { ociArchitecture, referenceTag, writeOciImageTar, type ImageFile } from '../../../src/runtime/oci-layout.js';

interface ReadBack {
  type: string;
  mode: number;
  uid: number;
  gid: number;
  mtime: number;
  linkpath: string;
  content: Buffer;
}

/** Reads a tar with the `tar` package (a second, independent implementation; strict mode rejects bad checksums). */
async function readTar(buf: Buffer): Promise<Map<string, ReadBack>> {
  const out = new Map<string, ReadBack>();
  const order: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const p = new Parser({
      strict: true,
      onReadEntry: (e) => {
        const chunks: Buffer[] = [];
        e.on('data', (c: Buffer) => chunks.push(c));
        e.on('end', () => {
          order.push(e.path);
          out.set(e.path, {
            type: e.type,
            mode: e.mode ?? -1,
            uid: e.uid ?? -1,
            gid: e.gid ?? -1,
            mtime: e.mtime?.getTime() ?? -1,
            linkpath: e.linkpath ?? '',
            content: Buffer.concat(chunks),
          });
        });
      },
    });
    p.on('error', reject);
    p.on('warn', (code: string, msg: string) => reject(new Error(`${code}: ${msg}`)));
    p.on('end', () => resolve());
    p.end(buf);
  });
  return out;
}

const sha = (b: Buffer) => 'sha256:' + createHash('sha256').update(b).digest('hex');

async function tmp(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'k1s-oci-test-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const longDir = 'opt/' + 'a'.repeat(60) + '/' + 'b'.repeat(60);

function sampleFiles(hostFile: string): ImageFile[] {
  return [
    { path: '/pause', mode: 0o755, content: Buffer.from('#!/bin/true\n') },
    { path: '/bin/sh', mode: 0o777, symlink: '/pause' },
    { path: '/tmp', mode: 0o1777, dir: true },
    { path: '/etc/k1s/deep/file.txt', mode: 0o640, source: hostFile },
    { path: `${longDir}/long-name.txt`, mode: 0o644, content: Buffer.from('long') },
    { path: '/empty', mode: 0o600, content: Buffer.alloc(0) },
  ];
}

test('an OCI layout whose blobs, manifest, config and layer are consistent', async (t) => {
  const dir = await tmp(t);
  const hostFile = join(dir, 'host.txt');
  await writeFile(hostFile, 'from the host\n'.repeat(100));
  const out = join(dir, 'img.tar');
  const { digest } = await writeOciImageTar({
    out,
    name: 'k1s.local/pause:3.10',
    files: sampleFiles(hostFile),
    config: {
      entrypoint: ['/pause'], cmd: ['-x'], env: ['A=1'], workingDir: '/tmp', user: '65534:65534', stopSignal: 'SIGINT',
      exposedPorts: ['8080', '53/udp'],
    },
  });
  const outer = await readTar(await readFile(out));
  assert.deepEqual(JSON.parse(outer.get('oci-layout')!.content.toString()), { imageLayoutVersion: '1.0.0' });
  const index = JSON.parse(outer.get('index.json')!.content.toString());
  assert.equal(index.schemaVersion, 2);
  assert.equal(index.mediaType, 'application/vnd.oci.image.index.v1+json');
  assert.equal(index.manifests.length, 1);
  const desc = index.manifests[0];
  assert.equal(desc.digest, digest);
  assert.deepEqual(desc.annotations, {
    'io.containerd.image.name': 'k1s.local/pause:3.10',
    'org.opencontainers.image.ref.name': '3.10',
  });

  // Every blob is named after its own sha256; nothing else is in the archive.
  const blobs = new Map<string, Buffer>();
  for (const [path, e] of outer) {
    if (!path.startsWith('blobs/sha256/') || e.type !== 'File') continue;
    const name = 'sha256:' + path.slice('blobs/sha256/'.length);
    assert.equal(sha(e.content), name, `blob ${path} matches its digest`);
    blobs.set(name, e.content);
  }
  assert.deepEqual([...outer.keys()].filter((p) => !p.startsWith('blobs/')).sort(), ['index.json', 'oci-layout']);
  assert.equal(blobs.size, 3);

  const manifestBlob = blobs.get(digest)!;
  assert.equal(manifestBlob.length, desc.size);
  const manifest = JSON.parse(manifestBlob.toString());
  assert.equal(manifest.mediaType, 'application/vnd.oci.image.manifest.v1+json');
  assert.equal(manifest.config.mediaType, 'application/vnd.oci.image.config.v1+json');
  const configBlob = blobs.get(manifest.config.digest)!;
  assert.equal(configBlob.length, manifest.config.size);
  const config = JSON.parse(configBlob.toString());
  assert.equal(config.os, 'linux');
  assert.equal(config.architecture, ociArchitecture());
  assert.deepEqual(config.config, {
    User: '65534:65534', ExposedPorts: { '8080/tcp': {}, '53/udp': {} }, Env: ['A=1'], Entrypoint: ['/pause'],
    Cmd: ['-x'], WorkingDir: '/tmp', StopSignal: 'SIGINT',
  });
  assert.equal(manifest.layers.length, 1);
  const layerDesc = manifest.layers[0];
  assert.equal(layerDesc.mediaType, 'application/vnd.oci.image.layer.v1.tar');
  const layerBlob = blobs.get(layerDesc.digest)!;
  assert.equal(layerBlob.length, layerDesc.size);
  // Uncompressed layer: its diff_id is the sha256 of the blob itself.
  assert.deepEqual(config.rootfs, { type: 'layers', diff_ids: [sha(layerBlob)] });

  const layer = await readTar(layerBlob);
  assert.deepEqual([...layer.keys()], [
    'bin/', 'bin/sh', 'empty', 'etc/', 'etc/k1s/', 'etc/k1s/deep/', 'etc/k1s/deep/file.txt', 'opt/',
    'opt/' + 'a'.repeat(60) + '/', `${longDir}/`, `${longDir}/long-name.txt`, 'pause', 'tmp/',
  ]);
  const pause = layer.get('pause')!;
  assert.equal(pause.type, 'File');
  assert.equal(pause.mode, 0o755);
  assert.equal(pause.content.toString(), '#!/bin/true\n');
  assert.equal(layer.get('bin/sh')!.type, 'SymbolicLink');
  assert.equal(layer.get('bin/sh')!.linkpath, '/pause');
  assert.equal(layer.get('tmp/')!.type, 'Directory');
  assert.equal(layer.get('tmp/')!.mode, 0o1777);
  assert.equal(layer.get('bin/')!.mode, 0o755, 'missing parents are added as 0755 directories');
  assert.equal(layer.get('etc/k1s/deep/file.txt')!.mode, 0o640);
  assert.equal(layer.get('etc/k1s/deep/file.txt')!.content.toString(), 'from the host\n'.repeat(100));
  assert.equal(layer.get(`${longDir}/long-name.txt`)!.content.toString(), 'long');
  assert.equal(layer.get('empty')!.content.length, 0);
  for (const [path, e] of [...layer, ...outer]) {
    assert.equal(e.uid, 0, `${path} owned by root`);
    assert.equal(e.gid, 0, `${path} group root`);
    assert.equal(e.mtime, 0, `${path} has the fixed mtime`);
  }
});

test('rebuilding from the same inputs gives the same bytes and digest; a changed input changes it', async (t) => {
  const dir = await tmp(t);
  const hostFile = join(dir, 'host.txt');
  await writeFile(hostFile, 'x');
  const build = (out: string, extra: ImageFile[] = []) =>
    writeOciImageTar({ out: join(dir, out), name: 'k1s.local/busybox:1.35', files: [...sampleFiles(hostFile), ...extra], config: { cmd: ['sh'] } });
  const a = await build('a.tar');
  await new Promise((r) => setTimeout(r, 20)); // a clock-dependent writer would differ now
  const b = await build('b.tar');
  assert.equal(a.digest, b.digest);
  assert.ok((await readFile(join(dir, 'a.tar'))).equals(await readFile(join(dir, 'b.tar'))));
  // Input order does not matter: entries are sorted.
  const c = await writeOciImageTar({
    out: join(dir, 'c.tar'), name: 'k1s.local/busybox:1.35', files: sampleFiles(hostFile).reverse(), config: { cmd: ['sh'] },
  });
  assert.equal(c.digest, a.digest);
  const d = await build('d.tar', [{ path: '/etc/motd', mode: 0o644, content: Buffer.from('hi') }]);
  assert.notEqual(d.digest, a.digest);
  const e = await writeOciImageTar({
    out: join(dir, 'e.tar'), name: 'k1s.local/busybox:1.35', files: sampleFiles(hostFile), config: { cmd: ['sh'] }, arch: 'arm64',
  });
  assert.notEqual(e.digest, a.digest);
});

test('invalid definitions are refused with a message naming the problem', async (t) => {
  const dir = await tmp(t);
  const out = join(dir, 'x.tar');
  const ok: ImageFile = { path: '/a', mode: 0o644, content: Buffer.from('a') };
  const cases: Array<[string, Parameters<typeof writeOciImageTar>[0], RegExp]> = [
    ['no tag', { out, name: 'k1s.local/pause', files: [ok], config: {} }, /must be a full reference with a tag/],
    ['digest ref', { out, name: 'k1s.local/pause@sha256:abc', files: [ok], config: {} }, /with a tag/],
    ['port is not a tag', { out, name: 'localhost:5000/pause', files: [ok], config: {} }, /with a tag/],
    ['dotdot', { out, name: 'x/y:1', files: [{ path: '/../etc', mode: 0o644, content: Buffer.from('') }], config: {} }, /below \//],
    ['twice', { out, name: 'x/y:1', files: [ok, ok], config: {} }, /listed twice/],
    ['two kinds', { out, name: 'x/y:1', files: [{ path: '/d', mode: 0o755, dir: true, symlink: '/x' }], config: {} }, /exactly one of/],
    ['none', { out, name: 'x/y:1', files: [{ path: '/d', mode: 0o755 }], config: {} }, /exactly one of/],
    ['file under a file', { out, name: 'x/y:1', files: [ok, { path: '/a/b', mode: 0o644, content: Buffer.from('') }], config: {} }, /not a directory/],
    ['path too long', { out, name: 'x/y:1', files: [{ path: 'z'.repeat(120), mode: 0o644, content: Buffer.from('') }], config: {} }, /too long/],
  ];
  for (const [what, opts, re] of cases) {
    await assert.rejects(writeOciImageTar(opts), re, what);
  }
});

test('architecture names and reference tags', () => {
  assert.equal(ociArchitecture('x64'), 'amd64');
  assert.equal(ociArchitecture('arm64'), 'arm64');
  assert.throws(() => ociArchitecture('nope'), /no OCI architecture/);
  assert.equal(referenceTag('k1s.local/pause:3.10'), '3.10');
  assert.equal(referenceTag('localhost:5000/busybox'), 'latest');
  assert.equal(referenceTag('localhost:5000/busybox:1.35'), '1.35');
  assert.equal(referenceTag('busybox'), 'latest');
});
