import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../../src/machinery/errors.js';
import { copyAlong } from '../../../../src/machinery/patch/common.js';
import { applyMergePatch } from '../../../../src/machinery/patch/merge-patch.js';

type O = Record<string, unknown>;

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

function status(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

describe('applyMergePatch: RFC 7386', () => {
  // the RFC 7386 appendix A examples (object targets), then kube-relevant ones
  const cases: [string, O, unknown, unknown][] = [
    ['replace a member', { a: 'b' }, { a: 'c' }, { a: 'c' }],
    ['add a member', { a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    ['null deletes', { a: 'b' }, { a: null }, {}],
    ['null deletes one of two', { a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    ['an array replaces an array', { a: ['b'] }, { a: 'c' }, { a: 'c' }],
    ['a scalar replaces an array', { a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    ['objects merge recursively', { a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    ['objects inside arrays are not merged', { a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    ['nulls already in the document stay', { e: null }, { a: 1 }, { e: null, a: 1 }],
    ['a new object drops its nulls', {}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ['an empty patch changes nothing', { a: 1 }, {}, { a: 1 }],
    ['an object replaces a scalar, minus nulls', { a: 1 }, { a: { b: null, c: 2 } }, { a: { c: 2 } }],
    ['a scalar replaces an object', { a: { b: 1 } }, { a: 'x' }, { a: 'x' }],
    ['null on a missing member', { a: 1 }, { b: null }, { a: 1 }],
    ['null members of objects in a new array are dropped, null elements kept', {}, { l: [{ a: null, b: 1 }, null] }, { l: [{ b: 1 }, null] }],
    ['an array over an object keeps nested nulls (json-patch v4)', { l: { x: 1 } }, { l: [{ a: null }] }, { l: [{ a: null }] }],
    ['a member whose value is null is treated as missing', { a: null }, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
    [
      'labels and annotations, as kubectl patch --type=merge sends them',
      { metadata: { name: 'x', labels: { a: '1', b: '2' }, annotations: { k: 'v' } } },
      { metadata: { labels: { a: null, c: '3' }, annotations: null } },
      { metadata: { name: 'x', labels: { b: '2', c: '3' } } },
    ],
    [
      'lists are replaced, never merged',
      { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b' }] } },
      { spec: { containers: [{ name: 'a', image: 'y' }] } },
      { spec: { containers: [{ name: 'a', image: 'y' }] } },
    ],
    ['a "__proto__" key is an ordinary key', {}, JSON.parse('{"__proto__":{"x":1}}'), JSON.parse('{"__proto__":{"x":1}}')],
  ];
  for (const [name, doc, patch, want] of cases) {
    it(name, () => {
      assert.deepEqual(applyMergePatch(deepFreeze(doc), deepFreeze(patch)), want);
      // patching a copy of only what the patch reaches (a status patch's way) gives the same, leaving `doc` alone
      if (patch && typeof patch === 'object' && !Array.isArray(patch)) {
        assert.deepEqual(applyMergePatch(copyAlong(doc, patch as O), patch, { originalOwned: true }), want);
      }
    });
  }

  it('does not modify its inputs and shares no structure with them', () => {
    const doc = deepFreeze({ a: { b: 1 }, l: [1] });
    const patch = deepFreeze({ c: { d: [1] } });
    const got = applyMergePatch(doc, patch) as O;
    (got.a as O).b = 2;
    ((got.c as O).d as number[]).push(2);
    (got.l as number[]).push(2);
    assert.deepEqual(doc, { a: { b: 1 }, l: [1] });
    assert.deepEqual(patch, { c: { d: [1] } });
    assert.equal(({} as O).x, undefined);
  });
});

describe('applyMergePatch: errors', () => {
  for (const [name, patch, kind] of [
    ['an array', [1], 'array'],
    ['a string', 'x', 'string'],
    ['a number', 2, 'number'],
    ['a boolean', true, 'bool'],
  ] as const) {
    it(`${name} is 400 "error decoding patch" (fieldValidation Warn/Strict, the default)`, () => {
      for (const fieldValidation of [undefined, 'Warn', 'Strict'] as const) {
        const e = status(() => applyMergePatch({ a: 1 }, patch, { fieldValidation }));
        assert.equal(e.code, 400);
        assert.equal(e.reason, 'BadRequest');
        assert.equal(
          e.message,
          `error decoding patch: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
        );
      }
    });
  }

  it('null is 400 "Invalid JSON Patch"', () => {
    for (const fieldValidation of [undefined, 'Ignore', 'Strict'] as const) {
      const e = status(() => applyMergePatch({ a: 1 }, null, { fieldValidation }));
      assert.equal(e.code, 400);
      assert.equal(e.message, 'Invalid JSON Patch');
    }
  });

  it('with fieldValidation=Ignore a scalar is "Invalid JSON Patch" and an array replaces the document', () => {
    const e = status(() => applyMergePatch({ a: 1 }, 'x', { fieldValidation: 'Ignore' }));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'Invalid JSON Patch');
    assert.deepEqual(applyMergePatch({ a: 1 }, [{ a: null, b: 1 }, null], { fieldValidation: 'Ignore' }), [{ b: 1 }, null]);
  });
});

describe('copyAlong', () => {
  it('copies the maps on the way to what a patch names and the values it names, and shares the rest', () => {
    const doc = deepFreeze({
      metadata: { name: 'p', labels: { a: '1' }, managedFields: [{ manager: 'm' }] },
      spec: { containers: [{ name: 'c' }] },
      status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }], podIPs: [{ ip: '10.0.0.1' }] },
    });
    const patch = { metadata: { labels: { b: '2' } }, status: { '$setElementOrder/conditions': [{ type: 'Ready' }], phase: 'Running' } };
    const out = copyAlong(doc, patch, ['spec']) as typeof doc;
    assert.deepEqual(out, doc);
    assert.notEqual(out.metadata, doc.metadata);
    assert.notEqual(out.metadata.labels, doc.metadata.labels);
    assert.equal(out.metadata.managedFields, doc.metadata.managedFields, 'not reached: shared');
    assert.notEqual(out.spec, doc.spec, 'named in `deep`: copied');
    assert.notEqual(out.spec.containers[0], doc.spec.containers[0]);
    assert.notEqual(out.status.conditions, doc.status.conditions, 'ordered by a directive: copied');
    assert.equal(out.status.podIPs, doc.status.podIPs, 'not reached: shared');
    assert.ok(!Object.isFrozen(out.status));
  });
});
