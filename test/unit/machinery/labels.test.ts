import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fromLabelSelector, parseLabelSelector, selectorFromSet, everything, nothing, parseSelector } from '../../../src/machinery/labels.js';
import { validateLabelSelector } from '../../../src/machinery/label-selector-validation.js';
import { StatusError } from '../../../src/machinery/errors.js';

const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const OPS = 'in, notin, =, ==, !=, gt, lt';

function parseError(s: string): StatusError {
  try {
    parseLabelSelector(s);
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return e;
  }
  assert.fail(`expected ${JSON.stringify(s)} to fail`);
}

describe('parseLabelSelector: valid selectors and their canonical string', () => {
  // [input, toString()] — spaces removed, requirements sorted by key, set values sorted and de-duplicated.
  const cases: [string, string][] = [
    ['', ''],
    ['   ', ''],
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x==a', 'x==a'],
    ['x=a,a=x', 'a=x,x=a'],
    ['\rx', 'x'],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x in (def,abc,abc)', 'x in (abc,def)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in ()', 'x in ()'],
    ['x notin ( )', 'x notin ()'],
    ['x notin (, a)', 'x notin (,a)'],
    ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
    ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'],
    ['notin=in', 'notin=in'],
    ['in in (in)', 'in in (in)'],
    ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)'],
    ['app=web,tier!=db,env in (prod,qa),!legacy,track', 'app=web,env in (prod,qa),!legacy,tier!=db,track'],
  ];
  for (const [input, out] of cases) {
    it(JSON.stringify(input), () => assert.equal(parseLabelSelector(input).toString(), out));
  }

  it('empty selector is empty and matches everything', () => {
    const s = parseLabelSelector('');
    assert.equal(s.empty, true);
    assert.equal(s.matches({ a: 'b' }), true);
    assert.equal(s.matches(undefined), true);
    assert.equal(parseLabelSelector('a').empty, false);
  });

  it('exposes requirements with Kubernetes operator names', () => {
    assert.deepEqual(
      parseLabelSelector('b in (y,x),a,!c,d>3').requirements.map((r) => [r.key, r.operator, [...r.values]]),
      [['a', 'exists', []], ['b', 'in', ['x', 'y']], ['c', '!', []], ['d', 'gt', ['3']]],
    );
  });
});

describe('parseLabelSelector: matching', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x<1', { x: '-5' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x>1', { x: 'abc' }, false],
    ['x>1', {}, false],
    ['x<1', { x: '2' }, false],
    ['x!=y', {}, true],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', {}, false],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x in ()', { x: '' }, true],
    ['toString', {}, false],
    ['!constructor', {}, true],
  ];
  for (const [sel, labels, want] of cases) {
    it(`${JSON.stringify(sel)} vs ${JSON.stringify(labels)} → ${want}`, () => assert.equal(parseLabelSelector(sel).matches(labels), want));
  }

  it('requiresExactMatch', () => {
    assert.equal(parseLabelSelector('a=b,c in (d)').requiresExactMatch('a'), 'b');
    assert.equal(parseLabelSelector('a=b,c in (d)').requiresExactMatch('c'), 'd');
    assert.equal(parseLabelSelector('c in (d,e)').requiresExactMatch('c'), undefined);
    assert.equal(parseLabelSelector('a!=b').requiresExactMatch('a'), undefined);
  });
});

