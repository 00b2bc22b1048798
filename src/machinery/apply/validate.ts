// Structural checks structured-merge-diff makes when it types an applied configuration: every item of a
// map list must carry its keys (or have defaults for them), set items must be scalars, and no two items
// may share a key. Returns the error text as Kubernetes words it, or undefined when the config is fine.

import { atomFor, fieldType, listItemElement, type TypeRef } from './schema.js';
import { isObj } from './values.js';
import { pathElementString, serializePathElement } from './path.js';
import type { Schema, SchemaSet } from '../schema.js';

export function validateApplied(obj: unknown, schema: Schema | undefined, set: SchemaSet): string | undefined {
  const errs: string[] = [];
  walk(obj, schema, '', errs, set);
  if (errs.length === 0) return undefined;
  if (errs.length === 1) return errs[0];
  return ['errors:', ...errs.map((e) => '  ' + e)].join('\n');
}

function at(path: string, msg: string): string {
  return path ? `${path}: ${msg}` : msg;
}

function walk(v: unknown, tr: TypeRef, path: string, errs: string[], set: SchemaSet): void {
  const atom = atomFor(tr, set, v);
  if (atom.kind === 'scalar') return;
  if (atom.kind === 'map') {
    if (!isObj(v)) return;
    for (const [k, val] of Object.entries(v)) walk(val, fieldType(atom, k), `${path}.${k}`, errs, set);
    return;
  }
  if (!Array.isArray(v)) return;
  if (atom.atomic) {
    v.forEach((item, i) => walk(item, atom.elem, `${path}[${i}]`, errs, set));
    return;
  }
  const seen = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const pe = listItemElement(atom, v[i], set);
    if (typeof pe === 'string') {
      errs.push(at(path, `element ${i}: ${pe}`));
      return;
    }
    const k = serializePathElement(pe);
    if (seen.has(k)) errs.push(at(path, `duplicate entries for key ${pathElementString(pe)}`));
    seen.add(k);
    walk(v[i], atom.elem, path + pathElementString(pe), errs, set);
  }
}
