// Runs the real CNI plugins (bridge + host-local + portmap from /usr/lib/cni) on k1s' conflist in a netns of our
// own, then checks cleanupNodeNetwork puts the host back as it was. Names are unique per run (bridge, network name,
// pod CIDR, netns), so other tests and runtimes on the machine are never touched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { writeCniConfig } from '../../../src/network/cni-config.js';
import {
  cleanupNodeNetwork,
  cniChainName,
  commentContainerID,
  parseIptablesSave,
  planTableCleanup,
  splitRule,
  unusedHostportChains,
} from '../../../src/network/host-cleanup.js';

const CNI_PATH = '/usr/lib/cni';

interface Fixture {
  dir: string;
  confDir: string;
  ipamDataDir: string;
  cacheDir: string;
  bridge: string;
  networkName: string;
  podCIDR: string;
  netns: string;
}

async function fixture(t: { after(fn: () => Promise<void>): void }): Promise<Fixture> {
  const tag = randomBytes(3).toString('hex');
  const dir = await mkdtemp(join(tmpdir(), 'k1s-hostclean-'));
  const third = 100 + (parseInt(tag, 16) % 150);
  const f: Fixture = {
    dir,
    confDir: join(dir, 'net.d'),
    ipamDataDir: join(dir, 'cni-networks'),
    cacheDir: join(dir, 'cni-cache'),
    bridge: `k1st${tag}`,
    networkName: `k1s-test-${tag}`,
    podCIDR: `10.243.${third}.0/24`,
    netns: `cni-k1stest-${tag}`,
  };
  t.after(async () => {
    // Whatever the test left (it should be nothing): DEL via the plugins, then the names we made.
    await execa('ip', ['netns', 'del', f.netns], { reject: false });
    await execa('ip', ['link', 'del', f.bridge], { reject: false });
    await cleanupNodeNetwork({ bridge: f.bridge, ipamDataDir: f.ipamDataDir, networkName: f.networkName, cniCacheDir: f.cacheDir }).catch(() => []);
    await rm(dir, { recursive: true, force: true });
  });
  return f;
}

/** Runs one plugin of the conflist the way libcni does: the plugin's config with name/cniVersion (and prevResult). */
async function cniExec(
  f: Fixture,
  conf: { cniVersion: string; name: string; plugins: Array<Record<string, unknown>> },
  index: number,
  opts: { command: 'ADD' | 'DEL'; containerID: string; prevResult?: unknown; runtimeConfig?: unknown },
): Promise<Record<string, unknown>> {
  const plugin = conf.plugins[index];
  const stdin: Record<string, unknown> = { ...plugin, cniVersion: conf.cniVersion, name: conf.name };
  if (opts.prevResult) stdin.prevResult = opts.prevResult;
  if (opts.runtimeConfig) stdin.runtimeConfig = opts.runtimeConfig;
  const r = await execa(join(CNI_PATH, String(plugin.type)), {
    input: JSON.stringify(stdin),
    reject: false,
    env: {
      CNI_COMMAND: opts.command,
      CNI_CONTAINERID: opts.containerID,
      CNI_NETNS: `/var/run/netns/${f.netns}`,
      CNI_IFNAME: 'eth0',
      CNI_PATH,
    },
  });
  assert.equal(r.exitCode, 0, `${String(plugin.type)} ${opts.command}: ${r.stdout} ${r.stderr}`);
  return r.stdout ? (JSON.parse(String(r.stdout)) as Record<string, unknown>) : {};
}

async function addPod(
  f: Fixture,
  containerID: string,
): Promise<{ ip: string; hostPort: number; conf: { cniVersion: string; name: string; plugins: Array<Record<string, unknown>> } }> {
  const hostPort = 30000 + (parseInt(containerID.slice(0, 4), 16) % 2000);
  const { file } = await writeCniConfig({ confDir: f.confDir, podCIDR: f.podCIDR, ipamDataDir: f.ipamDataDir, bridge: f.bridge, networkName: f.networkName });
  const conf = JSON.parse(await readFile(file, 'utf8'));
  await execa('ip', ['netns', 'add', f.netns]);
  const bridgeResult = await cniExec(f, conf, 0, { command: 'ADD', containerID });
  await cniExec(f, conf, 1, {
    command: 'ADD',
    containerID,
    prevResult: bridgeResult,
    runtimeConfig: { portMappings: [{ hostPort, containerPort: 80, protocol: 'tcp' }] },
  });
  // libcni's cache entry, as containerd would write it
  await mkdir(join(f.cacheDir, 'results'), { recursive: true });
  await writeFile(join(f.cacheDir, 'results', `${f.networkName}-${containerID}-eth0`), JSON.stringify({ kind: 'cniCacheV1' }));
  const ips = bridgeResult.ips as Array<{ address: string }>;
  return { ip: ips[0].address.split('/')[0], hostPort, conf };
}

