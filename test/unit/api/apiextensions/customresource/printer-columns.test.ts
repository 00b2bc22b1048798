import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnCell, parseRFC3339, printerColumns, printValue } from '../../../../../src/api/apiextensions/customresource/printer-columns.js';
import { goFloat } from '../../../../../src/machinery/gofloat.js';
import { findResults, parseJSONPath } from '../../../../../src/api/apiextensions/customresource/jsonpath.js';
import type { KObject } from '../../../../../src/api/types.js';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const cells = (cols: unknown[] | undefined, o: KObject) => printerColumns(cols).map((c) => c.cell(o, { now: NOW }));
const eval1 = (path: string, data: unknown) => findResults(parseJSONPath(`{${path}}`), data)[0];

// The CronTab columns of "Extend the Kubernetes API with CustomResourceDefinitions".
const docColumns = [
  { name: 'Spec', type: 'string', description: 'The cron spec defining the interval a CronJob is run', jsonPath: '.spec.cronSpec' },
  { name: 'Replicas', type: 'integer', description: 'The number of jobs launched by the CronJob', jsonPath: '.spec.replicas' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];
const cronTab: KObject = {
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name: 'my-new-cron-object', creationTimestamp: '2024-05-01T11:59:53Z' },
  spec: { cronSpec: '* * * * *', image: 'my-awesome-cron-image', replicas: 1 },
};

