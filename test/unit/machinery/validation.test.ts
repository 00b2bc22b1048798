import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  byteLength,
  compareGoStrings,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateAnnotations,
  validateLabels,
  validatePathSegmentName,
} from '../../../src/machinery/validation.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMeta } from '../../../src/machinery/object-meta-validation.js';
import { FieldError, errors, formatValue, goQuote } from '../../../src/machinery/errors.js';

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const table = (fn: (v: string) => readonly string[], cases: [string, string[]][]): void => {
  for (const [input, want] of cases) {
    it(JSON.stringify(input.length > 40 ? `${input.slice(0, 20)}…(${input.length})` : input), () => assert.deepEqual(fn(input), want));
  }
};

describe('isDNS1123Subdomain', () =>
  table(isDNS1123Subdomain, [
    ['example.com', []],
    ['a', []],
    ['0.1-2', []],
    ['Foo', [SUBDOMAIN]],
    ['', [SUBDOMAIN]],
    ['a..b', [SUBDOMAIN]],
    ['-a', [SUBDOMAIN]],
    ['a_b', [SUBDOMAIN]],
    ['a'.repeat(253), []],
    ['a'.repeat(254), ['must be no more than 253 characters']],
    ['A'.repeat(254), ['must be no more than 253 characters', SUBDOMAIN]],
  ]));

describe('isDNS1123Label', () =>
  table(isDNS1123Label, [
    ['my-name', []],
    ['123', []],
    ['a.b', ['must not contain dots']],
    ['My', [LABEL]],
    ['a-', [LABEL]],
    ['a'.repeat(63), []],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    ['é', [LABEL]],
  ]));

describe('isDNS1035Label', () =>
  table(isDNS1035Label, [
    ['abc-123', []],
    ['1abc', [DNS1035]],
    ['a.b', [DNS1035]],
    ['a'.repeat(64), ['must be no more than 63 characters']],
  ]));

describe('isQualifiedName', () =>
  table(isQualifiedName, [
    ['app', []],
    ['MyName', []],
    ['example.com/My_name.1', []],
    ['a b', [NAME_PART]],
    ['/a', ['prefix part must be non-empty']],
    ['Ex.com/a', [`prefix part ${SUBDOMAIN}`]],
    ['a/', ['name part must be non-empty', NAME_PART]],
    ['', ['name part must be non-empty', NAME_PART]],
    ['k'.repeat(64), ['name part must be no more than 63 characters']],
    ['a/b/c', ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]],
  ]));

describe('isValidLabelValue', () =>
  table(isValidLabelValue, [
    ['', []],
    ['v1.2_3-x', []],
    ['-x', [VALUE]],
    ['a b', [VALUE]],
    ['v'.repeat(64), ['must be no more than 63 characters']],
    ['é'.repeat(32), ['must be no more than 63 characters', VALUE]], // 64 bytes
  ]));

describe('path segment names', () => {
  table(isValidPathSegmentName, [
    ['ok', []],
    ['.', ["may not be '.'"]],
    ['..', ["may not be '..'"]],
    ['a/b', ["may not contain '/'"]],
    ['a%b', ["may not contain '%'"]],
    ['%/', ["may not contain '/'", "may not contain '%'"]],
    ['...', []],
  ]);
  it('prefix mode only checks contents', () => {
    assert.deepEqual(validatePathSegmentName('..', true), []);
    assert.deepEqual(validatePathSegmentName('a/', true), ["may not contain '/'"]);
  });
});

describe('name functions mask a trailing dash for generateName', () => {
  it('DNS subdomain', () => {
    assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
    assert.deepEqual(nameIsDNSSubdomain('web-', false), [SUBDOMAIN]);
    assert.deepEqual(nameIsDNSSubdomain('-', true), [SUBDOMAIN]); // a single "-" is not masked
    // Kubernetes drops two characters before appending 'a': "x.-" → "xa" is fine, "a.-" is too.
    assert.deepEqual(nameIsDNSSubdomain('a.-', true), []);
  });
  it('DNS labels', () => {
    assert.deepEqual(nameIsDNSLabel('ns-', true), []);
    assert.deepEqual(nameIsDNS1035Label('1svc-', true), [DNS1035]);
    assert.deepEqual(nameIsDNS1035Label('svc-', true), []);
  });
});