/** Everything on the host that mentions this fixture: links, iptables lines, netns, ipam files, cache files. */
async function footprint(f: Fixture, containerID: string): Promise<string[]> {
  const out: string[] = [];
  if ((await execa('ip', ['link', 'show', 'dev', f.bridge], { reject: false })).exitCode === 0) out.push(`link ${f.bridge}`);
  const ours = [cniChainName(f.networkName, containerID), cniChainName(f.networkName, containerID, 'DN-')];
  for (const table of ['nat', 'filter']) {
    const text = String((await execa('iptables', ['-t', table, '-S'])).stdout);
    for (const line of text.split('\n')) if (line.includes(f.networkName) || ours.some((c) => line.includes(c))) out.push(`${table}: ${line}`);
  }
  if (existsSync(`/var/run/netns/${f.netns}`)) out.push(`netns ${f.netns}`);
  for (const name of await readdir(join(f.ipamDataDir, f.networkName)).catch(() => [] as string[])) out.push(`ipam ${name}`);
  for (const name of await readdir(join(f.cacheDir, 'results')).catch(() => [] as string[])) out.push(`cache ${name}`);
  return out;
}

async function natChains(): Promise<string[]> {
  return parseIptablesSave(String((await execa('iptables', ['-t', 'nat', '-S'])).stdout)).chains;
}

/** The shared portmap chains must be gone when they were absent before and no other network still uses them. */
async function assertSharedChainsRestored(before: string[]): Promise<void> {
  const after = await natChains();
  const otherHostports = after.some((c) => c.startsWith('CNI-DN-'));
  if (!before.includes('CNI-HOSTPORT-DNAT') && !otherHostports) {
    assert.ok(!after.includes('CNI-HOSTPORT-DNAT') && !after.includes('CNI-HOSTPORT-MASQ') && !after.includes('CNI-HOSTPORT-SETMARK'), after.join(' '));
  }
}

test('iptables -S parsing: quoted comments, warnings skipped, k1s chains found by comment and by hash', () => {
  const id = 'abc123';
  const masq = cniChainName('k1s-pod-network', id);
  const dn = cniChainName('k1s-pod-network', id, 'DN-');
  assert.equal(masq.length, 28);
  assert.ok(dn.startsWith('CNI-DN-') && dn.length === 28);
  const text = [
    '# Warning: iptables-legacy tables present, use iptables-legacy to see them',
    '-P POSTROUTING ACCEPT',
    '-N CNI-HOSTPORT-DNAT',
    '-N CNI-HOSTPORT-SETMARK',
    `-N ${masq}`,
    `-N ${dn}`,
    '-N CNI-ffffffffffffffffffffffff',
    '-A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT',
    `-A POSTROUTING -s 10.42.0.2/32 -m comment --comment "name: \\"k1s-pod-network\\" id: \\"${id}\\"" -j ${masq}`,
    '-A POSTROUTING -s 10.88.0.2/32 -m comment --comment "name: \\"podman\\" id: \\"zzz\\"" -j CNI-ffffffffffffffffffffffff',
    `-A CNI-HOSTPORT-DNAT -p tcp -m comment --comment "dnat name: \\"k1s-pod-network\\" id: \\"${id}\\"" -m multiport --dports 8080 -j ${dn}`,
    `-A ${dn} -p tcp -s 10.42.0.0/24 --dport 8080 -j CNI-HOSTPORT-SETMARK`,
    `-A ${masq} -d 10.42.0.0/24 -m comment --comment "name: \\"k1s-pod-network\\" id: \\"${id}\\"" -j ACCEPT`,
  ].join('\n');
  assert.deepEqual(splitRule('-A X -m comment --comment "a \\"b\\" c" -j Y'), ['-A', 'X', '-m', 'comment', '--comment', 'a "b" c', '-j', 'Y']);
  const table = parseIptablesSave(text);
  assert.equal(table.chains.length, 5);
  assert.equal(commentContainerID(table.rules[1].comment, 'k1s-pod-network'), id);
  assert.equal(commentContainerID(table.rules[2].comment, 'k1s-pod-network'), undefined, 'another network is not ours');
  const plan = planTableCleanup(table, { networkName: 'k1s-pod-network' });
  assert.deepEqual(plan.chains.sort(), [dn, masq].sort());
  assert.deepEqual(
    plan.rules.map((r) => r.chain),
    ['POSTROUTING', 'CNI-HOSTPORT-DNAT'],
    'the POSTROUTING jump and the DNAT entry go; rules inside our chains go with the chain; podman is left alone',
  );
  // a chain whose jump rule was already deleted is still found from a container id host-local knows
  const orphan = parseIptablesSave(`-N ${masq}\n-A ${masq} -d 10.42.0.0/24 -j ACCEPT`);
  assert.deepEqual(planTableCleanup(orphan, { networkName: 'k1s-pod-network', knownIDs: [id] }).chains, [masq]);
  assert.deepEqual(planTableCleanup(table, { networkName: 'k1s-pod-network', keepIDs: new Set([id]) }), { rules: [], chains: [] }, 'a live pod is kept');
  assert.deepEqual(
    planTableCleanup(table, { networkName: 'k1s-pod-network', liveIPs: new Set(['10.42.0.2']) }),
    { rules: [], chains: [] },
    'a running sandbox with that address keeps its rules even when host-local forgot it',
  );
  assert.deepEqual(unusedHostportChains(table), [], 'DNAT still has an entry');
  const empty = parseIptablesSave('-N CNI-HOSTPORT-DNAT\n-N CNI-HOSTPORT-MASQ\n-A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT');
  assert.deepEqual(unusedHostportChains(empty), ['CNI-HOSTPORT-DNAT', 'CNI-HOSTPORT-MASQ']);
});

