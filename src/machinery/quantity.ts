// resource.Quantity (apimachinery pkg/api/resource, 1.33): parsing, arithmetic and the exact string kube-apiserver
// serialises. Values are exact: mantissa × 10^exponent with a BigInt mantissa (Go: int64Amount / inf.Dec).

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

/** A malformed quantity; `message` is one of the ERR_* texts above, exactly as Go's ParseQuantity returns. */
export class QuantityParseError extends Error {}

const MAX_INT64 = 2n ** 63n - 1n;
const decimalSuffixes = new Map<string, number>([
  ['n', -9], ['u', -6], ['m', -3], ['', 0], ['k', 3], ['M', 6], ['G', 9], ['T', 12], ['P', 15], ['E', 18],
]);
const binarySuffixes = new Map<string, number>([['Ki', 10], ['Mi', 20], ['Gi', 30], ['Ti', 40], ['Pi', 50], ['Ei', 60]]);
const decimalByExp = new Map([...decimalSuffixes].map(([s, e]) => [e, s]));
const binaryByExp = new Map([...binarySuffixes].map(([s, e]) => [e, s]));

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (v: bigint): bigint => (v < 0n ? -v : v);
const digits = (v: bigint): number => abs(v).toString().length;

/** Divides by 10^n rounding away from zero (inf.RoundUp); returns [result, exact]. */
function divRoundUp(m: bigint, n: number): [bigint, boolean] {
  if (n <= 0) return [m * pow10(-n), true];
  if (digits(m) <= n) return m === 0n ? [0n, true] : [m > 0n ? 1n : -1n, false]; // also avoids huge powers
  const d = pow10(n);
  const q = m / d;
  const exact = q * d === m;
  return [exact ? q : q + (m > 0n ? 1n : -1n), exact];
}

/** Splits a string the way Go's fast scanner does; the scanner, not the regexp, decides what is valid. */
function scan(str: string): { positive: boolean; value: string; num: string; denom: string; suffix: string } {
  const end = str.length;
  let pos = 0;
  let positive = true;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;
  while (pos < end && str[pos] === '0') pos++; // leading zeros
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: '', suffix: '' };
  pos = i;
  if (num === '') num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos])) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) throw new QuantityParseError(ERR_FORMAT_WRONG);
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

function interpretSuffix(s: string): { base: 2 | 10; exponent: number; format: QuantityFormat } {
  const dec = decimalSuffixes.get(s);
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = binarySuffixes.get(s);
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E') && /^[+-]?[0-9]+$/.test(s.slice(1))) {
    const e = BigInt(s.slice(1));
    // strconv.ParseInt(…, 64) then int32(…), wrap-around included.
    if (e >= -(2n ** 63n) && e <= MAX_INT64) return { base: 10, exponent: Number(BigInt.asIntN(32, e)), format: 'DecimalExponent' };
  }
  throw new QuantityParseError(ERR_SUFFIX);
}

/**
 * Parsed quantities by input text: the same few strings ("100m", "128Mi") are parsed again and again (defaulting,
 * QoS, validation, quota, scheduling of every pod); cleared whole when full.
 */
const parsed = new Map<string, Quantity>();
const MAX_PARSED = 4096;

export class Quantity {
  /** value = mantissa × 10^exponent. `original` is the input string when Go would re-emit it verbatim. */
  private constructor(
    readonly mantissa: bigint,
    readonly exponent: number,
    readonly format: QuantityFormat,
    private readonly original?: string,
  ) {}

  /** canonical(), once: parsed quantities are shared, and "16Mi" (not kept verbatim) is written at every pod create */
  private canonicalText: string | undefined = undefined;

  /** Quantity.parse, remembered for the strings seen lately (a quantity is immutable, so sharing one is safe). */
  static parse(str: string): Quantity {
    let q = parsed.get(str);
    if (q === undefined) {
      q = Quantity.parseNew(str);
      if (parsed.size >= MAX_PARSED) parsed.clear();
      parsed.set(str, q);
    }
    return q;
  }

  private static parseNew(str: string): Quantity {
    if (str.length === 0) throw new QuantityParseError(ERR_FORMAT_WRONG);
    if (str === '0') return new Quantity(0n, 0, 'DecimalSI', str);
    const { positive, value, num, denom, suffix } = scan(str);
    const { base, exponent, format: fmt } = interpretSuffix(suffix);
    let format = fmt;

    // Go's int64 fast path: when it applies and the input is already canonical, the input string is kept as the
    // serialised form (so "+1", "01" and "1.500k" come back unchanged).
    let precision: number;
    let scale = 0;
    if (base === 10) {
      scale = exponent;
      precision = 18 - (num.length + denom.length);
    } else {
      precision = denom.length === 0 ? 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 : -1;
    }
    if (precision >= 0) {
      scale -= denom.length;
      if (scale >= -9) {
        const shifted = num + denom;
        const v = BigInt(shifted);
        const mult = base === 2 ? 2n ** BigInt(exponent) : 1n;
        if (v * mult <= MAX_INT64) {
          const m = positive ? v * mult : -(v * mult);
          const canonical =
            base === 2
              ? exponent % 10 === 0 && (v & 7n) !== 0n
              : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
          return new Quantity(m, scale, format, canonical ? str : undefined);
        }
      }
    }

    // Slow path (inf.Dec): exact value, rounded up to nano units, binary values capped at 2^63-1.
    const dm = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
    if (!dm || dm[2] + (dm[3] ?? '') === '') throw new QuantityParseError(ERR_NUMERIC);
    let m = BigInt(dm[2] + (dm[3] ?? '')) * (dm[1] === '-' ? -1n : 1n);
    let e = -(dm[3] ?? '').length;
    if (base === 10) e += exponent;
    else m *= 2n ** BigInt(exponent);
    const sign = m < 0n ? -1n : 1n;
    m = abs(m);
    if (m !== 0n && e < -9) {
      m = divRoundUp(m, -9 - e)[0];
      e = -9;
    }
    if (format === 'BinarySI' && new Quantity(m, e, format).cmp(new Quantity(MAX_INT64, 0, format)) > 0) {
      m = MAX_INT64;
      e = 0;
    }
    if (format === 'BinarySI' && m !== 0n && new Quantity(m, e, format).cmp(new Quantity(1n, 0, format)) < 0) {
      format = 'DecimalSI'; // a fraction of a unit cannot be written with a binary suffix
    }
    return new Quantity(sign * m, e, format);
  }

