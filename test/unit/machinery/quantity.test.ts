import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ERR_FORMAT_WRONG,
  ERR_NUMERIC,
  ERR_SUFFIX,
  Quantity,
  QuantityParseError,
  canonicalQuantity,
  quantityError,
  type QuantityFormat,
} from '../../../src/machinery/quantity.js';

const q = (s: string): Quantity => Quantity.parse(s);
const dec = (m: bigint | number, e: number, f: QuantityFormat): Quantity => Quantity.fromInt(m, f, e);
const MAX = 2n ** 63n - 1n;

describe('Quantity.parse: value and format (apimachinery TestQuantityParse table)', () => {
  const cases: [string, Quantity][] = [
    ['0', dec(0, 0, 'DecimalSI')], ['0n', dec(0, 0, 'DecimalSI')], ['0m', dec(0, 0, 'DecimalSI')],
    ['0Ki', dec(0, 0, 'BinarySI')], ['0k', dec(0, 0, 'DecimalSI')], ['0Mi', dec(0, 0, 'BinarySI')], ['0T', dec(0, 0, 'DecimalSI')],
    ['1', dec(1, 0, 'DecimalSI')],
    ['1Ki', dec(1024, 0, 'BinarySI')], ['8Ki', dec(8 * 1024, 0, 'BinarySI')], ['7Mi', dec(7 * 1024 ** 2, 0, 'BinarySI')],
    ['6Gi', dec(6 * 1024 ** 3, 0, 'BinarySI')], ['5Ti', dec(5 * 1024 ** 4, 0, 'BinarySI')],
    ['4Pi', dec(4n * 1024n ** 5n, 0, 'BinarySI')], ['3Ei', dec(3n * 1024n ** 6n, 0, 'BinarySI')],
    ['100Ti', dec(100 * 1024 ** 4, 0, 'BinarySI')],
    ['5n', dec(5, -9, 'DecimalSI')], ['4u', dec(4, -6, 'DecimalSI')], ['3m', dec(3, -3, 'DecimalSI')], ['8k', dec(8, 3, 'DecimalSI')],
    ['50k', dec(5, 4, 'DecimalSI')], ['7M', dec(7, 6, 'DecimalSI')], ['6G', dec(6, 9, 'DecimalSI')], ['40T', dec(4, 13, 'DecimalSI')],
    ['2P', dec(2, 15, 'DecimalSI')], ['1E', dec(1, 18, 'DecimalSI')],
    ['1E-3', dec(1, -3, 'DecimalExponent')], ['1e3', dec(1, 3, 'DecimalExponent')], ['1E18', dec(1, 18, 'DecimalExponent')],
    ['1e14', dec(1, 14, 'DecimalExponent')], ['100.035k', dec(100035, 0, 'DecimalSI')],
    ['0.001', dec(1, -3, 'DecimalSI')], ['0.0005k', dec(5, -1, 'DecimalSI')], ['0.00500', dec(5, -3, 'DecimalSI')],
    ['0.5e0', dec(5, -1, 'DecimalExponent')], ['0.5e-2', dec(5, -3, 'DecimalExponent')], ['10.035M', dec(10035, 3, 'DecimalSI')],
    ['1.2e3', dec(12, 2, 'DecimalExponent')], ['1.3E+6', dec(13, 5, 'DecimalExponent')], ['1.53E12', dec(153, 10, 'DecimalExponent')],
    ['7.123456M', dec(7123456, 0, 'DecimalSI')], ['6.987654321G', dec(6987654321, 0, 'DecimalSI')], ['1.01E', dec(101, 16, 'DecimalSI')],
    // rounding up to nano units, saturating binary values
    ['3.001n', dec(4, -9, 'DecimalSI')], ['1.1E-9', dec(2, -9, 'DecimalExponent')], ['0.0000000001', dec(1, -9, 'DecimalSI')],
    ['0.5e-9', dec(1, -9, 'DecimalExponent')], ['0.9n', dec(1, -9, 'DecimalSI')], ['0.00000012345', dec(124, -9, 'DecimalSI')],
    ['9Ei', dec(MAX, 0, 'BinarySI')], ['9223372036854775807Ki', dec(MAX, 0, 'BinarySI')], ['12E', dec(12, 18, 'DecimalSI')],
    ['100.035Ki', dec(10243584, -2, 'BinarySI')], ['0.5Mi', dec(0.5 * 1024 * 1024, 0, 'BinarySI')],
    ['0.05Gi', dec(536870912, -1, 'BinarySI')], ['0.025Ti', dec(274877906944, -1, 'BinarySI')],
    // "things written by trolls"
    ['0.000000000001Ki', dec(2, -9, 'DecimalSI')], ['.001', dec(1, -3, 'DecimalSI')], ['.0001k', dec(100, -3, 'DecimalSI')],
    ['1.', dec(1, 0, 'DecimalSI')], ['1.G', dec(1, 9, 'DecimalSI')],
  ];
  for (const [input, want] of cases) {
    it(input, () => {
      for (const [s, w] of [[input, want], [`+${input}`, want], [`-${input}`, want.neg()]] as const) {
        const got = q(s);
        assert.equal(got.cmp(w), 0, `${s}: got ${got.canonical()}, want ${w.canonical()}`);
        assert.equal(got.format, w.format, s);
      }
    });
  }
});

