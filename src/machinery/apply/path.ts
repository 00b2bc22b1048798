// Path elements and paths, the addresses field sets are made of (structured-merge-diff fieldpath.PathElement):
// their order, their fieldsV1 key form and their human form. A module of their own because the schema's atoms
// name list items with them and field sets are tries of them; sharing them from fieldset.ts made a cycle.
//
// A path element is a field name (`f:name`), a map-list key (`k:{"name":"x"}`, fields sorted by name), a set
// value (`v:"x"`) or a list index (`i:0`).

import { compareStrings, compareValues, goJSON, goJSONString, isObj, valueToString } from './values.js';

export type PathElement =
  | { readonly field: string }
  | { readonly key: ReadonlyArray<readonly [string, unknown]> }
  | { readonly value: unknown }
  | { readonly index: number };

export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { field: name };
}

/** A map-list key; fields are sorted by name as structured-merge-diff does. */
export function keyElement(fields: Record<string, unknown> | ReadonlyArray<readonly [string, unknown]>): PathElement {
  const list = Array.isArray(fields) ? [...fields] : Object.entries(fields as Record<string, unknown>);
  list.sort((a, b) => compareStrings(a[0], b[0]));
  return { key: list };
}

export function valueElement(value: unknown): PathElement {
  return { value };
}

export function indexElement(index: number): PathElement {
  return { index };
}

function rank(pe: PathElement): number {
  if ('field' in pe) return 0;
  if ('key' in pe) return 1;
  if ('value' in pe) return 2;
  return 3;
}

/** The order structured-merge-diff keeps path elements in: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if ('field' in a && 'field' in b) return compareStrings(a.field, b.field);
  if ('key' in a && 'key' in b) {
    for (let i = 0; ; i++) {
      if (i >= a.key.length && i >= b.key.length) return 0;
      if (i >= a.key.length) return -1;
      if (i >= b.key.length) return 1;
      const c = compareStrings(a.key[i][0], b.key[i][0]) || compareValues(a.key[i][1], b.key[i][1]);
      if (c !== 0) return c;
    }
  }
  if ('value' in a && 'value' in b) return compareValues(a.value, b.value);
  const ia = (a as { index: number }).index;
  const ib = (b as { index: number }).index;
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

/** The `f:`/`k:`/`v:`/`i:` form used as a key in fieldsV1. */
export function serializePathElement(pe: PathElement): string {
  if ('field' in pe) return 'f:' + pe.field;
  if ('key' in pe) return 'k:{' + pe.key.map(([k, v]) => goJSONString(k) + ':' + goJSON(v)).join(',') + '}';
  if ('value' in pe) return 'v:' + goJSON(pe.value);
  return 'i:' + String(pe.index);
}

/** Parses one fieldsV1 key. Returns undefined for an unknown element type (Kubernetes drops those). */
export function parsePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new Error('key must be 2 characters long:');
  if (s[1] !== ':') throw new Error(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { field: rest };
    case 'v':
      return { value: JSON.parse(rest) as unknown };
    case 'k': {
      const obj = JSON.parse(rest) as unknown;
      if (!isObj(obj)) throw new Error(`invalid key path element: ${s}`);
      return keyElement(obj);
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(rest)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(rest)}: invalid syntax`);
      return { index: Number(rest) };
    }
    default:
      return undefined;
  }
}

/** Human form used in conflict messages: `.spec.containers[name="nginx"].image`, `.finalizers[="x"]`. */
export function pathElementString(pe: PathElement): string {
  if ('field' in pe) return '.' + pe.field;
  if ('key' in pe) return '[' + pe.key.map(([k, v]) => `${k}=${valueToString(v)}`).join(',') + ']';
  if ('value' in pe) return `[=${valueToString(pe.value)}]`;
  return `[${pe.index}]`;
}

export function formatPath(path: Path): string {
  return path.map(pathElementString).join('');
}
