// How Go prints numbers decoded from JSON: float64 with strconv's shortest %g (what %v, expfmt and jsonpath print),
// integers as int64.

/** Go's strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that round-trip, %e below 1e-4 and from 1e6 on. */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mant, e] = v.toExponential().split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  // within [1e-4, 1e6) JavaScript also writes the shortest digits positionally
  return String(v);
}

/** A JSON number as Go prints the decoded value: integers as int64, the rest as float64. */
export function goNumber(v: number): string {
  if (Number.isSafeInteger(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 2 ** 63) return BigInt(v).toString();
  return goFloat(v);
}
