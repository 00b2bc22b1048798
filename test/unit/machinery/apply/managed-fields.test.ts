import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ManagedFieldsEntry } from '../../../../src/api/types.js';
import { FieldSet } from '../../../../src/machinery/apply/fieldset.js';
import { fieldElement as f } from '../../../../src/machinery/apply/path.js';
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentifier,
  printManager,
  updateManagedFields,
} from '../../../../src/machinery/apply/managed-fields.js';
import { cmSchema, configMap, deepFreeze, set } from './fixtures.js';

const T0 = '2024-05-01T10:00:00Z';
const T1 = '2024-05-01T11:00:00Z';

type O = Record<string, unknown>;
const mf = (o: O): ManagedFieldsEntry[] => (o.metadata as { managedFields: ManagedFieldsEntry[] }).managedFields;
const fields = (o: O): Record<string, string> =>
  Object.fromEntries(mf(o).map((e) => [`${e.manager}/${e.operation}`, JSON.stringify(e.fieldsV1)]));

function stored(o: O, uid = 'u1'): O {
  return { ...o, metadata: { ...(o.metadata as O), uid, resourceVersion: '1' } };
}

function update(live: O | undefined, updated: O, manager: string, now = T0, extra: O = {}): O {
  return updateManagedFields({ live, updated, manager, apiVersion: 'v1', now, schema: cmSchema, set, ...extra }).object;
}

