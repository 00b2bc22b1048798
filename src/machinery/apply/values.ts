// JSON value helpers that reproduce the Go behaviour server-side apply depends on: encoding/json-style
// serialisation (sorted map keys, HTML-safe escaping), Go's %q quoting, and structured-merge-diff's total
// order and equality over values (value.Compare / value.Equals / value.ToString).

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep copy of a JSON value. */
export function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => clone(x)) as T;
  if (isObj(v)) {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) out[k] = clone(x);
    return out as T;
  }
  return v;
}

/** Go's string order (bytewise UTF-8, i.e. code point order), not JavaScript's UTF-16 order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Characters goJSONString writes otherwise than as themselves. */
const GO_ESCAPED = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;

/** A JSON string literal as Go's encoding/json writes it (HTML-safe escaping). */
export function goJSONString(s: string): string {
  if (!GO_ESCAPED.test(s)) return '"' + s + '"';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) {
      out += '\\u' + c.toString(16).padStart(4, '0');
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += ch + s[++i];
    } else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

/** JSON as Go's encoding/json (and json-iterator's standard-compatible config) writes it: maps with sorted keys. */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJSONString(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return '[' + v.map((x) => goJSON(x)).join(',') + ']';
  if (isObj(v)) {
    const keys = Object.keys(v).sort(compareStrings);
    return '{' + keys.map((k) => goJSONString(k) + ':' + goJSON(v[k])).join(',') + '}';
  }
  return 'null';
}

/** Go's %q for a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad || c === 0x2028 || c === 0x2029 || c === 0xfeff) {
      out += c > 0xff ? '\\u' + c.toString(16).padStart(4, '0') : '\\u00' + c.toString(16).padStart(2, '0');
    } else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

type Kind = 0 | 1 | 2 | 3 | 4 | 5; // number, string, bool, list, map, null

function kindOf(v: unknown): Kind {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isObj(v)) return 4;
  return 5;
}

/** structured-merge-diff's total order over values: numbers < strings < booleans < lists < maps < null. */
export function compareValues(a: unknown, b: unknown): number {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  switch (ka) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case 4: {
      const x = a as Obj;
      const y = b as Obj;
      const xl = Object.keys(x).length;
      const yl = Object.keys(y).length;
      const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort(compareStrings);
      let i = 0;
      for (const k of keys) {
        let c: number;
        if (i === xl) c = -1;
        else if (i === yl) c = 1;
        else if (!(k in x)) c = 1;
        else if (!(k in y)) c = -1;
        else c = compareValues(x[k], y[k]);
        i++;
        if (c !== 0) return c;
      }
      return 0;
    }
    default:
      return 0;
  }
}

/** Deep equality of JSON values (value.Equals). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => valuesEqual(x, b[i]));
  }
  if (isObj(a)) {
    if (!isObj(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && valuesEqual(a[k], b[k]));
  }
  return false;
}

/** value.ToString: how a value prints inside a field path, e.g. `"nginx"`, `80`, `true`. */
export function valueToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map((x) => valueToString(x)).join(',') + ']';
  if (isObj(v)) return Object.entries(v).map(([k, x]) => `${k}=${valueToString(x)}`).join('');
  return '{{undefined}}';
}
