import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../../src/machinery/errors.js';
import {
  MAX_JSON_PATCH_OPERATIONS,
  applyJsonPatch,
  jsonPatchStrictErrors,
} from '../../../../src/machinery/patch/json-patch.js';

type O = Record<string, unknown>;

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

const GENERIC_422 = 'the server rejected our request due to an error in our request';

function status(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an error');
}

function assertNotApplicable(doc: unknown, patch: unknown): void {
  const e = status(() => applyJsonPatch(doc, patch));
  assert.equal(e.code, 422);
  assert.equal(e.reason, 'Invalid');
  assert.equal(e.message, GENERIC_422);
  assert.deepEqual(e.toStatus().details, {});
}

describe('applyJsonPatch: RFC 6902 operations', () => {
  const cases: [string, unknown, unknown[], unknown][] = [
    ['add a member', { a: 1 }, [{ op: 'add', path: '/b', value: 2 }], { a: 1, b: 2 }],
    ['add replaces an existing member', { a: 1 }, [{ op: 'add', path: '/a', value: [1] }], { a: [1] }],
    ['add nested', { a: { b: {} } }, [{ op: 'add', path: '/a/b/c', value: 'x' }], { a: { b: { c: 'x' } } }],
    ['add inserts into an array', { l: ['a', 'c'] }, [{ op: 'add', path: '/l/1', value: 'b' }], { l: ['a', 'b', 'c'] }],
    ['add at the array end index', { l: ['a'] }, [{ op: 'add', path: '/l/1', value: 'b' }], { l: ['a', 'b'] }],
    ['add with "-" appends', { l: [1, 2] }, [{ op: 'add', path: '/l/-', value: 3 }], { l: [1, 2, 3] }],
    ['add a whole array', { a: 1 }, [{ op: 'add', path: '/l', value: [1, { x: null }] }], { a: 1, l: [1, { x: null }] }],
    ['add without value adds null', { a: 1 }, [{ op: 'add', path: '/b' }], { a: 1, b: null }],
    ['add with a negative index counts from the end', { l: [1, 2] }, [{ op: 'add', path: '/l/-1', value: 9 }], { l: [1, 2, 9] }],
    ['remove a member', { a: 1, b: 2 }, [{ op: 'remove', path: '/a' }], { b: 2 }],
    ['remove a null member', { a: null, b: 2 }, [{ op: 'remove', path: '/a' }], { b: 2 }],
    ['remove an array element', { l: [1, 2, 3] }, [{ op: 'remove', path: '/l/1' }], { l: [1, 3] }],
    ['remove the last element with -1', { l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-1' }], { l: [1, 2] }],
    ['replace a member', { a: 1 }, [{ op: 'replace', path: '/a', value: { x: 1 } }], { a: { x: 1 } }],
    ['replace of a missing member adds it (json-patch v4)', { a: 1 }, [{ op: 'replace', path: '/b', value: 2 }], { a: 1, b: 2 }],
    ['replace an array element', { l: [1, 2] }, [{ op: 'replace', path: '/l/0', value: 5 }], { l: [5, 2] }],
    ['replace the whole document', { a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }], { b: 2 }],
    ['move a member', { a: { x: 1 }, b: {} }, [{ op: 'move', from: '/a/x', path: '/b/y' }], { a: {}, b: { y: 1 } }],
    ['move within an array', { l: ['a', 'b', 'c', 'd'] }, [{ op: 'move', from: '/l/1', path: '/l/3' }], { l: ['a', 'c', 'd', 'b'] }],
    ['copy a member', { a: { x: [1] } }, [{ op: 'copy', from: '/a/x', path: '/b' }], { a: { x: [1] }, b: [1] }],
    ['copy a missing member copies null (json-patch v4)', { a: 1 }, [{ op: 'copy', from: '/nope', path: '/b' }], { a: 1, b: null }],
    ['test then replace', { a: 'x' }, [{ op: 'test', path: '/a', value: 'x' }, { op: 'replace', path: '/a', value: 'y' }], { a: 'y' }],
    ['test compares structurally', { a: { x: [1, { y: 2 }], z: 'q' } }, [{ op: 'test', path: '/a', value: { z: 'q', x: [1, { y: 2 }] } }], { a: { x: [1, { y: 2 }], z: 'q' } }],
    ['test of a missing member against null succeeds', { a: 1 }, [{ op: 'test', path: '/b', value: null }], { a: 1 }],
    ['test of a null member against null succeeds', { a: null }, [{ op: 'test', path: '/a', value: null }], { a: null }],
    ['test of the whole document', { a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }], { a: 1 }],
    ['"~1" and "~0" escapes', { 'a/b': { 'c~d': 1 } }, [{ op: 'replace', path: '/a~1b/c~0d', value: 2 }], { 'a/b': { 'c~d': 2 } }],
    ['"~01" is "~1" literally', {}, [{ op: 'add', path: '/~01', value: 1 }], { '~1': 1 }],
    ['the empty key', { '': 1 }, [{ op: 'replace', path: '/', value: 2 }], { '': 2 }],
    ['annotation keys with slashes', { metadata: { annotations: { 'example.com/x': '1' } } }, [{ op: 'remove', path: '/metadata/annotations/example.com~1x' }], { metadata: { annotations: {} } }],
    ['an empty patch', { a: 1 }, [], { a: 1 }],
    ['a null patch is no operation', { a: 1 }, null as unknown as unknown[], { a: 1 }],
    ['operations apply in order', { l: [] }, [{ op: 'add', path: '/l/-', value: 1 }, { op: 'add', path: '/l/0', value: 0 }, { op: 'copy', from: '/l/1', path: '/n' }], { l: [0, 1], n: 1 }],
    ['a "__proto__" key is an ordinary key', {}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }], JSON.parse('{"__proto__":{"polluted":true}}')],
  ];
  for (const [name, doc, patch, want] of cases) {
    it(name, () => {
      const got = applyJsonPatch(deepFreeze(doc), deepFreeze(patch));
      assert.deepEqual(got, want);
    });
  }

  it('does not modify its inputs and shares no structure with them', () => {
    const doc = deepFreeze({ a: { b: [1, 2] } });
    const patch = deepFreeze([{ op: 'add', path: '/c', value: { d: 1 } }]);
    const got = applyJsonPatch(doc, patch) as O;
    (got.c as O).d = 2;
    ((got.a as O).b as number[]).push(3);
    assert.deepEqual(doc, { a: { b: [1, 2] } });
    assert.deepEqual(patch, [{ op: 'add', path: '/c', value: { d: 1 } }]);
    assert.equal(({} as O).polluted, undefined);
  });
});

