// The registry over a real containerd: the spec's protocol with plain HTTP requests (uploads in one piece and in
// chunks, digest checks, error codes), and real clients: ctr pushes to it and pulls from it, and the CRI pulls a
// loaded image through the mirror configuration with the upstream unreachable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Containerd } from '../../../src/runtime/containerd.js';
import { ContainerdStore } from '../../../src/runtime/containerd-store.js';
import { CriClient } from '../../../src/runtime/cri-client.js';
import { importImageArchives } from '../../../src/runtime/images.js';
import { registryConfigDir, writeRegistryHosts } from '../../../src/runtime/registry-hosts.js';
import { ImageRegistry } from '../../../src/registry/server.js';
import { tempDir, writeTinyOciImage } from '../runtime/fixtures.js';
import path from 'node:path';
import { readFileSync } from 'node:fs';

const run = promisify(execFile);
const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

async function setup(t: { after: (fn: () => unknown) => void }) {
  const tmp = tempDir('k1s-reg-');
  const image = await writeTinyOciImage(tmp.dir, 'docker.io/library/tiny:latest');
  const containerd = new Containerd({ dataDir: tmp.dir, sandboxImage: 'docker.io/library/tiny:latest', importOnStart: [image.file] });
  await containerd.start();
  const store = new ContainerdStore({ address: containerd.paths.address, root: containerd.paths.root });
  const registry = new ImageRegistry({ store, uploadDir: path.join(tmp.dir, 'uploads'), port: 0, trace: !!process.env.K1S_TRACE?.includes('registry'), log: console.error });
  const port = await registry.start();
  await writeRegistryHosts(registryConfigDir(containerd.paths.dir), port);
  t.after(async () => {
    await registry.stop();
    store.close();
    await containerd.stop();
    tmp.remove();
  });
  const base = `http://127.0.0.1:${port}`;
  const ctr = (...args: string[]) => run('ctr', ['--address', containerd.paths.address, '--namespace', 'k8s.io', ...args]);
  return { tmp, image, containerd, store, registry, port, base, ctr };
}

