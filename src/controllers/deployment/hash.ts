// pod-template-hash as kube-controller-manager computes it (controller.ComputeHash): FNV-32a over the Go spew
// "%#v" printing of the v1.PodTemplateSpec struct (hashutil.DeepHashObject via dump.ForHash: sorted map keys, no
// methods, no pointer addresses), then the collision count as 8 little-endian bytes, the decimal Sum32 rendered
// through rand.SafeEncodeString. Values are read as the controller sees them after protobuf decoding (empty lists
// and maps are nil).
import { GO_TYPES } from './hash-types.js';

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const BUILTIN = /^(string|bool|int|int32|int64|uint64|uint32|uint8|byte|float64)$/;

export function computeHash(template: unknown, collisionCount?: number | null): string {
  const bytes: number[] = [...Buffer.from(spewTemplate(template), 'utf8')];
  if (collisionCount !== undefined && collisionCount !== null) {
    const b = Buffer.alloc(8);
    b.writeUInt32LE(collisionCount >>> 0, 0);
    bytes.push(...b);
  }
  return safeEncode(String(fnv32a(bytes)));
}

export function fnv32a(bytes: Iterable<number>): number {
  let h = 0x811c9dc5;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** rand.SafeEncodeString: each character mapped into the vowel-free alphabet by its code point. */
export function safeEncode(s: string): string {
  let out = '';
  for (const ch of s) out += SAFE_ALPHABET[ch.codePointAt(0)! % SAFE_ALPHABET.length];
  return out;
}

/** The spew text of a PodTemplateSpec (exported for tests and debugging). */
export function spewTemplate(template: unknown): string {
  const out: string[] = [];
  format('PodTemplateSpec', template ?? {}, out, false);
  return out.join('');
}

/** Go's reflect type string: core and meta types both live in packages named v1. */
function typeString(expr: string): string {
  return expr.replace(/(metav1\.)?\b([A-Za-z]\w*)\b/g, (all, meta: string | undefined, id: string) => {
    if (meta) return `v1.${id}`;
    if (id === 'map' || BUILTIN.test(id) || !(id in GO_TYPES)) return all;
    return `v1.${id}`;
  }).replace(/\b(resource|intstr|types|time)\.v1\./g, '$1.');
}

function isNil(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return false;
}

function format(expr: string, value: unknown, out: string[], ignoreType: boolean): void {
  if (expr.startsWith('*')) return formatPtr(expr, value, out, ignoreType);
  if (!ignoreType) out.push(`(${typeString(expr)})`);
  if (expr.startsWith('[]')) {
    if (isNil(value) || !Array.isArray(value)) return void out.push('<nil>');
    out.push('[');
    value.forEach((el, i) => {
      if (i > 0) out.push(' ');
      format(expr.slice(2), el, out, true);
    });
    return void out.push(']');
  }
  const map = /^map\[([\w.]+)\](.+)$/.exec(expr);
  if (map) {
    const obj = value as Record<string, unknown> | null | undefined;
    const keys = obj && typeof obj === 'object' ? Object.keys(obj).sort(goStringLess) : [];
    if (!keys.length) return void out.push('<nil>');
    out.push('map[');
    keys.forEach((k, i) => {
      if (i > 0) out.push(' ');
      out.push(k, ':');
      format(map[2], obj![k], out, true);
    });
    return void out.push(']');
  }
  formatNamed(expr, value, out);
}

function formatPtr(expr: string, value: unknown, out: string[], ignoreType: boolean): void {
  const elem = expr.slice(1);
  if (value === undefined || value === null) {
    out.push(ignoreType ? '<nil>' : `(${typeString(expr)})<nil>`);
    return;
  }
  out.push(ignoreType ? '<*>' : `(*${typeString(elem)})`);
  format(elem, value, out, true);
}

function formatNamed(expr: string, value: unknown, out: string[]): void {
  switch (expr) {
    case 'string':
    case 'types.UID':
      return void out.push(typeof value === 'string' ? value : '');
    case 'bool':
      return void out.push(value === true ? 'true' : 'false');
    case 'int':
    case 'int32':
    case 'int64':
    case 'uint8':
    case 'byte':
    case 'uint32':
    case 'uint64':
      return void out.push(String(typeof value === 'number' ? Math.trunc(value) : 0));
    case 'metav1.Time':
      // templates carry no timestamps; the zero time.Time
      return void out.push('{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}');
    case 'resource.Quantity':
      return void out.push(formatQuantity(typeof value === 'number' ? String(value) : String(value ?? '')));
    case 'intstr.IntOrString': {
      const isStr = typeof value === 'string';
      return void out.push(`{Type:(intstr.Type)${isStr ? 1 : 0} IntVal:(int32)${isStr ? 0 : Number(value ?? 0)} StrVal:(string)${isStr ? value : ''}}`);
    }
  }
  const def = GO_TYPES[expr];
  if (def === undefined) throw new Error(`pod-template-hash: no Go layout for ${expr}`);
  // a named builtin, slice or map: its own name is printed already, the value prints by its kind
  if (def.startsWith('=')) return format(def.slice(1), value, out, true);
  const obj = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  out.push('{');
  def.split(';').forEach((f, i) => {
    const [goName, json, type] = f.split(' ');
    if (i > 0) out.push(' ');
    out.push(goName, ':');
    const v = json === '' ? obj : json === '-' ? undefined : obj[json];
    format(type, v, out, false);
  });
  out.push('}');
}

function goStringLess(a: string, b: string): number {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return Buffer.compare(ba, bb);
}

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** resource.Quantity's unexported fields after ParseQuantity (int64 fast path; other values keep only Format). */
function formatQuantity(str: string): string {
  const q = parseQuantity(str);
  return `{i:(resource.int64Amount){value:(int64)${q.value} scale:(resource.Scale)${q.scale}} d:(resource.infDecAmount){Dec:(*inf.Dec)<nil>} s:(string)${q.s} Format:(resource.Format)${q.format}}`;
}

function parseQuantity(str: string): { value: bigint; scale: number; s: string; format: string } {
  if (str === '0') return { value: 0n, scale: 0, s: '0', format: 'DecimalSI' };
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(str);
  if (!m) return { value: 0n, scale: 0, s: '', format: 'DecimalSI' };
  const positive = m[1] !== '-';
  const num = m[2] || '0';
  const denom = m[3] ?? '';
  const suf = m[4];
  let format: string;
  let exponent: number;
  if (suf in DECIMAL_SUFFIX) [format, exponent] = ['DecimalSI', DECIMAL_SUFFIX[suf]];
  else if (suf in BINARY_SUFFIX) [format, exponent] = ['BinarySI', BINARY_SUFFIX[suf]];
  else if (/^[eE][+-]?\d+$/.test(suf)) [format, exponent] = ['DecimalExponent', Number(suf.slice(1))];
  else return { value: 0n, scale: 0, s: '', format: 'DecimalSI' };
  let scale = 0;
  let mantissa = 1n;
  let precision: number;
  if (format === 'BinarySI') {
    if (exponent >= 0 && !denom.length) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      const result = v * mantissa;
      if (result <= 0x7fffffffffffffffn) {
        const signed = positive ? result : -result;
        const canonical =
          format === 'BinarySI' ? exponent % 10 === 0 && (v & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { value: signed, scale, s: canonical ? str : '', format };
      }
    }
  }
  // The inf.Dec path (very large or very precise values) is not modelled.
  return { value: 0n, scale: 0, s: '', format };
}
