import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import { writePayloadAtomically, type Payload } from '../../../../src/kubelet/volumes/atomic-writer.js';
import { commandMounter, mountsUnder, PodVolumes, tearDownPodVolumes, type VolumeContext } from '../../../../src/kubelet/volumes/pod-volumes.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

async function tmp(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'k1s-vol-'));
  t.after(async () => {
    // unmount anything a failed test left, then remove
    for (const m of (await mountsUnder(dir)).sort((a, b) => b.length - a.length)) await commandMounter.unmount(m).catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  });
  return dir;
}

const payload = (entries: Record<string, [string, number]>): Payload =>
  new Map(Object.entries(entries).map(([k, [d, mode]]) => [k, { data: Buffer.from(d), mode }]));

test('atomic writer: ..data points at a timestamped dir, keys are links into it, an update swaps and cleans up', async (t) => {
  const dir = await tmp(t);
  const first = await writePayloadAtomically(dir, payload({ 'game.properties': ['lives=3', 0o644], 'ui/colors': ['red', 0o400] }), { now: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) });
  assert.equal(first.changed, true);
  const ts1 = await fs.readlink(path.join(dir, '..data'));
  assert.match(ts1, /^\.\.2026_01_02_03_04_05\.\d+$/);
  assert.equal(await fs.readlink(path.join(dir, 'game.properties')), '..data/game.properties');
  assert.equal(await fs.readlink(path.join(dir, 'ui')), '..data/ui');
  assert.equal(await fs.readFile(path.join(dir, 'ui/colors'), 'utf8'), 'red');
  assert.equal((await fs.stat(path.join(dir, 'ui/colors'))).mode & 0o777, 0o400);
  assert.equal((await fs.stat(path.join(dir, ts1))).mode & 0o777, 0o755);

  assert.equal((await writePayloadAtomically(dir, payload({ 'game.properties': ['lives=3', 0o644], 'ui/colors': ['red', 0o400] }))).changed, false);
  assert.equal(await fs.readlink(path.join(dir, '..data')), ts1);

  const second = await writePayloadAtomically(dir, payload({ 'game.properties': ['lives=5', 0o644] }));
  assert.equal(second.changed, true);
  const ts2 = await fs.readlink(path.join(dir, '..data'));
  assert.notEqual(ts2, ts1);
  assert.equal(await fs.readFile(path.join(dir, 'game.properties'), 'utf8'), 'lives=5');
  assert.deepEqual((await fs.readdir(dir)).sort(), ['..data', ts2, 'game.properties'].sort());

  // a mode change alone is an update too
  assert.equal((await writePayloadAtomically(dir, payload({ 'game.properties': ['lives=5', 0o600] }))).changed, true);
  assert.equal((await fs.stat(path.join(dir, 'game.properties'))).mode & 0o777, 0o600);

  await assert.rejects(writePayloadAtomically(dir, payload({ '../escape': ['x', 0o644] })), /invalid path: must not contain '\.\.': \.\.\/escape/);
  await assert.rejects(writePayloadAtomically(dir, payload({ '/abs': ['x', 0o644] })), /invalid path: must be relative path: \/abs/);
  await assert.rejects(writePayloadAtomically(dir, payload({ '..data2': ['x', 0o644] })), /must not start with '\.\.'/);
});

interface Store {
  configMaps: Record<string, Record<string, string>>;
  secrets: Record<string, Record<string, string>>;
}

function volumeCtx(podsDir: string, store: Store): VolumeContext {
  return {
    podsDir,
    async getConfigMap(ns, name) {
      const d = store.configMaps[`${ns}/${name}`];
      return d ? { data: { ...d } } : undefined;
    },
    async getSecret(ns, name) {
      const d = store.secrets[`${ns}/${name}`];
      return d ? { data: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, b64(v)])) } : undefined;
    },
    async requestToken() {
      throw new Error('no tokens here');
    },
    nodeAllocatable: { cpu: '2', memory: '1Gi' },
  };
}

