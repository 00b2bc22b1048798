// Field sets for server-side apply: sets of field paths kept as a trie, with the exact `fieldsV1` JSON
// encoding Kubernetes stores in metadata.managedFields (structured-merge-diff fieldpath.Set).
//
// A path is a list of path elements: a field name (`f:name`), a map-list key (`k:{"name":"x"}`, fields
// sorted by name), a set value (`v:"x"`) or a list index (`i:0`). Each trie node has "members" (paths that
// end here) and "children" (paths that continue). In fieldsV1 a member with no children is `"f:x":{}`; a
// node that is both a member and has children carries `".":{}` among its children.

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

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

function byElement<T extends { pe: PathElement }>(a: T, b: T): number {
  return comparePathElements(a.pe, b.pe);
}

/** An immutable set of field paths. Maps are keyed by the serialised path element, which is canonical. */
export class FieldSet {
  /**
   * This set's fieldsV1 object, once emitted or when decoded from canonical text (`self`: with the "." a member
   * that has children carries). Sets never change, so neither does their encoding: an entry whose set keeps most
   * of its subtrees (an update that changes a few fields) is encoded by reusing their objects, shared read-only.
   */
  private encoded: Record<string, unknown> | undefined = undefined;
  private encodedSelf: Record<string, unknown> | undefined = undefined;
  /**
   * A set decoded lazily (fromFieldsV1 with `lazy`): the canonical fieldsV1 object whose top level is read on first
   * use, each child again lazily. An update compares and merges the few paths it changed, so most of every
   * manager's set is never read, only written back as the object it was decoded from.
   */
  private unread: Record<string, unknown> | undefined = undefined;

  private constructor(
    private m: ReadonlyMap<string, PathElement>,
    private k: ReadonlyMap<string, Child>,
  ) {}

  private get mem(): ReadonlyMap<string, PathElement> {
    if (this.unread !== undefined) readLevel(this as unknown as Lazy);
    return this.m;
  }

  private get kids(): ReadonlyMap<string, Child> {
    if (this.unread !== undefined) readLevel(this as unknown as Lazy);
    return this.k;
  }

  static empty(): FieldSet {
    return EMPTY;
  }

  static of(...paths: Path[]): FieldSet {
    return FieldSet.fromPaths(paths);
  }

  static fromPaths(paths: Iterable<Path>): FieldSet {
    const b = new FieldSetBuilder();
    for (const p of paths) b.insert(p);
    return b.build();
  }

  /**
   * Decodes a fieldsV1 object (throws on malformed keys, like Kubernetes). `canonical`: the object is as
   * toFieldsV1 wrote it and is never changed (a stored revision's, shared read-only): its subtrees are kept as
   * the encoding of the set's subtrees.
   */
  static fromFieldsV1(fields: unknown, opts: { canonical?: boolean; lazy?: boolean } = {}): FieldSet {
    if (fields === undefined || fields === null) return EMPTY;
    if (!isObj(fields)) throw new Error('expected a JSON object for fieldsV1');
    // `lazy` (canonical only): read on use; a malformed key then throws where it is first read
    if (opts.canonical && opts.lazy) return hasChildren(fields) ? lazySet(fields, false) : EMPTY;
    return readNode(fields, !!opts.canonical).children;
  }

  /** Size as structured-merge-diff counts it: members plus the members of every child, recursively. */
  get size(): number {
    let n = this.mem.size;
    for (const c of this.kids.values()) n += c.set.size;
    return n;
  }

  isEmpty(): boolean {
    return this.mem.size === 0 && this.kids.size === 0;
  }

  /** Path elements that end a path at this level, in order. */
  members(): PathElement[] {
    return [...this.mem.values()].sort(comparePathElements);
  }

  /** Child sets at this level, in order. */
  children(): { pe: PathElement; set: FieldSet }[] {
    return [...this.kids.values()].sort(byElement);
  }

  hasMember(pe: PathElement): boolean {
    return this.mem.has(serializePathElement(pe));
  }

  /** The set of paths below `pe` (empty when none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.kids.get(serializePathElement(pe))?.set ?? EMPTY;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let cur: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const next = cur.kids.get(serializePathElement(path[i]));
      if (!next) return false;
      cur = next.set;
    }
    return cur.mem.has(serializePathElement(path[path.length - 1]));
  }

  /** A new set that also holds `path`. */
  with(path: Path): FieldSet {
    return this.union(FieldSet.of(path));
  }

