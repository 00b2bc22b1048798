import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { controllerCluster, type ControllerCluster } from '../harness.js';
import { persistentVolumeController } from '../../../../src/controllers/volume/persistentvolume.js';
import { pvProtectionController } from '../../../../src/controllers/volume/pv-protection.js';
import { pvcProtectionController } from '../../../../src/controllers/volume/pvc-protection.js';
import { NS, eventsFor, phase, podWithClaim, pv, pvc, pvcs, pvs, spec, status, storageClass, waitEvent } from './persistentvolume-helpers.js';

async function cluster(): Promise<ControllerCluster> {
  return controllerCluster([persistentVolumeController({ resyncMs: 200 }), pvProtectionController(), pvcProtectionController()]);
}

async function withCluster(fn: (c: ControllerCluster) => Promise<void>): Promise<void> {
  const c = await cluster();
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

const boundClaim = (c: ControllerCluster, name: string) =>
  c.waitFor(`${name} Bound`, async () => {
    const o = await pvcs(c).get(NS, name);
    return phase(o) === 'Bound' ? o : undefined;
  });

describe('PersistentVolume controller', () => {
  it('binds a claim to the smallest matching Available volume of its class and fills both sides', () =>
    withCluster(async (c) => {
      await pvs(c).create('', pv('big', { size: '10Gi' }));
      await pvs(c).create('', pv('small', { size: '2Gi' }));
      await pvs(c).create('', pv('tiny', { size: '500Mi' }));
      await pvs(c).create('', pv('rwx', { size: '2Gi', modes: ['ReadWriteMany'], cls: 'other' }));
      await c.waitFor('volumes Available', async () => (await pvs(c).list('')).items.every((v) => phase(v) === 'Available'));
      await pvcs(c).create(NS, pvc('data', { size: '1Gi' }));
      const claim = await boundClaim(c, 'data');
      assert.equal(spec(claim).volumeName, 'small');
      assert.equal(claim.metadata.annotations!['pv.kubernetes.io/bind-completed'], 'yes');
      assert.equal(claim.metadata.annotations!['pv.kubernetes.io/bound-by-controller'], 'yes');
      assert.deepEqual(status(claim).capacity, { storage: '2Gi' });
      assert.deepEqual(status(claim).accessModes, ['ReadWriteOnce']);
      const vol = await c.waitFor('small Bound', async () => {
        const v = await pvs(c).get('', 'small');
        return phase(v) === 'Bound' ? v : undefined;
      });
      assert.equal(spec(vol).claimRef.uid, claim.metadata.uid);
      assert.equal(spec(vol).claimRef.name, 'data');
      assert.equal(vol.metadata.annotations!['pv.kubernetes.io/bound-by-controller'], 'yes');
      assert.deepEqual(vol.metadata.finalizers, ['kubernetes.io/pv-protection']);
      assert.equal(phase(await pvs(c).get('', 'big')), 'Available');
    }));

  it('honours selectors, volumeMode and access modes; with no match and no class it reports FailedBinding', () =>
    withCluster(async (c) => {
      await pvs(c).create('', pv('fast', { size: '5Gi', labels: { speed: 'fast' } }));
      await pvs(c).create('', pv('slow', { size: '1Gi', labels: { speed: 'slow' } }));
      await pvcs(c).create(NS, pvc('want-fast', { selector: { matchLabels: { speed: 'fast' } } }));
      await pvcs(c).create(NS, pvc('rwx', { modes: ['ReadWriteMany'] }));
      await pvcs(c).create(NS, pvc('block', { mode: 'Block' }));
      assert.equal(spec(await boundClaim(c, 'want-fast')).volumeName, 'fast');
      const ev = await waitEvent(c, 'PersistentVolumeClaim', 'rwx', 'FailedBinding');
      assert.equal(ev.type, 'Normal');
      assert.equal(ev.message, 'no persistent volumes available for this claim and no storage class is set');
      assert.equal(ev.source?.component, 'persistentvolume-controller');
      await waitEvent(c, 'PersistentVolumeClaim', 'block', 'FailedBinding');
      assert.equal(phase(await pvcs(c).get(NS, 'rwx')), 'Pending');
      assert.equal(phase(await pvs(c).get('', 'slow')), 'Available');
    }));

  it('pre-binding: volumeName picks the volume (or says why not); claimRef reserves a volume for one claim', () =>
    withCluster(async (c) => {
      await pvs(c).create('', pv('named', { size: '1Gi' }));
      await pvs(c).create('', pv('too-small', { size: '100Mi' }));
      await pvs(c).create('', pv('reserved', { size: '1Gi', claimRef: { namespace: NS, name: 'owner' } }));
      await pvcs(c).create(NS, pvc('by-name', { volumeName: 'named', size: '500Mi' }));
      const claim = await boundClaim(c, 'by-name');
      assert.equal(claim.metadata.annotations!['pv.kubernetes.io/bound-by-controller'], undefined);
      const vol = await pvs(c).get('', 'named');
      assert.equal(vol.metadata.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
      await pvcs(c).create(NS, pvc('wants-more', { volumeName: 'too-small', size: '1Gi' }));
      const ev = await waitEvent(c, 'PersistentVolumeClaim', 'wants-more', 'FailedBinding');
      assert.equal(ev.type, 'Warning');
      assert.equal(ev.message, 'Cannot bind to requested volume "too-small": requested PV is too small');
      // "reserved" is not given to another claim, but to its owner
      await pvcs(c).create(NS, pvc('other'));
      await waitEvent(c, 'PersistentVolumeClaim', 'other', 'FailedBinding');
      await pvcs(c).create(NS, pvc('owner'));
      assert.equal(spec(await boundClaim(c, 'owner')).volumeName, 'reserved');
      assert.equal(phase(await pvcs(c).get(NS, 'other')), 'Pending');
    }));

  it('Retain: deleting the claim leaves the volume Released with its claimRef; Delete of a static volume fails', () =>
    withCluster(async (c) => {
      await pvs(c).create('', pv('keep', { policy: 'Retain' }));
      await pvcs(c).create(NS, pvc('a', { volumeName: 'keep' }));
      await boundClaim(c, 'a');
      await pvcs(c).delete(NS, 'a');
      await c.waitFor('a gone', async () => !(await pvcs(c).list(NS)).items.some((o) => o.metadata.name === 'a'));
      const released = await c.waitFor('keep Released', async () => {
        const v = await pvs(c).get('', 'keep');
        return phase(v) === 'Released' ? v : undefined;
      });
      assert.equal(spec(released).claimRef.name, 'a');
      // a new claim of the same name does not get the released volume
      await pvcs(c).create(NS, pvc('a', { volumeName: 'keep' }));
      await waitEvent(c, 'PersistentVolumeClaim', 'a', 'FailedBinding');
      assert.equal(phase(await pvs(c).get('', 'keep')), 'Released');

      await pvs(c).create('', pv('del', { policy: 'Delete' }));
      await pvcs(c).create(NS, pvc('b', { volumeName: 'del' }));
      await boundClaim(c, 'b');
      await pvcs(c).delete(NS, 'b');
      const failed = await c.waitFor('del Failed', async () => {
        const v = await pvs(c).get('', 'del');
        return phase(v) === 'Failed' ? v : undefined;
      });
      assert.equal(status(failed).message, 'error getting deleter volume plugin for volume "del": no deletable volume plugin matched');
      const ev = await waitEvent(c, 'PersistentVolume', 'del', 'VolumeFailedDelete');
      assert.equal(ev.type, 'Warning');
      // pv-protection lets an unbound volume go
      await pvs(c).delete('', 'del');
      await c.waitFor('del deleted', async () => !(await pvs(c).list('')).items.some((o) => o.metadata.name === 'del'));
    }));

  it('a bound volume being deleted stays Terminating until its claim is gone', () =>
    withCluster(async (c) => {
      await pvs(c).create('', pv('prot'));
      await pvcs(c).create(NS, pvc('p', { volumeName: 'prot' }));
      await boundClaim(c, 'p');
      await pvs(c).delete('', 'prot');
      await new Promise((r) => setTimeout(r, 300));
      const v = await pvs(c).get('', 'prot');
      assert.ok(v.metadata.deletionTimestamp);
      assert.deepEqual(v.metadata.finalizers, ['kubernetes.io/pv-protection']);
      await pvcs(c).delete(NS, 'p');
      await c.waitFor('prot deleted', async () => !(await pvs(c).list('')).items.some((o) => o.metadata.name === 'prot'));
    }));

  it('an external provisioner is named on the claim; WaitForFirstConsumer claims wait; a new default class is assigned retroactively', () =>
    withCluster(async (c) => {
      const classes = c.client.resource('storage.k8s.io/v1', 'storageclasses');
      await classes.create('', storageClass('ext', { provisioner: 'example.com/ext' }));
      await pvcs(c).create(NS, pvc('e', { cls: 'ext' }));
      const ev = await waitEvent(c, 'PersistentVolumeClaim', 'e', 'ExternalProvisioning');
      assert.equal(
        ev.message,
        "Waiting for a volume to be created either by the external provisioner 'example.com/ext' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
      );
      const e = await pvcs(c).get(NS, 'e');
      assert.equal(e.metadata.annotations!['volume.kubernetes.io/storage-provisioner'], 'example.com/ext');
      assert.equal(e.metadata.annotations!['volume.beta.kubernetes.io/storage-provisioner'], 'example.com/ext');

      await pvcs(c).create(NS, pvc('w', { cls: 'local-path' }));
      const w = await waitEvent(c, 'PersistentVolumeClaim', 'w', 'WaitForFirstConsumer');
      assert.equal(w.message, 'waiting for first consumer to be created before binding');
      assert.equal((await eventsFor(c, 'PersistentVolumeClaim', 'w')).some((x) => x.reason === 'ExternalProvisioning'), false);

      // no default class while the claim is created: it stays class-less, until a default appears
      await classes.delete('', 'local-path');
      await pvcs(c).create(NS, pvc('late', { cls: null }));
      assert.equal(spec(await pvcs(c).get(NS, 'late')).storageClassName, undefined);
      await classes.create('', storageClass('new-default', { provisioner: 'example.com/ext', isDefault: true }));
      const late = await c.waitFor('late defaulted', async () => {
        const o = await pvcs(c).get(NS, 'late');
        return spec(o).storageClassName === 'new-default' ? o : undefined;
      });
      assert.equal(phase(late), 'Pending');
      await waitEvent(c, 'PersistentVolumeClaim', 'late', 'ExternalProvisioning');
    }));

  it('pvc-protection: a claim used by a scheduled pod stays Terminating until the pod is gone; unscheduled pods do not hold it', () =>
    withCluster(async (c) => {
      const pods = c.client.resource('v1', 'pods');
      await pvcs(c).create(NS, pvc('held'));
      await pvcs(c).create(NS, pvc('free'));
      const scheduled = podWithClaim('runner', 'held');
      (scheduled as unknown as { spec: { nodeName: string } }).spec.nodeName = 'some-node';
      await pods.create(NS, scheduled);
      await pods.create(NS, podWithClaim('waiting', 'free'));
      await pvcs(c).delete(NS, 'held');
      await pvcs(c).delete(NS, 'free');
      await c.waitFor('free gone', async () => !(await pvcs(c).list(NS)).items.some((o) => o.metadata.name === 'free'));
      await new Promise((r) => setTimeout(r, 300));
      const held = await pvcs(c).get(NS, 'held');
      assert.ok(held.metadata.deletionTimestamp);
      assert.deepEqual(held.metadata.finalizers, ['kubernetes.io/pvc-protection']);
      await pods.delete(NS, 'runner', { gracePeriodSeconds: 0 });
      await c.waitFor('held gone', async () => !(await pvcs(c).list(NS)).items.some((o) => o.metadata.name === 'held'));
    }));
});
