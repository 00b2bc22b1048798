// Field sets for server-side apply: sets of field paths kept as a trie (structured-merge-diff fieldpath.Set),
// their set algebra and the builder walks fill. Each trie node has "members" (paths that end here) and
// "children" (paths that continue). Path elements are in path.ts, the fieldsV1 encoding in fields-v1.ts.

import { comparePathElements, formatPath, serializePathElement, type Path, type PathElement } from './path.js';
import { bindSets, emit, hasChildren, lazySet, readLevel, readNode, type Lazy } from './fields-v1.js';
import { isObj } from './values.js';

export interface Child {
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
bindSets(construct, EMPTY, NO_MEMBERS, NO_CHILDREN);

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
