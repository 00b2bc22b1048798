// cloneSharing: a copy with JSON semantics that reuses the subtrees a read-only base has equal, in the same order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cloneSharing } from '../../../src/machinery/object.js';

describe('cloneSharing', () => {
  const base = JSON.parse('{"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"list":[{"n":1},{"n":2}],"m":{"a":1,"b":2}},"status":{"phase":"P"}}');

  it('encodes as clone does and shares only equal subtrees with the same key order', () => {
    const v = {
      metadata: { name: 'a', labels: { x: '1' }, resourceVersion: '5' },
      spec: { list: [{ n: 1 }, { n: 3 }], m: { b: 2, a: 1 } },
      status: { phase: 'P', skipped: undefined },
    };
    const c = cloneSharing(v, base, 2);
    assert.equal(JSON.stringify(c), JSON.stringify(v));
    assert.notEqual(c, base);
    assert.notEqual(c.metadata, base.metadata); // fresh down to freshDepth
    assert.notEqual(c.status, base.status);
    assert.equal(c.metadata.labels, base.metadata.labels);
    assert.notEqual(c.spec.list, base.spec.list);
    assert.equal(c.spec.list[0], base.spec.list[0]);
    assert.notEqual(c.spec.m, base.spec.m); // equal, but in another key order
    assert.deepEqual(Object.keys(c.spec.m), ['b', 'a']);
    // nothing of the value itself is shared
    assert.notEqual(c.spec.list[1], v.spec.list[1]);
  });

  it('falls back to a JSON round trip for what JSON would change', () => {
    const v = { metadata: { name: 'a' }, spec: { d: new Date(0), n: [undefined] } };
    assert.equal(JSON.stringify(cloneSharing(v, base, 2)), JSON.stringify(v));
  });
});