function mkPod(uid: string, volumes: Record<string, unknown>[], extra: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'kubernetes-downwardapi-volume-example', namespace: 'default', uid, labels: { zone: 'us-est-coast', cluster: 'test-cluster1', rack: 'rack-22' }, annotations: { build: 'two', builder: 'john-doe' } },
    spec: { containers: [{ name: 'client-container', image: 'busybox', resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '32Mi' } } }], volumes, ...extra },
  } as Pod;
}

const ls = async (d: string): Promise<string[]> => (await fs.readdir(d)).filter((n) => !n.startsWith('..')).sort();

test('configMap volume: all keys, items with per-item mode, defaultMode, optional; refresh propagates updates', async (t) => {
  const podsDir = await tmp(t);
  const store: Store = { configMaps: { 'default/game-config': { 'game.properties': 'enemies=aliens', 'ui.properties': 'color.good=purple' } }, secrets: {} };
  const vols = new PodVolumes(volumeCtx(podsDir, store));
  const pod = mkPod('u1', [
    { name: 'all', configMap: { name: 'game-config' } },
    { name: 'some', configMap: { name: 'game-config', defaultMode: 0o600, items: [{ key: 'game.properties', path: 'sub/game' }, { key: 'ui.properties', path: 'ui', mode: 0o444 }] } },
    { name: 'maybe', configMap: { name: 'not-yet', optional: true } },
  ]);
  const r = await vols.setUp(pod);
  assert.ok('mounts' in r, JSON.stringify(r));
  const all = r.mounts.get('all')!;
  assert.equal(all.hostPath, path.join(podsDir, 'u1/volumes/kubernetes.io~configmap/all'));
  assert.equal(all.readOnly, true);
  assert.deepEqual(await ls(all.hostPath), ['game.properties', 'ui.properties']);
  assert.equal(await fs.readFile(path.join(all.hostPath, 'game.properties'), 'utf8'), 'enemies=aliens');
  assert.equal((await fs.stat(path.join(all.hostPath, 'game.properties'))).mode & 0o777, 0o644);
  const some = r.mounts.get('some')!.hostPath;
  assert.deepEqual(await ls(some), ['sub', 'ui']);
  assert.equal((await fs.stat(path.join(some, 'sub/game'))).mode & 0o777, 0o600);
  assert.equal((await fs.stat(path.join(some, 'ui'))).mode & 0o777, 0o444);
  assert.equal((await fs.stat(all.hostPath)).mode & 0o777, 0o777);
  assert.deepEqual(await ls(r.mounts.get('maybe')!.hostPath), []);

  store.configMaps['default/game-config']['game.properties'] = 'enemies=robots';
  store.configMaps['default/not-yet'] = { later: 'here' };
  const before = await fs.readlink(path.join(all.hostPath, '..data'));
  const upd = await vols.refresh(pod);
  assert.deepEqual(upd.updated.sort(), ['all', 'maybe', 'some']);
  assert.equal(await fs.readFile(path.join(all.hostPath, 'game.properties'), 'utf8'), 'enemies=robots');
  assert.notEqual(await fs.readlink(path.join(all.hostPath, '..data')), before);
  assert.equal(await fs.readFile(path.join(r.mounts.get('maybe')!.hostPath, 'later'), 'utf8'), 'here');
  assert.deepEqual((await vols.refresh(pod)).updated, []);

  await vols.tearDown('u1');
  assert.equal(await fs.stat(path.join(podsDir, 'u1')).catch(() => 'gone'), 'gone');
});

