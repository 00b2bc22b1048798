import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSchemaRules, validateRules, validateRulesWithWarnings } from '../../../../../src/api/apiextensions/customresource/cel-rules.js';

type S = Record<string, unknown>;
const msgs = (errs: { toString(): string }[]) => errs.map(String);
const ROOT = 'spec.versions[0].schema.openAPIV3Schema';
const root = (properties: S, rules?: S[]): S => ({ type: 'object', properties, ...(rules ? { 'x-kubernetes-validations': rules } : {}) });
const specWith = (rules: S[], properties: S = { replicas: { type: 'integer' }, minReplicas: { type: 'integer' }, maxReplicas: { type: 'integer' } }) =>
  root({ spec: { type: 'object', properties, 'x-kubernetes-validations': rules } });
const obj = (spec: unknown, name = 'w1'): S => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });
const ruleValue = (rule: string, extra = '') =>
  `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:"${extra}", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;

describe('compileSchemaRules: the CEL part of CRD validation', () => {
  it('accepts valid rules', () => {
    assert.deepEqual(compileSchemaRules(specWith([{ rule: 'self.minReplicas <= self.replicas' }]), ROOT), []);
  });

  it('reports compilation failures with cel-go issues and the rule as %#v', () => {
    const errs = msgs(compileSchemaRules(specWith([{ rule: 'self.replicas > x' }, { rule: 'self.replicas' }, { rule: 'self.nope > 1' }]), ROOT));
    assert.deepEqual(errs, [
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ${ruleValue('self.replicas > x')}: compilation failed: ERROR: <input>:1:17: undeclared reference to 'x' (in container '')\n | self.replicas > x\n | ................^`,
      `${ROOT}.properties[spec].x-kubernetes-validations[1].rule: Invalid value: ${ruleValue('self.replicas')}: cel expression must evaluate to a bool`,
      `${ROOT}.properties[spec].x-kubernetes-validations[2].rule: Invalid value: ${ruleValue('self.nope > 1')}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 1\n | ....^`,
    ]);
  });

  it('checks messageExpression', () => {
    const errs = msgs(compileSchemaRules(specWith([{ rule: 'self.replicas > 0', messageExpression: 'self.replicas' }, { rule: 'self.replicas > 0', messageExpression: 'y' }]), ROOT));
    assert.equal(errs[0], `${ROOT}.properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: ${ruleValue('self.replicas > 0', 'self.replicas')}: messageExpression must evaluate to a string`);
    assert.match(errs[1], /x-kubernetes-validations\[1\]\.messageExpression: Invalid value: .*: messageExpression compilation failed: ERROR: <input>:1:1: undeclared reference to 'y'/);
  });

  it('only name and generateName of metadata exist at the resource root', () => {
    const s = root({ spec: { type: 'object' } }, [{ rule: 'self.metadata.name.startsWith("a") && self.kind != "" && self.apiVersion != ""' }, { rule: 'size(self.metadata.labels) > 0' }]);
    const errs = msgs(compileSchemaRules(s, ROOT));
    assert.equal(errs.length, 1);
    assert.match(errs[0], /x-kubernetes-validations\[1\]\.rule: .*undefined field 'labels'/);
  });

  it('optionalOldSelf needs oldSelf, and oldSelf needs a correlatable position', () => {
    const s = root({
      spec: { type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a > 0', optionalOldSelf: false }] },
      list: { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a == oldSelf.a' }] } },
      mapList: {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a'],
        items: { type: 'object', required: ['a'], properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a == oldSelf.a' }] },
      },
    });
    assert.deepEqual(msgs(compileSchemaRules(s, ROOT)), [
      `${ROOT}.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self.a == oldSelf.a": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[list]`,
      `${ROOT}.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: false: may not be set if oldSelf is not used in rule`,
    ]);
  });

  it('rejects rules whose estimated cost exceeds the limits, and names the fix', () => {
    const s = root({
      spec: {
        type: 'object',
        properties: { items: { type: 'array', items: { type: 'string' } } },
        'x-kubernetes-validations': [{ rule: 'self.items.all(x, self.items.all(y, x.matches(y)))' }],
      },
    });
    assert.deepEqual(msgs(compileSchemaRules(s, ROOT)), [
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
    const bounded = structuredClone(s);
    ((bounded.properties as S).spec as { properties: { items: S } }).properties.items = { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } };
    assert.deepEqual(compileSchemaRules(bounded, ROOT), []);
  });

  it('a node without a CEL type cannot carry rules', () => {
    const s = root({ spec: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] } });
    assert.deepEqual(msgs(compileSchemaRules(s, ROOT)), [
      `${ROOT}.properties[spec].x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations`,
    ]);
  });
});

