// The local-path provisioner with the node side (LocalPathDirs) on a temporary storage root: directories are made
// for provisioned volumes, removed on Delete reclaim before the PV goes, kept on Retain.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { controllerCluster, type ControllerCluster } from '../harness.js';
import { persistentVolumeController } from '../../../../src/controllers/volume/persistentvolume.js';
import { pvProtectionController } from '../../../../src/controllers/volume/pv-protection.js';
import { pvcProtectionController } from '../../../../src/controllers/volume/pvc-protection.js';
import { localPathProvisioner, ANN_NODE_STORAGE_ROOT } from '../../../../src/controllers/volume/local-path-provisioner.js';
import { LocalPathDirs } from '../../../../src/kubelet/volumes/local-path-dirs.js';
import { NS, phase, pvc, pvcs, pvs, spec, storageClass, waitEvent } from './persistentvolume-helpers.js';

interface Env {
  c: ControllerCluster;
  root: string;
}

async function withNode(fn: (env: Env) => Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'k1s-local-path-'));
  const c = await controllerCluster([persistentVolumeController({ resyncMs: 200 }), pvProtectionController(), pvcProtectionController(), localPathProvisioner()]);
  let dirs: LocalPathDirs | undefined;
  try {
    await c.client.resource('v1', 'nodes').create('', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a', labels: { 'kubernetes.io/hostname': 'node-a' } } } as KObject);
    dirs = new LocalPathDirs({ client: c.client, nodeName: 'node-a', storageRoot: join(root, 'storage'), log: (l) => c.logs.push(l) });
    await dirs.start();
    await fn({ c, root: join(root, 'storage') });
  } finally {
    dirs?.stop();
    await c.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** A claim the scheduler has placed on node-a. */
function placed(name: string, opts: Parameters<typeof pvc>[1] = {}): KObject {
  const o = pvc(name, { cls: 'local-path', ...opts });
  o.metadata.annotations = { 'volume.kubernetes.io/selected-node': 'node-a' };
  return o;
}

const bound = (c: ControllerCluster, name: string) =>
  c.waitFor(`${name} Bound`, async () => {
    const o = await pvcs(c).get(NS, name);
    return phase(o) === 'Bound' ? o : undefined;
  });

describe('local-path provisioner and node directories', () => {
  it('announces the root on the Node, makes a 0777 directory, and on Delete removes it before the PV', () =>
    withNode(async ({ c, root }) => {
      const node = await c.client.resource('v1', 'nodes').get('', 'node-a');
      assert.equal(node.metadata.annotations?.[ANN_NODE_STORAGE_ROOT], root);
      await pvcs(c).create(NS, placed('data'));
      const claim = await bound(c, 'data');
      const pvName = spec(claim).volumeName as string;
      const dir = join(root, `${pvName}_default_data`);
      assert.equal(spec(await pvs(c).get('', pvName)).hostPath.path, dir);
      const st = await c.waitFor('directory', () => stat(dir));
      assert.ok(st.isDirectory());
      assert.equal(st.mode & 0o777, 0o777);
      await writeFile(join(dir, 'file'), 'hello');
      await pvcs(c).delete(NS, 'data');
      await c.waitFor('PV deleted', async () => !(await pvs(c).list('')).items.length);
      assert.deepEqual(await readdir(root), []);
    }));

  it('Retain keeps the Released PV and its data', () =>
    withNode(async ({ c, root }) => {
      await c.client.resource('storage.k8s.io/v1', 'storageclasses').create('', storageClass('keep', { provisioner: 'rancher.io/local-path', mode: 'WaitForFirstConsumer', policy: 'Retain' }));
      await pvcs(c).create(NS, placed('kept', { cls: 'keep' }));
      const pvName = spec(await bound(c, 'kept')).volumeName as string;
      const dir = join(root, `${pvName}_default_kept`);
      await c.waitFor('directory', () => stat(dir));
      await writeFile(join(dir, 'file'), 'keep me');
      await pvcs(c).delete(NS, 'kept');
      await c.waitFor('Released', async () => phase(await pvs(c).get('', pvName)) === 'Released');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(phase(await pvs(c).get('', pvName)), 'Released');
      assert.equal(spec(await pvs(c).get('', pvName)).persistentVolumeReclaimPolicy, 'Retain');
      assert.deepEqual(await readdir(dir), ['file']);
    }));

  it('refuses what a directory cannot be: block volumes and shared access modes', () =>
    withNode(async ({ c }) => {
      await pvcs(c).create(NS, placed('blk', { mode: 'Block' }));
      await pvcs(c).create(NS, placed('shared', { modes: ['ReadWriteMany'] }));
      const a = await waitEvent(c, 'PersistentVolumeClaim', 'blk', 'ProvisioningFailed');
      assert.equal(a.type, 'Warning');
      assert.match(a.message, /^failed to provision volume with StorageClass "local-path": /);
      const b = await waitEvent(c, 'PersistentVolumeClaim', 'shared', 'ProvisioningFailed');
      assert.equal(b.message, 'failed to provision volume with StorageClass "local-path": NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes');
      assert.equal((await pvs(c).list('')).items.length, 0);
    }));
});