test('configMap and secret failures carry the FailedMount texts', async (t) => {
  const podsDir = await tmp(t);
  const store: Store = { configMaps: { 'default/cm': { a: '1' } }, secrets: {} };
  const vols = new PodVolumes(volumeCtx(podsDir, store));
  t.after(() => vols.tearDown('u2'));
  const r = await vols.setUp(mkPod('u2', [
    { name: 'missing', configMap: { name: 'nope' } },
    { name: 'badkey', configMap: { name: 'cm', items: [{ key: 'zz', path: 'z' }] } },
    { name: 'optkey', configMap: { name: 'cm', optional: true, items: [{ key: 'zz', path: 'z' }] } },
    { name: 'sec', secret: { secretName: 'gone' } },
    { name: 'pvc', persistentVolumeClaim: { claimName: 'data' } },
  ]));
  assert.ok('failure' in r);
  assert.deepEqual(r.failures.map((f) => f.message), [
    'MountVolume.SetUp failed for volume "missing" : configmap "nope" not found',
    'MountVolume.SetUp failed for volume "badkey" : configmap references non-existent config key: zz',
    'MountVolume.SetUp failed for volume "sec" : secret "gone" not found',
    'MountVolume.SetUp failed for volume "pvc" : volume type persistentVolumeClaim is not supported by this kubelet',
  ]);
  assert.equal(r.failure.reason, 'FailedMount');
});

test('secret volume is a tmpfs with the secret files; tearDown unmounts it and removes the pod dir', async (t) => {
  const podsDir = await tmp(t);
  const store: Store = { configMaps: {}, secrets: { 'default/test-secret': { username: 'my-app', password: '39528$vdg7Jb' } } };
  const vols = new PodVolumes(volumeCtx(podsDir, store));
  t.after(() => vols.tearDown('u3').catch(() => undefined));
  const r = await vols.setUp(mkPod('u3', [{ name: 'secret-volume', secret: { secretName: 'test-secret', defaultMode: 0o400 } }]));
  assert.ok('mounts' in r, JSON.stringify(r));
  const dir = r.mounts.get('secret-volume')!.hostPath;
  assert.equal(dir, path.join(podsDir, 'u3/volumes/kubernetes.io~secret/secret-volume'));
  assert.deepEqual(await mountsUnder(dir), [dir]);
  assert.equal(await fs.readFile(path.join(dir, 'password'), 'utf8'), '39528$vdg7Jb');
  assert.equal((await fs.stat(path.join(dir, 'password'))).mode & 0o777, 0o400);
  // setting up again does not stack a second tmpfs
  await vols.setUp(mkPod('u3', [{ name: 'secret-volume', secret: { secretName: 'test-secret', defaultMode: 0o400 } }]));
  assert.deepEqual(await mountsUnder(dir), [dir]);
  await vols.tearDown('u3');
  assert.deepEqual(await mountsUnder(podsDir), []);
  assert.equal(await fs.stat(path.join(podsDir, 'u3')).catch(() => 'gone'), 'gone');
});

