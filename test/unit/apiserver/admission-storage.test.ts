import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../src/api/types.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { controllerCluster, type ControllerCluster } from '../controllers/harness.js';
import { NS, pv, pvc, pvcs, pvs, spec, storageClass } from '../controllers/volume/persistentvolume-helpers.js';

async function withApi(fn: (c: ControllerCluster) => Promise<void>): Promise<void> {
  const c = await controllerCluster([], { serviceAccounts: false });
  try {
    await fn(c);
  } finally {
    await c.close();
  }
}

const classes = (c: ControllerCluster) => c.client.resource('storage.k8s.io/v1', 'storageclasses');

/** What the PV controller writes once a claim is bound (these tests run no controllers). */
async function markBound(c: ControllerCluster, name: string, size: string): Promise<void> {
  const cur = await pvcs(c).get(NS, name);
  await pvcs(c).update(NS, { ...cur, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: size } } } as KObject, { subresource: 'status' });
}

async function refusal(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('the request was admitted');
}

describe('storage admission', () => {
  it('the cluster starts with the default local-path class', () =>
    withApi(async (c) => {
      const sc = (await classes(c).get('', 'local-path')) as KObject & Record<string, unknown>;
      assert.equal(sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'], 'true');
      assert.equal(sc.provisioner, 'rancher.io/local-path');
      assert.equal(sc.volumeBindingMode, 'WaitForFirstConsumer');
      assert.equal(sc.reclaimPolicy, 'Delete');
      assert.equal(sc.allowVolumeExpansion, true);
    }));

  it('DefaultStorageClass fills in the newest default class, only for claims that name none', () =>
    withApi(async (c) => {
      await pvcs(c).create(NS, pvc('none', { cls: null }));
      assert.equal(spec(await pvcs(c).get(NS, 'none')).storageClassName, 'local-path');
      await pvcs(c).create(NS, pvc('empty', { cls: '' }));
      assert.equal(spec(await pvcs(c).get(NS, 'empty')).storageClassName, '');
      const beta = pvc('beta', { cls: null });
      beta.metadata.annotations = { 'volume.beta.kubernetes.io/storage-class': 'gold' };
      await pvcs(c).create(NS, beta);
      assert.equal(spec(await pvcs(c).get(NS, 'beta')).storageClassName, undefined);
      // a second default created later wins although its name sorts after local-path
      await new Promise((r) => setTimeout(r, 1100));
      await classes(c).create('', storageClass('mmm', { isDefault: true }));
      await pvcs(c).create(NS, pvc('newest', { cls: null }));
      assert.equal(spec(await pvcs(c).get(NS, 'newest')).storageClassName, 'mmm');
      // no default at all: the claim stays class-less
      await classes(c).delete('', 'mmm');
      await classes(c).delete('', 'local-path');
      await pvcs(c).create(NS, pvc('classless', { cls: null }));
      assert.equal(spec(await pvcs(c).get(NS, 'classless')).storageClassName, undefined);
    }));

  it('StorageObjectInUseProtection adds the protection finalizers', () =>
    withApi(async (c) => {
      await pvcs(c).create(NS, pvc('p'));
      assert.deepEqual((await pvcs(c).get(NS, 'p')).metadata.finalizers, ['kubernetes.io/pvc-protection']);
      await pvs(c).create('', pv('v'));
      assert.deepEqual((await pvs(c).get('', 'v')).metadata.finalizers, ['kubernetes.io/pv-protection']);
    }));

  it('PersistentVolumeClaimResize: only bound claims of classes that allow expansion may grow', () =>
    withApi(async (c) => {
      await classes(c).create('', storageClass('fixed', { expand: false }));
      await pvcs(c).create(NS, pvc('pending', { cls: 'local-path' }));
      const grow = (name: string, size: string) => pvcs(c).patch(NS, name, 'merge', { spec: { resources: { requests: { storage: size } } } });
      // validation refuses it first, as in kube (admission's "Only bound persistent volume claims can be expanded" is a backstop)
      let e = await refusal(grow('pending', '2Gi'));
      assert.equal(e.code, 422);
      assert.match(e.message, /spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims/);

      await pvcs(c).create(NS, pvc('fixed', { cls: 'fixed' }));
      await markBound(c, 'fixed', '1Gi');
      e = await refusal(grow('fixed', '2Gi'));
      assert.equal(e.code, 403);
      assert.equal(e.reason, 'Forbidden');
      assert.equal(e.message, 'persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');

      await pvcs(c).create(NS, pvc('static', { cls: '' }));
      await markBound(c, 'static', '1Gi');
      e = await refusal(grow('static', '2Gi'));
      assert.match(e.message, /only dynamically provisioned pvc can be resized/);

      await pvcs(c).create(NS, pvc('elastic', { cls: 'local-path' }));
      await markBound(c, 'elastic', '1Gi');
      await grow('elastic', '5Gi');
      assert.deepEqual(spec(await pvcs(c).get(NS, 'elastic')).resources.requests, { storage: '5Gi' });
      // other updates of a claim whose class forbids expansion still pass
      await pvcs(c).patch(NS, 'fixed', 'merge', { metadata: { labels: { a: 'b' } } });
    }));
});
