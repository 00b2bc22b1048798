import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GoOrder } from '../../../src/machinery/go-order.js';
import { SchemaSet } from '../../../src/machinery/schema.js';

// A struct with an embedded TypeMeta (tag 0), an inlined struct, a map, a list of structs and a raw value.
const schemas = new SchemaSet({
  'x.Thing': {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      spec: { ref: 'x.Spec' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      parts: { type: 'array', items: { ref: 'x.Part' } },
      raw: { ref: 'io.k8s.apimachinery.pkg.runtime.RawExtension' },
    },
  },
  'x.Spec': { type: 'object', properties: { b: { type: 'string' }, a: { type: 'string' }, inner: { type: 'string' } } },
  'x.Part': { type: 'object', properties: { z: { type: 'string' }, y: { type: 'string' } } },
  'x.Inner': { type: 'object', properties: { inner: { type: 'string' } } },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { type: 'object' },
});
const tags = {
  'x.Thing': { apiVersion: 0, kind: 0, spec: 1, labels: 2, parts: 3, raw: 4 },
  'x.Spec': { b: 1, '@inner': { tag: 3, inline: 'x.Inner' }, a: 2 },
  'x.Inner': { inner: 1 },
  'x.Part': { z: 1, y: 2 },
};
const order = new GoOrder(schemas, tags);

describe('GoOrder: the member order Go writes', () => {
  it('TypeMeta first with kind before apiVersion, then fields as declared, inlined ones in place, map keys sorted', () => {
    const v = {
      raw: { z: 1, a: 2 },
      parts: [{ y: '1', z: '2' }, { z: '3' }],
      labels: { b: '1', a: '2', B: '3' },
      spec: { a: 'a', inner: 'i', b: 'b' },
      apiVersion: 'v1',
      kind: 'Thing',
    };
    const out = order.struct(v, 'x.Thing');
    assert.equal(
      JSON.stringify(out),
      '{"kind":"Thing","apiVersion":"v1","spec":{"b":"b","inner":"i","a":"a"},"labels":{"B":"3","a":"2","b":"1"},' +
        '"parts":[{"z":"2","y":"1"},{"z":"3"}],"raw":{"z":1,"a":2}}',
    );
    // the input is not changed; what was in order already is shared, not copied
    assert.deepEqual(Object.keys(v.spec), ['a', 'inner', 'b']);
    assert.equal((out as typeof v).raw, v.raw);
    assert.equal((out as typeof v).parts[1], v.parts[1]);
  });

  it('returns the very value when everything is in order, and puts unknown members last in their order', () => {
    const v = { kind: 'Thing', apiVersion: 'v1', spec: { b: 'b', a: 'a' }, labels: { a: '1' } };
    assert.equal(order.struct(v, 'x.Thing'), v);
    const u = order.struct({ zz: 1, spec: {}, aa: 2, kind: 'T' }, 'x.Thing');
    assert.deepEqual(Object.keys(u), ['kind', 'spec', 'zz', 'aa']);
    // not objects where the schema says struct: left alone
    assert.equal(order.struct('s', 'x.Thing'), 's');
    assert.deepEqual(order.struct({ spec: [1], labels: 'x' }, 'x.Thing'), { spec: [1], labels: 'x' });
  });

  it('sorts an unstructured object (a custom resource) at every level, arrays in place', () => {
    const cr = { spec: { z: [{ b: 1, a: 2 }], a: null }, metadata: { name: 'n', labels: { y: '1', x: '2' } }, kind: 'C', apiVersion: 'x/v1' };
    assert.equal(
      JSON.stringify(order.sorted(cr)),
      '{"apiVersion":"x/v1","kind":"C","metadata":{"labels":{"x":"2","y":"1"},"name":"n"},"spec":{"a":null,"z":[{"a":2,"b":1}]}}',
    );
    const sorted = order.sorted(cr);
    assert.equal(order.sorted(sorted), sorted);
  });
});