describe('applyJsonPatch: operations that do not apply are 422 Invalid with the generic message', () => {
  const cases: [string, unknown, unknown[]][] = [
    ['add below a missing member', { a: 1 }, [{ op: 'add', path: '/x/y', value: 1 }]],
    ['add below a scalar', { a: 1 }, [{ op: 'add', path: '/a/y', value: 1 }]],
    ['add below a null member', { a: null }, [{ op: 'add', path: '/a/y', value: 1 }]],
    ['add past the array end', { l: [1] }, [{ op: 'add', path: '/l/3', value: 1 }]],
    ['add at a non-numeric array index', { l: [1] }, [{ op: 'add', path: '/l/x', value: 1 }]],
    ['add at a too negative index', { l: [1, 2] }, [{ op: 'add', path: '/l/-4', value: 1 }]],
    ['add at the root', { a: 1 }, [{ op: 'add', path: '', value: { b: 1 } }]],
    ['remove a missing member', { a: 1 }, [{ op: 'remove', path: '/b' }]],
    ['remove a missing nested member', { a: { b: { d: 1 } } }, [{ op: 'remove', path: '/a/b/c' }]],
    ['remove past the array end', { l: [1] }, [{ op: 'remove', path: '/l/1' }]],
    ['remove "-"', { l: [] }, [{ op: 'remove', path: '/l/-' }]],
    ['replace past the array end', { l: [1, 2] }, [{ op: 'replace', path: '/l/2', value: 1 }]],
    ['replace below a missing member', { a: {} }, [{ op: 'replace', path: '/b/c', value: 1 }]],
    ['replace the document by a scalar', { a: 1 }, [{ op: 'replace', path: '', value: 1 }]],
    ['move from a missing member', { a: {} }, [{ op: 'move', from: '/a/x', path: '/b' }]],
    ['move past the array end', { l: ['a', 'b'] }, [{ op: 'move', from: '/l/0', path: '/l/2' }]],
    ['copy into past the array end', { l: ['a'] }, [{ op: 'copy', from: '/l/0', path: '/l/2' }]],
    ['test with a different value', { a: 'x' }, [{ op: 'test', path: '/a', value: 'y' }]],
    ['test of a number against a string', { a: 1 }, [{ op: 'test', path: '/a', value: '1' }]],
    ['test of a missing member against a value', { a: 1 }, [{ op: 'test', path: '/b', value: 1 }]],
    ['test of an empty object against null', { a: {} }, [{ op: 'test', path: '/a', value: null }]],
    ['test without a value', { a: [] }, [{ op: 'test', path: '/a' }]],
    ['test past the array end', { l: [] }, [{ op: 'test', path: '/l/0', value: null }]],
    ['a failed test stops the patch', { a: 1 }, [{ op: 'test', path: '/a', value: 2 }, { op: 'remove', path: '/a' }]],
    ['an unknown op', { a: 1 }, [{ op: 'delete', path: '/a' }]],
    ['an op in upper case', { a: 1 }, [{ op: 'ADD', path: '/b', value: 1 }]],
    ['a missing op', { a: 1 }, [{ path: '/a' }]],
    ['a missing path', { a: 1 }, [{ op: 'add', value: 1 }]],
    ['a null path', { a: 1 }, [{ op: 'remove', path: null }]],
    ['a missing from', { a: 1 }, [{ op: 'copy', path: '/b' }]],
    ['a null operation', { a: 1 }, [null]],
  ];
  for (const [name, doc, patch] of cases) it(name, () => assertNotApplicable(doc, patch));

  it('no change is made when a later operation fails', () => {
    const doc = deepFreeze({ a: 1 });
    assertNotApplicable(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 3 }]);
    assert.deepEqual(doc, { a: 1 });
  });

  it('copies are limited to 3MiB in total', () => {
    const big = 'x'.repeat(1024 * 1024);
    const ops = [1, 2, 3].map((i) => ({ op: 'copy', from: '/big', path: `/c${i}` }));
    assertNotApplicable({ big }, ops);
    assert.deepEqual(Object.keys(applyJsonPatch({ big }, ops.slice(0, 2)) as O), ['big', 'c1', 'c2']);
  });
});

