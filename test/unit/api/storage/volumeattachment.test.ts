import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { volumeAttachmentResource } from '../../../../src/api/storage/index.js';
import type { VolumeAttachment } from '../../../../src/api/storage/volumeattachment.js';

const st = volumeAttachmentResource.strategy;
const va = (spec: VolumeAttachment['spec'], status?: VolumeAttachment['status']): VolumeAttachment => ({
  metadata: { name: 'csi-123' },
  spec,
  ...(status ? { status } : {}),
});
const good = () => va({ attacher: 'ebs.csi.aws.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } });
const errs = (o: VolumeAttachment) => {
  st.defaults!(o);
  return st.validate!(o).map(String);
};

describe('VolumeAttachment', () => {
  it('is cluster-scoped with a status subresource', () => {
    assert.equal(volumeAttachmentResource.namespaced, false);
    assert.deepEqual(volumeAttachmentResource.subresources, { status: true });
  });

  it('resets status on create and writes the Go zero values', () => {
    const o = va({ source: {} }, { attached: true, attachmentMetadata: { a: 'b' } });
    st.defaults!(o);
    st.prepareForCreate!(o);
    assert.deepEqual(o, { metadata: { name: 'csi-123' }, spec: { source: {}, attacher: '', nodeName: '' }, status: { attached: false } });
  });

  it('validates attacher, source and node name (v1 create checks included)', () => {
    assert.deepEqual(errs(good()), []);
    assert.deepEqual(errs(va({ source: {} })), [
      'spec.attacher: Required value',
      'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
      `spec.nodeName: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.attacher: Required value',
      `spec.attacher: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    assert.deepEqual(errs(va({ attacher: 'a.io', nodeName: 'n', source: { persistentVolumeName: '', inlineVolumeSpec: {} } })), [
      'spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
      `spec.source.persistentVolumeName: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    assert.deepEqual(errs(va({ attacher: 'a.io', nodeName: 'n', source: { persistentVolumeName: '' } })).slice(0, 1), [
      'spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName',
    ]);
  });

  it('makes the spec immutable, printing the Go struct', () => {
    const old = good();
    st.defaults!(old);
    const o = va({ attacher: 'ebs.csi.aws.com', nodeName: 'node-2', source: { persistentVolumeName: 'pv-1' } });
    st.defaults!(o);
    assert.deepEqual(st.validateUpdate!(o, old).map(String), [
      'spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"ebs.csi.aws.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xc000000000), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"node-2"}: field is immutable',
    ]);
  });

  it('validates status and drops errorCode (alpha gate off) unless already stored', () => {
    const o = good();
    o.status = { attached: false, attachError: { message: 'x'.repeat(1025), errorCode: -1 } };
    assert.deepEqual(st.validateStatusUpdate!(o, good()).map(String), [
      'status.attachError.message: Too long: may not be more than 262144 bytes',
      'status.attachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    ]);
    st.prepareForStatusUpdate!(o, good());
    assert.equal(o.status.attachError?.errorCode, undefined);
    const keep = good();
    keep.status = { attached: true, detachError: { message: 'm', errorCode: 5 } };
    st.prepareForStatusUpdate!(keep, { ...good(), status: { attached: true, detachError: { errorCode: 4 } } });
    assert.equal(keep.status.detachError?.errorCode, 5);
  });

  it('prints NAME ATTACHER PV NODE ATTACHED AGE', () => {
    const now = Date.parse('2024-01-01T00:03:00Z');
    const o = good();
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    o.status = { attached: true };
    assert.deepEqual(volumeAttachmentResource.columns.map((c) => c.name), ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age']);
    assert.deepEqual(volumeAttachmentResource.columns.map((c) => c.cell(o, { now })), ['csi-123', 'ebs.csi.aws.com', 'pv-1', 'node-1', true, '3m']);
    assert.equal(volumeAttachmentResource.columns[1].format, 'name');
  });
});
