import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ManagedFieldsEntry } from '../../../../src/api/types.js';
import { applyPatch, type ApplyParams } from '../../../../src/machinery/apply/apply.js';
import { StatusError } from '../../../../src/machinery/errors.js';
import { updateManagedFields } from '../../../../src/machinery/apply/managed-fields.js';
import { cmSchema, configMap, deepFreeze, pod, podSchema, set } from './fixtures.js';

const T0 = '2024-05-01T10:00:00Z';
const T1 = '2024-05-01T11:00:00Z';
const T2 = '2024-05-01T12:00:00Z';

type O = Record<string, unknown>;
const meta = (o: O): O => o.metadata as O;
const mf = (o: O): ManagedFieldsEntry[] => (meta(o).managedFields as ManagedFieldsEntry[] | undefined) ?? [];
const fields = (o: O): Record<string, string> =>
  Object.fromEntries(mf(o).map((e) => [`${e.manager}/${e.operation}`, JSON.stringify(e.fieldsV1)]));
const strip = (o: O): O => {
  const { managedFields: _m, uid: _u, resourceVersion: _r, ...m } = meta(o);
  return { ...o, metadata: m };
};

/** Simulates storage: gives the object a uid and resourceVersion. */
function stored(o: O): O {
  return { ...o, metadata: { ...meta(o), uid: 'u1', resourceVersion: '1' } };
}

function apply(live: O | undefined, applied: O, manager: string, extra: Partial<ApplyParams> = {}): O {
  const schema = applied.kind === 'Pod' ? podSchema : cmSchema;
  const r = applyPatch({ live: live && deepFreeze(live), applied: deepFreeze(applied), manager, apiVersion: 'v1', kind: applied.kind as string, schema, set, now: T0, ...extra });
  return stored(r.object);
}

function update(live: O | undefined, updated: O, manager: string, now = T0): O {
  const schema = updated.kind === 'Pod' ? podSchema : cmSchema;
  return stored(updateManagedFields({ live, updated, manager, apiVersion: 'v1', now, schema, set }).object);
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return e;
  }
  assert.fail('expected a conflict');
}