test('registry: protocol (ping, uploads, manifests, tags, errors)', { skip: process.getuid?.() !== 0 && 'needs root' }, async (t) => {
  const { base, image } = await setup(t);
  const ping = await fetch(`${base}/v2/`);
  assert.equal(ping.status, 200);
  assert.equal(ping.headers.get('docker-distribution-api-version'), 'registry/2.0');

  // a loaded image is served under its Docker name, by tag and by digest, and with ?ns as containerd asks a mirror
  for (const url of [`${base}/v2/library/tiny/manifests/latest`, `${base}/v2/library/tiny/manifests/latest?ns=docker.io`, `${base}/v2/tiny/manifests/${image.manifest}`]) {
    const r = await fetch(url, { method: 'HEAD' });
    assert.equal(r.status, 200, url);
    assert.equal(r.headers.get('docker-content-digest'), image.manifest);
    assert.equal(r.headers.get('content-type'), 'application/vnd.oci.image.manifest.v1+json');
  }
  const missing = await fetch(`${base}/v2/library/tiny/manifests/nope`);
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { errors: { code: string }[] }).errors[0]!.code, 'MANIFEST_UNKNOWN');
  const noBlob = await fetch(`${base}/v2/x/blobs/sha256:${'0'.repeat(64)}`);
  assert.equal(noBlob.status, 404);
  assert.equal(((await noBlob.json()) as { errors: { code: string }[] }).errors[0]!.code, 'BLOB_UNKNOWN');
  const noRepo = await fetch(`${base}/v2/nothing/here/tags/list`);
  assert.equal(((await noRepo.json()) as { errors: { code: string }[] }).errors[0]!.code, 'NAME_UNKNOWN');

  // chunked upload: POST, PATCH with Content-Range, an out-of-order PATCH is 416, PUT with the digest
  const blob = Buffer.from('hello registry '.repeat(1000));
  const post = await fetch(`${base}/v2/app/blobs/uploads/`, { method: 'POST' });
  assert.equal(post.status, 202);
  const loc = post.headers.get('location')!;
  assert.ok(post.headers.get('docker-upload-uuid'));
  const p1 = await fetch(new URL(loc, base), { method: 'PATCH', body: blob.subarray(0, 5000), headers: { 'Content-Range': '0-4999', 'Content-Type': 'application/octet-stream' } });
  assert.equal(p1.status, 202);
  assert.equal(p1.headers.get('range'), '0-4999');
  const bad = await fetch(new URL(p1.headers.get('location')!, base), { method: 'PATCH', body: blob.subarray(0, 10), headers: { 'Content-Range': '100-109' } });
  assert.equal(bad.status, 416);
  const p2 = await fetch(new URL(loc, base), { method: 'PATCH', body: blob.subarray(5000), headers: { 'Content-Range': `5000-${blob.length - 1}` } });
  assert.equal(p2.headers.get('range'), `0-${blob.length - 1}`);
  const wrong = await fetch(new URL(`${loc}?digest=sha256:${'1'.repeat(64)}`, base), { method: 'PUT' });
  assert.equal(wrong.status, 400);
  assert.equal(((await wrong.json()) as { errors: { code: string }[] }).errors[0]!.code, 'DIGEST_INVALID');
  // a failed PUT ends the session
  assert.equal((await fetch(new URL(loc, base))).status, 404);

  // docker's way: one streamed PATCH without Content-Range, then an empty PUT with the digest
  const other = Buffer.from('streamed by docker push');
  const start = await fetch(`${base}/v2/app/blobs/uploads/`, { method: 'POST' });
  const streamed = await fetch(new URL(start.headers.get('location')!, base), { method: 'PATCH', body: other });
  assert.equal(streamed.status, 202);
  const done = await fetch(new URL(`${streamed.headers.get('location')}?digest=${sha(other)}`, base), { method: 'PUT' });
  assert.equal(done.status, 201);
  assert.equal(await (await fetch(`${base}/v2/app/blobs/${sha(other)}`)).text(), 'streamed by docker push');

  // monolithic POST ?digest=, then GET with a Range
  const mono = await fetch(`${base}/v2/app/blobs/uploads/?digest=${sha(blob)}`, { method: 'POST', body: blob, headers: { 'Content-Type': 'application/octet-stream' } });
  assert.equal(mono.status, 201);
  assert.equal(mono.headers.get('docker-content-digest'), sha(blob));
  const part = await fetch(`${base}/v2/app/blobs/${sha(blob)}`, { headers: { Range: 'bytes=6-13' } });
  assert.equal(part.status, 206);
  assert.equal(await part.text(), 'registry');

  // a manifest whose blobs are missing is refused; with them it is stored and tagged
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers', diff_ids: [] } }));
  const manifest = Buffer.from(JSON.stringify({
    schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha(config), size: config.length },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: sha(blob), size: blob.length }],
  }));
  const mt = { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' };
  const early = await fetch(`${base}/v2/app/manifests/1.0`, { method: 'PUT', body: manifest, headers: mt });
  assert.equal(((await early.json()) as { errors: { code: string }[] }).errors[0]!.code, 'MANIFEST_BLOB_UNKNOWN');
  const up = await fetch(`${base}/v2/app/blobs/uploads/`, { method: 'POST' });
  assert.equal((await fetch(new URL(`${up.headers.get('location')}?digest=${sha(config)}`, base), { method: 'PUT', body: config })).status, 201);
  const put = await fetch(`${base}/v2/app/manifests/1.0`, { method: 'PUT', body: manifest, headers: mt });
  assert.equal(put.status, 201);
  assert.equal(put.headers.get('docker-content-digest'), sha(manifest));
  const byDigest = await fetch(`${base}/v2/app/manifests/sha256:${'2'.repeat(64)}`, { method: 'PUT', body: manifest, headers: mt });
  assert.equal(((await byDigest.json()) as { errors: { code: string }[] }).errors[0]!.code, 'DIGEST_INVALID');
  assert.deepEqual(await (await fetch(`${base}/v2/app/tags/list`)).json(), { name: 'app', tags: ['1.0'] });
  const catalog = (await (await fetch(`${base}/v2/_catalog`)).json()) as { repositories: string[] };
  assert.ok(catalog.repositories.includes('app') && catalog.repositories.includes('docker.io/library/tiny'), JSON.stringify(catalog));
  // deleting the tag removes the image name; the blob delete is refused (the node's images own them)
  assert.equal((await fetch(`${base}/v2/app/manifests/1.0`, { method: 'DELETE' })).status, 202);
  assert.equal((await fetch(`${base}/v2/app/manifests/1.0`)).status, 404);
  assert.equal((await fetch(`${base}/v2/app/blobs/${sha(blob)}`, { method: 'DELETE' })).status, 405);
});