describe('labels and annotations', () => {
  it('validateLabels reports at the map path', () => {
    assert.deepEqual(validateLabels({ ok: 'v', 'bad key': '-v' }, 'metadata.labels').map(String), [
      `metadata.labels: Invalid value: "bad key": ${NAME_PART}`,
      `metadata.labels: Invalid value: "-v": ${VALUE}`,
    ]);
  });
  it('annotation keys are case-insensitive qualified names', () => {
    assert.deepEqual(validateAnnotations({ 'Example.COM/Key': 'x', 'kubectl.kubernetes.io/last-applied-configuration': '{}' }, 'metadata.annotations'), []);
    assert.deepEqual(validateAnnotations({ 'Ex_ample/x': '' }, 'metadata.annotations').map(String), [
      `metadata.annotations: Invalid value: "Ex_ample/x": prefix part ${SUBDOMAIN}`,
    ]);
  });
  it('total annotation size is limited to 256 KiB (keys + values, bytes)', () => {
    assert.deepEqual(validateAnnotations({ a: 'x'.repeat(262143) }, 'metadata.annotations'), []);
    assert.deepEqual(validateAnnotations({ a: 'x'.repeat(262144) }, 'metadata.annotations').map(String), [
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
    const e = validateAnnotations({ a: 'é'.repeat(131072) }, 'metadata.annotations')[0];
    assert.equal(e?.type, 'FieldValueTooLong');
    assert.equal(e?.causeMessage(), 'Too long: may not be more than 262144 bytes');
  });
});

const subdomain = { namespaced: true, nameFn: nameIsDNSSubdomain };

describe('validateObjectMeta', () => {
  const cases: [string, ObjectMeta, Parameters<typeof validateObjectMeta>[1], string[]][] = [
    ['valid', { name: 'web', namespace: 'default', labels: { app: 'web' } }, subdomain, []],
    ['bad name', { name: 'Foo', namespace: 'default' }, subdomain, [`metadata.name: Invalid value: "Foo": ${SUBDOMAIN}`]],
    ['no name', { namespace: 'default' }, subdomain, ['metadata.name: Required value: name or generateName is required']],
    ['generateName only (name generated later)', { generateName: 'web-', namespace: 'default' }, subdomain,
      ['metadata.name: Required value: name or generateName is required']],
    ['bad generateName', { generateName: 'Web-', name: 'web-x', namespace: 'default' }, subdomain,
      [`metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN}`]],
    ['missing namespace', { name: 'a' }, subdomain, ['metadata.namespace: Required value']],
    ['bad namespace', { name: 'a', namespace: 'a.b' }, subdomain, ['metadata.namespace: Invalid value: "a.b": must not contain dots']],
    ['bad namespace 2', { name: 'a', namespace: 'NS' }, subdomain, [`metadata.namespace: Invalid value: "NS": ${LABEL}`]],
    ['cluster-scoped with namespace', { name: 'n1', namespace: 'default' }, { namespaced: false, nameFn: nameIsDNSSubdomain },
      ['metadata.namespace: Forbidden: not allowed on this type']],
    ['path segment names', { name: '..', namespace: 'd' }, { namespaced: true, nameFn: validatePathSegmentName },
      ["metadata.name: Invalid value: \"..\": may not be '..'"]],
    ['negative generation', { name: 'a', namespace: 'd', generation: -1 }, subdomain,
      ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']],
    ['owner references', {
      name: 'a', namespace: 'd',
      ownerReferences: [{ apiVersion: 'a/b/c', kind: '', name: '', uid: '' }, { apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }],
    }, subdomain, [
      'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
      'metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
    ]],
    ['two controllers', {
      name: 'a', namespace: 'd',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: '1', controller: true },
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 's', uid: '2', controller: true },
      ],
    }, subdomain, [
      'metadata.ownerReferences: Invalid value: []v1.OwnerReference{v1.OwnerReference{APIVersion:"apps/v1", Kind:"ReplicaSet", Name:"r", UID:"1", Controller:(*bool)(0xc000000000), BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{APIVersion:"apps/v1", Kind:"StatefulSet", Name:"s", UID:"2", Controller:(*bool)(0xc000000000), BlockOwnerDeletion:(*bool)(nil)}}: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/r and StatefulSet/s',
    ]],
    ['finalizers', { name: 'a', namespace: 'd', finalizers: ['bad name', 'orphan', 'foregroundDeletion'] }, subdomain, [
      `metadata.finalizers: Invalid value: "bad name": ${NAME_PART}`,
      'metadata.finalizers: Invalid value: []string{"bad name", "orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    ]],
    ['kube finalizers (built-in groups)', { name: 'a', namespace: 'd', finalizers: ['kubernetes', 'custom', 'example.com/x'] },
      { ...subdomain, kubeFinalizers: true },
      ['metadata.finalizers[1]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified']],
    ['managed fields', {
      name: 'a', namespace: 'd',
      managedFields: [
        { manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1' },
        { manager: 'a\u0007b', operation: 'Patch', fieldsType: 'FieldsV2', subresource: 's'.repeat(257) },
        { manager: 'm'.repeat(129), operation: 'Apply' },
      ],
    }, subdomain, [
      'metadata.managedFields[1].operation: Invalid value: "Patch": must be `Apply` or `Update`',
      'metadata.managedFields[1].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
      'metadata.managedFields[1].manager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)',
      'metadata.managedFields[1].subresource: Too long: may not be more than 256 bytes',
      'metadata.managedFields[2].manager: Too long: may not be more than 128 bytes',
    ]],
  ];
  for (const [name, meta, opts, want] of cases) {
    it(name, () => assert.deepEqual(validateObjectMeta(meta, opts).map(String), want));
  }

  it('custom field path', () => {
    assert.deepEqual(validateObjectMeta({}, { namespaced: false, nameFn: nameIsDNSSubdomain }, 'spec.template.metadata').map(String), [
      'spec.template.metadata.name: Required value: name or generateName is required',
    ]);
  });

  it('aggregates into the 422 message kube-apiserver returns', () => {
    const errs = validateObjectMeta({ name: 'Foo' }, subdomain);
    const e = errors.invalid('Pod', '', 'Foo', errs);
    assert.equal(e.code, 422);
    assert.equal(e.message, `Pod "Foo" is invalid: [metadata.name: Invalid value: "Foo": ${SUBDOMAIN}, metadata.namespace: Required value]`);
    assert.deepEqual(e.details?.causes?.[1], { reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.namespace' });
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a', namespace: 'd', uid: 'u1', resourceVersion: '5', generation: 2,
    creationTimestamp: '2024-01-02T03:04:05Z', labels: { a: 'b' },
  };
  const cases: [string, ObjectMeta, ObjectMeta, string[]][] = [
    ['unchanged', { ...old }, old, []],
    ['no resourceVersion', { ...old, resourceVersion: '' }, old, ['metadata.resourceVersion: Invalid value: "": must be specified for an update']],
    ['generation decremented', { ...old, generation: 1 }, old, ['metadata.generation: Invalid value: 1: must not be decremented']],
    ['immutable identity', { ...old, name: 'b', namespace: 'e', uid: 'u2' }, old, [
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "e": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]],
    ['creationTimestamp', { ...old, creationTimestamp: '2025-06-07T08:09:10Z' }, old,
      ['metadata.creationTimestamp: Invalid value: 2025-06-07 08:09:10 +0000 UTC: field is immutable']],
    ['same instant, other spelling', { ...old, creationTimestamp: '2024-01-02T04:04:05+01:00' }, old, []],
    ['deletionTimestamp set', { ...old, deletionTimestamp: '2025-01-01T00:00:00Z' }, old,
      ['metadata.deletionTimestamp: Invalid value: 2025-01-01 00:00:00 +0000 UTC: field is immutable']],
    ['deletionTimestamp cleared', { ...old, finalizers: [] }, { ...old, deletionTimestamp: '2025-01-01T00:00:00Z' },
      ['metadata.deletionTimestamp: Invalid value: "null": field is immutable']],
    ['grace period', { ...old, deletionGracePeriodSeconds: 30 }, old,
      ['metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable']],
    ['grace period cleared', { ...old }, { ...old, deletionGracePeriodSeconds: 30 },
      ['metadata.deletionGracePeriodSeconds: Invalid value: "null": field is immutable']],
    ['new finalizer while deleting', { ...old, deletionTimestamp: 'x', finalizers: ['a', 'c', 'b'] },
      { ...old, deletionTimestamp: 'x', finalizers: ['a'] },
      ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "c"}']],
    ['removing finalizers while deleting is fine', { ...old, deletionTimestamp: 'x' }, { ...old, deletionTimestamp: 'x', finalizers: ['a'] }, []],
    ['labels still validated', { ...old, labels: { a: '-' } }, old, [`metadata.labels: Invalid value: "-": ${VALUE}`]],
    ['generateName may change', { ...old, generateName: 'x-' }, old, []],
  ];
  for (const [name, n, o, want] of cases) {
    it(name, () => assert.deepEqual(validateObjectMetaUpdate(n, o).map(String), want));
  }

  it('kube finalizers are checked after the generic rules', () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old, finalizers: ['x'], resourceVersion: '' }, old, { kubeFinalizers: true }).map(String), [
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.finalizers[0]: Invalid value: "x": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});

describe('FieldError formatting (apimachinery field.Error)', () => {
  const cases: [FieldError, string][] = [
    [FieldError.required('spec.x', ''), 'spec.x: Required value'],
    [FieldError.required('spec.x', 'must be set'), 'spec.x: Required value: must be set'],
    [FieldError.forbidden('spec.x', 'nope'), 'spec.x: Forbidden: nope'],
    [FieldError.invalid('spec.x', 'a"b', 'bad'), 'spec.x: Invalid value: "a\\"b": bad'],
    [FieldError.invalid('spec.x', 3, 'bad'), 'spec.x: Invalid value: 3: bad'],
    [FieldError.invalid('spec.x', true, 'bad'), 'spec.x: Invalid value: true: bad'],
    [FieldError.invalid('spec.x', null, 'bad'), 'spec.x: Invalid value: "null": bad'],
    [FieldError.invalid('spec.x', ['a', 'b'], 'bad'), 'spec.x: Invalid value: []string{"a", "b"}: bad'],
    [FieldError.invalid('spec.x', [], 'bad'), 'spec.x: Invalid value: []string{}: bad'],
    [FieldError.invalid('spec.x', { toString: () => 'custom' }, 'bad'), 'spec.x: Invalid value: custom: bad'],
    [FieldError.notSupported('spec.p', 'X', ['Always', 'Never']), 'spec.p: Unsupported value: "X": supported values: "Always", "Never"'],
    [FieldError.duplicate('spec.p[1]', 'a'), 'spec.p[1]: Duplicate value: "a"'],
    [FieldError.notFound('spec.p', 'a'), 'spec.p: Not found: "a"'],
    [FieldError.tooLong('m', 'ignored', 128), 'm: Too long: may not be more than 128 bytes'],
    [FieldError.tooLong('m', 'ignored', -1), 'm: Too long: value is too long'],
    [FieldError.tooMany('spec.l', 5, 3), 'spec.l: Too many: 5: must have at most 3 items'],
    [FieldError.tooMany('spec.l', -1, -1), 'spec.l: Too many: has too many items'],
    [FieldError.internal('spec.x', 'boom'), 'spec.x: Internal error: boom'],
    [new FieldError('FieldValueRequired', 'a', 'value', ''), 'a: Required value'],
  ];
  for (const [e, want] of cases) it(want, () => assert.equal(String(e), want));

  it('goQuote escapes like strconv.Quote', () => {
    assert.equal(goQuote('a\u0007\u001b\n\t\u007f'), '"a\\a\\x1b\\n\\t\\x7f"');
    assert.equal(goQuote('é☃😀'), '"é☃😀"');
    assert.equal(goQuote('\u00a0\u2028'), '"\\u00a0\\u2028"');
    assert.equal(goQuote('\u{e0001}'), '"\\U000e0001"');
    assert.equal(formatValue('\\'), '"\\\\"');
  });
});

describe('helpers', () => {
  it('byteLength is the UTF-8 length', () => {
    assert.equal(byteLength('abc'), 3);
    assert.equal(byteLength('é'), 2);
    assert.equal(byteLength('☃'), 3);
    assert.equal(byteLength('😀'), 4);
  });
  it('compareGoStrings orders by code point like Go', () => {
    assert.ok(compareGoStrings('\uffff', '😀') < 0); // JS '<' says the opposite
    assert.ok(compareGoStrings('a', 'b') < 0);
    assert.ok(compareGoStrings('ab', 'a') > 0);
    assert.equal(compareGoStrings('x', 'x'), 0);
  });
});