describe('printerColumns', () => {
  it('the documentation example: NAME SPEC REPLICAS AGE', () => {
    const cols = printerColumns(docColumns);
    assert.deepEqual(cols.map((c) => [c.name, c.type, c.priority ?? 0]), [
      ['Name', 'string', 0],
      ['Spec', 'string', 0],
      ['Replicas', 'integer', 0],
      ['Age', 'date', 0],
    ]);
    assert.equal(cols[0].format, 'name');
    assert.equal(cols[1].description, 'The cron spec defining the interval a CronJob is run');
    assert.equal(cols[3].description, 'Custom resource definition column (in JSONPath format): .metadata.creationTimestamp');
    assert.deepEqual(cells(docColumns, cronTab), ['my-new-cron-object', '* * * * *', 1, '7s']);
  });

  it('without columns: Name and Age', () => {
    const cols = printerColumns(undefined);
    assert.deepEqual(cols.map((c) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
    assert.deepEqual(cells([], cronTab), ['my-new-cron-object', '7s']);
  });

  it('keeps format and priority; missing values are null', () => {
    const cols = [{ name: 'Status', type: 'string', format: 'x', priority: 1, jsonPath: '.status.phase' }];
    const c = printerColumns(cols)[1];
    assert.deepEqual([c.format, c.priority], ['x', 1]);
    assert.deepEqual(cells(cols, cronTab), ['my-new-cron-object', null]);
  });

  it('stops at a column whose jsonPath does not parse', () => {
    const cols = [{ name: 'A', type: 'string', jsonPath: '.a' }, { name: 'B', type: 'string', jsonPath: '.b[' }, { name: 'C', type: 'string', jsonPath: '.c' }];
    assert.deepEqual(printerColumns(cols).map((c) => c.name), ['Name', 'A']);
  });

  it('the Ready condition of a status, by filter', () => {
    const o: KObject = {
      metadata: { name: 'w' },
      status: { conditions: [{ type: 'Synced', status: 'False' }, { type: 'Ready', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z' }] },
    };
    const cols = [
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Since', type: 'date', jsonPath: ".status.conditions[?(@.type=='Ready')].lastTransitionTime" },
    ];
    assert.deepEqual(cells(cols, o), ['w', 'True', '120m']);
  });
});

describe('cells (tableconvertor test cases)', () => {
  const p = parseJSONPath('{.v}');
  const cell = (type: string, v: unknown) => columnCell(p, type, { v }, NOW);
  it('cellForJSONValue', () => {
    assert.deepEqual(
      [cell('integer', 42), cell('integer', 3.14), cell('integer', true), cell('integer', 'foo')],
      [42, 3, null, null],
    );
    assert.deepEqual([cell('number', 42), cell('number', 3.14), cell('number', true)], [42, 3.14, null]);
    assert.deepEqual([cell('boolean', 42), cell('boolean', true), cell('boolean', 'foo')], [null, true, null]);
    assert.deepEqual([cell('date', 42), cell('date', true), cell('date', '')], [null, null, '<unknown>']);
    assert.equal(cell('date', new Date(NOW - 12.5 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z')), '12h');
    assert.equal(cell('date', new Date(NOW + 12.5 * 3600_000).toISOString()), '<invalid>');
    assert.deepEqual([cell('date', 'yesterday'), cell('date', '0001-01-01T00:00:00Z')], ['<invalid>', '<unknown>']);
    assert.equal(cell('unknown', 'foo'), null);
  });

  it('string columns print any value: JSON for lists and maps, Go formatting for numbers, <no value> for null', () => {
    assert.deepEqual([cell('string', 42), cell('string', 3.14), cell('string', true), cell('string', 'foo')], ['42', '3.14', 'true', 'foo']);
    assert.deepEqual([cell('string', { b: 1, a: '<' }), cell('string', null)], ['{"a":"\\u003c","b":1}', '<no value>']);
    assert.deepEqual([goFloat(1234567.5), goFloat(0.00001), goFloat(123456.5), printValue(1e21)], ['1.2345675e+06', '1e-05', '123456.5', '1e+21']);
  });

  it('only the first value of the first result is used', () => {
    const o = { metadata: { name: 'blah' }, spec: { servers: [{ hosts: ['foo'] }, { hosts: ['bar', 'baz'] }] } };
    const cols = ['.spec.servers[0].hosts[0]', '.spec.servers[0].hosts', '.spec.servers[1].hosts', '.spec.servers[*].hosts'].map((jsonPath) => ({ name: jsonPath, type: 'string', jsonPath }));
    assert.deepEqual(cells(cols, o as KObject), ['blah', 'foo', '["foo"]', '["bar","baz"]', '["foo"]']);
  });
});

describe('jsonpath', () => {
  const data = {
    kind: 'List',
    items: [
      { metadata: { name: 'a', labels: { 'app.kubernetes.io/name': 'x' } }, spec: { n: 1 } },
      { metadata: { name: 'b' }, spec: { n: 5, tags: ['t1', 't2'] } },
    ],
  };
  it('fields, indexes, slices, wildcards, unions, recursive descent', () => {
    assert.deepEqual(eval1('.items[0].metadata.name', data), ['a']);
    assert.deepEqual(eval1('.items[-1].metadata.name', data), ['b']);
    assert.deepEqual(eval1('.items[*].metadata.name', data), ['a', 'b']);
    assert.deepEqual(eval1('.items[0:1].spec.n', data), [1]);
    assert.deepEqual(eval1('.items[0,1].spec.n', data), [1, 5]);
    assert.deepEqual(eval1("['kind']", data), ['List']);
    assert.deepEqual(eval1('..name', data), ['a', 'b']);
    assert.deepEqual(eval1('.items[0].metadata.labels.app\\.kubernetes\\.io/name', data), ['x']);
    assert.deepEqual(eval1('.items[1].spec.tags[*]', data), ['t1', 't2']);
    assert.deepEqual(eval1('.items[*].missing', data), []);
  });
  it('filters', () => {
    assert.deepEqual(eval1('.items[?(@.spec.n > 2)].metadata.name', data), ['b']);
    assert.deepEqual(eval1('.items[?(@.spec.tags)].metadata.name', data), ['b']);
    assert.deepEqual(eval1('.items[?(@.metadata.name != "a")].spec.n', data), [5]);
    assert.throws(() => eval1('.items[?(@.spec.n == "1")].metadata.name', data), /incompatible/);
  });
  it('errors as client-go reports them', () => {
    assert.throws(() => eval1('.items[5]', data), /array index out of bounds/);
    assert.throws(() => eval1('.kind[0]', data), /is not array or slice/);
    assert.throws(() => parseJSONPath('{.a'), /unclosed action/);
    assert.throws(() => parseJSONPath('{.a[x]}'), /invalid array index/);
  });
  it('parses RFC 3339 as Go does', () => {
    assert.equal(parseRFC3339('2024-05-01T12:00:00Z'), NOW);
    assert.equal(parseRFC3339('2024-05-01T14:00:00.5+02:00'), NOW + 500);
    assert.equal(parseRFC3339('2024-02-30T00:00:00Z'), undefined);
    assert.equal(parseRFC3339('2024-05-01 12:00:00Z'), undefined);
  });
});
