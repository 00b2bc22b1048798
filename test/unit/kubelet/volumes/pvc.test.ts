import { test } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pod } from '../../../../src/api/core/pod/types.js';
import { PodVolumes, type VolumeContext } from '../../../../src/kubelet/volumes/pod-volumes.js';
import { ephemeralClaimName, type ClaimLike, type ClaimSource, type PersistentVolumeLike } from '../../../../src/kubelet/volumes/pvc.js';
import { containerMounts } from '../../../../src/kubelet/cri/container-config.js';

async function tmp(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'k1s-pvc-'));
  t.after(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

interface Store {
  claims: Map<string, ClaimLike>;
  pvs: Map<string, PersistentVolumeLike>;
}

function ctx(podsDir: string, store: Store): VolumeContext {
  const claims: ClaimSource = {
    getClaim: async (ns, name) => structuredClone(store.claims.get(`${ns}/${name}`)),
    getVolume: async (name) => structuredClone(store.pvs.get(name)),
  };
  return {
    podsDir,
    claims,
    getConfigMap: async () => undefined,
    getSecret: async () => undefined,
    requestToken: async () => ({ token: 't' }),
    nodeAllocatable: { cpu: '2', memory: '1Gi' },
  };
}

const mkPod = (volumes: Record<string, unknown>[], sc: Record<string, unknown> = {}): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'pod-uid-1' },
    spec: { securityContext: sc, containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'sub/dir' }] }], volumes },
  }) as unknown as Pod;

const claim = (name: string, extra: Partial<ClaimLike> = {}): ClaimLike => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { volumeName: `pv-${name}` },
  status: { phase: 'Bound' },
  ...extra,
});
const pv = (name: string, claimName: string, source: PersistentVolumeLike['spec']): PersistentVolumeLike => ({
  metadata: { name },
  spec: { claimRef: { uid: `uid-${claimName}`, name: claimName, namespace: 'default' }, volumeMode: 'Filesystem', ...source },
});

test('pvc volume waits with the populator texts until its claim is bound, then mounts the hostPath PV (DirectoryOrCreate)', async (t) => {
  const dir = await tmp(t);
  const store: Store = { claims: new Map(), pvs: new Map() };
  const vols = new PodVolumes(ctx(path.join(dir, 'pods'), store));
  const pod = mkPod([{ name: 'data', persistentVolumeClaim: { claimName: 'www' } }]);

  const failureOf = async () => {
    const r = await vols.setUp(pod);
    assert.ok('failure' in r, 'expected a failure');
    assert.equal(r.failure.reason, 'FailedMount');
    return r.failure.message;
  };
  assert.equal(
    await failureOf(),
    'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: ' +
      'error processing PVC default/www: failed to fetch PVC from API server: persistentvolumeclaims "www" not found',
  );
  store.claims.set('default/www', claim('www', { status: { phase: 'Pending' }, spec: {} }));
  assert.match(await failureOf(), /failed to process volumes=\[data\]: error processing PVC default\/www: PVC is not bound$/);
  store.claims.set('default/www', claim('www'));
  assert.match(await failureOf(), /error processing PVC default\/www: failed to fetch PV pv-www from API server: persistentvolumes "pv-www" not found$/);
  store.pvs.set('pv-www', { metadata: { name: 'pv-www' }, spec: { hostPath: { path: '/x' } } });
  assert.match(await failureOf(), /found PV object pv-www but it has a nil pv\.Spec\.ClaimRef indicating it is not yet bound to the claim$/);
  store.pvs.set('pv-www', pv('pv-www', 'other', { hostPath: { path: '/x' } }));
  assert.match(await failureOf(), /found PV object pv-www but its pv\.Spec\.ClaimRef\.UID uid-other does not point to claim\.UID uid-www$/);
  store.claims.set('default/www', claim('www', { metadata: { name: 'www', namespace: 'default', uid: 'uid-www', deletionTimestamp: '2026-01-01T00:00:00Z' } }));
  assert.match(await failureOf(), /error processing PVC default\/www: PVC is being deleted$/);

  // bound: the PV's directory is created (DirectoryOrCreate) and handed to the runtime as is
  store.claims.set('default/www', claim('www'));
  const volDir = path.join(dir, 'storage', 'pv-www_default_www');
  store.pvs.set('pv-www', pv('pv-www', 'www', { hostPath: { path: volDir, type: 'DirectoryOrCreate' } }));
  const r = await vols.setUp(pod);
  assert.ok('mounts' in r, JSON.stringify(r));
  const m = r.mounts.get('data')!;
  assert.deepEqual(m, { hostPath: volDir, readOnly: false, selinuxRelabel: false, plugin: 'kubernetes.io~host-path' });
  assert.ok((await fs.stat(volDir)).isDirectory());

  // subPath works as for other volumes: created inside the PV directory
  const cm = await containerMounts(pod, pod.spec!.containers![0], r.mounts, { podDir: vols.podDir('pod-uid-1'), env: [], podIPs: [], clusterDomain: 'cluster.local' });
  assert.ok('mounts' in cm, JSON.stringify(cm));
  assert.equal(cm.mounts[0].host_path, path.join(volDir, 'sub/dir'));
  assert.equal(cm.mounts[0].readonly, false);
  assert.ok((await fs.stat(path.join(volDir, 'sub/dir'))).isDirectory());

  // teardown removes the pod directory only: the data stays
  await fs.writeFile(path.join(volDir, 'sub/dir/file'), 'kept');
  await vols.tearDown('pod-uid-1');
  await assert.rejects(fs.stat(vols.podDir('pod-uid-1')));
  assert.equal(await fs.readFile(path.join(volDir, 'sub/dir/file'), 'utf8'), 'kept');
});