describe('parseLabelSelector: errors are 400 BadRequest with the parser message', () => {
  const cases: [string, string][] = [
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${VALUE_MSG}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', `unable to parse requirement: found 'nott', expected: ${OPS}`],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a (', `unable to parse requirement: found '(', expected: ${OPS}`],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a>=1', "unable to parse requirement: found '=', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!a', "unable to parse requirement: found '!', expected: identifier"],
    ['a b', `unable to parse requirement: found 'b', expected: ${OPS}`],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['a=b,', "found '', expected: identifier after ','"],
    ['a=b!', "found '!', expected: ',' or 'end of string'"],
    // Key errors come from validating the key with no field path, which Go prints as "<nil>".
    ['A_b/c', `unable to parse requirement: <nil>: Invalid value: "A_b/c": prefix part ${SUBDOMAIN_MSG}`],
    ['-a', `unable to parse requirement: <nil>: Invalid value: "-a": ${NAME_PART_MSG}`],
    ['a/b/c=d', `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
    ['/a', 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'],
    ['a/', `unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; ${NAME_PART_MSG}`],
    [`${'k'.repeat(64)}`, `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`],
    ['a=-b', `unable to parse requirement: values[0][a]: Invalid value: "-b": ${VALUE_MSG}`],
    [`a=${'v'.repeat(64)}`, `unable to parse requirement: values[0][a]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`],
    // Two failures are aggregated as "[e1, e2]".
    ['x>-a', `unable to parse requirement: [values[0]: Invalid value: "-a": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "-a": ${VALUE_MSG}]`],
    ['x in (-a,b_)', `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${VALUE_MSG}, values[1][x]: Invalid value: "b_": ${VALUE_MSG}]`],
    ['x>99999999999999999999', `unable to parse requirement: values[0]: Invalid value: "99999999999999999999": for 'Gt', 'Lt' operators, the value must be an integer`],
  ];
  for (const [input, msg] of cases) {
    it(JSON.stringify(input), () => {
      const e = parseError(input);
      assert.equal(e.code, 400);
      assert.equal(e.reason, 'BadRequest');
      assert.equal(e.message, msg);
      assert.equal(e.toStatus().message, msg);
    });
  }
});

describe('fromLabelSelector (metav1.LabelSelectorAsSelector)', () => {
  it('nil selects nothing, empty selects everything', () => {
    assert.equal(fromLabelSelector(undefined).matches({}), false);
    assert.equal(fromLabelSelector(null).empty, false);
    assert.equal(fromLabelSelector({}).empty, true);
    assert.equal(fromLabelSelector({ matchLabels: {}, matchExpressions: [] }).matches({ a: 'b' }), true);
  });

  it('converts matchLabels and matchExpressions, sorted by key', () => {
    const s = fromLabelSelector({
      matchLabels: { tier: 'web', app: 'x' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['qa', 'prod'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'zone', operator: 'Exists' },
        { key: 'os', operator: 'NotIn', values: ['windows'] },
      ],
    });
    assert.equal(s.toString(), 'app=x,!canary,env in (prod,qa),os notin (windows),tier=web,zone');
    assert.equal(s.matches({ app: 'x', tier: 'web', env: 'qa', zone: 'a' }), true);
    assert.equal(s.matches({ app: 'x', tier: 'web', env: 'qa', zone: 'a', canary: '1' }), false);
    assert.equal(s.matches({ app: 'x', tier: 'web', env: 'dev', zone: 'a' }), false);
    assert.equal(s.matches({ app: 'x', tier: 'web', env: 'qa' }), false);
  });

  const bad: [Parameters<typeof fromLabelSelector>[0], string][] = [
    [{ matchExpressions: [{ key: 'a', operator: 'Foo' }] }, '"Foo" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'In' }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x', 'y'] }] }, 'values: Invalid value: []string{"x", "y"}: values set must be empty for exists and does not exist'],
    [{ matchLabels: { 'a b': 'c' } }, `key: Invalid value: "a b": ${NAME_PART_MSG}`],
    [{ matchLabels: { a: 'c d' } }, `values[0][a]: Invalid value: "c d": ${VALUE_MSG}`],
    [{ matchExpressions: [{ key: '-k', operator: 'In', values: ['_'] }] },
      `[key: Invalid value: "-k": ${NAME_PART_MSG}, values[0][-k]: Invalid value: "_": ${VALUE_MSG}]`],
  ];
  for (const [ls, msg] of bad) {
    it(`rejects ${JSON.stringify(ls)}`, () => {
      assert.throws(() => fromLabelSelector(ls), (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === msg);
    });
  }
});

describe('selectorFromSet / everything / nothing', () => {
  it('parseSelector is an alias of parseLabelSelector', () => assert.equal(parseSelector('b,a=1').toString(), 'a=1,b'));
  it('selectorFromSet builds sorted equality terms', () => {
    const s = selectorFromSet({ b: '2', a: '1' });
    assert.equal(s.toString(), 'a=1,b=2');
    assert.equal(s.matches({ a: '1', b: '2', c: '3' }), true);
    assert.equal(s.matches({ a: '1' }), false);
    assert.equal(selectorFromSet(undefined).empty, true);
  });
  it('everything and nothing', () => {
    assert.equal(everything().matches({ a: 'b' }), true);
    assert.equal(everything().empty, true);
    assert.equal(nothing().matches({}), false);
    assert.equal(nothing().empty, false);
    assert.equal(nothing().toString(), '');
  });
});

describe('validateLabelSelector (metav1validation.ValidateLabelSelector)', () => {
  const p = 'spec.selector';
  const cases: [Parameters<typeof validateLabelSelector>[0], string[]][] = [
    [undefined, []],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['a'] }] }, []],
    [{ matchLabels: { 'bad key': 'v' } }, [`spec.selector.matchLabels: Invalid value: "bad key": ${NAME_PART_MSG}`]],
    [{ matchLabels: { k: '-v' } }, [`spec.selector.matchLabels: Invalid value: "-v": ${VALUE_MSG}`]],
    [{ matchExpressions: [{ key: 'k', operator: 'In' }] },
      ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]],
    [{ matchExpressions: [{ key: 'k', operator: 'NotIn', values: [] }] },
      ["spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"]],
    [{ matchExpressions: [{ key: 'k', operator: 'Exists', values: ['a'] }] },
      ["spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"]],
    [{ matchExpressions: [{ key: 'k', operator: 'in', values: ['a'] }] },
      ['spec.selector.matchExpressions[0].operator: Invalid value: "in": not a valid selector operator']],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['ok'] }, { key: '', operator: 'In', values: ['x', '-'] }] }, [
      'spec.selector.matchExpressions[1].key: Invalid value: "": name part must be non-empty',
      `spec.selector.matchExpressions[1].key: Invalid value: "": ${NAME_PART_MSG}`,
      `spec.selector.matchExpressions[1].values[1]: Invalid value: "-": ${VALUE_MSG}`,
    ]],
  ];
  for (const [ls, want] of cases) {
    it(JSON.stringify(ls), () => assert.deepEqual(validateLabelSelector(ls, p).map(String), want));
  }

  it('options relax operator and value checks', () => {
    const ls = { matchExpressions: [{ key: 'k', operator: 'Gt', values: ['-'] }] };
    assert.deepEqual(validateLabelSelector(ls, p, { allowUnknownOperatorInRequirement: true, allowInvalidLabelValueInSelector: true }), []);
  });
});
