// The fieldsV1 of an object's first managedFields entry, written straight from the object. A create that brings no
// managedFields of its own owns every field it sets (less the system fields), and the general path gets there by
// comparing the object with {} into field-set tries, subtracting the unownable fields and encoding the tries:
// about half the CPU of a pod create. This walk emits the same JSON (same keys, same order) in one pass.
// test/unit/machinery/apply/managed-fields-create.test.ts checks it against the general path.

import { fieldType, typeAtom, valueAtom, type Atom } from './schema.js';
import { compareStrings, goJSONString, isObj, type Obj } from './values.js';
import { indexItems } from './walk.js';
import { comparePathElements } from './path.js';
import type { Schema, SchemaSet } from '../schema.js';

type Fields = Record<string, unknown>;
type MapAtom = Extract<Atom, { kind: 'map' }>;

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
  const type = typeAtom(schema, set);
  const atom = valueAtom(type, {});
  const ra = valueAtom(type, obj);
  if (atom.kind !== 'map' || ra.kind !== 'map' || atom.atomic) return undefined;
  return mapChildren(obj, atom, set, { self: false, unowned: UNOWNED_TOP });
}

/** A declared field as the walk writes it: its `f:<name>` key and its type's atom. */
interface Field {
  readonly name: string;
  readonly key: string;
  readonly type: Atom | null;
}

/**
 * What the walk needs of one map or list atom, built once per atom, so that a field costs one Map lookup instead
 * of resolving its schema again at every object (the same few dozen nodes are met at every pod create).
 */
interface Table {
  /** the declared fields met so far */
  readonly fields: Map<string, Field>;
  /** the type atom of undeclared keys (a map) or of the items (a list) */
  readonly elem: Atom | null;
  /** the key orders of the last few objects met, most recent first (see orderOf) */
  readonly orders: Order[];
}

/** An object's defined keys in its own order, and their fields in Go's string order. */
interface Order {
  readonly keys: readonly string[];
  readonly fields: readonly Field[];
  /** every field is a leaf whatever its value (its type is a scalar or atomic) */
  readonly leaves: boolean;
  /** then the fieldsV1 of such an object as a member: the same for all of them, so built once (see LEAF) */
  member?: Fields;
}

/**
 * A member without children. The fieldsV1 a create writes is shared read-only, like the encoding of a FieldSet
 * (fieldset.ts): its leaves, and the whole fieldsV1 of a map whose fields are all leaves (a volume mount, a
 * resource list, labels), are one frozen object each for every create, instead of new objects that a kept
 * revision holds on to (in a pod, most of the objects stored are fieldsV1's).
 */
const LEAF: Fields = Object.freeze({});

/** How many key orders a table remembers: a pod's containers, init containers and ephemeral ones may differ. */
const ORDERS = 4;

function tableOf(atom: Exclude<Atom, { kind: 'scalar' }>, set: SchemaSet): Table {
  let t = set.derived.get(atom) as Table | undefined;
  if (!t) set.derived.set(atom, (t = { fields: new Map(), elem: typeAtom(atom.elem, set), orders: [] }));
  return t;
}

function fieldOf(atom: MapAtom, t: Table, k: string, set: SchemaSet): Field {
  const known = t.fields.get(k);
  if (known) return known;
  // undeclared keys (labels, annotations, ...) are the users' own: not remembered
  if (!atom.fields || !Object.prototype.hasOwnProperty.call(atom.fields, k)) return { name: k, key: 'f:' + k, type: t.elem };
  const f: Field = { name: k, key: 'f:' + k, type: typeAtom(fieldType(atom, k), set) };
  t.fields.set(k, f);
  return f;
}

/**
 * The fields of the keys of `o` that have a value, in Go's string order, and what they tell of its fieldsV1. Objects
 * of one type mostly come with the same keys in the same order (every pod's containers, say): the table remembers
 * the last few orders it sorted, so such an object costs a comparison of its keys instead of a sort and a field
 * lookup per key.
 */
function orderOf(o: Obj, atom: MapAtom, t: Table, set: SchemaSet): Order {
  const orders = t.orders;
  for (let i = 0; i < orders.length; i++) {
    const known = orders[i];
    if (!hasKeys(o, known.keys)) continue;
    if (i > 0) {
      orders.splice(i, 1);
      orders.unshift(known);
    }
    return known;
  }
  const keys: string[] = [];
  for (const k in o) if (o[k] !== undefined && Object.prototype.hasOwnProperty.call(o, k)) keys.push(k);
  const fields = sortedKeys(keys.slice()).map((k) => fieldOf(atom, t, k, set));
  const order: Order = { keys, fields, leaves: fields.every((f) => f.type !== null && (f.type.kind === 'scalar' || f.type.atomic)) };
  orders.unshift(order);
  if (orders.length > ORDERS) orders.pop();
  return order;
}

/** Whether the keys of `o` that have a value are `keys`, in that order. */
function hasKeys(o: Obj, keys: readonly string[]): boolean {
  let i = 0;
  // for-in: no key array of its own per object (own keys only, as Object.keys)
  for (const k in o) {
    if (o[k] === undefined || !Object.prototype.hasOwnProperty.call(o, k)) continue;
    if (keys[i] !== k) return false;
    i++;
  }
  return i === keys.length;
}

