import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csiDriverResource, csiNodeResource } from '../../../../src/api/storage/index.js';
import type { CSIDriver } from '../../../../src/api/storage/csidriver.js';
import type { CSINode } from '../../../../src/api/storage/csinode.js';

const ds = csiDriverResource.strategy;
const ns = csiNodeResource.strategy;
const driver = (spec: CSIDriver['spec']): CSIDriver => ({ metadata: { name: 'ebs.csi.aws.com' }, spec });
const node = (drivers: CSINode['spec'] extends infer S ? (S extends { drivers?: infer D } ? D : never) : never): CSINode => ({
  metadata: { name: 'node-1' },
  spec: { drivers },
});
const now = Date.parse('2024-01-01T00:00:42Z');

describe('CSIDriver', () => {
  it('defaults every optional flag as SetDefaults_CSIDriver does in 1.33', () => {
    const o = driver(undefined);
    ds.defaults!(o);
    assert.deepEqual(o.spec, {
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'],
      requiresRepublish: false,
      seLinuxMount: false,
    });
  });

  it('drops nodeAllocatableUpdatePeriodSeconds (alpha in 1.33) unless already stored', () => {
    const o = driver({ nodeAllocatableUpdatePeriodSeconds: 30 });
    ds.prepareForCreate!(o);
    assert.deepEqual(o.spec, {});
    const u = driver({ nodeAllocatableUpdatePeriodSeconds: 60 });
    ds.prepareForUpdate!(u, driver({ nodeAllocatableUpdatePeriodSeconds: 30 }));
    assert.equal(u.spec?.nodeAllocatableUpdatePeriodSeconds, 60);
  });

  it('validates the spec', () => {
    const o = driver({
      fsGroupPolicy: 'Sometimes',
      volumeLifecycleModes: ['Persistent', 'Temporary'],
      tokenRequests: [{ audience: 'a', expirationSeconds: 60 }, { audience: 'a' }, { audience: '', expirationSeconds: 2 ** 33 }],
      nodeAllocatableUpdatePeriodSeconds: 5,
    });
    ds.defaults!(o);
    assert.deepEqual(ds.validate!(o).map(String), [
      'spec.fsGroupPolicy: Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType"',
      'spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
      'spec.tokenRequests[1].audience: Duplicate value: "a"',
      'spec.tokenRequests[2].expirationSeconds: Invalid value: 8589934592: may not specify a duration larger than 2^32 seconds',
      'spec.volumeLifecycleModes: Unsupported value: "Temporary": supported values: "Persistent", "Ephemeral"',
      'spec.nodeAllocatableUpdatePeriodSeconds: Invalid value: 5: must be greater than or equal to 10 seconds',
    ]);
    assert.deepEqual(ds.validate!(driver({})).map(String), [
      'spec.attachedRequired: Required value',
      'spec.podInfoOnMount: Required value',
      'spec.storageCapacity: Required value',
      'spec.seLinuxMount: Required value',
    ]);
  });

  it('keeps attachRequired and volumeLifecycleModes immutable', () => {
    const old = driver({});
    ds.defaults!(old);
    const o = driver({ attachRequired: false, volumeLifecycleModes: ['Ephemeral'] });
    ds.defaults!(o);
    assert.deepEqual(ds.validateUpdate!(o, old).map(String), [
      'spec.attachedRequired: Invalid value: false: field is immutable',
      'spec.volumeLifecycleModes: Invalid value: []storage.VolumeLifecycleMode{"Ephemeral"}: field is immutable',
    ]);
    assert.deepEqual(ds.validateUpdate!({ ...old, spec: { ...old.spec, podInfoOnMount: true } }, old), []);
  });

  it('prints NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE', () => {
    const o = driver({ tokenRequests: [{ audience: 'vault' }, { audience: 'sts' }] });
    ds.defaults!(o);
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(csiDriverResource.columns.map((c) => c.name), [
      'Name',
      'AttachRequired',
      'PodInfoOnMount',
      'StorageCapacity',
      'TokenRequests',
      'RequiresRepublish',
      'Modes',
      'Age',
    ]);
    assert.deepEqual(csiDriverResource.columns.map((c) => c.cell(o, { now })), ['ebs.csi.aws.com', true, false, false, 'vault,sts', false, 'Persistent', '42s']);
    assert.deepEqual(csiDriverResource.columns.map((c) => c.cell(driver({}), { now })).slice(1, 7), [true, false, false, '<unset>', false, '<none>']);
  });
});

describe('CSINode', () => {
  it('writes null drivers and topologyKeys (no omitempty)', () => {
    const o: CSINode = { metadata: { name: 'node-1' } };
    csiNodeResource.strategy.defaults!(o);
    assert.deepEqual(o.spec, { drivers: null });
    const p = node([{ name: 'a.io', nodeID: 'i-1' }]);
    ns.defaults!(p);
    assert.deepEqual(p.spec?.drivers, [{ name: 'a.io', nodeID: 'i-1', topologyKeys: null }]);
  });

  it('validates drivers', () => {
    const o = node([
      { name: 'ebs.csi.aws.com', nodeID: 'i-1', topologyKeys: ['topology.ebs.csi.aws.com/zone', '', 'a b', 'a b'], allocatable: { count: -1 } },
      { name: 'ebs.csi.aws.com', nodeID: 'x'.repeat(257) },
      { name: 'Bad_Driver', nodeID: '' },
    ]);
    assert.deepEqual(ns.validate!(o).map(String), [
      'spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0',
      'spec.drivers[0]: Required value',
      `spec.drivers[0]: Invalid value: "": name part must be non-empty`,
      `spec.drivers[0]: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `spec.drivers[0]: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      'spec.drivers[0]: Duplicate value: "a b"',
      `spec.drivers[0]: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `spec.drivers[1].nodeID: Invalid value: "${'x'.repeat(257)}": must be 256 characters or less`,
      'spec.drivers[1].name: Duplicate value: "ebs.csi.aws.com"',
      `spec.drivers[2].name: Invalid value: "Bad_Driver": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.drivers[2].nodeID: Required value',
    ]);
  });

  it('keeps existing driver entries immutable', () => {
    const old = node([{ name: 'a.io', nodeID: 'i-1', topologyKeys: ['z'] }]);
    const changed = node([{ name: 'a.io', nodeID: 'i-2', topologyKeys: ['z'] }, { name: 'b.io', nodeID: 'n' }]);
    assert.deepEqual(ns.validateUpdate!(changed, old).map(String), [
      'spec.drivers: Invalid value: storage.CSINodeDriver{Name:"a.io", NodeID:"i-2", TopologyKeys:[]string{"z"}, Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable',
    ]);
    assert.deepEqual(ns.validateUpdate!(node([{ name: 'a.io', nodeID: 'i-1', topologyKeys: ['z'] }]), old), []);
  });

  it('prints NAME DRIVERS AGE', () => {
    const o = node([{ name: 'a.io', nodeID: 'x' }]);
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(csiNodeResource.columns.map((c) => c.name), ['Name', 'Drivers', 'Age']);
    assert.deepEqual(csiNodeResource.columns.map((c) => c.cell(o, { now })), ['node-1', 1, '42s']);
  });
});