describe('serialisation (canonical form, or the input when Go keeps it)', () => {
  // [input, what kube-apiserver stores]
  const cases: [string, string][] = [
    ['1000m', '1'], ['0.5', '500m'], ['1.5', '1500m'], ['1536Mi', '1536Mi'], ['1.5Gi', '1536Mi'], ['1024Mi', '1Gi'],
    ['1e3', '1e3'], ['1000M', '1G'], ['1Ki', '1Ki'], ['100m', '100m'], ['.001Ki', '1024m'], ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'], ['.000000000001Ki', '2n'], ['0.5Ki', '512'], ['1.5Ki', '1536'], ['1023Ki', '1023Ki'],
    ['2048', '2048'], ['1024', '1024'], ['1e1', '10'], ['1e-10', '1e-9'], ['0.1u', '100n'], ['0.1n', '1n'],
    ['8Ei', '9223372036854775807'], ['-8Ei', '-9223372036854775807'], ['10E', '10E'], ['1.0', '1'], ['1.000', '1'],
    ['0Ki', '0'], ['-0', '0'], ['.', '0'], ['-', '0'], ['Ki', '0'], ['e3', '0'], ['1.08', '1080m'], ['0.0001Ki', '102400u'],
    ['.001e12', '1e9'], ['0.001e0', '1e-3'], ['1000e-12', '1e-9'], ['00', '0'], ['5000m', '5'], ['1025024Mi', '1001Gi'],
    ['307200Ki', '300Mi'], ['1080000000n', '1080m'], ['0.001T', '1G'], ['-1.5Gi', '-1536Mi'], ['-0.5', '-500m'],
    // Go keeps the input verbatim when its fast path sees a canonical-looking value: sign, zeros, case and all.
    ['+1', '+1'], ['01', '01'], ['007', '007'], ['1E3', '1E3'], ['10e3', '10e3'], ['1.500k', '1.500k'], ['1.G', '1.G'], ['+1Ki', '+1Ki'],
    // Go has no decimal SI suffix above E and then prints none at all.
    ['1000E', '1'],
  ];
  for (const [input, out] of cases) it(`${input} → ${out}`, () => assert.equal(canonicalQuantity(input), out));

  it('canonical() ignores the kept input', () => {
    assert.equal(q('+1').canonical(), '1');
    assert.equal(q('1.500k').canonical(), '1500');
    assert.equal(q('1E3').canonical(), '1e3');
    assert.equal(JSON.stringify({ cpu: q('0.5') }), '{"cpu":"500m"}');
  });

  // apimachinery TestQuantityString: every canonical string parses back to itself.
  const canonical = ['1Gi', '300Mi', '6Ki', '1001Gi', '1Ti', '5', '500m', '1G', '1m', '80m', '1080m', '300M', '1T', '1234567M',
    '1234567m', '3k', '1025', '0', '1e9', '1e-3', '1e-9', '80e-3', '300e6', '1e12', '3e3', '1n', '80n', '1080n', '1u', '80u', '1080u'];
  for (const s of canonical) {
    it(`canonical ${s}`, () => {
      assert.equal(q(s).toString(), s);
      assert.equal(q(s).canonical(), s);
      if (s !== '0') assert.equal(q(`-${s}`).toString(), `-${s}`);
    });
  }
});

describe('parse errors', () => {
  const cases: [string, string][] = [
    ['', ERR_FORMAT_WRONG], ['aoeu', ERR_FORMAT_WRONG], [' 1', ERR_FORMAT_WRONG], ['1 ', ERR_FORMAT_WRONG],
    ['1.1.M', ERR_FORMAT_WRONG], ['1+1.0M', ERR_FORMAT_WRONG], ['1KiB', ERR_FORMAT_WRONG], ['1e3.5', ERR_FORMAT_WRONG],
    ['0.1mi', ERR_SUFFIX], ['0.1am', ERR_FORMAT_WRONG], ['.5i', ERR_SUFFIX], ['1i', ERR_SUFFIX], ['-3.01i', ERR_SUFFIX],
    ['-3.01e-', ERR_SUFFIX], ['1kk', ERR_SUFFIX], ['1e', ERR_SUFFIX], ['m3', ERR_SUFFIX], ['1Ee3', ERR_SUFFIX],
    ['1e99999999999999999999', ERR_SUFFIX], ['e-10', ERR_NUMERIC],
  ];
  for (const [input, msg] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(() => q(input), (e: unknown) => e instanceof QuantityParseError && e.message === msg);
      assert.equal(quantityError(input), msg);
    });
  }

  it('the regexp text is the one kube-apiserver prints', () => {
    assert.equal(ERR_FORMAT_WRONG, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    assert.equal(quantityError('1Gi'), undefined);
  });
});

