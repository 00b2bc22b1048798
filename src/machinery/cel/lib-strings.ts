// cel-go's strings extension, version 2 (what kube-apiserver 1.33 uses): indices count code points, lowerAscii
// touches ASCII only, trim is Go's strings.TrimSpace; plus string.format and strings.quote.
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CelRuntimeError } from './errors.js';
import type { LibraryRegistrar } from './env.js';

const runes = (s: string): string[] => [...s];
const idx = (n: bigint): number => (n > 2n ** 31n ? 2 ** 31 : n < -(2n ** 31n) ? -(2 ** 31) : Number(n));
const outOfRange = (i: bigint | number): CelRuntimeError => new CelRuntimeError(`index out of range: ${i}`);

function indexOf(s: string, sub: string, off: bigint): bigint {
  if (sub === '') return off;
  const r = runes(s);
  const sr = runes(sub);
  const o = idx(off);
  if (o < 0) throw outOfRange(o);
  if (o >= r.length) return -1n;
  for (let i = o; i < r.length - (sr.length - 1); i++) if (sr.every((c, j) => r[i + j] === c)) return BigInt(i);
  return -1n;
}

function lastIndexOf(s: string, sub: string, off?: bigint): bigint {
  const r = runes(s);
  if (sub === '') return off ?? BigInt(r.length);
  const sr = runes(sub);
  let o = off === undefined ? r.length - 1 : idx(off);
  if (o < 0) throw outOfRange(o);
  if (o >= r.length) return -1n;
  if (o > r.length - sr.length) o = r.length - sr.length;
  for (let i = o; i >= 0; i--) if (sr.every((c, j) => r[i + j] === c)) return BigInt(i);
  return -1n;
}

/** Go's strings.SplitN (n < 0: all; n == 0: none). */
export function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const r = runes(s);
    if (n < 0 || n >= r.length) return r;
    return [...r.slice(0, n - 1), r.slice(n - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** Go's strings.Replace (n < 0: all). */
function replaceN(s: string, old: string, rep: string, n: number): string {
  if (n === 0 || old === rep) return s;
  if (old === '') {
    const r = runes(s);
    let out = '';
    let done = 0;
    for (let i = 0; i <= r.length; i++) {
      if (n < 0 || done < n) {
        out += rep;
        done++;
      }
      if (i < r.length) out += r[i];
    }
    return out;
  }
  const parts = s.split(old);
  if (n < 0 || parts.length - 1 <= n) return parts.join(rep);
  return parts.slice(0, n + 1).join(rep) + old + parts.slice(n + 1).join(old);
}

const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const mapAscii = (s: string, f: (c: string) => string): string => s.replace(/[A-Za-z]/g, f);

export function quote(s: string): string {
  const esc: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };
  return `"${s.replace(/\p{Cs}/gu, "\ufffd").replace(/[\x07\b\f\n\r\t\v\\"]/g, (c) => esc[c])}"`;
}

/** CEL's string conversion of a value, as format's %s clause writes it. */
export function formatValue(v: unknown, inList = false): string {
  if (typeof v === 'string') return inList ? quote(v) : v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof UnsignedInt) return v.value.toString();
  if (typeof v === 'number') return formatDouble(v);
  if (typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  if (v instanceof Uint8Array) return inList ? quote(Buffer.from(v).toString('utf8')) : Buffer.from(v).toString('utf8');
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (v instanceof Duration) return formatDuration(v);
  if (Array.isArray(v)) return `[${v.map((x) => formatValue(x, true)).join(', ')}]`;
  if (v instanceof Map) {
    const keys = [...v.keys()].map((k) => [formatValue(k, true), k] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return `{${keys.map(([ks, k]) => `${ks}: ${formatValue(v.get(k), true)}`).join(', ')}}`;
  }
  if (v instanceof Optional) return v.hasValue() ? `optional.of(${formatValue(v.value(), true)})` : 'optional.none()';
  if (typeof v === 'object' && typeof (v as { toString?: unknown }).toString === 'function' && (v as object).toString !== Object.prototype.toString) return String(v);
  throw new CelRuntimeError('no formatting function for object');
}

function formatDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  const abs = Math.abs(v);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e21)) return v.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  return String(v);
}

function formatDuration(d: Duration): string {
  const ns = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const s = Number(ns) / 1e9;
  return `${Number.isInteger(s) ? s : String(s)}s`;
}