describe('validateRules: custom objects', () => {
  const s = specWith([
    { rule: 'self.minReplicas <= self.replicas', message: 'replicas should be greater than or equal to minReplicas.' },
    { rule: 'self.replicas <= self.maxReplicas', messageExpression: "'replicas ' + string(self.replicas) + ' exceed ' + string(self.maxReplicas)" },
    { rule: 'self.replicas != 13' },
  ]);

  it('passes valid objects and reports failures as kube-apiserver does', () => {
    assert.deepEqual(validateRules(obj({ replicas: 2, minReplicas: 1, maxReplicas: 3 }), undefined, s), []);
    assert.deepEqual(msgs(validateRules(obj({ replicas: 13, minReplicas: 14, maxReplicas: 10 }), undefined, s)), [
      'spec: Invalid value: "object": replicas should be greater than or equal to minReplicas.',
      'spec: Invalid value: "object": replicas 13 exceed 10',
      'spec: Invalid value: "object": failed rule: self.replicas != 13',
    ]);
  });

  it('reason and fieldPath', () => {
    const r = specWith([
      { rule: 'self.replicas > 0', reason: 'FieldValueForbidden', message: 'must be positive', fieldPath: '.replicas' },
      { rule: 'has(self.minReplicas)', reason: 'FieldValueRequired', message: 'minReplicas is required', fieldPath: ".minReplicas" },
      { rule: 'self.replicas != 0', reason: 'FieldValueDuplicate', fieldPath: "['replicas']" },
    ]);
    assert.deepEqual(msgs(validateRules(obj({ replicas: 0 }), undefined, r)), [
      'spec.replicas: Forbidden: must be positive',
      'spec.minReplicas: Required value: minReplicas is required',
      'spec.replicas: Duplicate value: "object"',
    ]);
  });

  it('a messageExpression that fails falls back to the message', () => {
    const r = specWith([{ rule: 'self.replicas > 0', message: 'fallback', messageExpression: "self.minReplicas > 0 ? 'x' : ''" }]);
    assert.deepEqual(msgs(validateRules(obj({ replicas: 0 }), undefined, r)), ['spec: Invalid value: "object": fallback']);
  });

  it('runtime errors name the rule', () => {
    assert.deepEqual(msgs(validateRules(obj({ replicas: 1 }), undefined, specWith([{ rule: 'self.minReplicas < 5' }]))), [
      'spec: Invalid value: "object": no such key: minReplicas evaluating rule: self.minReplicas < 5',
    ]);
    const ios = root({ v: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self > 1' }] } });
    assert.deepEqual(msgs(validateRules({ v: 'abc' }, undefined, ios)), [
      "v: Invalid value: \"\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self > 1",
    ]);
  });

  it('root rules report at <nil>, and see metadata.name', () => {
    const r = root({ spec: { type: 'object' } }, [{ rule: "self.metadata.name.startsWith('w')", message: 'bad name' }]);
    assert.deepEqual(msgs(validateRules(obj({}, 'x1'), undefined, r)), ['<nil>: Invalid value: "object": bad name']);
  });

  it('self of lists, maps, strings, int-or-string, date-time, preserve-unknown-fields and embedded resources', () => {
    const r = root({
      list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, x != "")' }, { rule: 'size(self) < 3' }] },
      map: { type: 'object', additionalProperties: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: "self.all(k, self[k] > 0)" }] },
      str: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.matches("^[a-z]+$")' }] },
      ios: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'type(self) == int ? self < 10 : self.endsWith("%")' }] },
      when: { type: 'string', format: 'date-time', 'x-kubernetes-validations': [{ rule: 'self > timestamp("2020-01-01T00:00:00Z")' }] },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.a == 1' }] },
      embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: "self.kind == 'Pod' && self.metadata.name != ''" }] },
    });
    const good = { list: ['a'], map: { a: 1 }, str: 'abc', ios: '50%', when: '2024-01-01T00:00:00Z', free: { a: 1, b: 2 }, embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } };
    assert.deepEqual(validateRules(good, undefined, r), []);
    assert.deepEqual(validateRules({ ...good, ios: 5 }, undefined, r), []);
    const bad = { list: ['', 'b', 'c'], map: { a: 0 }, str: 'A', ios: 50, when: '2019-01-01T00:00:00Z', free: { a: 2 }, embedded: { kind: 'Service', metadata: { name: 's' } } };
    assert.deepEqual(msgs(validateRules(bad, undefined, r)), [
      'list: Invalid value: "array": failed rule: self.all(x, x != "")',
      'list: Invalid value: "array": failed rule: size(self) < 3',
      'map: Invalid value: "object": failed rule: self.all(k, self[k] > 0)',
      'str: Invalid value: "string": failed rule: self.matches("^[a-z]+$")',
      'ios: Invalid value: "": failed rule: type(self) == int ? self < 10 : self.endsWith("%")',
      'when: Invalid value: "string": failed rule: self > timestamp("2020-01-01T00:00:00Z")',
      'free: Invalid value: "object": failed rule: self.a == 1',
      "embedded: Invalid value: \"object\": failed rule: self.kind == 'Pod' && self.metadata.name != ''",
    ]);
  });

  it('rules on list items and map values carry the index or key', () => {
    const r = root({
      items: { type: 'array', items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0' }] } },
      byName: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] } },
    });
    assert.deepEqual(msgs(validateRules({ items: [1, -1], byName: { a: '', b: 'x' } }, undefined, r)), [
      'items[1]: Invalid value: "integer": failed rule: self >= 0',
      'byName[a]: Invalid value: "string": failed rule: self != ""',
    ]);
  });

  it('null values are not validated', () => {
    const r = root({ v: { type: 'string', nullable: true, 'x-kubernetes-validations': [{ rule: 'self != ""' }] } });
    assert.deepEqual(validateRules({ v: null }, undefined, r), []);
  });
});

