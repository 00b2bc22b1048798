// Response bytes as kube-apiserver's JSON serializer writes them (json.Encoder, MarshalIndent) and metav1.Status's
// field order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goHtmlSafe, goJsonBody, goJsonPretty } from '../../../src/machinery/go-json.js';
import { errors, FieldError, StatusError } from '../../../src/machinery/errors.js';

describe('Go JSON encoding', () => {
  it('escapes <, >, &, U+2028 and U+2029 as encoding/json does, and nothing else', () => {
    assert.equal(goHtmlSafe('{"a":"x<y>&z\u2028\u2029é"}'), '{"a":"x\\u003cy\\u003e\\u0026z\\u2028\\u2029é"}');
    const plain = '{"a":"plain"}';
    assert.equal(goHtmlSafe(plain), plain);
    // the escaped text is still the same JSON value
    assert.deepEqual(JSON.parse(goHtmlSafe(JSON.stringify({ s: 'a<b&c>\u2028' }))), { s: 'a<b&c>\u2028' });
  });
  it('ends a compact body with a newline (json.Encoder) and a pretty one without (MarshalIndent)', () => {
    assert.equal(goJsonBody('{"a":1}'), '{"a":1}\n');
    assert.equal(goJsonPretty({ a: [1, { b: '<' }], c: {} }), '{\n  "a": [\n    1,\n    {\n      "b": "\\u003c"\n    }\n  ],\n  "c": {}\n}');
  });
});

describe('Status encoding', () => {
  it('orders a Status as metav1.Status declares its fields: kind, apiVersion, metadata, status, message, reason, details, code', () => {
    const s = JSON.stringify(errors.notFound({ group: 'apps', resource: 'deployments' }, 'web').toStatus());
    assert.equal(s, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}');
  });
  it('orders Invalid details name, group, kind, causes and omits empty ones', () => {
    const e = errors.invalid('Deployment', 'apps', '', [FieldError.required('spec.selector')]);
    assert.deepEqual(Object.keys(e.toStatus().details!), ['group', 'kind', 'causes']);
    const core = errors.invalid('ConfigMap', '', 'c', [FieldError.required('data')]);
    assert.deepEqual(Object.keys(core.toStatus().details!), ['name', 'kind', 'causes']);
  });
  it('leaves out reason and details when a Status has none', () => {
    assert.deepEqual(Object.keys(new StatusError(500, '' as never, 'boom').toStatus()), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'code']);
  });
});
