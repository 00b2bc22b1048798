import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storageClassResource } from '../../../../src/api/storage/index.js';
import type { StorageClass } from '../../../../src/api/storage/storageclass.js';

const st = storageClassResource.strategy;
const sc = (extra: Partial<StorageClass>): StorageClass => ({ metadata: { name: 'fast' }, provisioner: 'ebs.csi.aws.com', ...extra });
const errs = (o: StorageClass) => {
  st.defaults!(o);
  return st.validate!(o).map(String);
};

describe('StorageClass', () => {
  it('is cluster-scoped with short name sc and no generation', () => {
    assert.deepEqual(storageClassResource.shortNames, ['sc']);
    assert.equal(storageClassResource.namespaced, false);
    assert.equal(storageClassResource.hasGeneration, undefined);
  });

  it('defaults reclaimPolicy to Delete and volumeBindingMode to Immediate', () => {
    const o = sc({ parameters: {} });
    st.defaults!(o);
    assert.deepEqual(o, { metadata: { name: 'fast' }, provisioner: 'ebs.csi.aws.com', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    const k = sc({ reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' });
    st.defaults!(k);
    assert.equal(k.reclaimPolicy, 'Retain');
    assert.equal(k.volumeBindingMode, 'WaitForFirstConsumer');
  });

  it('validates provisioner, parameters, policies and topologies', () => {
    assert.deepEqual(errs(sc({})), []);
    assert.deepEqual(errs(sc({ provisioner: '' })), ['provisioner: Required value']);
    assert.deepEqual(errs(sc({ provisioner: 'Example.com/My Provisioner' })), [
      `provisioner: Invalid value: "example.com/my provisioner": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
    assert.deepEqual(errs(sc({ parameters: { '': 'x' } })), ['parameters: Invalid value: "": field can not be empty.']);
    assert.deepEqual(errs(sc({ reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' })), [
      'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
      'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
    ]);
    assert.deepEqual(
      errs(
        sc({
          allowedTopologies: [
            { matchLabelExpressions: [{ key: 'zone', values: ['a', 'a'] }, { key: 'zone', values: [] }] },
            { matchLabelExpressions: [{ key: 'rack', values: ['1'] }] },
            { matchLabelExpressions: [{ key: 'rack', values: ['1'] }] },
          ],
        }),
      ),
      [
        'allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"',
        'allowedTopologies[0].matchLabelExpressions[1].values: Required value',
        'allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "zone"',
        'allowedTopologies[2].matchLabelExpressions: Duplicate value: ""',
      ],
    );
  });

  it('forbids changing provisioner, parameters, reclaimPolicy and volumeBindingMode', () => {
    const old = sc({ parameters: { type: 'gp3' } });
    st.defaults!(old);
    const o = sc({ provisioner: 'other.example.com', parameters: { type: 'io2' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' });
    st.defaults!(o);
    assert.deepEqual(st.validateUpdate!(o, old).map(String), [
      'parameters: Forbidden: updates to parameters are forbidden.',
      'provisioner: Forbidden: updates to provisioner are forbidden.',
      'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
      'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
    ]);
    assert.deepEqual(st.validateUpdate!({ ...old, allowVolumeExpansion: true }, old), []);
  });

  it('prints NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE, marking the default class', () => {
    const now = Date.parse('2024-01-01T00:00:10Z');
    const o = sc({ metadata: { name: 'fast', creationTimestamp: '2024-01-01T00:00:00Z', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } });
    st.defaults!(o);
    assert.deepEqual(storageClassResource.columns.map((c) => c.name), ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    assert.deepEqual(storageClassResource.columns.map((c) => c.cell(o, { now })), ['fast (default)', 'ebs.csi.aws.com', 'Delete', 'Immediate', false, '10s']);
    const beta = sc({ metadata: { name: 'b', annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' } }, allowVolumeExpansion: true });
    assert.equal(storageClassResource.columns[0].cell(beta, { now }), 'b (default)');
    assert.equal(storageClassResource.columns[4].cell(beta, { now }), true);
    assert.equal(storageClassResource.columns[0].cell(sc({ metadata: { name: 'c', annotations: { 'storageclass.kubernetes.io/is-default-class': 'yes' } } }), { now }), 'c');
  });
});
