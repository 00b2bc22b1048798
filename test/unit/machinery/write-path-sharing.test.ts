// Shortcuts of the managedFields and field-validation walks: unchanged subtrees and sets are recognised and
// reused, with the same results as the full walks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ManagedFieldsEntry } from '../../../src/api/types.js';
import { compareObjects, fieldsOf } from '../../../src/machinery/apply/walk.js';
import { checkAgainstSchema } from '../../../src/machinery/field-validation.js';
import { FieldSet } from '../../../src/machinery/apply/fieldset.js';
import { fieldElement as f } from '../../../src/machinery/apply/path.js';
import { decodeManagedFields, encodeManagedFields, updateManagedFields } from '../../../src/machinery/apply/managed-fields.js';
import { normalizePodEncoding } from '../../../src/api/core/pod/encoding.js';
import type { Pod } from '../../../src/api/core/pod/types.js';
import { podSchema, set } from './apply/fixtures.js';

type O = Record<string, unknown>;

const livePod = (): O => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { a: '1' } },
  spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, protocol: 'TCP' }] }] },
  status: { phase: 'Pending' },
});

describe('compareObjects shortcuts', () => {
  it('a create adds exactly the fields the object sets (plus their parents)', () => {
    const obj = livePod();
    const c = compareObjects({}, obj, podSchema, set);
    assert.ok(c.modified.isEmpty() && c.removed.isEmpty());
    assert.ok(c.added.equals(fieldsOf(obj, podSchema, set).union(c.added)));
    assert.ok(c.added.has([f('spec'), f('containers')]));
    assert.ok(c.added.has([f('metadata'), f('labels'), f('a')]));
  });

  it('equal subtrees contribute nothing, changed leaves are found below them', () => {
    const before = livePod();
    const after = structuredClone(before);
    (after.status as O).phase = 'Running';
    (after.status as O).podIP = '1.2.3.4';
    const c = compareObjects(before, after, podSchema, set);
    assert.deepEqual(c.modified.paths(), [[f('status'), f('phase')]]);
    assert.deepEqual(c.added.paths(), [[f('status'), f('podIP')]]);
    assert.ok(c.removed.isEmpty());
    const none = compareObjects(before, structuredClone(before), podSchema, set);
    assert.ok(none.added.isEmpty() && none.modified.isEmpty() && none.removed.isEmpty());
  });
});

describe('FieldSet.difference', () => {
  it('returns the same set when nothing is removed, a new one otherwise', () => {
    const s = FieldSet.of([f('a'), f('b')], [f('c')]);
    assert.equal(s.difference(FieldSet.of([f('x')])), s);
    assert.equal(s.difference(FieldSet.of([f('a'), f('z')])), s);
    assert.equal(s.recursiveDifference(FieldSet.of([f('q')])), s);
    const d = s.difference(FieldSet.of([f('c')]));
    assert.notEqual(d, s);
    assert.deepEqual(d.paths(), [[f('a'), f('b')]]);
    assert.deepEqual(s.recursiveDifference(FieldSet.of([f('a')])).paths(), [[f('c')]]);
  });
});

