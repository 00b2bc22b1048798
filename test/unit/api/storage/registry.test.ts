import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { coreDefinitions } from '../../../../src/api/core/index.js';
import { namespaceResource } from '../../../../src/api/core/namespace.js';
import { metaDefinitions } from '../../../../src/api/meta.js';
import { storageDefinitions, storageResources } from '../../../../src/api/storage/index.js';
import { Registry } from '../../../../src/apiserver/registry/registry.js';
import { LocalClient } from '../../../../src/client/local.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { SqliteStore } from '../../../../src/storage/sqlite/store.js';

const invalid = (message: string) => (e: unknown) => e instanceof StatusError && e.code === 422 && e.message === message;

describe('storage.k8s.io/v1 through the registry', () => {
  let store: SqliteStore;
  let client: LocalClient;
  before(async () => {
    store = SqliteStore.open({ path: ':memory:' });
    const registry = new Registry(store, [namespaceResource, ...storageResources], [metaDefinitions, coreDefinitions, storageDefinitions]);
    client = new LocalClient(registry);
  });
  after(() => store.close());

  it('creates a StorageClass with defaults and forbids changing its provisioner', async () => {
    const r = client.resource('storage.k8s.io/v1', 'storageclasses');
    const created = await r.create('', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'rancher.io/local-path',
    });
    assert.equal(created.reclaimPolicy, 'Delete');
    assert.equal(created.volumeBindingMode, 'Immediate');
    assert.equal(created.metadata.generation, undefined);
    await assert.rejects(
      r.update('', { ...created, provisioner: 'example.com/other' }),
      invalid('StorageClass.storage.k8s.io "standard" is invalid: provisioner: Forbidden: updates to provisioner are forbidden.'),
    );
    await assert.rejects(
      r.create('', { metadata: { name: 'none' } }),
      invalid('StorageClass.storage.k8s.io "none" is invalid: provisioner: Required value'),
    );
  });

  it('creates a VolumeAttachment with a reset status, then attaches it through status', async () => {
    const r = client.resource('storage.k8s.io/v1', 'volumeattachments');
    const created = await r.create('', {
      metadata: { name: 'csi-abc' },
      spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
      status: { attached: true },
    });
    assert.deepEqual(created.status, { attached: false });
    const attached = await r.update('', { ...created, status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdb' } } }, { subresource: 'status' });
    assert.deepEqual(attached.status, { attached: true, attachmentMetadata: { devicePath: '/dev/xvdb' } });
    await assert.rejects(
      r.update('', { ...attached, spec: { attacher: 'ebs.csi.aws.com', nodeName: 'node-2', source: { persistentVolumeName: 'pv-1' } } }),
      invalid(
        'VolumeAttachment.storage.k8s.io "csi-abc" is invalid: spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"ebs.csi.aws.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xc000000000), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"node-2"}: field is immutable',
      ),
    );
  });

  it('creates a CSIDriver and a CSINode with their defaults', async () => {
    const d = await client.resource('storage.k8s.io/v1', 'csidrivers').create('', { metadata: { name: 'ebs.csi.aws.com' }, spec: { attachRequired: false } });
    assert.deepEqual(d.spec, {
      attachRequired: false,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'],
      requiresRepublish: false,
      seLinuxMount: false,
    });
    const nodes = client.resource('storage.k8s.io/v1', 'csinodes');
    const n = await nodes.create('', { metadata: { name: 'node-1' }, spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-0123' }] } });
    assert.deepEqual(n.spec, { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-0123', topologyKeys: null }] });
    await assert.rejects(
      nodes.update('', { ...n, spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'i-9999' }] } }),
      invalid(
        'CSINode.storage.k8s.io "node-1" is invalid: spec.drivers: Invalid value: storage.CSINodeDriver{Name:"ebs.csi.aws.com", NodeID:"i-9999", TopologyKeys:[]string(nil), Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable',
      ),
    );
  });
});
