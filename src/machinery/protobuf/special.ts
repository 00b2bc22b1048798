// apimachinery types whose protobuf message differs from their JSON form: Time, MicroTime, Duration, Quantity,
// IntOrString, RawExtension and FieldsV1. Each decoder takes the message bytes and returns the JSON value the Go
// JSON encoding prints, or undefined where it prints null (zero Time, empty RawExtension).
import { protoError, readFields, utf8String, WIRE_LEN, WIRE_VARINT } from './wire.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

export const SPECIAL_TYPES = {
  Time: `${META}Time`,
  MicroTime: `${META}MicroTime`,
  Duration: `${META}Duration`,
  FieldsV1: `${META}FieldsV1`,
  Quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  IntOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  RawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
} as const;

export type SpecialType = keyof typeof SPECIAL_TYPES;

export const SPECIAL_BY_DEFINITION: ReadonlyMap<string, SpecialType> = new Map(
  Object.entries(SPECIAL_TYPES).map(([k, v]) => [v, k as SpecialType]),
);

type Fields = ReturnType<typeof readFields>;

function varintField(f: Fields, tag: number, what: string): bigint {
  const v = f.get(tag);
  if (v === undefined) return 0n;
  if (v.wire !== WIRE_VARINT) throw protoError(`${what}: field ${tag} has wire type ${v.wire}, expected a varint`);
  return v.value as bigint;
}

function bytesField(f: Fields, tag: number, what: string): Uint8Array | undefined {
  const v = f.get(tag);
  if (v === undefined) return undefined;
  if (v.wire !== WIRE_LEN) throw protoError(`${what}: field ${tag} has wire type ${v.wire}, expected length-delimited`);
  return v.value as Uint8Array;
}

/** Go's zero time.Time (January 1, year 1, UTC) as Unix seconds. */
const GO_ZERO_UNIX = -62135596800n;
const MAX_UNIX = 253402300799n; // 9999-12-31T23:59:59Z

/** metav1.Time / MicroTime: {seconds=1 int64, nanos=2 int32}; an empty message is the zero time (JSON null). */
export function decodeTime(buf: Uint8Array, micro: boolean): string | undefined {
  if (buf.length === 0) return undefined;
  const what = micro ? 'MicroTime' : 'Time';
  const f = readFields(buf);
  let seconds = BigInt.asIntN(64, varintField(f, 1, what));
  let nanos = BigInt.asIntN(32, varintField(f, 2, what));
  // time.Unix normalises nanoseconds outside [0, 1e9).
  seconds += nanos / 1_000_000_000n;
  nanos %= 1_000_000_000n;
  if (nanos < 0n) {
    nanos += 1_000_000_000n;
    seconds -= 1n;
  }
  if (seconds === GO_ZERO_UNIX && nanos === 0n) return undefined;
  if (seconds < GO_ZERO_UNIX || seconds > MAX_UNIX) throw protoError(`${what} out of range: ${seconds}s`);
  const iso = new Date(Number(seconds) * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z for years 1..9999
  const base = iso.slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(nanos / 1000n).padStart(6, '0')}Z`;
}

/** Fraction digits of v / 10^prec without trailing zeros (Go's fmtFrac); returns [text, v / 10^prec]. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let print = false;
  for (let i = 0; i < prec; i++) {
    const d = v % 10n;
    print ||= d !== 0n;
    if (print) digits = d.toString() + digits;
    v /= 10n;
  }
  return [print ? `.${digits}` : '', v];
}

/** time.Duration.String(): "1h2m3.5s", "1.5ms", "0s". */
export function goDuration(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u === 0n) return '0s';
  if (u < 1_000_000_000n) {
    let prec: number;
    let unit: string;
    if (u < 1000n) [prec, unit] = [0, 'ns'];
    else if (u < 1_000_000n) [prec, unit] = [3, 'µs'];
    else [prec, unit] = [6, 'ms'];
    const [frac, whole] = fmtFrac(u, prec);
    out = `${whole}${frac}${unit}`;
  } else {
    const [frac, secs] = fmtFrac(u, 9);
    u = secs;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** metav1.Duration: {duration=1 int64 nanoseconds}. */
export function decodeDuration(buf: Uint8Array): string {
  return goDuration(BigInt.asIntN(64, varintField(readFields(buf), 1, 'Duration')));
}

/** resource.Quantity: {string=1}, already in canonical form; absent is the zero quantity "0". */
export function decodeQuantity(buf: Uint8Array): string {
  const s = bytesField(readFields(buf), 1, 'Quantity');
  return s === undefined ? '0' : utf8String(s);
}

/** intstr.IntOrString: {type=1 (0 int, 1 string), intVal=2, strVal=3}. */
export function decodeIntOrString(buf: Uint8Array): number | string {
  const f = readFields(buf);
  const type = varintField(f, 1, 'IntOrString');
  if (type === 0n) return Number(BigInt.asIntN(32, varintField(f, 2, 'IntOrString')));
  if (type === 1n) {
    const s = bytesField(f, 3, 'IntOrString');
    return s === undefined ? '' : utf8String(s);
  }
  throw protoError(`IntOrString has unknown type ${type}`);
}

function parseJson(raw: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(utf8String(raw)) as unknown;
  } catch {
    throw protoError(`${what} does not hold valid JSON`);
  }
}

/**
 * runtime.RawExtension: {raw=1 bytes}. The bytes are JSON, or a nested protobuf envelope ("k8s\0" + Unknown),
 * which `nested` decodes. Empty is JSON null.
 */
export function decodeRawExtension(buf: Uint8Array, nested: (raw: Uint8Array) => unknown): unknown {
  const raw = bytesField(readFields(buf), 1, 'RawExtension');
  if (raw === undefined || raw.length === 0) return undefined;
  if (raw.length >= 4 && raw[0] === 0x6b && raw[1] === 0x38 && raw[2] === 0x73 && raw[3] === 0) return nested(raw);
  return parseJson(raw, 'RawExtension');
}

/** metav1.FieldsV1: {Raw=1 bytes} holding the JSON field set. */
export function decodeFieldsV1(buf: Uint8Array): unknown {
  const raw = bytesField(readFields(buf), 1, 'FieldsV1');
  if (raw === undefined || raw.length === 0) return undefined;
  return parseJson(raw, 'FieldsV1');
}
