import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateValue } from '../../../../../src/api/apiextensions/customresource/value-validation.js';
import { checkFormat } from '../../../../../src/api/apiextensions/customresource/formats.js';
import { validateObjectChecks } from '../../../../../src/api/apiextensions/customresource/object-checks.js';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['color'],
      properties: {
        color: { type: 'string', enum: ['red', 'blue'] },
        replicas: { type: 'integer', minimum: 0, maximum: 10 },
        ratio: { type: 'number', exclusiveMaximum: true, maximum: 1, multipleOf: 0.25 },
        name: { type: 'string', maxLength: 5, minLength: 2, pattern: '^[a-z]+$' },
        tags: { type: 'array', maxItems: 2, minItems: 1, items: { type: 'string' } },
        labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
        port: { 'x-kubernetes-int-or-string': true },
        when: { type: 'string', format: 'date-time' },
        note: { type: 'string', nullable: true },
        other: { type: 'string' },
      },
    },
  },
};

const errs = (spec: unknown): string[] => validateValue({ spec }, schema, '').map(String);

describe('custom object value validation (kube-openapi messages)', () => {
  it('accepts a valid object', () => {
    assert.deepEqual(errs({ color: 'red', replicas: 3, ratio: 0.5, name: 'ab', tags: ['x'], labels: { a: 'b' }, port: 'http', when: '2026-01-02T03:04:05Z', note: null }), []);
    assert.deepEqual(errs({ color: 'blue', port: 8080 }), []);
  });

  it('reports required, enum and type errors as field errors', () => {
    assert.deepEqual(errs({}), ['spec.color: Required value']);
    assert.deepEqual(errs({ color: 'purple' }), ['spec.color: Unsupported value: "purple": supported values: "red", "blue"']);
    assert.deepEqual(errs({ color: 'red', replicas: 'two' }), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
    assert.deepEqual(errs({ color: 'red', replicas: 1.5 }), [
      'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    ]);
    assert.deepEqual(errs({ color: 'red', other: null }), [
      'spec.other: Invalid value: "null": spec.other in body must be of type string: "null"',
    ]);
    assert.deepEqual(errs({ color: 'red', port: true }), [
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]);
  });

  it('reports bounds, lengths, patterns, sizes and formats', () => {
    assert.deepEqual(errs({ color: 'red', replicas: 11 }), ['spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10']);
    assert.deepEqual(errs({ color: 'red', replicas: -1 }), ['spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0']);
    assert.deepEqual(errs({ color: 'red', ratio: 1 }), ['spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1']);
    assert.deepEqual(errs({ color: 'red', ratio: 0.3 }), ['spec.ratio: Invalid value: 0.3: spec.ratio in body should be a multiple of 0.25']);
    assert.deepEqual(errs({ color: 'red', name: 'abcdef' }), ['spec.name: Too long: may not be more than 5 bytes']);
    assert.deepEqual(errs({ color: 'red', name: 'A' }), [
      'spec.name: Invalid value: "A": spec.name in body should be at least 2 chars long',
      "spec.name: Invalid value: \"A\": spec.name in body should match '^[a-z]+$'",
    ]);
    assert.deepEqual(errs({ color: 'red', tags: ['a', 'b', 'c'] }), ['spec.tags: Too many: 3: must have at most 2 items']);
    assert.deepEqual(errs({ color: 'red', tags: ['a', 1] }), ['spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"']);
    assert.deepEqual(errs({ color: 'red', labels: { a: 'x', b: 'y' } }), ['spec.labels: Too many: 2: must have at most 1 items']);
    assert.deepEqual(errs({ color: 'red', labels: { a: 1 } }), ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"']);
    assert.deepEqual(errs({ color: 'red', when: 'yesterday' }), ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']);
  });

  it('prints schema bounds as Go prints a float64', () => {
    const s = { type: 'object', properties: { n: { type: 'integer', maximum: 1000000 } } };
    assert.deepEqual(validateValue({ n: 2000000 }, s, '').map(String), ['n: Invalid value: 2000000: n in body should be less than or equal to 1e+06']);
  });

  it('prefixes a base path and reports composition failures at it', () => {
    const s = { type: 'object', properties: { v: { anyOf: [{ type: 'integer' }, { type: 'string' }] } } };
    assert.deepEqual(validateValue({ v: true }, s, 'spec').map(String), [
      'spec: Invalid value: "": v in body must validate at least one schema (anyOf)',
      'spec.v: Invalid value: "boolean": v in body must be of type integer: "boolean"',
    ]);
  });

  it('checks the formats the apiserver supports and passes the others', () => {
    assert.ok(checkFormat('ipv4', '10.0.0.1') && !checkFormat('ipv4', '::1'));
    assert.ok(checkFormat('cidr', '10.0.0.0/8') && !checkFormat('cidr', '10.0.0.0/33'));
    assert.ok(checkFormat('date', '2024-02-29') && !checkFormat('date', '2023-02-29'));
    assert.ok(checkFormat('uuid', 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6') && !checkFormat('uuid', 'nope'));
    assert.ok(checkFormat('byte', 'aGVsbG8=') && !checkFormat('byte', 'a'));
    assert.ok(checkFormat('duration', '1h30m') && !checkFormat('duration', 'soon'));
    assert.ok(checkFormat('int32', 'anything'));
  });
});

describe('embedded resources and list invariants', () => {
  const s = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
        },
      },
    },
  };
  const check = (spec: unknown) => validateObjectChecks({ spec }, s).map(String);

  it('requires apiVersion and kind of an embedded object and validates its metadata', () => {
    assert.deepEqual(check({ template: {} }), ['spec.template.apiVersion: Required value: must not be empty', 'spec.template.kind: Required value: must not be empty']);
    assert.deepEqual(check({ template: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { 'a b': 'c' } } } }).length, 1);
    assert.deepEqual(check({ template: { apiVersion: 'a/b/c', kind: 'Pod_X' } }), [
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      'spec.template.kind: Invalid value: "Pod_X": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    ]);
    assert.deepEqual(check({ template: { apiVersion: 'v1', kind: 'Pod' } }), []);
  });

  it('reports duplicates in sets and maps', () => {
    assert.deepEqual(check({ tags: ['a', 'b', 'a', 'a'] }), ['spec.tags[2]: Duplicate value: "a"', 'spec.tags[3]: Duplicate value: "a"']);
    assert.deepEqual(check({ ports: [{ name: 'http' }, { name: 'http' }] }), ['spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http"}']);
  });
});
