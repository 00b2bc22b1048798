import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CelEnv, T } from '../../../../src/machinery/cel/index.js';

const env = CelEnv.base({ semver: true }).withVariables({ s: T.string(), n: T.int() });

/** Evaluates a boolean expression; anything else (or an error) fails with its text. */
function check(expr: string, vars: Record<string, unknown> = { s: 'tacocat', n: 3n }): void {
  const c = env.compile(expr);
  assert.equal(c.error, undefined, `${expr}: ${c.error}`);
  const r = c.program!.eval(vars);
  assert.deepEqual(r, { value: true }, expr);
}

function evalError(expr: string, s = ''): string {
  const c = env.compile(expr);
  assert.equal(c.error, undefined, `${expr}: ${c.error}`);
  const r = c.program!.eval({ s, n: 0n });
  assert.ok('error' in r, `${expr} should fail, got ${String((r as { value: unknown }).value)}`);
  return r.error;
}

const table = (name: string, rows: string[]) =>
  it(name, () => {
    for (const r of rows) check(r);
  });

describe('CEL Kubernetes libraries (kubernetes.io "Common Expression Language in Kubernetes" tables)', () => {
  table('lists: isSorted, sum, min, max, indexOf, lastIndexOf', [
    '[1, 2, 3].isSorted()', "['a', 'b', 'b', 'c'].isSorted()", '![2.0, 1.0].isSorted()', '[].isSorted()',
    '[1, 2, 3].sum() == 6', '[1.0, 2.0].sum() == 3.0', "[duration('1s'), duration('1m')].sum() == duration('61s')",
    '[1, 2, 3].min() == 1', '[1, 2, 3].max() == 3', "['b', 'a'].min() == 'a'",
    '[1, 2, 3].indexOf(2) == 1', "['a', 'b', 'b', 'c'].lastIndexOf('b') == 2", '[1].indexOf(5) == -1',
  ]);

  it('lists: errors', () => {
    assert.equal(evalError('[0].filter(x, x > 0).min() == 0'), 'min called on empty list');
    assert.equal(evalError('[9223372036854775807, 1].sum() > 0'), 'integer overflow');
  });

  table('strings (cel-go strings extension v2)', [
    "'hello'.charAt(1) == 'e'", "'hello'.charAt(5) == ''", "'hello mellow'.indexOf('ello') == 1", "'hello mellow'.indexOf('ello', 2) == 7",
    "'hello mellow'.lastIndexOf('ello') == 7", "'héllo'.indexOf('l') == 2", "'TacoCat'.lowerAscii() == 'tacocat'", "'ÀB'.lowerAscii() == 'Àb'",
    "'TacoCat'.upperAscii() == 'TACOCAT'", "'hello hello'.replace('he', 'we') == 'wello wello'", "'hello hello'.replace('he', 'we', 1) == 'wello hello'",
    "'hello hello hello'.split(' ') == ['hello', 'hello', 'hello']", "'a b c'.split(' ', 2) == ['a', 'b c']", "'abc'.split('') == ['a', 'b', 'c']",
    "'tacocat'.substring(4) == 'cat'", "'tacocat'.substring(0, 4) == 'taco'", "'  \\ttrim\\n    '.trim() == 'trim'",
    "['hello', 'mellow'].join() == 'hellomellow'", "['hello', 'mellow'].join(' ') == 'hello mellow'",
    "strings.quote('single-quote with \"double quote\"') == '\"single-quote with \\\\\"double quote\\\\\"\"'",
    "'%s is %d years and %.2f'.format([dyn('x'), dyn(1), dyn(2.5)]) == 'x is 1 years and 2.50'",
    "'%x'.format([255]) == 'ff'", "'%s'.format([[1, 2]]) == '[1, 2]'", 's.size() == 7',
  ]);

  it('strings: range errors with cel-go messages', () => {
    assert.equal(evalError("'abc'.charAt(4) == ''"), 'index out of range: 4');
    assert.equal(evalError("'abc'.substring(2, 1) == ''"), 'invalid substring range. start: 2, end: 1');
    assert.equal(evalError("'abc'.substring(-1) == ''"), 'index out of range: -1');
    assert.equal(evalError("'%d'.format(['a']) == ''"), 'decimal clause can only be used on integers, was given string');
  });

  table('regex: find, findAll, matches with RE2 syntax', [
    "'abc 123'.find('[0-9]+') == '123'", "'abc'.find('[0-9]+') == ''", "'1, 2, 3, 4'.findAll('[0-9]+').map(x, int(x)).sum() < 100",
    "'a1b2c3'.findAll('[0-9]', 2) == ['1', '2']", "'abc'.matches('^a.c$')", "'ABC'.matches('(?i)^abc$')", "'x-y'.matches('^\\\\w\\\\-\\\\w\\\\z')",
    "'ab'.matches('(?P<first>a)b')", "'a1'.matches('^[[:alpha:]][[:digit:]]$')",
  ]);

  it('regex: what RE2 rejects fails with Go error text', () => {
    // a literal pattern is checked when the expression compiles, as Kubernetes' literal-argument validator does
    assert.match(String(env.compile("'abc'.matches('(?=a)')").error), /^ERROR: <input>:1:15: invalid matches argument/);
    assert.equal(evalError("'abc'.matches(s)", '(?=a)'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    assert.equal(evalError("'aa'.matches(s)", '(a)\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
    assert.equal(evalError("'abc'.find(s) == ''", '(?<!a)b'), 'Illegal regex: error parsing regexp: invalid named capture: `(?<!a)b`');
  });

  table('URLs', [
    "url('https://example.com:80/').getHost() == 'example.com:80'", "url('https://example.com:80/').getHostname() == 'example.com'",
    "url('https://[::1]:80/').getHostname() == '::1'", "url('https://example.com:80/').getPort() == '80'", "url('https://example.com/').getPort() == ''",
    "url('https://example.com/path').getScheme() == 'https'", "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
    "url('https://example.com/?k=v&k=w&x=y').getQuery() == {'k': ['v', 'w'], 'x': ['y']}", "isURL('https://example.com:80/path')",
    "isURL('/relative-path')", "!isURL('example.com')", "!isURL('https://exa mple.com/')", "url('/p').getHost() == ''",
  ]);

  it('URLs: parse errors', () => {
    assert.equal(evalError("url('example.com').getHost() == ''"), 'URL parse error during conversion from string: parse "example.com": invalid URI for request');
  });

  table('quantity', [
    "quantity('50000000G').isInteger()", "!quantity('9999999999999999999999999999999999999G').isInteger()", "quantity('50k').asInteger() == 50000",
    "quantity('50k').isGreaterThan(quantity('100'))", "quantity('50M').isLessThan(quantity('100M'))", "quantity('50k').add(quantity('20k')).compareTo(quantity('70k')) == 0",
    "quantity('50k').sub(20000) == quantity('30k')", "quantity('50k').add(20) == quantity('50020')", "quantity('1.5').asApproximateFloat() == 1.5",
    "sign(quantity('-50k')) == -1", "isQuantity('1.3G')", "!isQuantity('1.3X')", "quantity('1') == quantity('1000m')", "!quantity('1.5').isInteger()",
  ]);

  it('quantity: sign is a global function and asInteger fails on fractions', () => {
    assert.match(env.compile("quantity('1').sign() == 1").error!, /found no matching overload for 'sign' applied to 'kubernetes.Quantity.\(\)'/);
    assert.equal(evalError("quantity('1.5').asInteger() == 1"), 'cannot convert value to integer');
    assert.match(evalError("quantity('1.3X').isInteger()"), /^quantities must match the regular expression/);
  });

  table('IP addresses', [
    "ip('127.0.0.1').family() == 4", "ip('::1').family() == 6", "isIP('1.2.3.4')", "!isIP('1.2.3')", "!isIP('127.0.0.1%eth0')", "!isIP('::ffff:1.2.3.4')",
    "ip('::1').isLoopback()", "ip('0.0.0.0').isUnspecified()", "ip('224.0.0.1').isLinkLocalMulticast()", "ip('ff02::1').isLinkLocalMulticast()",
    "ip('fe80::1').isLinkLocalUnicast()", "ip('169.254.1.1').isLinkLocalUnicast()", "ip('192.168.0.1').isGlobalUnicast()", "!ip('255.255.255.255').isGlobalUnicast()",
    "ip.isCanonical('127.0.0.1')", "ip.isCanonical('2001:db8::abcd')", "!ip.isCanonical('2001:DB8::ABCD')", "string(ip('2001:db8:0:0:0:0:0:1')) == '2001:db8::1'",
    "ip('1.2.3.4') == ip('1.2.3.4')",
  ]);

  it('IP addresses: errors', () => {
    assert.equal(evalError("ip('1.2.3.256').family() == 4"), 'IP Address "1.2.3.256" parse error during conversion from string: ParseAddr("1.2.3.256"): IPv4 field has value >255');
    assert.equal(evalError("ip('::ffff:1.2.3.4').family() == 4"), 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
  });

  table('CIDR', [
    "cidr('192.168.0.0/16').containsIP(ip('192.168.0.1'))", "cidr('192.168.0.0/16').containsIP('192.168.0.1')", "!cidr('192.168.0.0/16').containsIP('10.0.0.1')",
    "cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))", "!cidr('192.168.0.0/24').containsCIDR('192.168.0.0/16')",
    "cidr('192.168.0.0/24').ip() == ip('192.168.0.0')", "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')", "cidr('192.168.0.0/16').prefixLength() == 16",
    "cidr('::1/128').ip().family() == 6", "isCIDR('10.0.0.0/8')", "!isCIDR('10.0.0.0/33')", "string(cidr('192.168.1.5/24').masked()) == '192.168.1.0/24'",
  ]);

  it('CIDR: errors', () => {
    assert.equal(evalError("cidr('1.2.3.4').prefixLength() == 1"),
      'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("1.2.3.4"): no \'/\'');
  });

  table('format', [
    "!format.dns1123Label().validate('my-name').hasValue()", "format.dns1123Label().validate('MY_NAME').hasValue()",
    "format.named('dns1123Label').value().validate('a').hasValue() == false", "!format.named('nope').hasValue()",
    "format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue() == false", "format.byte().validate('!!').value() == ['invalid base64']",
    "format.date().validate('2021-13-01').value() == ['invalid date']", "!format.datetime().validate('2021-01-01T00:00:00Z').hasValue()",
    "format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue() == false", "format.labelValue().validate('a b').hasValue()",
    "!format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-').hasValue()", "!format.uri().validate('http://example.com').hasValue()",
  ]);

  table('semver (stored expressions only in 1.33)', [
    "semver('1.0.0').isLessThan(semver('1.1.0'))", "semver('2.0.0').isGreaterThan(semver('1.10.0'))", "semver('1.2.3').compareTo(semver('1.2.3')) == 0",
    "semver('1.2.3-alpha').isLessThan(semver('1.2.3'))", "semver('v1.2', true).minor() == 2", "isSemver('1.2.3')", "!isSemver('1.2')", "isSemver('v1.02', true)",
    "semver('3.4.5').major() == 3 && semver('3.4.5').patch() == 5",
  ]);

  it('semver is not in the environment of new expressions', () => {
    const plain = CelEnv.base().withVariables({});
    assert.match(plain.compile("isSemver('1.0.0')").error!, /undeclared reference to 'isSemver'/);
  });

  table('sets, two-variable comprehensions, bind and optionals', [
    'sets.contains([1, 2, 3, 4], [2, 3])', '!sets.contains([1], [2])', 'sets.equivalent([1, 2, 3], [3, 2, 1])', 'sets.intersects([1, 2], [2, 3])',
    '[1, 2, 3].all(i, v, v > i)', "{'a': 1}.exists(k, v, k == 'a' && v == 1)", '[5, 6].existsOne(i, v, i == 1)',
    '[1, 2].transformList(i, v, v * 10) == [10, 20]', '[1, 2, 3].transformList(i, v, i > 0, v) == [2, 3]',
    "{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}", "{'a': 1}.transformMapEntry(k, v, {k + 'x': v}) == {'ax': 1}",
    'cel.bind(x, n * 2, x + x) == 12', 'optional.of(1).orValue(2) == 1', 'optional.none().orValue(2) == 2', "{'a': 1}.?b.orValue(3) == 3",
    '[1, 2, 3].exists_one(x, x == 2)', '[1, 2].map(x, x * 2) == [2, 4]', '[1, 2, 3].filter(x, x > 1) == [2, 3]',
  ]);

  table('conversions and arithmetic', [
    "string(1.5) == '1.5'", "string(1000000.0) == '1e+06'", "string(duration('90s')) == '90s'", "string(timestamp('2024-01-01T00:00:00Z')) == '2024-01-01T00:00:00Z'",
    "int('42') == 42", 'int(3.9) == 3', "uint(3) == 3u", "int(timestamp('1970-01-01T00:01:00Z')) == 60", "double('1.5') == 1.5", '1 < 1.5', '2u > 1',
    "timestamp('2024-01-01T00:00:00Z') + duration('1h') > timestamp('2024-01-01T00:30:00Z')", "duration('1h30m').getMinutes() == 90",
  ]);

  it('runtime errors in cel-go words', () => {
    assert.equal(evalError('9223372036854775807 + 1 > 0'), 'integer overflow');
    assert.equal(evalError('1 / 0 > 0'), 'division by zero');
    assert.equal(evalError('1 % 0 > 0'), 'modulus by zero');
    assert.equal(evalError('int(1e19) > 0'), 'integer overflow');
    assert.equal(evalError('uint(-1) > 0u'), 'unsigned integer overflow');
    assert.equal(evalError('[1][3] > 0'), 'index out of bounds: 3');
    assert.equal(evalError("{'a': 1}['b'] > 0"), 'no such key: b');
    assert.equal(evalError("int('x') > 0"), 'strconv.ParseInt: parsing "x": invalid syntax');
  });
});
