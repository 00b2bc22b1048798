// Schema checks kube-apiserver does while decoding a body: wrong JSON types (always an error, as Go's JSON
// decoder fails) and unknown fields (an error, a warning or nothing, per fieldValidation).
import type { Schema, SchemaSet } from './schema.js';
import { isPlainObject } from './object.js';

export interface DecodeProblems {
  /** "json: cannot unmarshal ..." style messages: always fatal */
  typeErrors: string[];
  /** paths such as "spec.foo" or "spec.containers[0].bar" */
  unknownFields: string[];
}

const goTypes: Record<string, string> = {
  int32: 'int32',
  int64: 'int64',
  double: 'float64',
  byte: '[]uint8',
};

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function goTypeOf(sc: Schema, name: string): string {
  switch (sc.type) {
    case 'integer':
      return goTypes[sc.format ?? ''] ?? 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'string':
      return sc.format === 'byte' ? '[]uint8' : 'string';
    case 'array':
      return `[]${name}`;
    case 'object':
      return sc.additionalProperties ? `map[string]${name}` : name;
    default:
      return name;
  }
}

/**
 * Walks `obj` against `root`, collecting type errors and unknown fields. `checked`: values of a stored revision by
 * their path ('spec', 'metadata.labels'); one found at that same path in `obj` is not walked (a patch result shares
 * what the patch left alone, and it was checked when written). Elsewhere (a JSON patch's copy) it is.
 */
export function checkAgainstSchema(obj: unknown, root: Schema, set: SchemaSet, checked?: ReadonlyMap<object, string>): DecodeProblems {
  const out: DecodeProblems = { typeErrors: [], unknownFields: [] };
  walk(obj, root, [], 'Object', set, out, checked);
  return out;
}

function shortName(ref: string | undefined): string {
  if (!ref) return 'Object';
  const i = ref.lastIndexOf('.');
  return i >= 0 ? ref.slice(i + 1) : ref;
}

// The path of a value ("spec.containers[0].image"): the walks keep one stack of keys and indexes and spell it out
// only when a problem is reported (most bodies have none, and building every field's path was a good part of the
// walk's cost).
type Path = (string | number)[];

function pathText(path: readonly (string | number)[]): string {
  let s = '';
  for (const at of path) s = typeof at === 'number' ? `${s}[${at}]` : s ? `${s}.${at}` : at;
  return s;
}

function walk(v: unknown, sc0: Schema | undefined, path: Path, parent: string, set: SchemaSet, out: DecodeProblems, checked?: ReadonlyMap<object, string>): void {
  if (!sc0 || v === null || v === undefined) return;
  if (checked !== undefined && typeof v === 'object' && (path.length === 1 || path.length === 2)) {
    const at = checked.get(v);
    if (at !== undefined && at === (path.length === 1 ? path[0] : `${path[0]}.${path[1]}`)) return;
  }
  const refName = sc0.ref;
  const sc = set.resolve(sc0);
  if (!sc || sc.preserveUnknownFields) return;
  if (sc.intOrString) {
    if (typeof v !== 'string' && typeof v !== 'number') typeError(v, 'IntOrString', path, parent, out);
    return;
  }
  if (refName === 'io.k8s.apimachinery.pkg.api.resource.Quantity') {
    if (typeof v !== 'string' && typeof v !== 'number') typeError(v, 'Quantity', path, parent, out);
    return;
  }
  const t = jsonType(v);
  switch (sc.type) {
    case 'string':
      if (t !== 'string') typeError(v, goTypeOf(sc, ''), path, parent, out);
      return;
    case 'boolean':
      if (t !== 'boolean') typeError(v, 'bool', path, parent, out);
      return;
    case 'integer':
      if (t !== 'number' || !Number.isInteger(v)) typeError(v, goTypeOf(sc, ''), path, parent, out);
      return;
    case 'number':
      if (t !== 'number') typeError(v, 'float64', path, parent, out);
      return;
    case 'array': {
      if (t !== 'array') {
        typeError(v, `[]${shortName(sc.items?.ref) || 'string'}`, path, parent, out);
        return;
      }
      const arr = v as unknown[];
      for (let i = 0; i < arr.length; i++) {
        const item = arr[i];
        if (item === null || item === undefined) continue;
        path.push(i);
        walk(item, sc.items, path, parent, set, out, checked);
        path.pop();
      }
      return;
    }
    case 'object':
    default: {
      if (!sc.properties && !sc.additionalProperties) return;
      if (t !== 'object') {
        typeError(v, sc.additionalProperties ? 'map[string]string' : shortName(refName), path, parent, out);
        return;
      }
      const o = v as Record<string, unknown>;
      const here = refName ? shortName(refName) : parent;
      for (const k of Object.keys(o)) {
        const csc = sc.properties?.[k] ?? sc.additionalProperties;
        const child = o[k];
        if (csc && (child === null || child === undefined)) continue;
        path.push(k);
        if (!csc) out.unknownFields.push(pathText(path));
        else walk(child, csc, path, here, set, out, checked);
        path.pop();
      }
    }
  }
}

