// How Go's %#v prints the struct, map and pointer bad values some validators of batch, policy and autoscaling
// report (apimachinery field.Error falls back to %#v for values that are neither simple nor fmt.Stringer).
// Pointers inside structs cannot be reproduced; they print as one fixed address.
import { goQuote } from '../machinery/errors.js';
import { compareGoStrings } from '../machinery/validation.js';
import type { LabelSelectorLike } from './format.js';

export const GO_POINTER = '0xc000000000';

/** A bad value printed verbatim (field.Error prints a fmt.Stringer through String()). */
export function bare(text: string): { toString(): string } {
  return { toString: () => text };
}

/** %#v of map[string]string: keys sorted, `map[string]string(nil)` for nil. */
export function goStringMap(m: Record<string, string> | null | undefined): string {
  if (m === undefined || m === null) return 'map[string]string(nil)';
  const keys = Object.keys(m).sort(compareGoStrings);
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(m[k])}`).join(', ')}}`;
}

/** %#v of []string. */
export function goStringSlice(v: readonly string[] | null | undefined): string {
  return v === undefined || v === null ? '[]string(nil)' : `[]string{${v.map(goQuote).join(', ')}}`;
}

/** %#v of a metav1.LabelSelector value (the internal types print the package as "v1"). */
export function goLabelSelector(sel: LabelSelectorLike): string {
  const exprs = sel.matchExpressions;
  const reqs =
    exprs === undefined || exprs === null
      ? '[]v1.LabelSelectorRequirement(nil)'
      : `[]v1.LabelSelectorRequirement{${exprs
          .map((e) => `v1.LabelSelectorRequirement{Key:${goQuote(e.key ?? '')}, Operator:${goQuote(e.operator ?? '')}, Values:${goStringSlice(e.values)}}`)
          .join(', ')}}`;
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${reqs}}`;
}

/** %#v of a pointer field inside a struct: `(*T)(nil)` or a (fixed) address. */
export function goPtr(type: string, v: unknown): string {
  return `(*${type})(${v === undefined || v === null ? 'nil' : GO_POINTER})`;
}

/** %#v of intstr.IntOrString (its String() has a pointer receiver, so a value prints as a struct). */
export function goIntOrString(v: unknown): string {
  if (typeof v === 'number') return `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`;
  return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(String(v ?? ''))}}`;
}

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/**
 * %#v of a resource.Quantity value as resource.ParseQuantity leaves it: small values in the int64 form (with the
 * original string cached when it is already canonical), others in the inf.Dec form. Only needed for the
 * non-positive quantities HPA validation reports.
 */
export function goQuantity(raw: string): string {
  const struct = (value: bigint, scale: number, dec: boolean, s: string, format: string) =>
    `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(${dec ? GO_POINTER : 'nil'})}, s:${goQuote(s)}, Format:${goQuote(format)}}`;
  if (raw === '0') return struct(0n, 0, false, '0', 'DecimalSI');
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(raw);
  if (!m) return struct(0n, 0, false, '', 'DecimalSI');
  const [, sign, num, denom = '', suffix] = m;
  let format = 'DecimalSI';
  let exponent = 0;
  let base = 10;
  if (suffix in DECIMAL_SUFFIX) exponent = DECIMAL_SUFFIX[suffix];
  else if (suffix in BINARY_SUFFIX) {
    base = 2;
    format = 'BinarySI';
    exponent = BINARY_SUFFIX[suffix];
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    exponent = Number(suffix.slice(1));
  }
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (base === 10) {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  } else if (denom === '') {
    mantissa = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
  } else precision = -1;
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const value = BigInt(shifted || '0') * mantissa;
      if (value < 2n ** 63n) {
        const result = sign === '-' ? -value : value;
        const canonical = base === 2 ? exponent % 10 === 0 && (BigInt(shifted || '0') & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return struct(result, scale, false, canonical ? raw : '', format);
      }
    }
  }
  return struct(0n, 0, true, '', format);
}
