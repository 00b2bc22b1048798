import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prune, pruneObjectMeta } from '../../../../../src/api/apiextensions/customresource/pruning.js';
import type { JSP } from '../../../../../src/api/apiextensions/structural.js';

const obj = (s: string): Record<string, unknown> => JSON.parse(s);
const object = (properties: Record<string, JSP> = {}, extra: JSP = {}): JSP => ({ type: 'object', properties, ...extra });

// The CronTab of "Extend the Kubernetes API with CustomResourceDefinitions".
const cronTab: JSP = object({
  spec: object({ cronSpec: { type: 'string' }, image: { type: 'string' }, replicas: { type: 'integer' } }),
});

describe('prune: the documentation example', () => {
  it('drops spec.someRandomField and reports it as fieldValidation does', () => {
    const o = obj(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"my-new-cron-object"},
      "spec":{"cronSpec":"* * * * */5","image":"my-awesome-cron-image","someRandomField":42}}`);
    assert.deepEqual(prune(o, cronTab, true), ['spec.someRandomField']);
    assert.deepEqual(o, {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'my-new-cron-object' },
      spec: { cronSpec: '* * * * */5', image: 'my-awesome-cron-image' },
    });
  });

  it('keeps apiVersion, kind and metadata at the root untouched even if the schema omits them', () => {
    const o = obj('{"apiVersion":"a/v1","kind":"K","metadata":{"name":"x","bogus":1},"status":{"a":1}}');
    assert.deepEqual(prune(o, cronTab, true), ['status']);
    assert.deepEqual(o, { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'x', bogus: 1 } });
  });

  it('does not report top-level apiVersion/kind/metadata when not at a resource root', () => {
    const o = obj('{"apiVersion":"a/v1","kind":"K","other":1}');
    assert.deepEqual(prune(o, object({}), false), ['other']);
    assert.deepEqual(o, {});
  });
});

describe('prune: Go test cases (pruning/algorithm_test.go)', () => {
  it('object arrays: paths start with the index at the root', () => {
    const o = JSON.parse('[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]');
    assert.deepEqual(prune(o, { items: { properties: { a: {}, c: {} } } }, false), ['[1].b', '[2].b']);
    assert.deepEqual(o, [{ a: 1 }, {}, { a: 1, c: 3 }]);
  });

  it('arrays and objects nested in objects, sorted paths', () => {
    const o = obj('{"array":[{"a":1},{"b":1},{"a":1,"b":2,"c":3}],"unspecified":{"a":1},"specified":{"a":1,"b":2,"c":3}}');
    const s: JSP = { properties: { array: { items: { properties: { a: {}, c: {} } } }, specified: { properties: { a: {}, c: {} } } } };
    assert.deepEqual(prune(o, s, false), ['array[1].b', 'array[2].b', 'specified.b', 'unspecified']);
    assert.deepEqual(o, { array: [{ a: 1 }, {}, { a: 1, c: 3 }], specified: { a: 1, c: 3 } });
  });

  it('nested x-kubernetes-preserve-unknown-fields', () => {
    const o = obj(`{"unspecified":"bar","alpha":"abc","beta":42.5,"unspecifiedObject":{"unspecified":"bar"},
      "pruning":{"unspecified":"bar","unspecifiedObject":{"unspecified":"bar"},"pruning":{"unspecified":"bar"},"apiVersion":"unknown","preserving":{"unspecified":"bar"}},
      "preserving":{"unspecified":"bar","unspecifiedObject":{"unspecified":"bar"},"pruning":{"unspecified":"bar"},"preserving":{"unspecified":"bar"},"preservingUnknownType":[{"foo":true},{"bar":true}]},
      "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields":{"foo":{"specified":{"unspecified":"bar"},"unspecified":"bar"}},
      "preservingAdditionalPropertiesKeyPruneValues":{"foo":{"specified":{"unspecified":"bar"},"unspecified":"bar"}}}`);
    const ap = { additionalProperties: object({ specified: object() }) };
    const s = object(
      {
        alpha: { type: 'string' },
        beta: { type: 'number' },
        pruning: object({ preserving: object({}, { 'x-kubernetes-preserve-unknown-fields': true }), pruning: object() }),
        preserving: object(
          {
            preserving: object({}, { 'x-kubernetes-preserve-unknown-fields': true }),
            preservingUnknownType: { 'x-kubernetes-preserve-unknown-fields': true },
            pruning: object(),
          },
          { 'x-kubernetes-preserve-unknown-fields': true },
        ),
        preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...ap },
        preservingAdditionalPropertiesKeyPruneValues: { type: 'object', ...ap },
      },
      { 'x-kubernetes-preserve-unknown-fields': true },
    );
    assert.deepEqual(prune(o, s, false), [
      'preserving.pruning.unspecified',
      'preservingAdditionalPropertiesKeyPruneValues.foo.specified.unspecified',
      'preservingAdditionalPropertiesKeyPruneValues.foo.unspecified',
      'preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.specified.unspecified',
      'preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.unspecified',
      'pruning.apiVersion',
      'pruning.pruning.unspecified',
      'pruning.unspecified',
      'pruning.unspecifiedObject',
    ]);
    assert.deepEqual(o, obj(`{"unspecified":"bar","alpha":"abc","beta":42.5,"unspecifiedObject":{"unspecified":"bar"},
      "pruning":{"pruning":{},"preserving":{"unspecified":"bar"}},
      "preserving":{"unspecified":"bar","unspecifiedObject":{"unspecified":"bar"},"pruning":{},"preserving":{"unspecified":"bar"},"preservingUnknownType":[{"foo":true},{"bar":true}]},
      "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields":{"foo":{"specified":{}}},
      "preservingAdditionalPropertiesKeyPruneValues":{"foo":{"specified":{}}}}`));
  });

  it('additionalProperties with a schema prunes the values', () => {
    const o = obj('{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1}}}');
    const s: JSP = { properties: { a: {}, c: { additionalProperties: { type: 'integer' } } } };
    assert.deepEqual(prune(o, s, false), ['b', 'c.c.a']);
    assert.deepEqual(o, { a: 1, c: { a: 1, b: 2, c: {} } });
  });

  it('additionalProperties as a bool keeps the keys but empties object values', () => {
    for (const ap of [true, false]) {
      const o = obj('{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1,"apiVersion":"unknown"}}}');
      assert.deepEqual(prune(o, { properties: { a: {}, c: { additionalProperties: ap } } }, false), ['b', 'c.c.a', 'c.c.apiVersion']);
      assert.deepEqual(o, { a: 1, c: { a: 1, b: 2, c: {} } });
    }
  });

  it('x-kubernetes-embedded-resource keeps apiVersion/kind/metadata and prunes the metadata to ObjectMeta', () => {
    const embedded = (spec: JSP = object()): JSP => object({ spec }, { 'x-kubernetes-embedded-resource': true });
    const res = (extra = '') =>
      `{"apiVersion":"foo/v1","kind":"Foo","unspecified":"bar","metadata":{"name":"instance","unspecified":"bar"},"spec":{"unspecified":"bar"${extra}}}`;
    const o = obj(`{"unspecified":"bar","pruned":${res()},"preserving":${res()},"nested":${res(`,"embedded":${res()}`)}}`);
    const s = object({
      pruned: embedded(),
      preserving: object({}, { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }),
      nested: embedded(object({ embedded: embedded() })),
    });
    assert.deepEqual(prune(o, s, false), [
      'nested.spec.embedded.spec.unspecified',
      'nested.spec.embedded.unspecified',
      'nested.spec.unspecified',
      'nested.unspecified',
      'pruned.spec.unspecified',
      'pruned.unspecified',
      'unspecified',
      // then what decoding metadata as ObjectMeta drops (objectmeta.Coerce)
      'nested.metadata.unspecified',
      'nested.spec.embedded.metadata.unspecified',
      'preserving.metadata.unspecified',
      'pruned.metadata.unspecified',
    ]);
    const kept = { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'instance' } };
    assert.deepEqual(o, {
      pruned: { ...kept, spec: {} },
      preserving: { ...kept, unspecified: 'bar', spec: { unspecified: 'bar' } },
      nested: { ...kept, spec: { embedded: { ...kept, spec: {} } } },
    });
  });

  it('embedded resources under items and additionalProperties use field.Path prefixes for metadata', () => {
    const emb: JSP = object({}, { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true });
    const o = obj('{"spec":{"list":[{"metadata":{"name":"a","x":1}}],"map":{"k":{"metadata":{"y":1}}}}}');
    const s = object({ spec: object({ list: { type: 'array', items: emb }, map: { type: 'object', additionalProperties: emb } }) });
    assert.deepEqual(prune(o, s, true), ['spec.list[0].metadata.x', 'spec.map[k].metadata.y']);
    assert.deepEqual(o, { spec: { list: [{ metadata: { name: 'a' } }], map: { k: { metadata: {} } } } });
  });

  it('a missing schema below an object prunes everything in it', () => {
    const o = obj('{"spec":{"a":{"b":1},"c":[{"d":1}]}}');
    assert.deepEqual(prune(o, object({ spec: object({ a: object(), c: { type: 'array' } }) }), true), ['spec.a.b', 'spec.c[0].d']);
  });
});

describe('pruneObjectMeta', () => {
  it('drops unknown fields, also in ownerReferences and managedFields, and empty values', () => {
    const m = {
      name: 'x',
      namespace: '',
      labels: {},
      generation: 0,
      creationTimestamp: null,
      bogus: 1,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', extra: true }],
      managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} }, what: 1 }],
    };
    assert.deepEqual(pruneObjectMeta(m, 'spec.template.metadata'), [
      'spec.template.metadata.bogus',
      'spec.template.metadata.ownerReferences[0].extra',
      'spec.template.metadata.managedFields[0].what',
    ]);
    assert.deepEqual(m, {
      name: 'x',
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }],
      managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }],
    });
  });
});
