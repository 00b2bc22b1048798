// How server-side apply sees a schema node (structured-merge-diff "atoms"): a scalar, a map (a struct with
// declared fields and/or a granular map with an element type, possibly atomic) or a list (atomic, a set of
// scalars, or a map list with key fields). A missing schema means "deduced" from the value, as Kubernetes
// does for x-kubernetes-preserve-unknown-fields: objects are granular maps, arrays atomic, the rest scalars.

import { isObj } from './values.js';
import { keyElement, valueElement, type PathElement } from './path.js';
import type { Schema, SchemaSet } from '../schema.js';

/** A schema node reference; undefined means "deduced from the value". */
export type TypeRef = Schema | undefined;

export type Atom =
  | { readonly kind: 'scalar' }
  | {
      readonly kind: 'map';
      readonly atomic: boolean;
      /** declared (struct) fields */
      readonly fields: Readonly<Record<string, Schema>> | undefined;
      /** type of undeclared keys; undefined = deduced */
      readonly elem: TypeRef;
    }
  | {
      readonly kind: 'list';
      readonly atomic: boolean;
      /** key fields of a map list; empty for a set */
      readonly keys: readonly string[];
      readonly elem: TypeRef;
    };

const SCALAR: Atom = { kind: 'scalar' };
const DEDUCED_MAP: Atom = { kind: 'map', atomic: false, fields: undefined, elem: undefined };
const DEDUCED_LIST: Atom = { kind: 'list', atomic: true, keys: [], elem: undefined };

function deduce(value: unknown): Atom {
  if (isObj(value)) return DEDUCED_MAP;
  if (Array.isArray(value)) return DEDUCED_LIST;
  if (value === undefined) return DEDUCED_MAP;
  return SCALAR;
}

/**
 * The atom for `tr`, looking at `value` only to deduce untyped nodes and to treat a value of the wrong
 * shape (a scalar where the schema wants a map or list) as a leaf.
 */
export function atomFor(tr: TypeRef, set: SchemaSet, value: unknown): Atom {
  return valueAtom(typeAtom(tr, set), value);
}

/** The atom `tr` declares whatever the value (see valueAtom); null when it is deduced from the value. */
export function typeAtom(tr: TypeRef, set: SchemaSet): Atom | null {
  const sc = set.resolve(tr);
  if (!sc) return null;
  // the schema's own atom is built once per schema node (walks ask for it at every value)
  let atom = set.derived.get(sc) as Atom | null | undefined;
  if (atom === undefined) set.derived.set(sc, (atom = schemaAtom(sc)));
  return atom;
}

/** atomFor with the type's atom (typeAtom) looked up already: walks that cache it skip the schema lookups. */
export function valueAtom(atom: Atom | null, value: unknown): Atom {
  if (atom === null) return deduce(value);
  if (atom.kind === 'scalar' || value === undefined || value === null) return atom;
  if (atom.kind === 'map' && !isObj(value)) return SCALAR;
  if (atom.kind === 'list' && !Array.isArray(value)) return SCALAR;
  return atom;
}

/** The atom a schema node describes whatever the value; null when it is deduced from the value. */
function schemaAtom(sc: Schema): Atom | null {
  if (sc.intOrString) return SCALAR;
  if (sc.type === 'array' || (sc.type === undefined && sc.items)) {
    const lt = sc.listType ?? 'atomic';
    return { kind: 'list', atomic: lt === 'atomic', keys: lt === 'map' ? (sc.listMapKeys ?? []) : [], elem: sc.items };
  }
  if (sc.type === 'object' || (sc.type === undefined && (sc.properties || sc.additionalProperties))) {
    if (!sc.properties && !sc.additionalProperties) return null;
    return { kind: 'map', atomic: sc.mapType === 'atomic', fields: sc.properties, elem: sc.additionalProperties };
  }
  return sc.type === undefined ? null : SCALAR;
}

/** The type of the value under `key` of a map atom. */
export function fieldType(atom: Atom, key: string): TypeRef {
  if (atom.kind !== 'map') return undefined;
  if (atom.fields && Object.prototype.hasOwnProperty.call(atom.fields, key)) return atom.fields[key];
  return atom.elem;
}

/** Whether `key` is a declared (struct) field of a map atom. */
export function isDeclaredField(atom: Atom, key: string): boolean {
  return atom.kind === 'map' && !!atom.fields && Object.prototype.hasOwnProperty.call(atom.fields, key);
}

/** The type of the items of a list atom. */
export function elemType(atom: Atom): TypeRef {
  return atom.kind === 'list' ? atom.elem : undefined;
}

/**
 * The path element that names `item` inside an associative list (`k:` for map lists, `v:` for sets), or an
 * error text as structured-merge-diff words it when the item cannot be named.
 */
export function listItemElement(atom: Atom, item: unknown, set: SchemaSet): PathElement | string {
  if (atom.kind !== 'list') return 'invalid indexing of non-associative list';
  if (atom.keys.length > 0) {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isObj(item)) return 'associative list with keys may not have non-map elements';
    const fields: [string, unknown][] = [];
    for (const k of atom.keys) {
      if (Object.prototype.hasOwnProperty.call(item, k)) fields.push([k, item[k]]);
      else {
        const def = keyDefault(atom.elem, k, set);
        if (def !== undefined && def !== null) fields.push([k, def]);
      }
    }
    if (fields.length === 0) {
      const quoted = '[' + atom.keys.map((k) => JSON.stringify(k)).join(' ') + ']';
      return `associative list with keys has an element that omits all key fields ${quoted} (and doesn't have default values for any key fields)`;
    }
    return keyElement(fields);
  }
  if (isObj(item)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  if (item === null || item === undefined) return "associative list without keys has an element that's an explicit null";
  return valueElement(item);
}

function keyDefault(elem: TypeRef, key: string, set: SchemaSet): unknown {
  const sc = set.resolve(elem);
  const prop = sc?.properties?.[key];
  if (!prop) return undefined;
  return prop.default !== undefined ? prop.default : set.resolve(prop)?.default;
}
