// The fieldsV1 encoding of field sets, exactly as Kubernetes stores it in metadata.managedFields: a member with
// no children is `"f:x":{}`; a node that is both a member and has children carries `".":{}` among its children.
// Decoding a stored revision's canonical object can be lazy, a level read on first use.
//
// Encoding and decoding reach into a FieldSet's private state, and decoding builds sets with its private
// constructor: fieldset.ts hands those over (bindSets) when it loads, as importing it back would be a cycle.

import type { Child, FieldSet } from './fieldset.js';
import { comparePathElements, parsePathElement, serializePathElement, type PathElement } from './path.js';
import { isObj } from './values.js';

type SetConstructor = new (m: ReadonlyMap<string, PathElement>, k: ReadonlyMap<string, Child>) => FieldSet;

let construct: SetConstructor;
let EMPTY: FieldSet;
let NO_MEMBERS: ReadonlyMap<string, PathElement>;
let NO_CHILDREN: ReadonlyMap<string, Child>;

/** Called once by fieldset.ts: its private constructor, its empty set and the shared empty maps of its nodes. */
export function bindSets(
  c: SetConstructor,
  empty: FieldSet,
  noMembers: ReadonlyMap<string, PathElement>,
  noChildren: ReadonlyMap<string, Child>,
): void {
  construct = c;
  EMPTY = empty;
  NO_MEMBERS = noMembers;
  NO_CHILDREN = noChildren;
}

interface Encodings {
  encoded: Record<string, unknown> | undefined;
  encodedSelf: Record<string, unknown> | undefined;
}

export function emit(s: FieldSet, includeSelf: boolean): Record<string, unknown> {
  if (s === EMPTY) return emitNew(s, includeSelf);
  const e = s as unknown as Encodings;
  const known = includeSelf ? e.encodedSelf : e.encoded;
  if (known) return known;
  const out = emitNew(s, includeSelf);
  if (includeSelf) e.encodedSelf = out;
  else e.encoded = out;
  return out;
}

/** A member's (and ".") value: one frozen object for all, as encoded sets are read-only (a pod's status entry has
 * dozens; each its own {} was most of the entry's memory). */
const LEAF: Record<string, unknown> = Object.freeze({});

function emitNew(s: FieldSet, includeSelf: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const members = s.members();
  const children = s.children();
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = LEAF;
  // Merge the two sorted sequences; an element that is both a member and a child is written once, with ".".
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    const c =
      mi >= members.length ? 1 : ci >= children.length ? -1 : comparePathElements(members[mi], children[ci].pe);
    if (c < 0) {
      out[serializePathElement(members[mi++])] = LEAF;
    } else if (c > 0) {
      const child = children[ci++];
      out[serializePathElement(child.pe)] = emit(child.set, false);
    } else {
      const child = children[ci++];
      mi++;
      out[serializePathElement(child.pe)] = emit(child.set, true);
    }
  }
  return out;
}

/** A FieldSet's private state, for the lazy decoding below. */
export interface Lazy {
  m: ReadonlyMap<string, PathElement>;
  k: ReadonlyMap<string, Child>;
  unread: Record<string, unknown> | undefined;
  encoded: Record<string, unknown> | undefined;
  encodedSelf: Record<string, unknown> | undefined;
}

/** The set of a canonical fieldsV1 node with children, read on first use; `self`: the node carries ".". */
export function lazySet(obj: Record<string, unknown>, self: boolean): FieldSet {
  const s = new construct(NO_MEMBERS, NO_CHILDREN);
  const l = s as unknown as Lazy;
  l.unread = obj;
  // canonical text: this object is what emitting the set gives, as readNode records it
  if (self) l.encodedSelf = obj;
  else l.encoded = obj;
  return s;
}

/**
 * Whether readNode would find children in `obj`: a key it parses (or throws on) other than ".". Keys of unknown
 * element types are dropped, as parsePathElement does.
 */
export function hasChildren(obj: Record<string, unknown>): boolean {
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key) || key === '.') continue;
    const t = key.charCodeAt(0);
    // f, v, k, i; a key too short or without the colon is an error (thrown when read)
    if (key.length < 2 || key.charCodeAt(1) !== 0x3a || t === 0x66 || t === 0x76 || t === 0x6b || t === 0x69) return true;
  }
  return false;
}

/** readNode of one level of a lazy set: its members, and its children as lazy sets. */
export function readLevel(l: Lazy): void {
  const obj = l.unread!;
  let mem: Map<string, PathElement> | undefined;
  let kids: Map<string, Child> | undefined;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key) || key === '.') continue;
    const pe = parsePathElement(key);
    if (!pe) continue;
    const val = obj[key];
    if (!isObj(val)) throw new Error(`expected a JSON object for ${JSON.stringify(key)}`);
    const k = setKey(key, pe);
    const self = Object.prototype.hasOwnProperty.call(val, '.');
    const withChildren = hasChildren(val);
    // as readNode: a node is a member when it carries "." or has no children
    if (self || !withChildren) (mem ??= new Map()).set(k, pe);
    if (withChildren) addChild((kids ??= new Map()), k, pe, lazySet(val, self));
  }
  l.m = mem ?? NO_MEMBERS;
  l.k = kids ?? NO_CHILDREN;
  l.unread = undefined;
}

/** The key of a fieldsV1 key's path element in a set: a field's is its serialised form already ("f:" + name). */
function setKey(key: string, pe: PathElement): string {
  return key.charCodeAt(0) === 0x66 ? key : serializePathElement(pe);
}

/** Adds a child set under `k`, as a union with one already there (keys that name the same element). */
function addChild(kids: Map<string, Child>, k: string, pe: PathElement, set: FieldSet): void {
  const prev = kids.get(k);
  kids.set(k, { pe, set: prev ? prev.set.union(set) : set });
}

export function readNode(obj: Record<string, unknown>, canonical: boolean): { children: FieldSet; isMember: boolean } {
  // maps made on first use (most nodes have no members or no children); for-in: no array of entries per node
  let mem: Map<string, PathElement> | undefined;
  let kids: Map<string, Child> | undefined;
  let isMember = false;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    if (key === '.') {
      isMember = true;
      continue;
    }
    const pe = parsePathElement(key);
    if (!pe) continue;
    const val = obj[key];
    if (!isObj(val)) throw new Error(`expected a JSON object for ${JSON.stringify(key)}`);
    const sub = readNode(val, canonical);
    const k = setKey(key, pe);
    if (sub.isMember) (mem ??= new Map()).set(k, pe);
    if (!sub.children.isEmpty()) addChild((kids ??= new Map()), k, pe, sub.children);
  }
  const children = mem === undefined && kids === undefined ? EMPTY : new construct(mem ?? NO_MEMBERS, kids ?? NO_CHILDREN);
  // canonical text: this object is what emitting the set gives (with "." exactly when a member has children)
  if (canonical && children !== EMPTY) (children as unknown as Encodings)[isMember ? 'encodedSelf' : 'encoded'] = obj;
  // A node with no (understood) children is a member of its parent.
  return { children, isMember: isMember || children === EMPTY };
}
