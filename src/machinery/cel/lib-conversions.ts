// int(), uint() and string() with cel-go's semantics (range errors instead of silent overflow, timestamps and
// durations, Go's float formatting); the engine's own overloads are bypassed by renaming the calls.
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { goFloat } from '../gofloat.js';
import { CelRuntimeError } from './errors.js';
import { durationNanos } from './types.js';
import type { LibraryRegistrar } from './env.js';

const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);
const MAX_UINT = 2n ** 64n - 1n;

/** Go's time.Duration String(). */
export function goDuration(d: Duration): string {
  let ns = durationNanos(d);
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  if (neg) ns = -ns;
  const frac = (v: bigint, unit: bigint): string => {
    const whole = v / unit;
    const rest = v % unit;
    if (rest === 0n) return whole.toString();
    return `${whole}.${rest.toString().padStart(unit.toString().length - 1, '0').replace(/0+$/, '')}`;
  };
  let out: string;
  if (ns < 1000n) out = `${ns}ns`;
  else if (ns < 1_000_000n) out = `${frac(ns, 1000n)}µs`;
  else if (ns < 1_000_000_000n) out = `${frac(ns, 1_000_000n)}ms`;
  else {
    const h = ns / 3_600_000_000_000n;
    const m = (ns / 60_000_000_000n) % 60n;
    const s = frac(ns % 60_000_000_000n, 1_000_000_000n);
    out = `${h > 0n ? `${h}h` : ''}${h > 0n || m > 0n ? `${m}m` : ''}${s}s`;
  }
  return neg ? `-${out}` : out;
}

function toInt(v: bigint): bigint {
  if (v > MAX_INT || v < MIN_INT) throw new CelRuntimeError('integer overflow');
  return v;
}

function doubleToInt(v: number, max: bigint, min: bigint, err: string): bigint {
  if (!Number.isFinite(v)) throw new CelRuntimeError(err);
  const t = BigInt(Math.trunc(v));
  if (t > max || t < min || (max === MAX_INT && v >= 9223372036854775807)) throw new CelRuntimeError(err);
  return t;
}

export function registerConversions(reg: LibraryRegistrar): void {
  reg.fn('__k1s_int(int): int', (v: bigint) => v);
  reg.fn('__k1s_int(uint): int', (v: UnsignedInt) => toInt(v.value));
  reg.fn('__k1s_int(double): int', (v: number) => doubleToInt(v, MAX_INT, MIN_INT, 'integer overflow'));
  reg.fn('__k1s_int(string): int', (s: string) => {
    if (!/^[+-]?[0-9]+$/.test(s)) throw new CelRuntimeError(`strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`);
    const v = BigInt(s);
    if (v > MAX_INT || v < MIN_INT) throw new CelRuntimeError(`strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`);
    return v;
  });
  reg.fn('__k1s_int(google.protobuf.Timestamp): int', (d: Date) => BigInt(Math.floor(d.getTime() / 1000)));
  reg.fn('__k1s_int(google.protobuf.Duration): int', (d: Duration) => durationNanos(d));
  reg.fn('__k1s_uint(uint): uint', (v: UnsignedInt) => v);
  reg.fn('__k1s_uint(int): uint', (v: bigint) => {
    if (v < 0n) throw new CelRuntimeError('unsigned integer overflow');
    return new UnsignedInt(v);
  });
  reg.fn('__k1s_uint(double): uint', (v: number) => new UnsignedInt(doubleToInt(v, MAX_UINT, 0n, 'unsigned integer overflow')));
  reg.fn('__k1s_uint(string): uint', (s: string) => {
    if (!/^\+?[0-9]+$/.test(s)) throw new CelRuntimeError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`);
    const v = BigInt(s);
    if (v > MAX_UINT) throw new CelRuntimeError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`);
    return new UnsignedInt(v);
  });
  reg.fn('__k1s_string(string): string', (s: string) => s);
  reg.fn('__k1s_string(bool): string', (b: boolean) => String(b));
  reg.fn('__k1s_string(int): string', (v: bigint) => v.toString());
  reg.fn('__k1s_string(uint): string', (v: UnsignedInt) => v.value.toString());
  reg.fn('__k1s_string(double): string', goFloat);
  reg.fn('__k1s_string(bytes): string', (b: Uint8Array) => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(b);
    } catch {
      throw new CelRuntimeError('invalid UTF-8 in bytes, cannot convert to string');
    }
  });
  reg.fn('__k1s_string(google.protobuf.Timestamp): string', (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z'));
  reg.fn('__k1s_string(google.protobuf.Duration): string', (d: Duration) => {
    const ns = durationNanos(d);
    const s = ns / 1_000_000_000n;
    const rest = (ns < 0n ? -ns : ns) % 1_000_000_000n;
    const sign = ns < 0n && s === 0n ? '-' : '';
    return `${sign}${s}${rest ? `.${rest.toString().padStart(9, '0').replace(/0+$/, '')}` : ''}s`;
  });
}