describe('validateRules: transition rules and ratcheting', () => {
  const s = specWith([{ rule: 'self.replicas >= oldSelf.replicas', message: 'cannot scale down' }]);

  it('transition rules run on update only', () => {
    assert.deepEqual(validateRules(obj({ replicas: 1 }), undefined, s), []);
    assert.deepEqual(validateRules(obj({ replicas: 2 }), obj({ replicas: 1 }), s), []);
    assert.deepEqual(msgs(validateRules(obj({ replicas: 1 }), obj({ replicas: 2 }), s)), ['spec: Invalid value: "object": cannot scale down']);
  });

  it('transition rules are skipped where no old value exists', () => {
    assert.deepEqual(validateRules(obj({ replicas: 1 }), { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } }, s), []);
  });

  it('optionalOldSelf rules also run on create, with oldSelf an optional', () => {
    const o = specWith([{ rule: 'oldSelf.hasValue() ? self.replicas >= oldSelf.value().replicas : self.replicas < 10', optionalOldSelf: true, message: 'no' }]);
    assert.deepEqual(msgs(validateRules(obj({ replicas: 11 }), undefined, o)), ['spec: Invalid value: "object": no']);
    assert.deepEqual(validateRules(obj({ replicas: 11 }), obj({ replicas: 5 }), o), []);
    assert.deepEqual(msgs(validateRules(obj({ replicas: 4 }), obj({ replicas: 5 }), o)), ['spec: Invalid value: "object": no']);
  });

  it('items of map lists correlate by key; immutability by self == oldSelf', () => {
    const r = root({
      ports: {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'is immutable' }] },
      },
    });
    const old = { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] };
    assert.deepEqual(validateRules({ ports: [{ name: 'b', port: 2 }, { name: 'a', port: 1 }, { name: 'c', port: 3 }] }, old, r), []);
    assert.deepEqual(msgs(validateRules({ ports: [{ name: 'b', port: 3 }] }, old, r)), ['ports[0]: Invalid value: "object": is immutable']);
  });

  it('failures of unchanged values are ratcheted to warnings', () => {
    const r = specWith([{ rule: 'self.replicas < 5', message: 'too many' }]);
    const o = obj({ replicas: 7 });
    const res = validateRulesWithWarnings(obj({ replicas: 7 }), o, r);
    assert.deepEqual(res.errors, []);
    assert.deepEqual(res.warnings, ['spec: Invalid value: "object": too many']);
    assert.deepEqual(msgs(validateRules(obj({ replicas: 8 }), o, r)), ['spec: Invalid value: "object": too many']);
  });
});