test('emptyDir: a 0777 directory on disk; medium Memory is a tmpfs sized by sizeLimit, the pod limit or the node', async (t) => {
  const podsDir = await tmp(t);
  const vols = new PodVolumes(volumeCtx(podsDir, { configMaps: {}, secrets: {} }));
  t.after(() => vols.tearDown('u4').catch(() => undefined));
  const pod = mkPod('u4', [
    { name: 'cache', emptyDir: {} },
    { name: 'mem', emptyDir: { medium: 'Memory' } },
    { name: 'small', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
    { name: 'big', emptyDir: { medium: 'Memory', sizeLimit: '64Gi' } },
  ]);
  const r = await vols.setUp(pod);
  assert.ok('mounts' in r, JSON.stringify(r));
  const cache = r.mounts.get('cache')!;
  assert.equal(cache.hostPath, path.join(podsDir, 'u4/volumes/kubernetes.io~empty-dir/cache'));
  assert.equal((await fs.stat(cache.hostPath)).mode & 0o777, 0o777);
  assert.equal(cache.readOnly, false);
  const info = await fs.readFile('/proc/self/mountinfo', 'utf8');
  const sizeOf = (name: string): string | undefined => {
    const line = info.split('\n').find((l) => l.split(' ')[4] === r.mounts.get(name)!.hostPath);
    return /size=(\d+k)/.exec(line ?? '')?.[1];
  };
  assert.equal(sizeOf('cache'), undefined);
  // the only container limits memory to 128Mi (the pod cgroup limit) and that is below the node's 1Gi
  assert.equal(sizeOf('mem'), `${128 * 1024}k`);
  assert.equal(sizeOf('small'), `${16 * 1024}k`);
  assert.equal(sizeOf('big'), `${128 * 1024}k`);
  await vols.tearDown('u4');
  assert.deepEqual(await mountsUnder(podsDir), []);
});

test('hostPath: type checks with kube messages and the 0755 / 0644 create modes', async (t) => {
  const root = await tmp(t);
  const vols = new PodVolumes(volumeCtx(path.join(root, 'pods'), { configMaps: {}, secrets: {} }));
  t.after(() => vols.tearDown('u5').catch(() => undefined));
  await fs.writeFile(path.join(root, 'file'), 'x');
  await fs.mkdir(path.join(root, 'dir'));
  const sock = path.join(root, 'sock');
  const server = net.createServer().listen(sock);
  await new Promise((res) => server.once('listening', res));
  t.after(() => new Promise<void>((res) => server.close(() => res())));
  const hp = (name: string, p: string, type?: string) => ({ name, hostPath: { path: p, ...(type ? { type } : {}) } });
  const ok = await vols.setUp(mkPod('u5', [
    hp('mk-dir', path.join(root, 'new/nested'), 'DirectoryOrCreate'),
    hp('mk-file', path.join(root, 'dir/new.txt'), 'FileOrCreate'),
    hp('dir', path.join(root, 'dir'), 'Directory'),
    hp('file', path.join(root, 'file'), 'File'),
    hp('sock', sock, 'Socket'),
    hp('null', '/dev/null', 'CharDevice'),
    hp('unchecked', path.join(root, 'missing')),
  ]));
  assert.ok('mounts' in ok, JSON.stringify(ok));
  assert.equal(ok.mounts.get('dir')!.hostPath, path.join(root, 'dir'));
  assert.equal((await fs.stat(path.join(root, 'new/nested'))).mode & 0o777, 0o755);
  assert.equal((await fs.stat(path.join(root, 'dir/new.txt'))).mode & 0o777, 0o644);

  const bad = await vols.setUp(mkPod('u5', [
    hp('a', path.join(root, 'file'), 'Directory'),
    hp('b', path.join(root, 'dir'), 'File'),
    hp('c', path.join(root, 'absent'), 'Directory'),
    hp('d', '/dev/null', 'BlockDevice'),
    hp('e', path.join(root, 'file'), 'Socket'),
    hp('f', path.join(root, 'no-parent/x'), 'FileOrCreate'),
    hp('g', path.join(root, 'file'), 'Weird'),
    hp('h', `${root}/../etc`, 'Directory'),
    hp('i', path.join(root, 'dir'), 'DirectoryOrCreate'),
  ]));
  assert.ok('failure' in bad);
  const msgs = Object.fromEntries(bad.failures.map((f) => [f.volume, f.message.replace('MountVolume.SetUp failed for volume ', '')]));
  assert.deepEqual(msgs, {
    a: `"a" : hostPath type check failed: ${root}/file is not a directory, it's a File`,
    b: `"b" : hostPath type check failed: ${root}/dir is not a file, it's a Directory`,
    c: `"c" : hostPath ${root}/absent doesn't exist`,
    d: `"d" : hostPath type check failed: /dev/null is not a block device, it's a CharDevice`,
    e: `"e" : hostPath type check failed: ${root}/file is not a socket file, it's a File`,
    f: `"f" : ENOENT: no such file or directory, open '${root}/no-parent/x'`,
    g: '"g" : Weird is an invalid volume type',
    h: `"h" : invalid HostPath \`${root}/../etc\`: must not contain '..'`,
  });
});

test('downwardAPI volume: the docs example files (labels, annotations, resources with divisor)', async (t) => {
  const podsDir = await tmp(t);
  const vols = new PodVolumes(volumeCtx(podsDir, { configMaps: {}, secrets: {} }));
  t.after(() => vols.tearDown('u6').catch(() => undefined));
  const items = [
    { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
    { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
    { path: 'zone', fieldRef: { fieldPath: "metadata.labels['zone']" }, mode: 0o600 },
    { path: 'cpu_limit', resourceFieldRef: { containerName: 'client-container', resource: 'limits.cpu', divisor: '1m' } },
    { path: 'mem_request', resourceFieldRef: { containerName: 'client-container', resource: 'requests.memory', divisor: '1Mi' } },
  ];
  const r = await vols.setUp(mkPod('u6', [{ name: 'podinfo', downwardAPI: { items } }]));
  assert.ok('mounts' in r, JSON.stringify(r));
  const dir = r.mounts.get('podinfo')!.hostPath;
  assert.equal(dir, path.join(podsDir, 'u6/volumes/kubernetes.io~downward-api/podinfo'));
  const read = (f: string) => fs.readFile(path.join(dir, f), 'utf8');
  assert.equal(await read('labels'), 'cluster="test-cluster1"\nrack="rack-22"\nzone="us-est-coast"');
  assert.equal(await read('annotations'), 'build="two"\nbuilder="john-doe"');
  assert.equal(await read('zone'), 'us-est-coast');
  assert.equal((await fs.stat(path.join(dir, 'zone'))).mode & 0o777, 0o600);
  assert.equal(await read('cpu_limit'), '500');
  assert.equal(await read('mem_request'), '32');
  const bad = await vols.setUp(mkPod('u6', [{ name: 'podinfo', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'spec.nodeName' } }, { path: 'x', resourceFieldRef: { containerName: 'nope', resource: 'limits.cpu' } }] } }]));
  assert.ok('failure' in bad);
  assert.equal(bad.failure.message, 'MountVolume.SetUp failed for volume "podinfo" : [unsupported fieldPath: spec.nodeName, container nope not found]');
});

