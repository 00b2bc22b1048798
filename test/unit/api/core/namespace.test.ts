import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namespaceResource, validateNamespaceFinalize } from '../../../../src/api/core/namespace.js';
import type { KObject } from '../../../../src/api/types.js';

const st = namespaceResource.strategy;
const ns = (name: string, extra: Record<string, unknown> = {}): KObject => ({ metadata: { name }, ...extra });

describe('Namespace', () => {
  it('is cluster-scoped with kube names, verbs and a status subresource', () => {
    assert.equal(namespaceResource.namespaced, false);
    assert.deepEqual(namespaceResource.shortNames, ['ns']);
    assert.deepEqual(namespaceResource.subresources, { status: true });
    assert.ok(!namespaceResource.verbs!.includes('deletecollection'));
    assert.deepEqual(Object.keys(namespaceResource.selectableFields!), ['status.phase']);
  });

  it('defaults status.phase, spec and the metadata.name label', () => {
    const o = ns('team-a', { status: { phase: '' } });
    st.defaults!(o);
    assert.deepEqual(o, {
      metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
      spec: {},
      status: { phase: 'Active' },
    });
  });

  it('overrides a user-set metadata.name label, and canonicalize sets it for generated names', () => {
    const o = ns('x', { metadata: { name: 'x', labels: { 'kubernetes.io/metadata.name': 'y', a: 'b' } } });
    st.defaults!(o);
    assert.deepEqual(o.metadata.labels, { 'kubernetes.io/metadata.name': 'x', a: 'b' });
    const g: KObject = { metadata: { generateName: 'gen-' } };
    st.defaults!(g);
    assert.equal(g.metadata.labels, undefined);
    g.metadata.name = 'gen-abcde';
    st.canonicalize!(g);
    assert.deepEqual(g.metadata.labels, { 'kubernetes.io/metadata.name': 'gen-abcde' });
  });

  it('adds the kubernetes finalizer and resets status on create', () => {
    const a = ns('a', { status: { phase: 'Terminating' } });
    st.prepareForCreate!(a);
    assert.deepEqual(a.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(a.status, { phase: 'Active' });
    const b = ns('b', { spec: { finalizers: ['example.com/x'] } });
    st.prepareForCreate!(b);
    assert.deepEqual(b.spec, { finalizers: ['example.com/x', 'kubernetes'] });
    const c = ns('c', { spec: { finalizers: ['kubernetes', 'example.com/x'] } });
    st.prepareForCreate!(c);
    assert.deepEqual(c.spec, { finalizers: ['kubernetes', 'example.com/x'] });
  });

  it('keeps finalizers and status from the old object on update', () => {
    const old = ns('a', { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    const o = ns('a', { spec: { finalizers: [] }, status: { phase: 'Terminating' } });
    st.prepareForUpdate!(o, old);
    assert.deepEqual(o.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(o.status, { phase: 'Active' });
  });

  it('validates spec.finalizers at the list path', () => {
    const errs = st.validate!(ns('a', { spec: { finalizers: ['kubernetes', 'foo', 'example.com/ok', 'a/b/c'] } }));
    assert.deepEqual(errs.map(String), [
      'spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
      `spec.finalizers: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]);
    assert.deepEqual(st.validate!(ns('a', { spec: { finalizers: ['orphan'] } })), []);
    assert.equal(st.validateUpdate, undefined);
  });

  it('requires a DNS-1123 label name', () => {
    assert.deepEqual(st.validateName!('team-a', false), []);
    assert.deepEqual(st.validateName!('a.b', false), ['must not contain dots']);
    assert.deepEqual(st.validateName!('Team', false), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(st.validateName!('gen-', true), []);
  });

  it('validates status updates against deletionTimestamp', () => {
    const old = ns('a', { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    const o = ns('a', { spec: {}, status: { phase: 'Terminating' } });
    st.prepareForStatusUpdate!(o, old);
    assert.deepEqual(o.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(st.validateStatusUpdate!(o, old).map(String), [
      'status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
    ]);
    const del = ns('a', { status: { phase: 'Active' } });
    del.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    assert.deepEqual(st.validateStatusUpdate!(del, old).map(String), [
      'status.Phase: Invalid value: "Active": may only be \'Terminating\' if `deletionTimestamp` is not empty',
    ]);
  });

  it('terminates through beforeDelete, spec.finalizers and the finalize subresource', () => {
    const o = ns('a', { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    st.beforeDelete!(o);
    assert.deepEqual(o.status, { phase: 'Terminating' });
    assert.equal(st.deletionBlocked!(o), true);
    const fin = st.prepareForFinalize!(ns('a', { spec: { finalizers: [] }, status: { phase: 'Active' } }), o);
    assert.deepEqual([fin.spec, fin.status], [{ finalizers: [] }, { phase: 'Terminating' }]);
    assert.equal(st.deletionBlocked!(fin), false);
    assert.deepEqual(validateNamespaceFinalize(ns('a', { spec: { finalizers: ['kubernetes', 'bad'] } })).map(String), [
      'spec.finalizers[1]: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  it('prints NAME STATUS AGE', () => {
    const o = ns('kube-system', { status: { phase: 'Active' } });
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-03T01:00:00Z');
    assert.deepEqual(namespaceResource.columns.map((c) => c.name), ['Name', 'Status', 'Age']);
    assert.deepEqual(namespaceResource.columns.map((c) => c.cell(o, { now })), ['kube-system', 'Active', '2d1h']);
  });
});
