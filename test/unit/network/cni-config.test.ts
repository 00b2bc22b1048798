import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCniConfig, cidrContains, podCidrGateway, writeCniConfig } from '../../../src/network/cni-config.js';

test('podCidrGateway is the first host address of the pod CIDR', () => {
  assert.equal(podCidrGateway('10.42.0.0/24'), '10.42.0.1');
  assert.equal(podCidrGateway('10.42.7.0/24'), '10.42.7.1');
  assert.equal(podCidrGateway('10.42.0.0/16'), '10.42.0.1');
  assert.equal(podCidrGateway('10.42.3.77/24'), '10.42.3.1', 'host bits are cleared first');
  assert.throws(() => podCidrGateway('10.42.0.0'), /invalid IPv4 CIDR/);
  assert.throws(() => podCidrGateway('10.42.0.300/24'), /invalid IPv4 CIDR/);
  assert.throws(() => podCidrGateway('10.42.0.0/31'), /too small/);
  assert.equal(cidrContains('10.42.1.0/24', '10.42.1.254'), true);
  assert.equal(cidrContains('10.42.1.0/24', '10.42.2.1'), false);
});

test('the conflist: bridge with host-local IPAM on the pod CIDR, then portmap', () => {
  const c = buildCniConfig({ podCIDR: '10.42.0.0/24', ipamDataDir: '/data/cni/networks', mtu: 1400 }) as {
    cniVersion: string;
    name: string;
    plugins: Array<Record<string, unknown>>;
  };
  assert.equal(c.cniVersion, '1.0.0');
  assert.equal(c.name, 'k1s-pod-network');
  assert.deepEqual(c.plugins[0], {
    type: 'bridge',
    bridge: 'cni0',
    isGateway: true,
    ipMasq: true,
    hairpinMode: true,
    mtu: 1400,
    ipam: {
      type: 'host-local',
      dataDir: '/data/cni/networks',
      ranges: [[{ subnet: '10.42.0.0/24', gateway: '10.42.0.1' }]],
      routes: [{ dst: '0.0.0.0/0' }],
    },
  });
  assert.deepEqual(c.plugins[1], { type: 'portmap', capabilities: { portMappings: true }, snat: true });
  assert.equal(c.plugins.length, 2, 'loopback is run by containerd itself');
});

test('writeCniConfig writes atomically and leaves identical content alone', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'k1s-cniconf-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const confDir = join(dir, 'net.d');
  const ipamDataDir = join(dir, 'cni-networks');
  const first = await writeCniConfig({ confDir, podCIDR: '10.42.0.0/24', ipamDataDir });
  assert.deepEqual(first, { file: join(confDir, '10-k1s.conflist'), changed: true });
  const parsed = JSON.parse(await readFile(first.file, 'utf8'));
  assert.equal(parsed.plugins[0].ipam.ranges[0][0].gateway, '10.42.0.1');
  assert.ok((await stat(ipamDataDir)).isDirectory());
  const mtime = (await stat(first.file)).mtimeMs;

  const again = await writeCniConfig({ confDir, podCIDR: '10.42.0.0/24', ipamDataDir });
  assert.equal(again.changed, false);
  assert.equal((await stat(first.file)).mtimeMs, mtime);

  const changed = await writeCniConfig({ confDir, podCIDR: '10.42.5.0/24', ipamDataDir, bridge: 'k1sbr0' });
  assert.equal(changed.changed, true);
  const now = JSON.parse(await readFile(first.file, 'utf8'));
  assert.equal(now.plugins[0].bridge, 'k1sbr0');
  assert.equal(now.plugins[0].ipam.ranges[0][0].subnet, '10.42.5.0/24');
  assert.deepEqual(await readdir(confDir), ['10-k1s.conflist'], 'no temp file left behind');
});
