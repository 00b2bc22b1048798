// Kubernetes' quantity library over machinery's resource.Quantity. sign is declared as a global function in
// Kubernetes (sign(q)), although its documentation shows q.sign(); the declaration is what compiles.
import { Quantity, QuantityParseError } from '../quantity.js';
import { CelRuntimeError } from './errors.js';
import type { LibraryRegistrar } from './env.js';

const MAX_INT = 2n ** 63n - 1n;
const MIN_INT = -(2n ** 63n);

/** Go's Quantity.AsInt64: the exact integer value, when it has one within int64. */
export function asInt64(q: Quantity): bigint | undefined {
  let v: bigint;
  if (q.exponent >= 0) {
    if (q.exponent > 19 && q.mantissa !== 0n) return undefined;
    v = q.mantissa * 10n ** BigInt(q.exponent);
  } else {
    const d = 10n ** BigInt(-q.exponent);
    if (q.mantissa % d !== 0n) return undefined;
    v = q.mantissa / d;
  }
  return v > MAX_INT || v < MIN_INT ? undefined : v;
}

function parse(s: string): Quantity {
  try {
    return Quantity.parse(s);
  } catch (e) {
    if (e instanceof QuantityParseError) throw new CelRuntimeError(e.message);
    throw e;
  }
}

export function registerQuantity(reg: LibraryRegistrar): void {
  const Q = 'kubernetes.Quantity';
  reg.type(Q, Quantity as never, ((a: Quantity, b: Quantity) => a.cmp(b) === 0) as never);
  reg.fn(`quantity(string): ${Q}`, parse);
  reg.fn('isQuantity(string): bool', (s: string) => {
    try {
      Quantity.parse(s);
      return true;
    } catch {
      return false;
    }
  });
  reg.fn(`sign(${Q}): int`, (q: Quantity) => BigInt(q.sign()));
  reg.fn(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.cmp(b) === 1);
  reg.fn(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.cmp(b) === -1);
  reg.fn(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.cmp(b)));
  reg.fn(`${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat64());
  reg.fn(`${Q}.isInteger(): bool`, (q: Quantity) => asInt64(q) !== undefined);
  reg.fn(`${Q}.asInteger(): int`, (q: Quantity) => {
    const v = asInt64(q);
    if (v === undefined) throw new CelRuntimeError('cannot convert value to integer');
    return v;
  });
  reg.fn(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b));
  reg.fn(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => a.add(Quantity.fromInt(b, 'DecimalExponent')));
  reg.fn(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.sub(b));
  reg.fn(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => a.sub(Quantity.fromInt(b, 'DecimalExponent')));
}
