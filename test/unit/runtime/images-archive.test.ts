import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { normalizeImageName, readArchive } from '../../../src/runtime/images.js';
import { buildTar } from '../../../src/runtime/oci-layout.js';
import { tempDir, writeTinyDockerArchive, writeTinyOciImage } from './fixtures.js';

test('normalizeImageName follows docker reference normalisation', () => {
  assert.equal(normalizeImageName('busybox'), 'docker.io/library/busybox:latest');
  assert.equal(normalizeImageName('busybox:1.35'), 'docker.io/library/busybox:1.35');
  assert.equal(normalizeImageName('me/app:1'), 'docker.io/me/app:1');
  assert.equal(normalizeImageName('k1s.local/pause:3.10'), 'k1s.local/pause:3.10');
  assert.equal(normalizeImageName('localhost/app'), 'localhost/app:latest');
  assert.equal(normalizeImageName('localhost:5000/app'), 'localhost:5000/app:latest');
  assert.equal(normalizeImageName('registry.k8s.io/pause@sha256:abc'), 'registry.k8s.io/pause@sha256:abc');
});

test('readArchive finds the name and config digest of an OCI image layout and of a docker-archive', async (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  const oci = await writeTinyOciImage(tmp.dir, 'k1s.test/tiny:1');
  const a = await readArchive(oci.file);
  assert.equal(a.format, 'oci');
  assert.equal(a.images.length, 1);
  assert.equal(a.images[0]!.name, 'k1s.test/tiny:1');
  assert.match(a.images[0]!.id, /^sha256:[0-9a-f]{64}$/);

  const docker = await writeTinyDockerArchive(tmp.dir, 'tiny:2');
  const b = await readArchive(docker.file);
  assert.deepEqual(b, { format: 'docker', images: [{ name: 'docker.io/library/tiny:2', id: docker.id }] });
});

test('archives that are neither format, or lack a full name, are rejected naming the file and the fix', async (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  const junk = path.join(tmp.dir, 'junk.tar');
  writeFileSync(junk, buildTar([{ name: 'hello.txt', type: 'file', mode: 0o644, content: Buffer.from('hi') }]));
  await assert.rejects(readArchive(junk), (e: Error) => e.message.startsWith(`${junk}: neither an OCI image layout`));

  const tagOnly = path.join(tmp.dir, 'tag-only.tar');
  const index = { schemaVersion: 2, manifests: [{ digest: 'sha256:00', annotations: { 'org.opencontainers.image.ref.name': 'latest' } }] };
  writeFileSync(tagOnly, buildTar([{ name: 'index.json', type: 'file', mode: 0o644, content: Buffer.from(JSON.stringify(index)) }]));
  await assert.rejects(readArchive(tagOnly), /tag-only\.tar: manifest sha256:00 has no full image name/);
});
