// CEL declared types (apiserver's DeclType) and the conversion of decoded JSON into the values the CEL engine
// (@marcbachmann/cel-js) evaluates: int → bigint, double → number, timestamp → Date, duration → Duration,
// bytes → Uint8Array, map → Map, object → an instance of the object type's own class.
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { Optional } from '@marcbachmann/cel-js';

export type DeclKind =
  | 'int' | 'uint' | 'double' | 'string' | 'bool' | 'bytes' | 'null' | 'dyn' | 'timestamp' | 'duration'
  | 'list' | 'map' | 'object' | 'optional';

/** A CEL type with the size bounds the cost estimator needs (maxElements: items, entries or string bytes). */
export interface DeclType {
  kind: DeclKind;
  /** list items, map values, optional's value */
  elem?: DeclType;
  /** object fields by escaped name */
  fields?: Map<string, DeclType>;
  /** object type name */
  name?: string;
  /** object field name (escaped) → JSON name */
  jsonNames?: Map<string, string>;
  ctor?: new () => object;
  maxElements: number;
  minSerializedSize: number;
}

export const MAX_REQUEST_SIZE = 3 * 1024 * 1024;

const simple = (kind: DeclKind, min: number, max = 0): DeclType => ({ kind, minSerializedSize: min, maxElements: max });
export const T = {
  int: (): DeclType => simple('int', 1),
  uint: (): DeclType => simple('uint', 1),
  double: (): DeclType => simple('double', 1),
  bool: (): DeclType => simple('bool', 4),
  string: (max = MAX_REQUEST_SIZE - 2): DeclType => simple('string', 2, max),
  bytes: (max = MAX_REQUEST_SIZE - 2): DeclType => simple('bytes', 2, max),
  timestamp: (): DeclType => simple('timestamp', 12, 32),
  duration: (): DeclType => simple('duration', 3, 32),
  dyn: (): DeclType => simple('dyn', 1, MAX_REQUEST_SIZE - 2),
  null: (): DeclType => simple('null', 4),
  list: (elem: DeclType, max?: number): DeclType => ({
    kind: 'list', elem, minSerializedSize: 2,
    maxElements: max ?? Math.floor((MAX_REQUEST_SIZE - 2) / (elem.minSerializedSize + 1)),
  }),
  map: (elem: DeclType, max?: number): DeclType => ({
    kind: 'map', elem, minSerializedSize: 2,
    maxElements: max ?? Math.floor((MAX_REQUEST_SIZE - 2) / (elem.minSerializedSize + 6)),
  }),
  optional: (elem: DeclType): DeclType => ({ kind: 'optional', elem, minSerializedSize: elem.minSerializedSize, maxElements: elem.maxElements }),
};

/** An object type; its class is what the engine recognises instances by. */
export function objectType(name: string, fields: Map<string, DeclType>, jsonNames: Map<string, string>, minSize = 2): DeclType {
  const ctor = { [name]: class {} }[name] as new () => object;
  return { kind: 'object', name, fields, jsonNames, ctor, maxElements: 1, minSerializedSize: minSize };
}

/** The engine's spelling of a type ("list<int>", "map<string, T>", "google.protobuf.Timestamp"). */
export function typeString(t: DeclType): string {
  switch (t.kind) {
    case 'list': return `list<${typeString(t.elem!)}>`;
    case 'map': return `map<string, ${typeString(t.elem!)}>`;
    case 'optional': return `optional<${typeString(t.elem!)}>`;
    case 'object': return t.name!;
    case 'timestamp': return 'google.protobuf.Timestamp';
    case 'duration': return 'google.protobuf.Duration';
    case 'null': return 'null_type';
    default: return t.kind;
  }
}

/** Every object type reachable from t, innermost first. */
export function objectTypes(t: DeclType, out: DeclType[] = [], seen = new Set<DeclType>()): DeclType[] {
  if (seen.has(t)) return out;
  seen.add(t);
  if (t.elem) objectTypes(t.elem, out, seen);
  for (const f of t.fields?.values() ?? []) objectTypes(f, out, seen);
  if (t.kind === 'object') out.push(t);
  return out;
}

const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** apiserver cel.Escape: the CEL name of a property, or undefined when it cannot be written in CEL. */
export function escapeName(ident: string): string | undefined {
  if (!ident || (ident[0] >= '0' && ident[0] <= '9')) return undefined;
  if (RESERVED.has(ident)) return `__${ident}__`;
  if (/^[A-Za-z0-9_]*$/.test(ident) && !ident.includes('__')) return ident;
  let ok = true;
  const out = ident.replace(/__|[-./]|[^a-zA-Z0-9\-./_]/g, (s) => {
    switch (s) {
      case '__': return '__underscores__';
      case '.': return '__dot__';
      case '-': return '__dash__';
      case '/': return '__slash__';
      default: ok = false; return '';
    }
  });
  return ok ? out : undefined;
}

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** Go's time.ParseDuration in nanoseconds, or undefined. */
export function parseGoDuration(s: string): bigint | undefined {
  let rest = s;
  let neg = false;
  if (rest[0] === '-' || rest[0] === '+') { neg = rest[0] === '-'; rest = rest.slice(1); }
  if (rest === '0') return 0n;
  if (!rest) return undefined;
  let total = 0n;
  while (rest) {
    const m = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = UNITS[m[3]];
    const frac = m[2] ?? '';
    total += BigInt(m[1] || '0') * unit + (frac ? (BigInt(frac) * unit) / 10n ** BigInt(frac.length) : 0n);
    rest = rest.slice(m[0].length);
  }
  if (total > 2n ** 63n) return undefined;
  return neg ? -total : total;
}

