import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyDefaults,
  defaultValues,
  pruneNonNullableNullsWithoutDefaults,
} from '../../../../../src/api/apiextensions/customresource/defaulting.js';
import type { JSP } from '../../../../../src/api/apiextensions/structural.js';

const json = (s: string): unknown => JSON.parse(s);
const object = (properties: Record<string, JSP> = {}, extra: JSP = {}): JSP => ({ type: 'object', properties, ...extra });

describe('applyDefaults: the documentation examples', () => {
  it('fills cronSpec and replicas of the CronTab', () => {
    const s = object({
      spec: object({
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$', default: '5 0 * * *' },
        image: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
      }),
    });
    const o = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'my-new-cron-object' }, spec: { image: 'my-awesome-cron-image' } };
    applyDefaults(o, s);
    assert.deepEqual(o.spec, { image: 'my-awesome-cron-image', cronSpec: '5 0 * * *', replicas: 1 });
  });

  it('nullable: null foo is defaulted, null bar kept (nullable), null baz dropped', () => {
    const s = object({
      spec: object({ foo: { type: 'string', nullable: false, default: 'default' }, bar: { type: 'string', nullable: true }, baz: { type: 'string' } }),
    });
    const o = { spec: { foo: null, bar: null, baz: null } };
    applyDefaults(o, s);
    assert.deepEqual(o, { spec: { foo: 'default', bar: null } });
  });

  it('defaults an object top-down, then the defaults inside it', () => {
    const s = object({ spec: object({ a: { type: 'string', default: 'A' }, b: object({ c: { type: 'integer', default: 3 } }) }, { default: {} }) });
    const o: Record<string, unknown> = {};
    applyDefaults(o, s);
    assert.deepEqual(o, { spec: { a: 'A' } });
    const p: Record<string, unknown> = { spec: { b: {} } };
    applyDefaults(p, s);
    assert.deepEqual(p, { spec: { a: 'A', b: { c: 3 } } });
  });

  it('deep-copies defaults', () => {
    const s = object({ spec: object({ list: { type: 'array', items: { type: 'string' }, default: ['x'] } }) });
    const a = { spec: {} as Record<string, string[]> };
    const b = { spec: {} as Record<string, string[]> };
    applyDefaults(a, s);
    a.spec.list.push('y');
    applyDefaults(b, s);
    assert.deepEqual(b.spec.list, ['x']);
    assert.deepEqual((s.properties as Record<string, JSP>).spec, object({ list: { type: 'array', items: { type: 'string' }, default: ['x'] } }));
  });

  it('prunes a default against its schema (PruneDefaults), embedded metadata to ObjectMeta', () => {
    const s = object({
      spec: object({ a: { type: 'string' } }, { default: { a: 'x', unknown: 1 } }),
      template: object({ spec: object() }, { 'x-kubernetes-embedded-resource': true, default: { apiVersion: 'v1', kind: 'K', metadata: { name: 'n', bad: 1 }, spec: { z: 1 } } }),
    });
    const o: Record<string, unknown> = {};
    applyDefaults(o, s);
    assert.deepEqual(o, { spec: { a: 'x' }, template: { apiVersion: 'v1', kind: 'K', metadata: { name: 'n' }, spec: {} } });
  });
});

describe('Default: Go test cases (defaulting/algorithm_test.go)', () => {
  const abc = { a: { default: 'A' }, b: { default: 'B' }, c: { default: 'C' } };
  const cases: Array<[string, string, JSP, string]> = [
    ['scalar', '4', { default: 'foo' }, '4'],
    ['scalar array', '[1,2]', { items: { default: 'foo' } }, '[1,2]'],
    ['object array', '[{"a":1},{"b":1},{"c":1}]', { items: { properties: abc } }, '[{"a":1,"b":"B","c":"C"},{"a":"A","b":1,"c":"C"},{"a":"A","b":"B","c":1}]'],
    [
      'object array object',
      '{"array":[{"a":1},{"b":2}],"object":{"a":1},"additionalProperties":{"x":{"a":1},"y":{"b":2}}}',
      {
        properties: {
          array: { items: { properties: { a: { default: 'A' }, b: { default: 'B' } } } },
          object: { properties: { a: { default: 'N' }, b: { default: 'O' } } },
          additionalProperties: { additionalProperties: { properties: { a: { default: 'alpha' }, b: { default: 'beta' } } } },
          foo: { default: 'bar' },
        },
      },
      '{"array":[{"a":1,"b":"B"},{"a":"A","b":2}],"object":{"a":1,"b":"O"},"additionalProperties":{"x":{"a":1,"b":"beta"},"y":{"a":"alpha","b":2}},"foo":"bar"}',
    ],
    [
      'empty and null',
      '[{},{"a":1},{"a":0},{"a":0.5},{"a":""},{"a":null},{"a":[]},{"a":{}}]',
      { items: { properties: { a: { default: 'A' } } } },
      '[{"a":"A"},{"a":1},{"a":0},{"a":0.5},{"a":""},{"a":"A"},{"a":[]},{"a":{}}]',
    ],
    ['null in nullable list', '[null]', { nullable: true, items: { properties: { a: { default: 'A' } } } }, '[null]'],
    ['null in non-nullable list', '[null]', { items: { default: 'A' } }, '["A"]'],
    ['null in nullable object', '{"a":null}', { properties: { a: { nullable: true, default: 'A' } } }, '{"a":null}'],
    ['null in non-nullable object', '{"a":null}', { properties: { a: { default: 'A' } } }, '{"a":"A"}'],
    ['null in nullable additionalProperties', '{"a":null}', { additionalProperties: { nullable: true, default: 'A' } }, '{"a":null}'],
    ['null in non-nullable additionalProperties', '{"a":null}', { additionalProperties: { default: 'A' } }, '{"a":"A"}'],
    ['null unknown field', '{"a":null}', { additionalProperties: true }, '{"a":null}'],
  ];
  for (const [name, input, schema, want] of cases) {
    it(name, () => {
      const v = json(input);
      defaultValues(v, schema);
      assert.deepEqual(v, json(want));
    });
  }
});

describe('PruneNonNullableNullsWithoutDefaults: Go test cases', () => {
  it('keeps defaulted, nullable and unknown nulls; drops the rest', () => {
    const v = json('[{"a":null},{"b":null},{"c":null},{"d":null},{"e":null}]');
    pruneNonNullableNullsWithoutDefaults(v, {
      items: { properties: { a: { default: 'A' }, b: { nullable: true }, c: { default: 'C', nullable: true }, d: {} } },
    });
    assert.deepEqual(v, json('[{"a":null},{"b":null},{"c":null},{},{"e":null}]'));
  });

  it('leaves nulls in arrays and without a schema', () => {
    const v = json('[1,null]');
    pruneNonNullableNullsWithoutDefaults(v, undefined);
    assert.deepEqual(v, [1, null]);
  });
});
