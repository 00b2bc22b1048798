// The fieldsV1 of an object's first managedFields entry, written straight from the object. A create that brings no
// managedFields of its own owns every field it sets (less the system fields), and the general path gets there by
// comparing the object with {} into field-set tries, subtracting the unownable fields and encoding the tries:
// about half the CPU of a pod create. This walk emits the same JSON (same keys, same order) in one pass.
// test/unit/machinery/managed-fields-create.test.ts checks it against the general path.

import { atomFor, elemType, fieldType, type Atom, type TypeRef } from './apply-schema.js';
import { compareStrings, isObj, type Obj } from './apply-values.js';
import { indexItems } from './apply-walk.js';
import { comparePathElements } from './fieldset.js';
import type { Schema, SchemaSet } from './schema.js';

type Fields = Record<string, unknown>;

/** The top-level fields no manager owns (they are only written when something below them is owned). */
const UNOWNED_TOP = new Set(['apiVersion', 'kind', 'metadata']);
/** The metadata fields no manager owns. */
const UNOWNED_META = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']);

/**
 * The fieldsV1 a create's Update entry gets: every field `obj` sets, less the unownable ones, in structured-merge-
 * diff's order; undefined when that leaves nothing. `obj` must not carry metadata.managedFields.
 */
export function createdFieldsV1(obj: Obj, schema: Schema | undefined, set: SchemaSet): Fields | undefined {
  // compareObjects({}, obj): both sides must be maps for the root to be walked at all
  const atom = atomFor(schema, set, {});
  const ra = atomFor(schema, set, obj);
  if (atom.kind !== 'map' || ra.kind !== 'map' || atom.atomic) return undefined;
  return mapChildren(obj, atom, set, { self: false, unowned: UNOWNED_TOP });
}

/** The keys with a value, in Go's string order. */
function definedKeys(o: Obj): string[] {
  const keys: string[] = [];
  let plain = true;
  for (const k of Object.keys(o)) {
    if (o[k] === undefined) continue;
    keys.push(k);
    // JavaScript's own order is UTF-16's, which differs from Go's only for characters past U+D7FF
    if (plain && SURROGATE_OR_LATER.test(k)) plain = false;
  }
  if (!plain) return keys.sort(compareStrings);
  // insertion sort: maps are small, and `<` on strings beats sort()'s generic comparison
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > k; j--) keys[j + 1] = keys[j];
    keys[j + 1] = k;
  }
  return keys;
}

/** `f:<name>` of a field: the declared fields' keys are made once per schema node (and so are already interned). */
function fieldKey(atom: Atom, k: string, set: SchemaSet): string {
  const fields = atom.kind === 'map' ? atom.fields : undefined;
  if (!fields || !Object.prototype.hasOwnProperty.call(fields, k)) return 'f:' + k;
  let names = set.derived.get(fields) as Map<string, string> | undefined;
  if (!names) set.derived.set(fields, (names = new Map(Object.keys(fields).map((n) => [n, 'f:' + n]))));
  return names.get(k)!;
}

const SURROGATE_OR_LATER = /[\ud800-\uffff]/;

/** How a node is written: `self` when it is a member itself (`{}`, or `{".":{}, ...}` with children). */
interface Node {
  self: boolean;
  /** fields that lose their own entry but keep what is below them (as FieldSet.difference leaves them) */
  unowned?: ReadonlySet<string>;
}

const MEMBER: Node = { self: true };
const PARENT: Node = { self: false };

/** The fieldsV1 of a newly set map (walkAdded's subtree); undefined when it is no member and has no children. */
function mapChildren(v: unknown, atom: Atom, set: SchemaSet, node: Node): Fields | undefined {
  const keys = isObj(v) ? definedKeys(v) : undefined;
  if (!keys?.length) return node.self ? {} : undefined;
  const o = v as Obj;
  // the "." entry comes first: it is written before the children, not spliced in afterwards
  const out: Fields = node.self ? { '.': {} } : {};
  let any = false;
  for (const k of keys) {
    const ft = fieldType(atom, k);
    if (node.unowned?.has(k)) {
      const sub = node.unowned === UNOWNED_TOP && k === 'metadata' ? metadataChildren(o[k], ft, set) : children(o[k], ft, set, PARENT);
      if (sub === undefined) continue;
      out[fieldKey(atom, k, set)] = sub;
    } else out[fieldKey(atom, k, set)] = children(o[k], ft, set, MEMBER)!;
    any = true;
  }
  return any ? out : node.self ? {} : undefined;
}

/** metadata's children, less the system fields. */
function metadataChildren(v: unknown, tr: TypeRef, set: SchemaSet): Fields | undefined {
  const atom = atomFor(tr, set, v);
  if (atom.kind === 'map' && !atom.atomic) return mapChildren(v, atom, set, { self: false, unowned: UNOWNED_META });
  return children(v, tr, set, PARENT);
}

/** The fieldsV1 of a newly set value; undefined when it is no member and has no children. */
function children(v: unknown, tr: TypeRef, set: SchemaSet, node: Node): Fields | undefined {
  const atom = atomFor(tr, set, v);
  if (atom.kind === 'scalar' || atom.atomic) return node.self ? {} : undefined;
  if (atom.kind === 'map') return mapChildren(v, atom, set, node);
  const groups = Array.isArray(v) && v.length ? [...indexItems(atom, v, set)] : [];
  if (groups.length === 0) return node.self ? {} : undefined;
  if (groups.length > 1) groups.sort((a, b) => comparePathElements(a[1].pe, b[1].pe));
  const et = elemType(atom);
  const out: Fields = node.self ? { '.': {} } : {};
  // an item that appears more than once is owned as a whole (a member without children)
  for (const [key, g] of groups) out[key] = g.items.length === 1 ? children(g.items[0], et, set, MEMBER)! : {};
  return out;
}