function formatClause(verb: string, precision: number | undefined, arg: unknown): string {
  const num = (): number | bigint => {
    if (typeof arg === 'bigint' || typeof arg === 'number') return arg;
    if (arg instanceof UnsignedInt) return arg.value;
    throw new CelRuntimeError(`could not convert "${formatValue(arg)}" to float64`);
  };
  switch (verb) {
    case 's':
      return formatValue(arg);
    case 'd': {
      if (typeof arg === 'bigint') return arg.toString();
      if (arg instanceof UnsignedInt) return arg.value.toString();
      if (typeof arg === 'number' && !Number.isFinite(arg)) return formatDouble(arg);
      throw new CelRuntimeError(`decimal clause can only be used on integers, was given ${typeName(arg)}`);
    }
    case 'f':
    case 'e': {
      const n = Number(num());
      if (!Number.isFinite(n)) return formatDouble(n);
      const p = precision ?? 6;
      return verb === 'f' ? n.toFixed(p) : n.toExponential(p).replace(/e([+-])(\d)$/, 'e$10$2');
    }
    case 'x':
    case 'X':
    case 'o':
    case 'b': {
      const base = verb === 'o' ? 8 : verb === 'b' ? 2 : 16;
      let out: string;
      if (typeof arg === 'string') out = Buffer.from(arg).toString('hex');
      else if (arg instanceof Uint8Array) out = Buffer.from(arg).toString('hex');
      else {
        const n = num();
        if (typeof n === 'number') throw new CelRuntimeError(`only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(arg)}`);
        out = n < 0n ? `-${(-n).toString(base)}` : n.toString(base);
      }
      return verb === 'X' ? out.toUpperCase() : out;
    }
  }
  throw new CelRuntimeError(`unrecognized formatting clause "${verb}"`);
}

const typeName = (v: unknown): string =>
  typeof v === 'bigint' ? 'int' : typeof v === 'number' ? 'double' : typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : v === null ? 'null_type' : Array.isArray(v) ? 'list' : v instanceof Map ? 'map' : 'object';

export function format(fmt: string, args: unknown[]): string {
  let out = '';
  let argIndex = 0;
  const r = runes(fmt);
  for (let i = 0; i < r.length; i++) {
    if (r[i] !== '%') {
      out += r[i];
      continue;
    }
    i++;
    if (i >= r.length) throw new CelRuntimeError('unexpected end of string');
    if (r[i] === '%') {
      out += '%';
      continue;
    }
    let precision: number | undefined;
    if (r[i] === '.') {
      let digits = '';
      i++;
      while (i < r.length && r[i] >= '0' && r[i] <= '9') digits += r[i++];
      precision = digits ? Number(digits) : 0;
      if (i >= r.length) throw new CelRuntimeError('unexpected end of string');
    }
    if (argIndex >= args.length) throw new CelRuntimeError(`index ${argIndex} out of range`);
    out += formatClause(r[i], precision, args[argIndex++]);
  }
  return out;
}

export function registerStrings(reg: LibraryRegistrar): void {
  reg.fn('string.__k1s_charAt(int): string', (s: string, i: bigint) => {
    const r = runes(s);
    if (i < 0n || i > BigInt(r.length)) throw outOfRange(i);
    return r[Number(i)] ?? '';
  });
  reg.fn('string.__k1s_indexOf(string): int', (s: string, sub: string) => indexOf(s, sub, 0n));
  reg.fn('string.__k1s_indexOf(string, int): int', (s: string, sub: string, off: bigint) => indexOf(s, sub, off));
  reg.fn('string.__k1s_lastIndexOf(string): int', (s: string, sub: string) => lastIndexOf(s, sub));
  reg.fn('string.__k1s_lastIndexOf(string, int): int', (s: string, sub: string, off: bigint) => lastIndexOf(s, sub, off));
  reg.fn('string.__k1s_lowerAscii(): string', (s: string) => mapAscii(s, (c) => c.toLowerCase()));
  reg.fn('string.__k1s_upperAscii(): string', (s: string) => mapAscii(s, (c) => c.toUpperCase()));
  reg.fn('string.__k1s_replace(string, string): string', (s: string, a: string, b: string) => replaceN(s, a, b, -1));
  reg.fn('string.__k1s_replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => replaceN(s, a, b, idx(n)));
  reg.fn('string.__k1s_split(string): list<string>', (s: string, sep: string) => splitN(s, sep, -1));
  reg.fn('string.__k1s_split(string, int): list<string>', (s: string, sep: string, n: bigint) => splitN(s, sep, idx(n)));
  reg.fn('string.__k1s_substring(int): string', (s: string, start: bigint) => {
    const r = runes(s);
    if (start < 0n || start > BigInt(r.length)) throw outOfRange(start);
    return r.slice(Number(start)).join('');
  });
  reg.fn('string.__k1s_substring(int, int): string', (s: string, start: bigint, end: bigint) => {
    const r = runes(s);
    if (start > end) throw new CelRuntimeError(`invalid substring range. start: ${start}, end: ${end}`);
    if (start < 0n || start > BigInt(r.length)) throw outOfRange(start);
    if (end < 0n || end > BigInt(r.length)) throw outOfRange(end);
    return r.slice(Number(start), Number(end)).join('');
  });
  reg.fn('string.__k1s_trim(): string', (s: string) => s.replace(GO_SPACE, ''));
  reg.fn('list<string>.__k1s_join(): string', (l: string[]) => l.join(''));
  reg.fn('list<string>.__k1s_join(string): string', (l: string[], sep: string) => l.join(sep));
  reg.fn('string.format(list<dyn>): string', (f: string, args: unknown[]) => format(f, args));
  class StringsNamespace {}
  reg.type('k1s.StringsNamespace', StringsNamespace);
  reg.constant('strings', 'k1s.StringsNamespace', new StringsNamespace());
  reg.fn('k1s.StringsNamespace.quote(string): string', (_ns: unknown, s: string) => quote(s));
}