describe('applyJsonPatch: malformed patch documents are 400 BadRequest', () => {
  const decodeCases: [string, unknown, string][] = [
    ['an object', { op: 'add' }, 'json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['a string', 'x', 'json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp'],
    ['a number', 1, 'json: cannot unmarshal number into Go value of type []handlers.jsonPatchOp'],
    ['an array of numbers', [1], 'json: cannot unmarshal number into Go value of type handlers.jsonPatchOp'],
    ['an array of arrays', [[]], 'json: cannot unmarshal array into Go value of type handlers.jsonPatchOp'],
    ['a numeric op', [{ op: 1, path: '/a' }], 'json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string'],
    ['an object path', [{ op: 'add', path: {} }], 'json: cannot unmarshal object into Go struct field jsonPatchOp.path of type string'],
    ['a boolean from', [{ op: 'copy', path: '/a', from: true }], 'json: cannot unmarshal bool into Go struct field jsonPatchOp.from of type string'],
  ];
  for (const [name, patch, message] of decodeCases) {
    it(`${name} (fieldValidation Warn/Strict, the default)`, () => {
      for (const fieldValidation of [undefined, 'Warn', 'Strict'] as const) {
        const e = status(() => applyJsonPatch({ a: 1 }, patch, { fieldValidation }));
        assert.equal(e.code, 400);
        assert.equal(e.reason, 'BadRequest');
        assert.equal(e.message, `error decoding patch: ${message}`);
      }
    });
  }

  it('with fieldValidation=Ignore the json-patch decoder reports the error', () => {
    const e = status(() => applyJsonPatch({}, { op: 'add' }, { fieldValidation: 'Ignore' }));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    const e2 = status(() => applyJsonPatch({}, ['x'], { fieldValidation: 'Ignore' }));
    assert.equal(e2.message, 'json: cannot unmarshal string into Go value of type jsonpatch.Operation');
    // a badly typed member only fails when the operation runs
    assertNotApplicableWith({ a: 1 }, [{ op: 'add', path: 5, value: 1 }], 'Ignore');
  });

  it(`more than ${MAX_JSON_PATCH_OPERATIONS} operations is 413`, () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/a', value: 1 }));
    const e = status(() => applyJsonPatch({ a: 1 }, ops));
    assert.equal(e.code, 413);
    assert.equal(e.reason, 'RequestEntityTooLarge');
    assert.equal(e.message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
    assert.deepEqual(applyJsonPatch({ a: 1 }, ops.slice(1)), { a: 1 });
  });
});

function assertNotApplicableWith(doc: unknown, patch: unknown, fieldValidation: 'Ignore'): void {
  const e = status(() => applyJsonPatch(doc, patch, { fieldValidation }));
  assert.equal(e.code, 422);
  assert.equal(e.message, GENERIC_422);
}

describe('jsonPatchStrictErrors', () => {
  it('reports unknown operation members with their position', () => {
    assert.deepEqual(
      jsonPatchStrictErrors([
        { op: 'add', path: '/a', value: 1 },
        { op: 'add', path: '/b', valu: 1, Op: 'x' },
      ]),
      ['json patch unknown field "[1].valu"', 'json patch unknown field "[1].Op"'],
    );
    assert.deepEqual(jsonPatchStrictErrors([{ op: 'move', from: '/a', path: '/b' }]), []);
    assert.deepEqual(jsonPatchStrictErrors({ op: 'add' }), []);
  });

  it('unknown members do not stop the patch from applying', () => {
    assert.deepEqual(applyJsonPatch({}, [{ op: 'add', path: '/a', value: 1, extra: true }]), { a: 1 });
  });
});