  union(o: FieldSet): FieldSet {
    if (o.isEmpty()) return this;
    if (this.isEmpty()) return o;
    const mem = new Map(this.mem);
    for (const [k, pe] of o.mem) mem.set(k, pe);
    const kids = new Map(this.kids);
    for (const [k, c] of o.kids) {
      const mine = kids.get(k);
      kids.set(k, mine ? { pe: mine.pe, set: mine.set.union(c.set) } : c);
    }
    return new FieldSet(mem, kids);
  }

  intersection(o: FieldSet): FieldSet {
    const mem = new Map<string, PathElement>();
    for (const [k, pe] of this.mem) if (o.mem.has(k)) mem.set(k, pe);
    const kids = new Map<string, Child>();
    for (const [k, c] of this.kids) {
      const theirs = o.kids.get(k);
      if (!theirs) continue;
      const s = c.set.intersection(theirs.set);
      if (!s.isEmpty()) kids.set(k, { pe: c.pe, set: s });
    }
    return make(mem, kids);
  }

  /** Paths in this set and not in `o` (exact paths: removing a path keeps the paths below it). */
  difference(o: FieldSet): FieldSet {
    if (o.isEmpty()) return this;
    const mem = new Map<string, PathElement>();
    for (const [k, pe] of this.mem) if (!o.mem.has(k)) mem.set(k, pe);
    const kids = new Map<string, Child>();
    let same = mem.size === this.mem.size;
    for (const [k, c] of this.kids) {
      const theirs = o.kids.get(k);
      const s = theirs ? c.set.difference(theirs.set) : c.set;
      if (s !== c.set) same = false;
      if (!s.isEmpty()) kids.set(k, s === c.set ? c : { pe: c.pe, set: s });
    }
    // Nothing removed: the same (immutable) set, so callers can tell that an entry did not change.
    return same ? this : make(mem, kids);
  }

  /** Like difference, but a member of `o` also removes every path below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    if (o.isEmpty()) return this;
    const mem = new Map<string, PathElement>();
    for (const [k, pe] of this.mem) if (!o.mem.has(k)) mem.set(k, pe);
    const kids = new Map<string, Child>();
    let same = mem.size === this.mem.size;
    for (const [k, c] of this.kids) {
      if (o.mem.has(k)) {
        same = false;
        continue;
      }
      const theirs = o.kids.get(k);
      const s = theirs ? c.set.recursiveDifference(theirs.set) : c.set;
      if (s !== c.set) same = false;
      if (!s.isEmpty()) kids.set(k, s === c.set ? c : { pe: c.pe, set: s });
    }
    return same ? this : make(mem, kids);
  }

  /** Only the members that have no children. */
  leaves(): FieldSet {
    const mem = new Map<string, PathElement>();
    for (const [k, pe] of this.mem) if (!this.kids.has(k)) mem.set(k, pe);
    const kids = new Map<string, Child>();
    for (const [k, c] of this.kids) {
      const s = c.set.leaves();
      if (!s.isEmpty()) kids.set(k, { pe: c.pe, set: s });
    }
    return make(mem, kids);
  }

  equals(o: FieldSet): boolean {
    if (this.mem.size !== o.mem.size || this.kids.size !== o.kids.size) return false;
    for (const k of this.mem.keys()) if (!o.mem.has(k)) return false;
    for (const [k, c] of this.kids) {
      const theirs = o.kids.get(k);
      if (!theirs || !c.set.equals(theirs.set)) return false;
    }
    return true;
  }

  /** Every path, in structured-merge-diff's iteration order (a node's members, then its children). */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]): void => {
      for (const pe of s.members()) out.push([...prefix, pe]);
      for (const c of s.children()) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /** The fieldsV1 object, keys in Kubernetes' order: shared (the same object each time), never to be changed. */
  toFieldsV1(): Record<string, unknown> {
    return emit(this, false);
  }

  /** So that JSON.stringify(set) gives the fieldsV1 text exactly as Kubernetes serialises it. */
  toJSON(): Record<string, unknown> {
    return this.toFieldsV1();
  }

  toString(): string {
    return this.paths().map(formatPath).join('\n');
  }
}