/** `keys` sorted in place in Go's string order. */
function sortedKeys(keys: string[]): string[] {
  // JavaScript's own order is UTF-16's, which differs from Go's only for characters past U+D7FF
  for (const k of keys) if (!isPlainKey(k)) return keys.sort(compareStrings);
  // insertion sort: maps are small, and `<` on strings beats sort()'s generic comparison
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > k; j--) keys[j + 1] = keys[j];
    keys[j + 1] = k;
  }
  return keys;
}

/** No character past U+D7FF (a loop: most keys are short, and a regular expression call costs more). */
function isPlainKey(k: string): boolean {
  for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) >= 0xd800) return false;
  return true;
}

/** How a node is written: `self` when it is a member itself (`{}`, or `{".":{}, ...}` with children). */
interface Node {
  self: boolean;
  /** fields that lose their own entry but keep what is below them (as FieldSet.difference leaves them) */
  unowned?: ReadonlySet<string>;
}

const MEMBER: Node = { self: true };
const PARENT: Node = { self: false };

/** The fieldsV1 of a newly set map (walkAdded's subtree); undefined when it is no member and has no children. */
function mapChildren(v: unknown, atom: MapAtom, set: SchemaSet, node: Node): Fields | undefined {
  if (!isObj(v)) return node.self ? LEAF : undefined;
  const order = orderOf(v, atom, tableOf(atom, set), set);
  const fields = order.fields;
  if (!fields.length) return node.self ? LEAF : undefined;
  if (order.leaves && node.self && !node.unowned) return (order.member ??= leavesMember(fields));
  const o = v;
  // the "." entry comes first: it is written before the children, not spliced in afterwards
  const out: Fields = node.self ? { '.': LEAF } : {};
  let any = false;
  for (const f of fields) {
    const k = f.name;
    if (node.unowned?.has(k)) {
      const sub = node.unowned === UNOWNED_TOP && k === 'metadata' ? metadataChildren(o[k], f.type, set) : children(o[k], f.type, set, PARENT);
      if (sub === undefined) continue;
      out[f.key] = sub;
    } else out[f.key] = children(o[k], f.type, set, MEMBER)!;
    any = true;
  }
  return any ? out : node.self ? LEAF : undefined;
}

/** The fieldsV1 of a member map whose fields are all leaves (frozen: shared by every create). */
function leavesMember(fields: readonly Field[]): Fields {
  const out: Fields = { '.': LEAF };
  for (const f of fields) out[f.key] = LEAF;
  return Object.freeze(out);
}

/** metadata's children, less the system fields. */
function metadataChildren(v: unknown, type: Atom | null, set: SchemaSet): Fields | undefined {
  const atom = valueAtom(type, v);
  if (atom.kind === 'map' && !atom.atomic) return mapChildren(v, atom, set, { self: false, unowned: UNOWNED_META });
  return children(v, type, set, PARENT);
}

/** The fieldsV1 of a newly set value of type `type` (typeAtom's); undefined when it is no member and has no children. */
function children(v: unknown, type: Atom | null, set: SchemaSet, node: Node): Fields | undefined {
  const atom = valueAtom(type, v);
  if (atom.kind === 'scalar' || atom.atomic) return node.self ? LEAF : undefined;
  if (atom.kind === 'map') return mapChildren(v, atom, set, node);
  const groups = Array.isArray(v) && v.length ? (byStringKey(atom, v) ?? sortedItems(atom, v, set)) : [];
  if (groups.length === 0) return node.self ? LEAF : undefined;
  const et = tableOf(atom, set).elem;
  const out: Fields = node.self ? { '.': LEAF } : {};
  // an item that appears more than once is owned as a whole (a member without children)
  for (const [key, g] of groups) out[key] = g.items.length === 1 ? children(g.items[0], et, set, MEMBER)! : LEAF;
  return out;
}

type Groups = [string, { items: unknown[] }][];

/** The items of an associative list grouped by their path element, in structured-merge-diff's order. */
function sortedItems(atom: Atom, list: readonly unknown[], set: SchemaSet): Groups {
  const groups = [...indexItems(atom, list, set)];
  if (groups.length > 1) groups.sort((a, b) => comparePathElements(a[1].pe, b[1].pe));
  return groups;
}

/**
 * sortedItems for the common map list: one key field holding a string in every item (containers by name,
 * volumeMounts by mountPath), whose key text is written directly; undefined for any other list.
 */
function byStringKey(atom: Extract<Atom, { kind: 'list' }>, list: readonly unknown[]): Groups | undefined {
  if (atom.keys.length !== 1) return undefined;
  const name = atom.keys[0];
  for (const item of list) {
    if (!isObj(item) || !Object.prototype.hasOwnProperty.call(item, name) || typeof item[name] !== 'string') return undefined;
  }
  const prefix = 'k:{' + goJSONString(name) + ':';
  if (list.length === 1) return [[prefix + goJSONString((list[0] as Obj)[name] as string) + '}', { items: [list[0]] }]];
  const byValue = new Map<string, unknown[]>();
  for (const item of list) {
    const value = (item as Obj)[name] as string;
    const items = byValue.get(value);
    if (items) items.push(item);
    else byValue.set(value, [item]);
  }
  // comparePathElements on keys of one field compares the values (Go's string order)
  const values = [...byValue.keys()].sort(compareStrings);
  return values.map((value) => [prefix + goJSONString(value) + '}', { items: byValue.get(value)! }]);
}