test('registry: ctr pushes and pulls; the CRI pulls a loaded image through the mirror offline', { skip: process.getuid?.() !== 0 && 'needs root' }, async (t) => {
  const { port, ctr, containerd, tmp, store } = await setup(t);
  // push: a real client, then the image is in containerd under the registry's name
  await ctr('images', 'tag', 'docker.io/library/tiny:latest', `localhost:${port}/me/tiny:1`);
  await ctr('images', 'rm', `localhost:${port}/me/tiny:1`);
  const other = await writeTinyOciImage(tmp.dir, 'example.com/pushed:2');
  await importImageArchives({ address: containerd.paths.address, files: [other.file] });
  await ctr('images', 'push', '--plain-http', `127.0.0.1:${port}/me/pushed:2`, 'example.com/pushed:2');
  const pushed = await store.getImage(`localhost:${port}/me/pushed:2`);
  assert.equal(pushed?.target.digest, other.manifest);
  // pull with ctr from the registry by another name
  await ctr('images', 'pull', '--plain-http', `localhost:${port}/me/pushed:2`);
  // the CRI (hosts.toml): docker.io is unreachable here, the mirror serves the loaded image
  const cri = new CriClient(containerd.endpoint);
  t.after(() => cri.close());
  const started = Date.now();
  const res = await cri.pullImage({ image: { image: 'docker.io/library/tiny:latest' } });
  const took = Date.now() - started;
  assert.ok(res.image_ref.startsWith('sha256:'));
  assert.ok(took < 5000, `pull through the mirror took ${took} ms`);
  for (const host of ['localhost', '127.0.0.1']) {
    const own = await cri.pullImage({ image: { image: `${host}:${port}/me/pushed:2` } });
    assert.ok(own.image_ref.startsWith('sha256:'));
  }
  // k1s.local (the images k1s builds) has no upstream: the registry serves it
  await store.putImage('k1s.local/tiny:latest', (await store.getImage('docker.io/library/tiny:latest'))!.target);
  assert.ok((await cri.pullImage({ image: { image: 'k1s.local/tiny:latest' } })).image_ref.startsWith('sha256:'));
  // the upstream left out (it did not answer k1s' probe): the registry alone, in a hosts.toml containerd accepts
  await writeRegistryHosts(registryConfigDir(containerd.paths.dir), port, new Set(['docker.io']));
  assert.ok((await cri.pullImage({ image: { image: 'docker.io/library/tiny:latest' } })).image_ref.startsWith('sha256:'));
  const log = readFileSync(containerd.paths.log, 'utf8');
  assert.doesNotMatch(log, /failed to decode hosts\.toml/);
  console.error(`CRI pull through the mirror: ${took} ms; ${log.match(/trying next host[^\n]*/)?.[0] ?? 'no "trying next host" in the log'}`);
});