  /** Like Quantity.UnmarshalJSON: a string (trimmed) or a JSON number; null is the zero quantity. */
  static fromJSON(v: unknown): Quantity {
    if (v === null) return new Quantity(0n, 0, 'DecimalSI');
    if (typeof v === 'number') return Quantity.parse(String(v));
    if (typeof v === 'string') return Quantity.parse(v.trim());
    throw new QuantityParseError(ERR_FORMAT_WRONG);
  }

  static fromInt(value: bigint | number, format: QuantityFormat = 'DecimalSI', scale = 0): Quantity {
    return new Quantity(BigInt(value), scale, format);
  }

  static milli(value: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(value), -3, format);
  }

  isZero(): boolean {
    return this.mantissa === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.mantissa === 0n ? 0 : this.mantissa > 0n ? 1 : -1;
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    const s1 = this.sign();
    const s2 = other.sign();
    if (s1 !== s2 || s1 === 0) return s1 < s2 ? -1 : s1 > s2 ? 1 : 0;
    // Same sign, both non-zero: order of magnitude first, so huge exponents never get materialised.
    const mag1 = digits(this.mantissa) + this.exponent;
    const mag2 = digits(other.mantissa) + other.exponent;
    let c: number;
    if (mag1 !== mag2) c = mag1 < mag2 ? -1 : 1;
    else {
      const e = Math.min(this.exponent, other.exponent);
      const a = abs(this.mantissa) * pow10(this.exponent - e);
      const b = abs(other.mantissa) * pow10(other.exponent - e);
      c = a === b ? 0 : a < b ? -1 : 1;
    }
    return (c === 0 ? 0 : c * s1) as -1 | 0 | 1;
  }

  equal(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** Sum; a zero receiver takes the other operand's format, as Go's Add does. */
  add(other: Quantity): Quantity {
    const e = Math.min(this.exponent, other.exponent);
    const m = this.mantissa * pow10(this.exponent - e) + other.mantissa * pow10(other.exponent - e);
    return new Quantity(m, e, this.isZero() ? other.format : this.format);
  }

  sub(other: Quantity): Quantity {
    return this.add(other.neg());
  }

  neg(): Quantity {
    return new Quantity(-this.mantissa, this.exponent, this.format);
  }

  /** The value in units of 10^scale, rounded away from zero (Go's ScaledValue, without int64 overflow). */
  scaledValue(scale: number): bigint {
    return divRoundUp(this.mantissa, scale - this.exponent)[0];
  }

  /** Value() rounded up to an integer; a JS number (exact up to 2^53). */
  value(): number {
    return Number(this.scaledValue(0));
  }

  milliValue(): number {
    return Number(this.scaledValue(-3));
  }

  asApproximateFloat64(): number {
    return Number(this.mantissa) * 10 ** this.exponent;
  }

  /** The serialised form: the input when Go keeps it, otherwise the canonical form. */
  toString(): string {
    return this.original ?? (this.canonicalText ??= this.canonical());
  }

  toJSON(): string {
    return this.toString();
  }

  /**
   * Canonical form: no fractional digits, largest suffix of the quantity's own format family. Binary quantities
   * that are below 1024 or not whole numbers are written in decimal SI.
   */
  canonical(): string {
    if (this.mantissa === 0n) return '0';
    let format = this.format;
    if (format === 'BinarySI') {
      const [whole, exact] = divRoundUp(this.mantissa, -this.exponent);
      if (abs(whole) >= 1024n && exact) {
        let m = whole;
        let n = 0;
        while (m % 1024n === 0n) {
          m /= 1024n;
          n++;
        }
        return m.toString() + (binaryByExp.get(n * 10) ?? '');
      }
      format = 'DecimalSI';
    }
    let m = this.mantissa;
    let e = this.exponent;
    while (m % 10n === 0n) {
      m /= 10n;
      e++;
    }
    while (e % 3 !== 0) {
      m *= 10n;
      e--;
    }
    // Go finds no decimal SI suffix beyond E (or below n) and then prints none: "1000E" serialises as "1".
    if (format === 'DecimalSI') return m.toString() + (decimalByExp.get(e) ?? '');
    return m.toString() + (e === 0 ? '' : `e${e}`);
  }
}

export function parseQuantity(s: string): Quantity {
  return Quantity.parse(s);
}

/** The string kube-apiserver stores for a quantity written as `s`. */
export function canonicalQuantity(s: string): string {
  return Quantity.parse(s).toString();
}

/** undefined for a valid quantity, else Go's parse error text (for field.Invalid details). */
export function quantityError(s: string): string | undefined {
  try {
    Quantity.parse(s);
    return undefined;
  } catch (e) {
    if (e instanceof QuantityParseError) return e.message;
    throw e;
  }
}