describe('validateRules: cost bounds and caching', () => {
  it('stops at the per-call cost limit', () => {
    const r = root({ items: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x != y || true))' }, { rule: 'true' }] } });
    const items = Array.from({ length: 2000 }, (_, i) => `item-${i}`);
    assert.deepEqual(msgs(validateRules({ items }, undefined, r)), [
      "items: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, x != y || true))",
    ]);
    assert.deepEqual(validateRules({ items: items.slice(0, 10) }, undefined, r), []);
  });

  it('gives the same answers when costs are bounded by the schema first (objects within bounds)', () => {
    // bounded: compile-time maxima stand in for the per-object estimate until the runtime budget could run out
    const bounded = root({
      items: { type: 'array', maxItems: 3000, items: { type: 'string', maxLength: 12 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x != y || true))' }, { rule: 'self.size() < 5', message: 'short' }] },
      name: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')", message: 'letters' }] },
    });
    for (const n of [3, 10, 2000]) {
      const o = { items: Array.from({ length: n }, (_, i) => `item-${i}`), name: 'Abc' };
      assert.deepEqual(msgs(validateRules(o, undefined, bounded, { withinBounds: true })), msgs(validateRules(o, undefined, bounded)), `${n} items`);
    }
    assert.deepEqual(msgs(validateRules({ items: ['a'], name: 'Abc' }, undefined, bounded, { withinBounds: true })), ['name: Invalid value: "string": letters']);
  });

  it('compiles a schema once, and never throws on hostile input', () => {
    const r = specWith([{ rule: 'self.replicas >= self.minReplicas' }]);
    const t0 = performance.now();
    validateRules(obj({ replicas: 1, minReplicas: 1 }), undefined, r);
    const first = performance.now() - t0;
    const t1 = performance.now();
    for (let i = 0; i < 200; i++) validateRules(obj({ replicas: i, minReplicas: 1 }), undefined, r);
    assert.ok((performance.now() - t1) / 200 < Math.max(first, 1), 'a repeated validation is cheaper than the first');
    for (const hostile of [null, 5, 'x', [], { spec: 'x' }, { spec: { replicas: 'a', minReplicas: {} } }, { spec: { replicas: 1e300, minReplicas: NaN } }]) {
      assert.doesNotThrow(() => validateRules(hostile, hostile, r));
    }
    assert.doesNotThrow(() => compileSchemaRules({ type: 'object', 'x-kubernetes-validations': [null, { rule: 5 }, { rule: '(((' }] } as S, ROOT));
  });
});
