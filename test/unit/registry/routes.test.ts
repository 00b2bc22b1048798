// The registry's pure parts: routes, repository → image names, manifest parsing, Content-Range.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageNames, parseRoute, RegistryError } from '../../../src/registry/routes.js';
import { checkPushedManifest, gcLabels, parseManifest } from '../../../src/registry/manifests.js';
import { contentRangeStart, uploadRange } from '../../../src/registry/uploads.js';

test('routes of the distribution spec', () => {
  assert.deepEqual(parseRoute('/v2/'), { kind: 'ping' });
  assert.deepEqual(parseRoute('/v2/library/busybox/manifests/latest'), { kind: 'manifest', name: 'library/busybox', reference: 'latest' });
  assert.deepEqual(parseRoute('/v2/a/b/c/blobs/uploads/'), { kind: 'uploads', name: 'a/b/c' });
  assert.deepEqual(parseRoute('/v2/app/blobs/uploads/0b1c-2d'), { kind: 'upload', name: 'app', uuid: '0b1c-2d' });
  assert.deepEqual(parseRoute('/v2/app/tags/list'), { kind: 'tags', name: 'app' });
  assert.equal(parseRoute('/v2/UPPER/manifests/x'), undefined);
  assert.equal(parseRoute('/v3/app/manifests/x'), undefined);
});

test('repository names map to containerd image names', () => {
  assert.deepEqual(imageNames('library/busybox', 'docker.io', 'localhost:5000'), ['docker.io/library/busybox']);
  assert.deepEqual(imageNames('team/app', undefined, 'localhost:5000'), ['localhost:5000/team/app', 'docker.io/team/app']);
  assert.deepEqual(imageNames('registry.k8s.io/pause', undefined, 'localhost:5000'), ['localhost:5000/registry.k8s.io/pause', 'registry.k8s.io/pause']);
});

test('manifests: media type from the document, the Content-Type or the shape; children and gc labels', () => {
  const m = Buffer.from(JSON.stringify({ schemaVersion: 2, config: { digest: 'sha256:c', size: 1 }, layers: [{ digest: 'sha256:l', size: 2 }] }));
  assert.equal(parseManifest(m)?.mediaType, 'application/vnd.oci.image.manifest.v1+json');
  assert.equal(parseManifest(m, 'application/vnd.docker.distribution.manifest.v2+json')?.mediaType, 'application/vnd.docker.distribution.manifest.v2+json');
  assert.deepEqual(gcLabels(parseManifest(m)!), { 'containerd.io/gc.ref.content.config': 'sha256:c', 'containerd.io/gc.ref.content.l.0': 'sha256:l' });
  const idx = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [{ digest: 'sha256:m', size: 3 }] }));
  assert.deepEqual(gcLabels(parseManifest(idx)!), { 'containerd.io/gc.ref.content.m.0': 'sha256:m' });
  assert.equal(parseManifest(Buffer.from('{"schemaVersion":1}')), undefined);
  assert.throws(() => checkPushedManifest(Buffer.from('nope'), undefined), (e: unknown) => e instanceof RegistryError && e.code === 'MANIFEST_INVALID');
  assert.throws(() => checkPushedManifest(idx, 'application/vnd.oci.image.manifest.v1+json'), (e: unknown) => e instanceof RegistryError && e.code === 'MANIFEST_INVALID');
});

test('Content-Range of chunks and the Range of upload responses', () => {
  assert.equal(contentRangeStart(undefined), undefined);
  assert.equal(contentRangeStart('100-199'), 100);
  assert.equal(contentRangeStart('bytes 0-9/10'), 0);
  assert.throws(() => contentRangeStart('x'), (e: unknown) => e instanceof RegistryError && e.status === 416);
  assert.equal(uploadRange(0), '0-0');
  assert.equal(uploadRange(10), '0-9');
});