describe('comparison and arithmetic', () => {
  const cmp: [string, string, number][] = [
    ['0', '0', 0], ['100m', '50m', 1], ['50m', '100m', -1], ['10000T', '100Gi', 1], ['1Gi', '1G', 1], ['1k', '1000', 0],
    ['1', '1000m', 0], ['-1', '1m', -1], ['-2', '-1', -1], ['1e1000000000', '1E', 1], ['1e-9', '0', 1], ['0Ki', '0m', 0],
  ];
  for (const [a, b, want] of cmp) it(`cmp(${a}, ${b}) = ${want}`, () => assert.equal(q(a).cmp(q(b)), want));

  it('huge exponents stay cheap', () => assert.equal(canonicalQuantity('1e1000000000'), '10e999999999'));

  it('add / sub keep the receiver format, or take the other one when the receiver is zero', () => {
    for (const v of ['100m', '1Gi']) {
      assert.equal(q(v).add(q('0')).toString(), v);
      assert.equal(q('0').add(q(v)).toString(), v);
      assert.equal(q(v).sub(q('0')).toString(), v);
      assert.equal(q('0').sub(q(v)).toString(), q(v).neg().toString());
    }
    assert.equal(q('100m').add(q('900m')).toString(), '1');
    assert.equal(q('1Gi').add(q('512Mi')).toString(), '1536Mi');
    assert.equal(q('1Gi').sub(q('1G')).toString(), '73741824');
    assert.equal(q('1').sub(q('1500m')).toString(), '-500m');
    assert.equal(q('1Mi').add(q('1k')).toString(), '1049576');
    assert.equal(q('1Ki').add(q('1m')).toString(), '1024001m');
  });

  it('scaled values round away from zero (TestScaledValue)', () => {
    for (const [from, to, want] of [[-9, -9, 1n], [-9, -6, 1n], [-9, 0, 1n], [-6, -9, 1000n], [-3, -9, 1000000n], [0, -3, 1000n], [2, -2, 10000n]] as const) {
      assert.equal(Quantity.fromInt(1, 'DecimalSI', from).scaledValue(to), want);
    }
    assert.equal(q('1.5').milliValue(), 1500);
    assert.equal(q('1500u').milliValue(), 2);
    assert.equal(q('-1500u').milliValue(), -2);
    assert.equal(q('1Gi').value(), 1073741824);
    assert.equal(q('100m').value(), 1);
    assert.equal(q('250m').asApproximateFloat64(), 0.25);
  });

  it('constructors', () => {
    assert.equal(Quantity.milli(1500).toString(), '1500m');
    assert.equal(Quantity.milli(2000).toString(), '2');
    assert.equal(Quantity.fromInt(2048, 'BinarySI').toString(), '2Ki');
    assert.equal(Quantity.fromInt(5, 'BinarySI').toString(), '5');
  });
});

describe('fromJSON (Quantity.UnmarshalJSON)', () => {
  const cases: [unknown, string][] = [[' 1', '1'], ['1 ', '1'], [1, '1'], [10, '10'], [-1, '-1'], [0.5, '500m'], [null, '0']];
  for (const [v, want] of cases) it(JSON.stringify(v), () => assert.equal(Quantity.fromJSON(v).toString(), want));
  it('rejects other JSON types', () => assert.throws(() => Quantity.fromJSON(true), QuantityParseError));
});

describe('parsed quantities are remembered', () => {
  it('gives the same answer (and the same errors) again, also after the memory was cleared', () => {
    const first = Quantity.parse('1.500k');
    assert.equal(Quantity.parse('1.500k').toString(), first.toString());
    assert.throws(() => Quantity.parse('1.5.0'), QuantityParseError);
    assert.throws(() => Quantity.parse('1.5.0'), QuantityParseError);
    for (let i = 0; i < 5000; i++) Quantity.parse(`${i}m`);
    assert.equal(Quantity.parse('1.500k').toString(), '1.500k');
    assert.equal(Quantity.parse('4999m').canonical(), '4999m');
  });
});