test('fsGroup: volume files get the group, group read access and setgid directories', async (t) => {
  const podsDir = await tmp(t);
  const vols = new PodVolumes(volumeCtx(podsDir, { configMaps: { 'default/cm': { k: 'v' } }, secrets: {} }));
  t.after(() => vols.tearDown('u7').catch(() => undefined));
  const r = await vols.setUp(mkPod('u7', [{ name: 'c', configMap: { name: 'cm', defaultMode: 0o600 } }, { name: 'e', emptyDir: {} }], { securityContext: { fsGroup: 2000 } }));
  assert.ok('mounts' in r, JSON.stringify(r));
  const file = await fs.stat(path.join(r.mounts.get('c')!.hostPath, 'k'));
  assert.equal(file.gid, 2000);
  assert.equal(file.mode & 0o777, 0o640);
  const e = await fs.stat(r.mounts.get('e')!.hostPath);
  assert.equal(e.gid, 2000);
  assert.equal(e.mode & 0o7777, 0o2777);
});

test('tearDownPodVolumes cleans an orphaned pod directory left by an earlier kubelet (tmpfs included)', async (t) => {
  const podsDir = await tmp(t);
  const store: Store = { configMaps: {}, secrets: { 'default/s': { k: 'v' } } };
  const earlier = new PodVolumes(volumeCtx(podsDir, store));
  const r = await earlier.setUp(mkPod('u8', [{ name: 's', secret: { secretName: 's' } }, { name: 'm', emptyDir: { medium: 'Memory' } }]));
  assert.ok('mounts' in r, JSON.stringify(r));
  assert.equal((await mountsUnder(path.join(podsDir, 'u8'))).length, 2);
  await tearDownPodVolumes(podsDir, 'u8');
  assert.deepEqual(await mountsUnder(podsDir), []);
  assert.deepEqual(await fs.readdir(podsDir), []);
  await assert.rejects(tearDownPodVolumes(podsDir, '..'), /invalid pod uid/);
});