// The constructor is private to keep sets immutable from outside; this module builds them directly.
const construct = FieldSet as unknown as new (m: ReadonlyMap<string, PathElement>, k: ReadonlyMap<string, Child>) => FieldSet;
// Shared empty maps (sets never modify their maps).
const NO_MEMBERS: ReadonlyMap<string, PathElement> = new Map();
const NO_CHILDREN: ReadonlyMap<string, Child> = new Map();
const EMPTY: FieldSet = new construct(NO_MEMBERS, NO_CHILDREN);

function make(mem: Map<string, PathElement>, kids: Map<string, Child>): FieldSet {
  return mem.size === 0 && kids.size === 0 ? EMPTY : new construct(mem, kids);
}

/** Mutable builder used while walking objects; `build()` freezes it into a FieldSet. */
export class FieldSetBuilder {
  // Allocated on first use: most nodes of a walk have no members or no children, and many builders stay empty.
  private mem: Map<string, PathElement> | undefined;
  private kids: Map<string, { pe: PathElement; b: FieldSetBuilder }> | undefined;
  /** true once build() gave `mem` to a FieldSet: the next insert copies it, so built sets never change */
  private memShared = false;

  insert(path: Path): void {
    if (path.length === 0) return;
    let cur: FieldSetBuilder = this;
    for (let i = 0; i < path.length - 1; i++) {
      const key = serializePathElement(path[i]);
      const kids = (cur.kids ??= new Map());
      let next = kids.get(key);
      if (!next) {
        next = { pe: path[i], b: new FieldSetBuilder() };
        kids.set(key, next);
      }
      cur = next.b;
    }
    const last = path[path.length - 1];
    if (cur.memShared) {
      cur.mem = new Map(cur.mem);
      cur.memShared = false;
    }
    (cur.mem ??= new Map()).set(serializePathElement(last), last);
  }

  /** The builder of the paths below `pe` (created when missing): a walk inserts a whole subtree without
   * re-serialising the path above it for every field. */
  descend(pe: PathElement): FieldSetBuilder {
    const key = serializePathElement(pe);
    const kids = (this.kids ??= new Map());
    let next = kids.get(key);
    if (!next) {
      next = { pe, b: new FieldSetBuilder() };
      kids.set(key, next);
    }
    return next.b;
  }

  /** Inserts the one-element path [pe] (as insert([pe])). */
  add(pe: PathElement): void {
    if (this.memShared) {
      this.mem = new Map(this.mem);
      this.memShared = false;
    }
    (this.mem ??= new Map()).set(serializePathElement(pe), pe);
  }

  build(): FieldSet {
    let kids: Map<string, Child> | undefined;
    if (this.kids) {
      for (const [k, c] of this.kids) {
        const s = c.b.build();
        if (!s.isEmpty()) (kids ??= new Map()).set(k, { pe: c.pe, set: s });
      }
    }
    if (!this.mem && !kids) return EMPTY;
    this.memShared = this.mem !== undefined;
    return new construct(this.mem ?? NO_MEMBERS, kids ?? NO_CHILDREN);
  }
}

interface Encodings {
  encoded: Record<string, unknown> | undefined;
  encodedSelf: Record<string, unknown> | undefined;
}

function emit(s: FieldSet, includeSelf: boolean): Record<string, unknown> {
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
interface Lazy {
  m: ReadonlyMap<string, PathElement>;
  k: ReadonlyMap<string, Child>;
  unread: Record<string, unknown> | undefined;
  encoded: Record<string, unknown> | undefined;
  encodedSelf: Record<string, unknown> | undefined;
}

/** The set of a canonical fieldsV1 node with children, read on first use; `self`: the node carries ".". */
function lazySet(obj: Record<string, unknown>, self: boolean): FieldSet {
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
function hasChildren(obj: Record<string, unknown>): boolean {
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key) || key === '.') continue;
    const t = key.charCodeAt(0);
    // f, v, k, i; a key too short or without the colon is an error (thrown when read)
    if (key.length < 2 || key.charCodeAt(1) !== 0x3a || t === 0x66 || t === 0x76 || t === 0x6b || t === 0x69) return true;
  }
  return false;
}

/** readNode of one level of a lazy set: its members, and its children as lazy sets. */
function readLevel(l: Lazy): void {
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

function readNode(obj: Record<string, unknown>, canonical: boolean): { children: FieldSet; isMember: boolean } {
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

export { fieldsOf, compareObjects, changedFields, ensureNamedFieldsAreMembers, removeFields } from './walk.js';
export type { Comparison } from './walk.js';