describe('managedFields reuse', () => {
  const entry = (manager: string, fieldsV1: O): ManagedFieldsEntry => ({
    manager,
    operation: 'Update',
    apiVersion: 'v1',
    time: '2024-01-01T00:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1,
  });

  it('writes back stored (canonical) fieldsV1 of untouched managers, re-encodes request-given ones', () => {
    const canonical = FieldSet.of([f('metadata'), f('labels'), f('a')]).toFieldsV1();
    const decoded = decodeManagedFields([entry('m', canonical)], { canonical: true });
    assert.equal(encodeManagedFields(decoded)![0]!.fieldsV1, canonical);
    // out of order, as a client may send it: encoded anew in Kubernetes' order
    const messy = { 'f:spec': {}, 'f:metadata': { 'f:labels': { 'f:b': {}, 'f:a': {} } } };
    const again = encodeManagedFields(decodeManagedFields([entry('m', messy)]))![0]!.fieldsV1;
    assert.notEqual(again, messy);
    assert.equal(JSON.stringify(again), '{"f:metadata":{"f:labels":{"f:a":{},"f:b":{}}},"f:spec":{}}');
  });

  it('an update keeps other managers’ stored entries and gives the writer its changed fields', () => {
    const labels = FieldSet.of([f('metadata'), f('labels'), f('a')]).toFieldsV1();
    const live: O & { metadata: O } = { ...livePod(), metadata: { name: 'p', uid: 'u', labels: { a: '1' }, managedFields: [entry('creator', labels)] } };
    const updated = structuredClone(live);
    (updated.status as O).phase = 'Running';
    const { managedFields } = updateManagedFields({ live, updated, manager: 'kubelet', apiVersion: 'v1', subresource: 'status', now: '2024-01-02T00:00:00Z', schema: podSchema, set });
    assert.equal(managedFields!.length, 2);
    assert.equal(managedFields![0]!.fieldsV1, labels);
    assert.equal(JSON.stringify(managedFields![1]!.fieldsV1), '{"f:status":{"f:phase":{}}}');
    // the writer takes a field the creator owned: the creator's entry is encoded anew
    const relabel = structuredClone(live);
    relabel.metadata.labels = { a: '2' };
    const r = updateManagedFields({ live, updated: relabel, manager: 'other', apiVersion: 'v1', now: '2024-01-02T00:00:00Z', schema: podSchema, set });
    assert.deepEqual(r.managedFields!.map((e) => e.manager), ['other']);
  });
});

describe('field validation paths', () => {
  it('names the path of a wrong type and of unknown fields only when reporting them', () => {
    const body = { spec: { containers: [{ name: 'c', image: 'x' }, { name: 'd', ports: [{ containerPort: 'eighty' }], bogus: 1 }] }, extra: true };
    const p = checkAgainstSchema(body, podSchema, set);
    assert.deepEqual(p.unknownFields.sort(), ['extra', 'spec.containers[1].bogus'].sort());
    assert.equal(p.typeErrors.length, 1);
    assert.match(p.typeErrors[0]!, /spec\.containers\[1\]\.ports\[0\]\.containerPort of type/);
  });

  it("skips a stored object's values found at their own path, and walks them anywhere else", () => {
    // values as a stored revision has them; `bogus` makes walking the spec visible
    const spec = { containers: [{ name: 'c', image: 'x', bogus: 1 }] };
    const labels = { a: '1' };
    const checked = new Map<object, string>([
      [spec, 'spec'],
      [labels, 'metadata.labels'],
    ]);
    const shared = checkAgainstSchema({ metadata: { labels }, spec, status: { phase: 'Running', extra: 1 } }, podSchema, set, checked);
    assert.deepEqual(shared.unknownFields, ['status.extra'], 'the shared spec is not walked, the new status is');
    assert.deepEqual(checkAgainstSchema({ spec }, podSchema, set).unknownFields, ['spec.containers[0].bogus'], 'without `checked` it is');
    // a JSON patch's copy puts a stored value elsewhere: there it is checked against that place's schema
    const moved = checkAgainstSchema({ metadata: { labels }, spec: { containers: labels, nodeSelector: labels } }, podSchema, set, checked);
    assert.equal(moved.typeErrors.length, 1);
    assert.match(moved.typeErrors[0]!, /spec\.containers of type/);
    assert.deepEqual(checkAgainstSchema({ status: spec }, podSchema, set, checked).unknownFields, ['status.containers']);
  });
});

describe('pod encoding normalisation', () => {
  it('fills zero structs with fresh objects, never one shared between pods', () => {
    const a = { spec: { containers: [{ name: 'c' }] }, status: { containerStatuses: [{ name: 'c' }] } } as unknown as Pod;
    const b = structuredClone(a);
    normalizePodEncoding(a);
    normalizePodEncoding(b);
    const ca = (a.spec as unknown as { containers: O[] }).containers[0]!;
    const cb = (b.spec as unknown as { containers: O[] }).containers[0]!;
    assert.deepEqual(ca.resources, {});
    assert.notEqual(ca.resources, cb.resources);
    const sa = (a.status as unknown as { containerStatuses: O[] }).containerStatuses[0]!;
    assert.deepEqual(sa, { name: 'c', state: {}, lastState: {} });
    normalizePodEncoding(a);
    assert.deepEqual(sa, { name: 'c', state: {}, lastState: {} });
  });
});