test('a hard-killed pod (netns, veth, chains, reservation left behind) is cleaned up completely', async (t) => {
  const f = await fixture(t);
  const before = await natChains();
  const containerID = randomBytes(32).toString('hex');
  const { ip, hostPort } = await addPod(f, containerID);

  // The conflist works: the pod has an address in the pod CIDR, the bridge holds the gateway, the host reaches the pod.
  assert.ok(ip.startsWith(f.podCIDR.split('.').slice(0, 3).join('.')), ip);
  const addr = String((await execa('ip', ['-4', 'addr', 'show', 'dev', f.bridge])).stdout);
  assert.match(addr, new RegExp(`inet ${f.podCIDR.replace('.0/24', '.1')}/24`));
  await execa('ip', ['netns', 'exec', f.netns, 'ip', 'link', 'set', 'lo', 'up']);
  const ping = await execa('busybox', ['ping', '-c', '1', '-W', '2', ip], { reject: false });
  assert.equal(ping.exitCode, 0, `host → pod: ${ping.stdout} ${ping.stderr}`);
  const out = await execa('ip', ['netns', 'exec', f.netns, 'busybox', 'ping', '-c', '1', '-W', '2', f.podCIDR.replace('.0/24', '.1')], { reject: false });
  assert.equal(out.exitCode, 0, `pod → gateway: ${out.stdout} ${out.stderr}`);
  // portmap: a hostPort on 127.0.0.1 reaches an httpd in the pod
  const www = join(f.dir, 'www');
  await mkdir(www);
  await writeFile(join(www, 'index.html'), 'hello from the pod\n');
  const httpd = execa('ip', ['netns', 'exec', f.netns, 'busybox', 'httpd', '-f', '-p', '80', '-h', www], { reject: false });
  try {
    let body = '';
    for (let i = 0; i < 20 && !body; i++) {
      const r = await execa('timeout', ['3', 'busybox', 'wget', '-qO-', `http://127.0.0.1:${hostPort}/index.html`], { reject: false });
      body = r.exitCode === 0 ? String(r.stdout) : '';
      if (!body) await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(body, 'hello from the pod');
  } finally {
    httpd.kill('SIGKILL');
    await httpd;
  }
  const fp = await footprint(f, containerID);
  assert.ok(fp.some((l) => l.startsWith('nat:') && l.includes(cniChainName(f.networkName, containerID))), fp.join('\n'));
  assert.ok(fp.some((l) => l.includes(cniChainName(f.networkName, containerID, 'DN-'))), fp.join('\n'));
  assert.ok(fp.includes(`ipam ${ip}`));

  const removed = await cleanupNodeNetwork({ bridge: f.bridge, ipamDataDir: f.ipamDataDir, networkName: f.networkName, cniCacheDir: f.cacheDir });
  assert.ok(removed.includes(`netns ${f.netns}`), removed.join('\n'));
  assert.ok(removed.includes(`link ${f.bridge}`), removed.join('\n'));
  assert.ok(removed.includes(`iptables -t nat chain ${cniChainName(f.networkName, containerID)}`), removed.join('\n'));
  assert.ok(removed.includes(`ipam reservation ${ip}`), removed.join('\n'));
  assert.deepEqual(await footprint(f, containerID), [], 'nothing of the pod is left on the host');
  await assertSharedChainsRestored(before);
  assert.deepEqual(await cleanupNodeNetwork({ bridge: f.bridge, ipamDataDir: f.ipamDataDir, networkName: f.networkName, cniCacheDir: f.cacheDir }), [], 'idempotent');
});

test('after a proper CNI DEL the bridge, shared hostport chains and IPAM state still go; a live netns is kept', async (t) => {
  const f = await fixture(t);
  const before = await natChains();
  const containerID = randomBytes(32).toString('hex');
  const { conf, ip } = await addPod(f, containerID);

  // A live pod (a process holds its netns) is not touched.
  const holder = execa('ip', ['netns', 'exec', f.netns, 'sleep', '30'], { reject: false });
  t.after(() => void holder.kill('SIGKILL'));
  await new Promise((r) => setTimeout(r, 100));
  const whileLive = await cleanupNodeNetwork({ bridge: f.bridge, ipamDataDir: f.ipamDataDir, networkName: f.networkName, cniCacheDir: f.cacheDir });
  assert.deepEqual(whileLive, [], 'nothing of a running pod is removed');
  assert.ok((await footprint(f, containerID)).includes(`ipam ${ip}`));
  holder.kill('SIGKILL');
  await holder;

  await cniExec(f, conf, 1, { command: 'DEL', containerID, runtimeConfig: { portMappings: [] } });
  await cniExec(f, conf, 0, { command: 'DEL', containerID });
  await execa('ip', ['netns', 'del', f.netns]);
  const left = await footprint(f, containerID);
  assert.ok(left.includes(`link ${f.bridge}`), 'the bridge plugin leaves its bridge');

  const removed = await cleanupNodeNetwork({ bridge: f.bridge, ipamDataDir: f.ipamDataDir, networkName: f.networkName, cniCacheDir: f.cacheDir });
  assert.ok(removed.includes(`link ${f.bridge}`), removed.join('\n'));
  assert.deepEqual(await footprint(f, containerID), []);
  await assertSharedChainsRestored(before);
});

test('chains and netns of another network are left alone', async (t) => {
  const f = await fixture(t);
  const tag = randomBytes(3).toString('hex');
  const foreignChain = `CNI-${tag}ffffffffffffffffff`.slice(0, 28);
  const comment = `name: "other-runtime" id: "${tag}"`;
  const foreignNs = `cni-k1sforeign-${tag}`;
  t.after(async () => {
    await execa('iptables', ['-t', 'nat', '-D', 'POSTROUTING', '-s', '10.250.0.9/32', '-m', 'comment', '--comment', comment, '-j', foreignChain], { reject: false });
    await execa('iptables', ['-t', 'nat', '-F', foreignChain], { reject: false });
    await execa('iptables', ['-t', 'nat', '-X', foreignChain], { reject: false });
    await execa('ip', ['netns', 'del', foreignNs], { reject: false });
  });
  await execa('iptables', ['-t', 'nat', '-N', foreignChain]);
  await execa('iptables', ['-t', 'nat', '-A', foreignChain, '-j', 'MASQUERADE', '-m', 'comment', '--comment', comment]);
  await execa('iptables', ['-t', 'nat', '-A', 'POSTROUTING', '-s', '10.250.0.9/32', '-m', 'comment', '--comment', comment, '-j', foreignChain]);
  await execa('ip', ['netns', 'add', foreignNs]);

  const removed = await cleanupNodeNetwork({ bridge: f.bridge, ipamDataDir: f.ipamDataDir, networkName: f.networkName, cniCacheDir: f.cacheDir });
  assert.deepEqual(removed, []);
  assert.ok((await natChains()).includes(foreignChain));
  assert.match(String((await execa('iptables', ['-t', 'nat', '-S', 'POSTROUTING'])).stdout), new RegExp(foreignChain));
  assert.ok(existsSync(`/var/run/netns/${foreignNs}`));
});
