import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultPersistentVolume, persistentVolumeResource, type PersistentVolume } from '../../../../src/api/core/persistentvolume/resource.js';
import { validatePersistentVolume, validatePersistentVolumeUpdate } from '../../../../src/api/core/persistentvolume/validation.js';
import { cluster, NOW, status, strings, ts, type Cluster } from './more-helpers.js';

const pv = (spec: PersistentVolume['spec'], extra: Partial<PersistentVolume> = {}): PersistentVolume => {
  const v: PersistentVolume = { metadata: { name: 'pv1' }, spec, ...extra };
  defaultPersistentVolume(v);
  return v;
};
const good = () => ({ capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } });

describe('PersistentVolume', () => {
  it('defaults the reclaim policy, volume mode, phase and hostPath type', () => {
    const v = pv(good());
    assert.equal(v.spec?.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(v.spec?.volumeMode, 'Filesystem');
    assert.deepEqual(v.spec?.hostPath, { path: '/data', type: '' });
    assert.deepEqual(v.status, { phase: 'Pending' });
    assert.deepEqual(strings(validatePersistentVolume(v)), []);
  });

  it('requires capacity, access modes and exactly one source', () => {
    assert.deepEqual(strings(validatePersistentVolume(pv({}))), [
      'spec.accessModes: Required value',
      'spec.capacity: Required value',
      'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"',
      'spec: Required value: must specify a volume type',
    ]);
    const two = pv({ ...good(), nfs: { server: 'nfs.local', path: 'exports' }, accessModes: ['ReadWriteOncePod', 'ReadOnlyMany', 'Sometimes'] });
    assert.deepEqual(strings(validatePersistentVolume(two)), [
      'spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
      'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
      'spec.nfs: Forbidden: may not specify more than 1 volume type',
    ]);
    const local = pv({ capacity: { storage: '0', cpu: '1' }, accessModes: ['ReadWriteOnce'], local: { path: '/mnt/../etc' } });
    assert.deepEqual(strings(validatePersistentVolume(local)), [
      'spec.capacity: Unsupported value: core.ResourceList{"cpu":resource.Quantity{i:resource.int64Amount{value:1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1", Format:"DecimalSI"}, "storage":resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"0", Format:"DecimalSI"}}: supported values: "storage"',
      'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
      `spec.local.path: Invalid value: "/mnt/../etc": must not contain '..'`,
      'spec.nodeAffinity: Required value: Local volume requires node affinity',
    ]);
  });

  it('validates node affinity, class names and sources', () => {
    const v = pv({
      ...good(),
      hostPath: undefined,
      csi: { driver: 'Bad_Driver', volumeHandle: '' },
      storageClassName: 'Fast',
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Near' }] }] } },
    });
    assert.deepEqual(strings(validatePersistentVolume(v)), [
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      `spec.csi.driver: Invalid value: "Bad_Driver": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.csi.volumeHandle: Required value',
      `spec.storageClassName: Invalid value: "Fast": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('keeps the source and volume mode immutable', () => {
    const old = pv(good());
    const next = pv({ ...good(), hostPath: { path: '/other' }, volumeMode: 'Block' });
    const errs = strings(validatePersistentVolumeUpdate(next, old));
    assert.equal(errs.length, 2);
    assert.match(errs[0], /^spec\.persistentvolumesource: Forbidden: spec\.persistentvolumesource is immutable after creation\n  core\.PersistentVolumeSource\{\n/);
    assert.match(errs[0], /- \tHostPath: {"path":"\/data","type":""},\n\+ \tHostPath: {"path":"\/other","type":""},/);
    assert.equal(errs[1], 'volumeMode: Invalid value: "Block": field is immutable');
  });

  it('prints the columns of kubectl get pv', () => {
    const v = pv(
      { ...good(), accessModes: ['ReadWriteMany', 'ReadWriteOnce'], claimRef: { namespace: 'default', name: 'data' }, storageClassName: 'slow' },
      { status: { phase: 'Bound' } },
    );
    v.metadata.annotations = { 'volume.beta.kubernetes.io/storage-class': 'fast' };
    const cells = persistentVolumeResource.columns.map((c) => c.cell(ts(v) as PersistentVolume, { now: NOW }));
    assert.deepEqual(cells, ['pv1', '5Gi', 'RWO,RWX', 'Retain', 'Bound', 'default/data', 'fast', '<unset>', '', '5m', 'Filesystem']);
    assert.deepEqual(persistentVolumeResource.columns.map((c) => c.name), [
      'Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode',
    ]);
  });

  describe('through the registry', () => {
    let c: Cluster;
    before(async () => {
      c = await cluster();
    });
    after(() => c.store.close());

    it('starts Pending, tracks phase transitions and keeps status on spec updates', async () => {
      const r = c.client.resource('v1', 'persistentvolumes');
      const created = await r.create('', { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: good(), status: { phase: 'Bound' } });
      const st = created.status as { phase: string; lastPhaseTransitionTime: string };
      assert.equal(st.phase, 'Pending');
      assert.match(st.lastPhaseTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const relabelled = await r.update('', { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, status: { phase: 'Failed' } });
      assert.equal((relabelled.status as { phase: string }).phase, 'Pending');
      const available = await r.update('', { ...relabelled, status: { phase: 'Available' } }, { subresource: 'status' });
      assert.equal((available.status as { phase: string }).phase, 'Available');
      assert.ok((available.status as { lastPhaseTransitionTime: string }).lastPhaseTransitionTime);
      assert.deepEqual((await r.list('', { fieldSelector: 'name=pv1' })).items.map((i) => i.metadata.name), ['pv1']);
      await assert.rejects(
        r.create('', { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv2' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }),
        status(422, 'PersistentVolume "pv2" is invalid: spec: Required value: must specify a volume type'),
      );
    });
  });
});
