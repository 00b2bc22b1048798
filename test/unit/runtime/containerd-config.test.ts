import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerdPaths, renderContainerdConfig, DISABLED_PLUGINS } from '../../../src/runtime/containerd-config.js';

test('containerdPaths puts everything under <dataDir>/agent', () => {
  const p = containerdPaths('/var/lib/k1s', { cniBinDir: '/usr/lib/cni' });
  assert.deepEqual(p, {
    dir: '/var/lib/k1s/agent/containerd',
    root: '/var/lib/k1s/agent/containerd/root',
    state: '/var/lib/k1s/agent/containerd/state',
    address: '/var/lib/k1s/agent/containerd/containerd.sock',
    config: '/var/lib/k1s/agent/containerd/config.toml',
    cniConfDir: '/var/lib/k1s/agent/cni/net.d',
    cniBinDir: '/usr/lib/cni',
    log: '/var/lib/k1s/agent/containerd/containerd.log',
    podLogDir: '/var/lib/k1s/agent/pods',
  });
});

test('a data dir too deep for a unix socket gets a short per-data-dir socket under /run/k1s', () => {
  const deep = '/tmp/' + 'd'.repeat(90);
  const a = containerdPaths(deep);
  assert.match(a.address, /^\/run\/k1s\/[0-9a-f]{16}\/containerd\.sock$/);
  assert.ok(Buffer.byteLength(a.address + '.ttrpc') < 108);
  assert.equal(a.root, `${deep}/agent/containerd/root`);
  assert.equal(containerdPaths(deep + '/').address, a.address, 'same data dir, same socket');
  assert.notEqual(containerdPaths(deep + 'x').address, a.address, 'another data dir, another socket');
});

test('the rendered config carries the settings containerd 1.6 needs here', () => {
  const paths = containerdPaths('/data', { cniBinDir: '/usr/lib/cni' });
  const toml = renderContainerdConfig({ paths, sandboxImage: 'k1s.local/pause:3.10' });
  for (const line of [
    'version = 2',
    'root = "/data/agent/containerd/root"',
    'state = "/data/agent/containerd/state"',
    'address = "/data/agent/containerd/containerd.sock"',
    'address = "/data/agent/containerd/containerd.sock.ttrpc"',
    'path = "/data/agent/containerd/opt"',
    'sandbox_image = "k1s.local/pause:3.10"',
    'restrict_oom_score_adj = true',
    'stream_server_address = "127.0.0.1"',
    'stream_server_port = "0"',
    'bin_dir = "/usr/lib/cni"',
    'conf_dir = "/data/agent/cni/net.d"',
    'snapshotter = "overlayfs"',
    'runtime_type = "io.containerd.runc.v2"',
    'SystemdCgroup = false',
    'Root = "/data/agent/containerd/state/runc"',
  ]) {
    assert.ok(toml.split('\n').some((l) => l.trim() === line), `missing: ${line}\n${toml}`);
  }
  for (const p of DISABLED_PLUGINS) assert.ok(toml.includes(`"${p}"`), p);
  assert.ok(!DISABLED_PLUGINS.some((p) => p.includes('runtime.v1.linux')), 'tasks-service cannot load without it');
});

test('paths with quotes and backslashes are escaped as TOML strings', () => {
  const paths = containerdPaths('/tmp/a"b\\c', { cniBinDir: '/usr/lib/cni' });
  const toml = renderContainerdConfig({ paths, sandboxImage: 'x' });
  assert.ok(toml.includes('root = "/tmp/a\\"b\\\\c/agent/containerd/root"'), toml);
});