describe('applyPatch', () => {
  it('creates an object with an Apply entry holding the applied fields', () => {
    const obj = apply(undefined, configMap({ key: 'some value' }, { 'test-label': 'test' }), 'kubectl');
    assert.deepEqual(strip(obj), configMap({ key: 'some value' }, { 'test-label': 'test' }));
    assert.deepEqual(mf(obj), [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } },
      },
    ]);
  });

  it('re-applying the same configuration changes nothing, not even the time', () => {
    const cfg = configMap({ a: '1' });
    const first = apply(undefined, cfg, 'mgr');
    const r = applyPatch({ live: first, applied: cfg, manager: 'mgr', apiVersion: 'v1', schema: cmSchema, set, now: T1 });
    assert.equal(r.changed, false);
    assert.deepEqual(r.object, first);
    assert.equal(r.managedFields![0].time, T0);
  });

  it('removes a field the manager no longer applies', () => {
    const first = apply(undefined, configMap({ a: '1', b: '2' }, { app: 'x' }), 'mgr');
    const second = apply(first, configMap({ a: '1' }), 'mgr', { now: T1 });
    assert.deepEqual(strip(second), configMap({ a: '1' }));
    assert.deepEqual(fields(second), { 'mgr/Apply': '{"f:data":{"f:a":{}}}' });
    assert.equal(mf(second)[0].time, T1);
    assert.equal(meta(second).uid, 'u1');
  });

  it('keeps a removed field that another applier also owns', () => {
    const one = apply(undefined, configMap({ shared: 'v', mine: '1' }), 'one');
    const two = apply(one, configMap({ shared: 'v' }), 'two');
    assert.deepEqual(fields(two), {
      'one/Apply': '{"f:data":{"f:mine":{},"f:shared":{}}}',
      'two/Apply': '{"f:data":{"f:shared":{}}}',
    });
    const dropped = apply(two, configMap({ mine: '1' }), 'one');
    assert.deepEqual((dropped.data as O), { shared: 'v', mine: '1' });
    assert.deepEqual(fields(dropped), {
      'one/Apply': '{"f:data":{"f:mine":{}}}',
      'two/Apply': '{"f:data":{"f:shared":{}}}',
    });
  });

  it('conflicts with a field another manager updated, with kube message and causes', () => {
    const created = update(undefined, configMap({ foo: 'a' }), 'kubectl-client-side-apply');
    const e = conflictOf(() => apply(created, configMap({ foo: 'b' }), 'kubectl'));
    assert.equal(e.code, 409);
    assert.equal(e.reason, 'Conflict');
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.foo');
    assert.deepEqual(e.toStatus().details, {
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.foo' }],
    });
    // the same value is no conflict: ownership becomes shared
    const shared = apply(created, configMap({ foo: 'a' }), 'kubectl');
    assert.deepEqual(fields(shared), {
      'kubectl/Apply': '{"f:data":{"f:foo":{}}}',
      'kubectl-client-side-apply/Update': '{"f:data":{".":{},"f:foo":{}}}',
    });
  });

  it('lists several conflicts grouped by sorted manager', () => {
    let live = update(undefined, configMap({ a: '1', b: '1' }, { app: 'x' }), 'zeta');
    live = apply(live, configMap({ c: '1' }), 'alpha');
    const e = conflictOf(() => apply(live, configMap({ a: '2', b: '2', c: '2' }, { app: 'y' }), 'me'));
    assert.equal(
      e.message,
      'Apply failed with 4 conflicts: conflicts with "alpha":\n- .data.c\nconflicts with "zeta" using v1:\n- .data.a\n- .data.b\n- .metadata.labels.app',
    );
    assert.deepEqual(e.toStatus().details!.causes!.map((c) => c.field), ['.data.c', '.data.a', '.data.b', '.metadata.labels.app']);
  });

  it('force takes ownership from the other managers', () => {
    const created = update(undefined, configMap({ foo: 'a', bar: 'x' }), 'editor');
    const forced = apply(created, configMap({ foo: 'b' }), 'kubectl', { force: true, now: T1 });
    assert.deepEqual(forced.data, { foo: 'b', bar: 'x' });
    assert.deepEqual(fields(forced), {
      'kubectl/Apply': '{"f:data":{"f:foo":{}}}',
      'editor/Update': '{"f:data":{".":{},"f:bar":{}}}',
    });
  });

  it('Update operations take ownership away from an applier', () => {
    const applied = apply(undefined, configMap({ foo: 'a' }), 'applier');
    const edited = update(applied, { ...applied, data: { foo: 'edited' } }, 'editor', T1);
    assert.deepEqual(fields(edited), { 'editor/Update': '{"f:data":{"f:foo":{}}}' });
    // the applier no longer owns foo, so re-applying its old value conflicts with the editor
    const e = conflictOf(() => apply(edited, configMap({ foo: 'a' }), 'applier'));
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.foo');
  });

  it('merges lists of maps by key and keeps items owned by others', () => {
    const created = update(
      undefined,
      pod({ containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1', ports: [{ containerPort: 80 }] }] }),
      'creator',
    );
    const applied = apply(
      created,
      pod({ containers: [{ name: 'b', image: 'b:1', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 53, protocol: 'UDP' }] }, { name: 'c', image: 'c:1' }] }),
      'applier',
    );
    assert.deepEqual((applied.spec as O).containers, [
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:1', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 53, protocol: 'UDP' }] },
      { name: 'c', image: 'c:1' },
    ]);
    const applierFields = JSON.parse(fields(applied)['applier/Apply']);
    assert.deepEqual(Object.keys(applierFields['f:spec']['f:containers']), ['k:{"name":"b"}', 'k:{"name":"c"}']);
    assert.deepEqual(Object.keys(applierFields['f:spec']['f:containers']['k:{"name":"b"}']['f:ports']), [
      'k:{"containerPort":53,"protocol":"UDP"}',
      'k:{"containerPort":80,"protocol":"TCP"}',
    ]);
    // a map-list item the applier stops applying is removed, one another manager owns is kept
    const again = apply(applied, pod({ containers: [{ name: 'b', image: 'b:1' }] }), 'applier');
    assert.deepEqual(((again.spec as O).containers as O[]).map((c) => c.name), ['a', 'b']);
    assert.deepEqual(((again.spec as O).containers as O[])[1].ports, [{ containerPort: 80 }]);
  });

  it('unions sets, replaces atomic lists and maps, and treats untyped objects granularly', () => {
    const first = apply(undefined, pod({ containers: [{ name: 'a', args: ['x', 'y'] }], selector: { matchLabels: { a: '1', b: '2' } }, extra: { p: 1, q: { r: 2 } } }, { finalizers: ['one'] }), 'm1');
    const second = apply(first, pod({ containers: [{ name: 'a', args: ['z'] }], selector: { matchLabels: { c: '3' } }, extra: { q: { s: 3 } } }, { finalizers: ['two'] }), 'm2', { force: true });
    assert.deepEqual(meta(second).finalizers, ['one', 'two']);
    assert.deepEqual((second.spec as O).containers, [{ name: 'a', args: ['z'] }]);
    assert.deepEqual((second.spec as O).selector, { matchLabels: { c: '3' } });
    assert.deepEqual((second.spec as O).extra, { p: 1, q: { r: 2, s: 3 } });
  });

  it('drops containers left empty when the last owned key goes', () => {
    const first = apply(undefined, configMap({ a: '1' }, { app: 'x' }), 'mgr');
    const second = apply(first, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } }, 'mgr');
    assert.deepEqual(strip(second), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } });
    assert.deepEqual(mf(second), []);
  });

  it('attributes the fields of an untracked object to before-first-apply', () => {
    const live = stored(configMap({ old: 'x' }, { app: 'a' }));
    const e = conflictOf(() => apply(live, configMap({ old: 'y' }), 'mgr'));
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.old');
    const ok = apply(live, configMap({ new: 'z' }), 'mgr', { now: T1 });
    assert.deepEqual(fields(ok), {
      'before-first-apply/Update': '{"f:data":{".":{},"f:old":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}',
      'mgr/Apply': '{"f:data":{"f:new":{}}}',
    });
    assert.equal(mf(ok).find((x) => x.manager === 'before-first-apply')!.time, T1);
  });

  it('orders merged list items as structured-merge-diff does', () => {
    const c = (name: string): O => ({ name, image: name });
    const live = update(undefined, pod({ containers: [c('a'), c('b'), c('c')] }), 'creator');
    const applied = apply(live, pod({ containers: [c('c'), c('a')] }), 'applier');
    assert.deepEqual(((applied.spec as O).containers as O[]).map((x) => x.name), ['b', 'c', 'a']);
    const added = apply(applied, pod({ containers: [c('c'), c('n'), c('a')] }), 'applier');
    assert.deepEqual(((added.spec as O).containers as O[]).map((x) => x.name), ['b', 'c', 'n', 'a']);
  });

  it('treats an explicit null as removing the field while owning it', () => {
    const live = update(undefined, pod({ replicas: 3, nodeSelector: { a: 'b' } }), 'creator');
    const out = apply(live, pod({ replicas: null, nodeSelector: null }), 'applier', { force: true });
    assert.deepEqual(out.spec, { nodeSelector: { a: 'b' } });
    assert.deepEqual(fields(out)['applier/Apply'], '{"f:spec":{"f:nodeSelector":{},"f:replicas":{}}}');
  });

  it('lets kubectl take over fields that still match its last-applied configuration', () => {
    const ann = 'kubectl.kubernetes.io/last-applied-configuration';
    const last = JSON.stringify(configMap({ foo: 'a' }));
    const csa = { ...configMap({ foo: 'a', bar: 'x' }), metadata: { name: 'cm', namespace: 'default', annotations: { [ann]: last } } };
    const live = update(undefined, csa, 'kubectl-client-side-apply');
    const cfg = { ...configMap({ foo: 'b' }), metadata: { name: 'cm', namespace: 'default', annotations: { [ann]: last } } };
    const out = apply(live, cfg, 'kubectl');
    assert.deepEqual(out.data, { foo: 'b', bar: 'x' });
    assert.equal(
      (meta(out).annotations as O)[ann],
      '{"apiVersion":"v1","data":{"foo":"b"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"cm","namespace":"default"}}\n',
    );
    // bar was never in the last-applied configuration, so it still conflicts
    const e = conflictOf(() => apply(live, { ...cfg, data: { foo: 'b', bar: 'y' } }, 'kubectl'));
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.bar');
  });

  it('rejects malformed configurations', () => {
    const live = stored(configMap({ a: '1' }));
    assert.throws(
      () => applyPatch({ live, applied: { ...configMap({}), kind: 'Secret' }, manager: 'm', apiVersion: 'v1', kind: 'ConfigMap', schema: cmSchema, set, now: T0 }),
      (e: StatusError) => e.code === 400 && e.message === 'invalid object type: /v1, Kind=Secret',
    );
    const withMf = { ...configMap({}), metadata: { name: 'cm', managedFields: [] } };
    assert.throws(
      () => applyPatch({ live, applied: withMf, manager: 'm', apiVersion: 'v1', schema: cmSchema, set, now: T0 }),
      (e: StatusError) => e.code === 400 && e.message === 'metadata.managedFields must be nil',
    );
    const dup = pod({ containers: [{ name: 'a' }, { name: 'a' }] });
    assert.throws(
      () => applyPatch({ live: undefined, applied: dup, manager: 'm', apiVersion: 'v1', schema: podSchema, set, now: T0 }),
      (e: StatusError) =>
        e.code === 500 && e.message === 'failed to create typed patch object (default/p; /v1, Kind=Pod): .spec.containers: duplicate entries for key [name="a"]',
    );
  });
});