function typeError(v: unknown, goType: string, path: Path, parent: string, out: DecodeProblems): void {
  const jt = jsonType(v);
  const what = jt === 'object' ? 'object' : jt === 'array' ? 'array' : jt;
  out.typeErrors.push(`json: cannot unmarshal ${what} into Go struct field ${parent}.${pathText(path)} of type ${goType}`);
}

/**
 * Finds keys that occur twice in one JSON object of a raw body (JSON.parse silently keeps the last). Paths are
 * spelled out only for the duplicates found, from one stack of keys and indexes, and string values are skipped
 * without being decoded.
 */
export function duplicateFields(raw: string): string[] {
  const dups: string[] = [];
  let i = 0;
  const n = raw.length;
  const ws = () => {
    for (let c = raw.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = raw.charCodeAt(++i));
  };
  /** where the next backslash is at or after the string being read (-1: none left) */
  let backslash = raw.indexOf('\\');
  /** moves past a string (at its opening quote); returns whether it has escapes */
  const skipString = (): boolean => {
    // most strings have no escapes: jump to the closing quote
    const close = raw.indexOf('"', i + 1);
    if (backslash !== -1 && backslash <= i) backslash = raw.indexOf('\\', i + 1);
    if (close !== -1 && (backslash === -1 || backslash > close)) {
      i = close + 1;
      return false;
    }
    let escaped = false;
    i++;
    for (let c = raw.charCodeAt(i); i < n && c !== 0x22; c = raw.charCodeAt(i)) {
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else i++;
    }
    i++;
    return escaped;
  };
  const key = (): string => {
    const start = i;
    const escaped = skipString();
    // Most keys have no escapes: their text is their value (JSON.parse still judges anything unusual).
    const inner = raw.slice(start + 1, i - 1);
    return escaped || i > n || /[\u0000-\u001f]/.test(inner) ? (JSON.parse(raw.slice(start, i)) as string) : inner;
  };
  /** the keys and indexes from the root to the value being read */
  const path: Path = [];
  const pathNow = (): string => pathText(path);
  const value = (): void => {
    ws();
    const c = raw.charCodeAt(i);
    if (c === 0x7b) {
      i++;
      // the keys so far: a short list for the small objects of most bodies, a Set once an object is large
      let seen: string[] | Set<string> = [];
      ws();
      if (raw.charCodeAt(i) === 0x7d) {
        i++;
        return;
      }
      while (i < n) {
        ws();
        const k = key();
        path.push(k);
        if (Array.isArray(seen)) {
          if (seen.includes(k)) dups.push(pathNow());
          seen.push(k);
          if (seen.length > 16) seen = new Set(seen);
        } else {
          if (seen.has(k)) dups.push(pathNow());
          seen.add(k);
        }
        ws();
        i++; // ':'
        value();
        path.pop();
        ws();
        if (raw.charCodeAt(i) === 0x2c) {
          i++;
          continue;
        }
        i++; // '}'
        return;
      }
    } else if (c === 0x5b) {
      i++;
      ws();
      if (raw.charCodeAt(i) === 0x5d) {
        i++;
        return;
      }
      let idx = 0;
      while (i < n) {
        path.push(idx++);
        value();
        path.pop();
        ws();
        if (raw.charCodeAt(i) === 0x2c) {
          i++;
          continue;
        }
        i++;
        return;
      }
    } else if (c === 0x22) {
      skipString();
    } else {
      // a number, true, false or null
      for (let d = raw.charCodeAt(i); i < n && d !== 0x2c && d !== 0x7d && d !== 0x5d && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09; d = raw.charCodeAt(++i));
    }
  };
  try {
    value();
  } catch {
    return dups;
  }
  return dups;
}

export function isObjectBody(v: unknown): v is Record<string, unknown> {
  return isPlainObject(v);
}
