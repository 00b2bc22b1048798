import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkFieldSelectorFields,
  escapeValue,
  everything,
  fieldLabelError,
  oneTermEqual,
  parseFieldSelector,
  restrictFieldSelector,
  transformFieldSelector,
} from '../../../src/machinery/fields.js';
import { StatusError } from '../../../src/machinery/errors.js';

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail('expected a BadRequest');
}

describe('parseFieldSelector: valid selectors round-trip through toString()', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=a||y\\=b', 'x=a||y\\=b'],
    ['x=a\\=\\=b', 'x=a\\=\\=b'],
    ['x==a', 'x=a'], // "==" is plain equality
    ['x=a,a=x', 'a=x,x=a'], // terms are sorted
    ['k=\\,,k2=v2', 'k2=v2,k=\\,'], // byte order: '2' < '='
    ['k=\\\\,k2=v2', 'k2=v2,k=\\\\'],
    ['a=a,', 'a=a'], // empty terms are skipped
    [',a=a', 'a=a'],
    ['=', ''], // field and value both empty: the term is dropped
    ['=,a=b', 'a=b'],
    ['=x', '=x'],
    [' a = b ', ' a = b '], // no trimming
    ['함=수,목=록', '목=록,함=수'],
    ['metadata.name=foo,status.phase!=Running', 'metadata.name=foo,status.phase!=Running'],
  ];
  for (const [input, out] of cases) {
    it(JSON.stringify(input), () => assert.equal(parseFieldSelector(input).toString(), out));
  }

  it('requirements expose field, operator and unescaped value', () => {
    assert.deepEqual(parseFieldSelector('b!=x\\,y,a==1').requirements, [
      { field: 'a', operator: '=', value: '1' },
      { field: 'b', operator: '!=', value: 'x,y' },
    ]);
  });

  it('empty', () => {
    assert.equal(parseFieldSelector('').empty, true);
    assert.equal(parseFieldSelector('=').empty, true);
    assert.equal(parseFieldSelector('a=').empty, false);
    assert.equal(everything().empty, true);
  });
});

describe('parseFieldSelector: errors', () => {
  const cases: [string, string][] = [
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"], // sorted terms: "b" is seen first
    ['x in (a)', "invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
    ['x=a||y=b', 'invalid field selector: unescaped character in value: 61'],
    ['x==a==b', 'invalid field selector: unescaped character in value: 61'],
    ['x=a\\,b,c', "invalid selector: 'x=a\\,b,c'; can't understand 'c'"],
    ['k=\\a', 'invalid field selector: invalid escape sequence: \\a'],
    ['k=\\', 'invalid field selector: invalid escape sequence: \\'],
    ['k=\\\\\\', 'invalid field selector: invalid escape sequence: \\'],
    ['k=\\수', 'invalid field selector: invalid escape sequence: \\수'],
    ['a=b\\,c=d', 'invalid field selector: unescaped character in value: 61'],
  ];
  for (const [input, msg] of cases) {
    it(JSON.stringify(input), () => assert.equal(badRequest(() => parseFieldSelector(input)), msg));
  }
});

describe('matching', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['', { a: 'b' }, true],
    ['a=b', { a: 'b' }, true],
    ['a=b', { a: 'c' }, false],
    ['a=b', {}, false],
    ['a=', {}, true], // missing reads as ""
    ['a!=', {}, false],
    ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false],
    ['a=b,c!=d', { a: 'b', c: 'e' }, true],
    ['a=b,c!=d', { a: 'b', c: 'd' }, false],
    ['a=x\\,y', { a: 'x,y' }, true],
    ['toString=', {}, true],
  ];
  for (const [sel, fields, want] of cases) {
    it(`${sel} vs ${JSON.stringify(fields)} → ${want}`, () => assert.equal(parseFieldSelector(sel).matches(fields), want));
  }

  it('requiresExactMatch', () => {
    assert.equal(parseFieldSelector('metadata.name=foo,b!=c').requiresExactMatch('metadata.name'), 'foo');
    assert.equal(parseFieldSelector('metadata.name!=foo').requiresExactMatch('metadata.name'), undefined);
    assert.equal(oneTermEqual('metadata.name', 'x').requiresExactMatch('metadata.name'), 'x');
    assert.equal(oneTermEqual('metadata.name', 'a,b').toString(), 'metadata.name=a\\,b');
  });
});

describe('escapeValue', () => {
  const cases: [string, string][] = [['', ''], ['a', 'a'], ['=', '\\='], [',', '\\,'], ['\\', '\\\\'], ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\']];
  for (const [raw, esc] of cases) {
    it(JSON.stringify(raw), () => {
      assert.equal(escapeValue(raw), esc);
      assert.equal(parseFieldSelector(`f=${esc}`).requirements[0]?.value ?? '', raw);
    });
  }
});

describe('restrictFieldSelector (field label conversion on the list path)', () => {
  const podFields = ['metadata.name', 'metadata.namespace', 'spec.nodeName', 'spec.restartPolicy', 'status.phase'];

  it('accepts supported fields and applies aliases', () => {
    const sel = restrictFieldSelector(parseFieldSelector('spec.host=n1,status.phase!=Failed'), podFields, {
      aliases: { 'spec.host': 'spec.nodeName' },
    });
    assert.equal(sel.toString(), 'spec.nodeName=n1,status.phase!=Failed');
    assert.equal(sel.matches({ 'spec.nodeName': 'n1', 'status.phase': 'Running' }), true);
  });

  it('rejects an unsupported field with the conversion func text', () => {
    assert.equal(badRequest(() => restrictFieldSelector(parseFieldSelector('foo=bar'), podFields)), 'field label not supported: foo');
  });

  it('reports the first unsupported field in sorted term order', () => {
    assert.equal(
      badRequest(() => restrictFieldSelector(parseFieldSelector('zzz=1,spec.nodeName=a,aaa=2'), podFields)),
      'field label not supported: aaa',
    );
  });

  it('an empty field with a value is rejected too', () => {
    assert.equal(badRequest(() => restrictFieldSelector(parseFieldSelector('=x'), podFields)), 'field label not supported: ');
  });

  it('the default conversion (kinds without a conversion func) has its own text', () => {
    assert.equal(
      badRequest(() => restrictFieldSelector(parseFieldSelector('spec.x=1'), ['metadata.name', 'metadata.namespace'], { style: 'defaultMeta' })),
      '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    assert.equal(fieldLabelError('a"b', 'defaultMeta').message, '"a\\"b" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  it('checkFieldSelectorFields throws the server text, without the kubectl prefix', () => {
    const sel = parseFieldSelector('foo=bar');
    assert.equal(badRequest(() => checkFieldSelectorFields(sel, podFields, { resource: 'pods' }, '', 'foo=bar')), 'field label not supported: foo');
    assert.doesNotThrow(() => checkFieldSelectorFields(parseFieldSelector('spec.nodeName=x'), podFields));
  });

  it('transformFieldSelector drops terms mapped to empty field and value', () => {
    const sel = transformFieldSelector(parseFieldSelector('a=1,b=2'), (f, v) => (f === 'a' ? ['', ''] : [f.toUpperCase(), v]));
    assert.equal(sel.toString(), 'B=2');
  });
});