test('pvc readOnly forces a read-only mount; a hostPath type mismatch is a MountVolume.SetUp failure naming the PV', async (t) => {
  const dir = await tmp(t);
  const file = path.join(dir, 'a-file');
  await fs.writeFile(file, '');
  const store: Store = { claims: new Map([['default/ro', claim('ro')], ['default/bad', claim('bad')]]), pvs: new Map() };
  store.pvs.set('pv-ro', pv('pv-ro', 'ro', { hostPath: { path: dir } }));
  store.pvs.set('pv-bad', pv('pv-bad', 'bad', { hostPath: { path: file, type: 'Directory' } }));
  const vols = new PodVolumes(ctx(path.join(dir, 'pods'), store));
  const ro = await vols.setUp(mkPod([{ name: 'data', persistentVolumeClaim: { claimName: 'ro', readOnly: true } }]));
  assert.ok('mounts' in ro);
  assert.equal(ro.mounts.get('data')!.readOnly, true);
  const bad = await vols.setUp(mkPod([{ name: 'data', persistentVolumeClaim: { claimName: 'bad' } }]));
  assert.ok('failure' in bad);
  assert.equal(bad.failure.message, `MountVolume.SetUp failed for volume "pv-bad" : hostPath type check failed: ${file} is not a directory, it's a File`);
});

test('local PV: must exist, gets fsGroup ownership (skipped by OnRootMismatch when the root matches)', async (t) => {
  const dir = await tmp(t);
  const local = path.join(dir, 'local-vol');
  const store: Store = { claims: new Map([['default/loc', claim('loc')]]), pvs: new Map([['pv-loc', pv('pv-loc', 'loc', { local: { path: local } })]]) };
  const vols = new PodVolumes(ctx(path.join(dir, 'pods'), store));
  const pod = mkPod([{ name: 'data', persistentVolumeClaim: { claimName: 'loc' } }], { fsGroup: 2345 });
  const missing = await vols.setUp(pod);
  assert.ok('failure' in missing);
  assert.equal(missing.failure.message, `MountVolume.NewMounter initialization failed for volume "pv-loc" : path "${local}" does not exist`);

  await fs.mkdir(path.join(local, 'nested'), { recursive: true, mode: 0o700 });
  await fs.writeFile(path.join(local, 'nested/f'), 'x', { mode: 0o600 });
  const r = await vols.setUp(pod);
  assert.ok('mounts' in r, JSON.stringify(r));
  assert.deepEqual(r.mounts.get('data'), { hostPath: local, readOnly: false, selinuxRelabel: true, plugin: 'kubernetes.io~local-volume' });
  for (const p of [local, path.join(local, 'nested'), path.join(local, 'nested/f')]) assert.equal((await fs.stat(p)).gid, 2345, p);
  assert.equal((await fs.stat(path.join(local, 'nested'))).mode & 0o2070, 0o2070);
  assert.equal((await fs.stat(path.join(local, 'nested/f'))).mode & 0o060, 0o060);

  // OnRootMismatch: the root matches, so a file added since keeps its group
  await fs.writeFile(path.join(local, 'later'), 'y');
  await fs.chown(path.join(local, 'later'), 0, 0);
  const again = await vols.setUp(mkPod([{ name: 'data', persistentVolumeClaim: { claimName: 'loc' } }], { fsGroup: 2345, fsGroupChangePolicy: 'OnRootMismatch' }));
  assert.ok('mounts' in again);
  assert.equal((await fs.stat(path.join(local, 'later'))).gid, 0);
  // Always (the default) walks the whole volume again
  assert.ok('mounts' in (await vols.setUp(pod)));
  assert.equal((await fs.stat(path.join(local, 'later'))).gid, 2345);
});

test('block-mode claims are refused with a clear message; the pod waits', async (t) => {
  const dir = await tmp(t);
  const store: Store = {
    claims: new Map([['default/blk', claim('blk', { spec: { volumeName: 'pv-blk', volumeMode: 'Block' } })]]),
    pvs: new Map([['pv-blk', { ...pv('pv-blk', 'blk', { local: { path: dir } }), spec: { ...pv('pv-blk', 'blk', { local: { path: dir } }).spec, volumeMode: 'Block' } }]]),
  };
  const vols = new PodVolumes(ctx(path.join(dir, 'pods'), store));
  const r = await vols.setUp(mkPod([{ name: 'data', persistentVolumeClaim: { claimName: 'blk' } }]));
  assert.ok('failure' in r);
  assert.match(r.failure.message, /failed to process volumes=\[data\]: error processing PVC default\/blk: volume data has volumeMode Block, but is specified in volumeMounts$/);
});

test('generic ephemeral volume: claim <pod>-<volume>, which must be owned by the pod', async (t) => {
  const dir = await tmp(t);
  const pod = mkPod([{ name: 'data', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } }]);
  const name = ephemeralClaimName(pod, pod.spec!.volumes![0]);
  assert.equal(name, 'web-data');
  const store: Store = { claims: new Map([[`default/${name}`, claim(name)]]), pvs: new Map([[`pv-${name}`, pv(`pv-${name}`, name, { hostPath: { path: dir } })]]) };
  const vols = new PodVolumes(ctx(path.join(dir, 'pods'), store));
  const notOwned = await vols.setUp(pod);
  assert.ok('failure' in notOwned);
  assert.match(notOwned.failure.message, /error processing PVC default\/web-data: PVC default\/web-data was not created for pod default\/web \(pod is not owner\)$/);
  store.claims.get(`default/${name}`)!.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid-1', controller: true }];
  const r = await vols.setUp(pod);
  assert.ok('mounts' in r, JSON.stringify(r));
  assert.equal(r.mounts.get('data')!.hostPath, dir);
});
