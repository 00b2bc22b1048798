// Kubernetes' lists library (isSorted, sum, min, max, indexOf, lastIndexOf) and cel-go's sets extension.
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { compareGoStrings } from '../validation.js';
import { CelRuntimeError } from './errors.js';
import { celEqual, durationFromNanos, durationNanos } from './types.js';
import type { LibraryRegistrar } from './env.js';

const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);

/** CEL ordering of two values of one comparable type. */
export function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(compareGoStrings(a, b));
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration) {
    const x = durationNanos(a);
    const y = durationNanos(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  const num = (v: unknown): number | bigint => (v instanceof UnsignedInt ? v.value : (v as number | bigint));
  const x = num(a);
  const y = num(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];

function sumOf(l: unknown[], zero: unknown): unknown {
  let acc = zero;
  for (const x of l) {
    if (typeof acc === 'bigint') {
      acc = acc + (x as bigint);
      if ((acc as bigint) > MAX_INT || (acc as bigint) < MIN_INT) throw new CelRuntimeError('integer overflow');
    } else if (acc instanceof UnsignedInt) {
      const v = acc.value + (x as UnsignedInt).value;
      if (v > 2n ** 64n - 1n) throw new CelRuntimeError('unsigned integer overflow');
      acc = new UnsignedInt(v);
    } else if (acc instanceof Duration) acc = durationFromNanos(durationNanos(acc) + durationNanos(x as Duration));
    else acc = (acc as number) + (x as number);
  }
  return acc;
}

function extreme(l: unknown[], name: string, want: number): unknown {
  if (l.length === 0) throw new CelRuntimeError(`${name} called on empty list`);
  let r = l[0];
  for (const x of l.slice(1)) if (compare(r, x) === want) r = x;
  return r;
}

const contains = (l: unknown[], x: unknown): boolean => l.some((y) => celEqual(y, x));

export function registerLists(reg: LibraryRegistrar): void {
  for (const t of COMPARABLE) {
    reg.fn(`list<${t}>.isSorted(): bool`, (l: unknown[]) => l.every((x, i) => i === 0 || compare(l[i - 1], x) !== 1));
    reg.fn(`list<${t}>.min(): ${t}`, (l: unknown[]) => extreme(l, 'min', 1));
    reg.fn(`list<${t}>.max(): ${t}`, (l: unknown[]) => extreme(l, 'max', -1));
  }
  reg.fn('list<int>.sum(): int', (l: unknown[]) => sumOf(l, 0n));
  reg.fn('list<uint>.sum(): uint', (l: unknown[]) => sumOf(l, new UnsignedInt(0n)));
  reg.fn('list<double>.sum(): double', (l: unknown[]) => sumOf(l, 0));
  reg.fn('list<google.protobuf.Duration>.sum(): google.protobuf.Duration', (l: unknown[]) => sumOf(l, new Duration(0n, 0)));
  reg.fn('list<A>.__k1s_indexOf(A): int', (l: unknown[], x: unknown) => BigInt(l.findIndex((y) => celEqual(y, x))));
  reg.fn('list<A>.__k1s_lastIndexOf(A): int', (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEqual(l[i], x)) return BigInt(i);
    return -1n;
  });
  class SetsNamespace {}
  reg.type('k1s.SetsNamespace', SetsNamespace);
  reg.constant('sets', 'k1s.SetsNamespace', new SetsNamespace());
  reg.fn('k1s.SetsNamespace.contains(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) => b.every((x) => contains(a, x)));
  reg.fn('k1s.SetsNamespace.equivalent(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) =>
    b.every((x) => contains(a, x)) && a.every((x) => contains(b, x)));
  reg.fn('k1s.SetsNamespace.intersects(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) => a.some((x) => contains(b, x)));
}