describe('manager identifiers', () => {
  it('match BuildManagerIdentifier (no apiVersion for Apply)', () => {
    assert.equal(managerIdentifier({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' }), '{"manager":"kubectl","operation":"Apply"}');
    assert.equal(
      managerIdentifier({ manager: 'x', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' }),
      '{"manager":"x","operation":"Update","apiVersion":"apps/v1","subresource":"status"}',
    );
  });

  it('print as in conflict messages', () => {
    assert.equal(printManager('{"manager":"kubectl","operation":"Apply"}'), '"kubectl"');
    assert.equal(printManager('{"manager":"x","operation":"Update","apiVersion":"v1"}'), '"x" using v1');
    assert.equal(
      printManager('{"manager":"x","operation":"Update","apiVersion":"v1","subresource":"status"}'),
      '"x" with subresource "status" using v1',
    );
  });
});

describe('decode/encode', () => {
  const entries: ManagedFieldsEntry[] = [
    { manager: 'b', operation: 'Update', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:x': {} } } },
    { manager: 'a', operation: 'Update', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:y': {} } } },
    { manager: 'z', operation: 'Apply', apiVersion: 'v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:z': {} } } },
    { manager: 'c', operation: 'Update', apiVersion: 'v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:w': {} } } },
  ];

  it('round-trips and sorts by operation, time, manager', () => {
    const out = encodeManagedFields(decodeManagedFields(deepFreeze(entries)))!;
    assert.deepEqual(out.map((e) => e.manager), ['z', 'c', 'a', 'b']);
    assert.deepEqual(Object.keys(out[0]), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
    assert.equal(encodeManagedFields(new Map()), undefined);
  });

  it('rejects invalid entries with kube messages', () => {
    assert.throws(() => decodeManagedFields([{ manager: 'a', operation: 'Patch' as 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1' }]), /operation must be `Apply` or `Update`/);
    assert.throws(() => decodeManagedFields([{ manager: 'a', operation: 'Apply', fieldsType: 'FieldsV1' }]), /apiVersion must not be empty/);
    assert.throws(() => decodeManagedFields([{ manager: 'a', operation: 'Apply', apiVersion: 'v1' }]), /missing fieldsType in managed fields entry 0/);
  });
});

describe('updateManagedFields', () => {
  it('on create, the manager owns every field it set, with "." for new containers', () => {
    const obj = update(undefined, deepFreeze(configMap({ key: 'v' }, { app: 'x' })), 'kubectl-create');
    assert.deepEqual(mf(obj), [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ]);
  });

  it('moves ownership of changed fields to the writer and merges entries of the same manager', () => {
    const created = stored(update(undefined, configMap({ a: '1', b: '2' }), 'creator'));
    const updated = update(created, { ...created, data: { a: '1', b: '3' } }, 'editor', T1);
    assert.deepEqual(fields(updated), {
      'creator/Update': '{"f:data":{".":{},"f:a":{}}}',
      'editor/Update': '{"f:data":{"f:b":{}}}',
    });
    const again = update(stored(updated), { ...stored(updated), data: { a: '2', b: '3' } }, 'editor', T1);
    assert.deepEqual(fields(again), {
      'creator/Update': '{"f:data":{}}',
      'editor/Update': '{"f:data":{"f:a":{},"f:b":{}}}',
    });
  });

  it('removes entries whose sets become empty and keeps the time of untouched entries', () => {
    const created = stored(update(undefined, configMap({ a: '1' }), 'creator'));
    const edited = update(created, { ...created, data: { a: '2' } }, 'editor', T1);
    const byName = Object.fromEntries(mf(edited).map((e) => [e.manager, e]));
    assert.equal(byName.creator.time, T0);
    assert.equal(byName.editor.time, T1);
    const noop = update(stored(edited), stored(edited), 'other', T1);
    assert.equal(mf(noop).length, 2);
    assert.ok(!mf(noop).some((e) => e.manager === 'other'));
  });

  it('does not start tracking existing objects without managedFields', () => {
    const live = stored(configMap({ a: '1' }));
    const out = updateManagedFields({ live, updated: { ...live, data: { a: '2' } }, manager: 'x', apiVersion: 'v1', now: T0, schema: cmSchema, set });
    assert.equal(out.managedFields, undefined);
    assert.equal((out.object.metadata as O).managedFields, undefined);
  });

  it('lets a request reset managedFields with []', () => {
    const created = stored(update(undefined, configMap({ a: '1' }), 'creator'));
    const req = { ...created, metadata: { ...(created.metadata as O), managedFields: [] } };
    assert.equal(updateManagedFields({ live: created, updated: req, manager: 'x', apiVersion: 'v1', now: T0, schema: cmSchema, set }).managedFields, undefined);
  });

  it('drops stored entries found malformed where the update reads them, as decoding them whole did', () => {
    const created = stored(update(undefined, configMap({ a: '1' }), 'creator'));
    const broken = (fieldsV1: O): O => ({
      ...created,
      metadata: { ...(created.metadata as O), managedFields: [{ ...mf(created)[0], fieldsV1 }] },
    });
    // the update changes data.a, so the creator's data entry is read (lazily) and found malformed: untracked
    const live = broken({ 'f:data': { 'k:{not json': {} } });
    const out = updateManagedFields({ live, updated: { ...live, data: { a: '2' } }, manager: 'x', apiVersion: 'v1', now: T1, schema: cmSchema, set });
    assert.equal(out.managedFields, undefined);
    // an entry whose value is not an object: the same
    const live2 = broken({ 'f:data': { 'f:a': 'x' } });
    const out2 = updateManagedFields({ live: live2, updated: { ...live2, data: { a: '2' } }, manager: 'x', apiVersion: 'v1', now: T1, schema: cmSchema, set });
    assert.equal(out2.managedFields, undefined);
  });

  it('records the subresource and leaves reset fields unowned', () => {
    const created = stored(update(undefined, configMap({ a: '1' }), 'creator'));
    const out = update(created, { ...created, data: { a: '1', s: 'x' }, immutable: true }, 'ctl', T1, {
      subresource: 'status',
      resetFields: FieldSet.of([f('immutable')]),
    });
    const e = mf(out).find((x) => x.manager === 'ctl')!;
    assert.equal(e.subresource, 'status');
    assert.deepEqual(e.fieldsV1, { 'f:data': { 'f:s': {} } });
  });

  it('caps Update managers, folding the oldest into ancient-changes', () => {
    const m = new Map(
      Array.from({ length: 12 }, (_, i) => {
        const e = { manager: `m${String(i).padStart(2, '0')}`, operation: 'Update' as const, apiVersion: 'v1', time: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`, set: FieldSet.of([f('data'), f(`k${i}`)]) };
        return [managerIdentifier(e), e] as const;
      }),
    );
    const capped = capUpdateManagers(m, 10);
    const names = [...capped.values()].map((e) => e.manager).sort();
    assert.equal(names.length, 10);
    assert.ok(names.includes('ancient-changes') && !names.includes('m00') && !names.includes('m01') && !names.includes('m02'));
    const bucket = [...capped.values()].find((e) => e.manager === 'ancient-changes')!;
    assert.equal(JSON.stringify(bucket.set.toFieldsV1()), '{"f:data":{"f:k0":{},"f:k1":{},"f:k2":{}}}');
  });
});
