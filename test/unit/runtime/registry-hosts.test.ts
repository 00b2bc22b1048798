// hosts.toml for the registry mirror: the upstream first while it answers, left out when it does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { mirrorHostsToml, probeUpstream, unreachableUpstreams, writeRegistryHosts } from '../../../src/runtime/registry-hosts.js';
import { tempDir } from './fixtures.js';

test('mirror hosts.toml: upstream host first, the local registry as server; the registry in its place when unreachable', () => {
  const on = mirrorHostsToml('https://registry-1.docker.io', 'http://127.0.0.1:5000');
  assert.match(on, /^server = "http:\/\/127\.0\.0\.1:5000"$/m);
  assert.match(on, /^\[host\."https:\/\/registry-1\.docker\.io"\]\n {2}capabilities = \["pull", "resolve"\]$/m);
  const off = mirrorHostsToml('https://registry-1.docker.io', 'http://127.0.0.1:5000', { upstreamReachable: false });
  assert.doesNotMatch(off, /\[host\."https/);
  assert.match(off, /^\[host\."http:\/\/127\.0\.0\.1:5000"\]$/m);
});

test('writeRegistryHosts writes one hosts.toml per mirrored registry and the registry\'s own names', async (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  await writeRegistryHosts(tmp.dir, 5001, new Set(['quay.io']));
  for (const h of ['docker.io', 'registry.k8s.io', 'ghcr.io']) assert.match(readFileSync(path.join(tmp.dir, h, 'hosts.toml'), 'utf8'), /\[host\./);
  assert.doesNotMatch(readFileSync(path.join(tmp.dir, 'quay.io', 'hosts.toml'), 'utf8'), /\[host\."https/);
  assert.match(readFileSync(path.join(tmp.dir, 'localhost:5001', 'hosts.toml'), 'utf8'), /"push"/);
  assert.match(readFileSync(path.join(tmp.dir, 'k1s.local', 'hosts.toml'), 'utf8'), /^server = "http:\/\/127\.0\.0\.1:5001"$/m);
  await writeRegistryHosts(tmp.dir, undefined);
  assert.equal(existsSync(tmp.dir), false);
});

test('probeUpstream: an answering port, a closed one; unreachableUpstreams names the silent ones', async (t) => {
  const srv = createServer((s) => s.destroy());
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  const port = (srv.address() as { port: number }).port;
  assert.equal(await probeUpstream(`https://127.0.0.1:${port}`), true);
  assert.equal(await probeUpstream('https://127.0.0.1:1', 500), false);
  const down = await unreachableUpstreams(100, async (u) => !u.includes('quay'));
  assert.deepEqual([...down], ['quay.io']);
});
