import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultPVC, persistentVolumeClaimResource, type PersistentVolumeClaim } from '../../../../src/api/core/persistentvolumeclaim/resource.js';
import { type PersistentVolumeClaimSpec, normalizeDataSources, validatePVC, validatePVCStatusUpdate, validatePVCUpdate } from '../../../../src/api/core/persistentvolumeclaim/validation.js';
import { cluster, NOW, status, strings, ts, type Cluster } from './more-helpers.js';

const claim = (spec: PersistentVolumeClaim['spec'], st?: PersistentVolumeClaim['status']): PersistentVolumeClaim => {
  const c: PersistentVolumeClaim = { metadata: { name: 'data', namespace: 'default' }, spec, status: st };
  defaultPVC(c);
  return c;
};
const good = () => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });

describe('PersistentVolumeClaim', () => {
  it('defaults the volume mode and phase', () => {
    const c = claim({ accessModes: ['ReadWriteOnce'] });
    assert.deepEqual(c.spec, { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', resources: {} });
    assert.deepEqual(c.status, { phase: 'Pending' });
  });

  it('requires access modes and a positive storage request', () => {
    assert.deepEqual(strings(validatePVC(claim({}))), [
      'spec.accessModes: Required value: at least 1 access mode is required',
      'spec.resources[storage]: Required value',
    ]);
    assert.deepEqual(strings(validatePVC(claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '0' } }, volumeMode: 'Raw' }))), [
      'spec.resources[storage]: Invalid value: "0": must be greater than zero',
      'spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"',
    ]);
    assert.deepEqual(strings(validatePVC(claim({ ...good(), dataSource: { kind: 'Snapshot', name: 'x' } }))), [
      "spec.dataSource: Invalid value: \"Snapshot\": must be 'PersistentVolumeClaim' when referencing the default apiGroup",
    ]);
  });

  it('normalises data sources', () => {
    const spec: PersistentVolumeClaimSpec = { ...good(), dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } };
    normalizeDataSources(spec);
    assert.deepEqual(spec.dataSourceRef, { kind: 'PersistentVolumeClaim', name: 'src' });
    const foreign: PersistentVolumeClaimSpec = { ...good(), dataSource: { apiGroup: 'example.com', kind: 'Thing', name: 'x' } };
    normalizeDataSources(foreign);
    assert.equal(foreign.dataSource, undefined);
  });

  it('keeps the spec immutable except for the storage request of bound claims', () => {
    const old = claim(good());
    const changed = claim({ ...good(), accessModes: ['ReadWriteMany'] });
    const [err] = strings(validatePVCUpdate(changed, old));
    assert.match(err, /^spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n  core\.PersistentVolumeClaimSpec\{\n- \tAccessModes: \["ReadWriteOnce"\],\n\+ \tAccessModes: \["ReadWriteMany"\],\n/);
    const boundOld = claim(good(), { phase: 'Bound', capacity: { storage: '2Gi' } });
    const grown = claim({ ...good(), resources: { requests: { storage: '5Gi' } } }, { phase: 'Bound', capacity: { storage: '2Gi' } });
    assert.deepEqual(strings(validatePVCUpdate(grown, boundOld)), []);
    const bigOld = claim({ ...good(), resources: { requests: { storage: '5Gi' } } }, { phase: 'Bound', capacity: { storage: '2Gi' } });
    const shrunk = claim({ ...good(), resources: { requests: { storage: '2Gi' } } }, { phase: 'Bound', capacity: { storage: '2Gi' } });
    assert.deepEqual(strings(validatePVCUpdate(shrunk, bigOld)), ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
    // Binding sets volumeName once.
    assert.deepEqual(strings(validatePVCUpdate(claim({ ...good(), volumeName: 'pv1' }), old)), []);
  });

  it('validates status updates', () => {
    const c = claim(good(), { phase: 'Bound', allocatedResourceStatuses: { storage: 'Stuck', cpu: 'ControllerResizeInProgress' } });
    assert.deepEqual(strings(validatePVCStatusUpdate(c)), [
      'status.allocatedResourceStatus: Unsupported value: "storage": supported values: "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"',
      'status.allocatedResourceStatus: Unsupported value: "cpu": supported values: "storage"',
    ]);
  });

  it('prints capacity and access modes only once bound', () => {
    const cells = (c: PersistentVolumeClaim) => persistentVolumeClaimResource.columns.map((col) => col.cell(ts(c) as PersistentVolumeClaim, { now: NOW }));
    assert.deepEqual(cells(claim({ ...good(), storageClassName: 'standard' })), ['data', 'Pending', '', '', '', 'standard', '<unset>', '5m', 'Filesystem']);
    const bound = claim({ ...good(), volumeName: 'pv1' }, { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] });
    assert.deepEqual(cells(bound), ['data', 'Bound', 'pv1', '10Gi', 'RWO', '', '<unset>', '5m', 'Filesystem']);
    assert.deepEqual(persistentVolumeClaimResource.shortNames, ['pvc']);
  });

  describe('through the registry', () => {
    let c: Cluster;
    before(async () => {
      c = await cluster();
    });
    after(() => c.store.close());

    it('creates Pending, rejects spec changes and warns about fractional sizes', async () => {
      const r = c.client.resource('v1', 'persistentvolumeclaims');
      const created = await r.create('default', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: good(), status: { phase: 'Bound' } });
      assert.deepEqual(created.status, { phase: 'Pending' });
      assert.deepEqual(created.spec, { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' });
      await assert.rejects(
        r.update('default', { ...created, spec: { ...(created.spec as object), volumeMode: 'Block' } }),
        (e: unknown) => e instanceof Error && e.message.startsWith('PersistentVolumeClaim "data" is invalid: [spec: Forbidden: spec is immutable after creation') &&
          e.message.endsWith('volumeMode: Invalid value: "Block": field is immutable]'),
      );
      await assert.rejects(
        r.create('default', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'x' }, spec: { resources: { requests: { storage: '1Gi' } } } }),
        status(422, 'PersistentVolumeClaim "x" is invalid: spec.accessModes: Required value: at least 1 access mode is required'),
      );
      assert.deepEqual(
        persistentVolumeClaimResource.strategy.warnings?.(claim({ ...good(), resources: { requests: { storage: '1500m' } } })),
        ['spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer'],
      );
    });
  });
});