export function durationFromNanos(n: bigint): Duration {
  return new Duration(n / 1_000_000_000n, Number(n % 1_000_000_000n));
}

export function durationNanos(d: Duration): bigint {
  return d.seconds * 1_000_000_000n + BigInt(d.nanos);
}

/** JSON (RFC 3339 date-time, or a full-date) to Date; undefined when invalid. */
export function parseTimestamp(s: string, dateOnly = false): Date | undefined {
  const re = dateOnly ? /^\d{4}-\d{2}-\d{2}$/ : /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
  if (!re.test(s)) return undefined;
  const d = new Date(dateOnly ? `${s}T00:00:00Z` : s.replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Decoded JSON without a schema: objects become maps, integral numbers ints. */
export function dynToCel(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (Array.isArray(v)) return v.map(dynToCel);
  if (typeof v === 'object') {
    const m = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, dynToCel(x));
    return m;
  }
  return null;
}

/** Decoded JSON to the CEL value of type t; values that do not fit the type are converted as dyn. */
export function toCel(v: unknown, t: DeclType): unknown {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : dynToCel(v);
    case 'uint':
      return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? new UnsignedInt(BigInt(v)) : dynToCel(v);
    case 'double':
      return typeof v === 'number' ? v : dynToCel(v);
    case 'timestamp':
      return typeof v === 'string' ? (parseTimestamp(v) ?? parseTimestamp(v, true) ?? v) : dynToCel(v);
    case 'duration': {
      const n = typeof v === 'string' ? parseGoDuration(v) : undefined;
      return n === undefined ? dynToCel(v) : durationFromNanos(n);
    }
    case 'bytes':
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : dynToCel(v);
    case 'list':
      return Array.isArray(v) ? v.map((x) => toCel(x, t.elem!)) : dynToCel(v);
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return dynToCel(v);
      const m = new Map<string, unknown>();
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, toCel(x, t.elem!));
      return m;
    }
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) return dynToCel(v);
      const o = new t.ctor!() as Record<string, unknown>;
      const src = v as Record<string, unknown>;
      for (const [name, ft] of t.fields!) {
        const json = t.jsonNames!.get(name) ?? name;
        if (Object.hasOwn(src, json) && src[json] !== undefined) o[name] = toCel(src[json], ft);
      }
      return o;
    }
    default:
      return dynToCel(v);
  }
}

/** CEL equality of engine values (objects field by field, lists in order, maps by key). */
export function celEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof a === 'number') {
    if (typeof b === 'bigint' || typeof b === 'number') return Number(a) === Number(b) && (typeof a !== 'bigint' || typeof b !== 'bigint' || a === b);
    if (b instanceof UnsignedInt) return BigInt(Number.isInteger(Number(a)) ? a : -1) === b.value;
    return false;
  }
  if (a instanceof UnsignedInt) return b instanceof UnsignedInt ? a.value === b.value : celEqual(b, a);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Duration) return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof Optional) return b instanceof Optional && a.hasValue() === b.hasValue() && (!a.hasValue() || celEqual(a.value(), b.value()));
  if (a instanceof Uint8Array) return b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => celEqual(x, b[i]));
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, x] of a) if (!b.has(k) || !celEqual(x, b.get(k))) return false;
    return true;
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const bo = b as Record<string, unknown>;
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(bo, k) && celEqual((a as Record<string, unknown>)[k], bo[k]));
}

/**
 * The declared type with its size bounds replaced by the largest sizes found in the value (for the runtime cost
 * bound); undefined parts stay at zero.
 */
export function measured(t: DeclType, v: unknown, acc?: DeclType): DeclType {
  const out: DeclType = acc ?? { ...t, maxElements: 0, elem: undefined, fields: t.fields ? new Map() : undefined };
  if (v === null || v === undefined) return out;
  if (typeof v === 'string') out.maxElements = Math.max(out.maxElements, v.length);
  else if (Array.isArray(v)) {
    out.maxElements = Math.max(out.maxElements, v.length);
    const et = t.elem ?? T.dyn();
    for (const x of v) out.elem = measured(et, x, out.elem);
  } else if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (t.kind === 'object' && t.fields) {
      for (const [name, ft] of t.fields) {
        const x = (v as Record<string, unknown>)[t.jsonNames?.get(name) ?? name];
        if (x !== undefined) out.fields!.set(name, measured(ft, x, out.fields!.get(name)));
      }
    } else {
      out.maxElements = Math.max(out.maxElements, entries.length);
      const et = t.elem ?? T.dyn();
      for (const [, x] of entries) out.elem = measured(et, x, out.elem);
    }
  }
  return out;
}
