// Schema-directed walks over objects that produce or use field sets (structured-merge-diff typed/):
// the fields an object sets, the fields that differ between two objects, and removal of a set of fields.

import { atomFor, elemType, fieldType, isDeclaredField, listItemElement, type Atom, type TypeRef } from './schema.js';
import { isObj, valuesEqual, type Obj } from './values.js';
import { FieldSet, FieldSetBuilder } from './fieldset.js';
import { fieldElement, serializePathElement, type PathElement } from './path.js';
import type { Schema, SchemaSet } from '../schema.js';

/** Groups the items of an associative list by their path element, keeping first-seen order. */
export function indexItems(
  atom: Atom,
  list: readonly unknown[],
  set: SchemaSet,
): Map<string, { pe: PathElement; items: unknown[] }> {
  const out = new Map<string, { pe: PathElement; items: unknown[] }>();
  for (const item of list) {
    const pe = listItemElement(atom, item, set);
    if (typeof pe === 'string') continue;
    const k = serializePathElement(pe);
    const g = out.get(k);
    if (g) g.items.push(item);
    else out.set(k, { pe, items: [item] });
  }
  return out;
}

/**
 * The set of fields `obj` sets (typed.ToFieldSet): every scalar, atomic list/map and list item is a member;
 * a map key is a member when it is not a declared field, or its value is null or an empty map.
 */
export function fieldsOf(obj: unknown, schema: Schema | undefined, set: SchemaSet): FieldSet {
  const b = new FieldSetBuilder();
  walkFields(obj, schema, [], b, set);
  return b.build();
}

function walkFields(v: unknown, tr: TypeRef, path: PathElement[], b: FieldSetBuilder, set: SchemaSet): void {
  const atom = atomFor(tr, set, v);
  if (atom.kind === 'scalar') {
    b.insert(path);
    return;
  }
  if (atom.atomic) {
    b.insert(path);
    return;
  }
  if (atom.kind === 'list') {
    if (!Array.isArray(v)) return;
    for (const { pe, items } of indexItems(atom, v, set).values()) {
      const p = [...path, pe];
      if (items.length === 1) walkFields(items[0], atom.elem, p, b, set);
      b.insert(p);
    }
    return;
  }
  if (!isObj(v)) return;
  for (const [k, val] of Object.entries(v)) {
    const p = [...path, fieldElement(k)];
    walkFields(val, fieldType(atom, k), p, b, set);
    if (val === null || (isObj(val) && Object.keys(val).length === 0) || !isDeclaredField(atom, k)) b.insert(p);
  }
}

export interface Comparison {
  /** fields set in rhs and not in lhs */
  added: FieldSet;
  /** leaf fields (scalars, atomic lists and maps) present in both with different values */
  modified: FieldSet;
  /** fields set in lhs and not in rhs */
  removed: FieldSet;
}

/** Compares two objects field by field (typed.Compare). */
export function compareObjects(lhs: unknown, rhs: unknown, schema: Schema | undefined, set: SchemaSet): Comparison {
  const c = { added: new FieldSetBuilder(), modified: new FieldSetBuilder(), removed: new FieldSetBuilder() };
  walkCompare(lhs, rhs, schema, [], c, set);
  return { added: c.added.build(), modified: c.modified.build(), removed: c.removed.build() };
}

/** The fields whose values differ between two objects: added, modified or removed. */
export function changedFields(lhs: unknown, rhs: unknown, schema: Schema | undefined, set: SchemaSet): FieldSet {
  const c = compareObjects(lhs, rhs, schema, set);
  return c.added.union(c.modified).union(c.removed);
}

type Builders = { added: FieldSetBuilder; modified: FieldSetBuilder; removed: FieldSetBuilder };

function isEmptyContainer(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObj(v)) return Object.keys(v).length === 0;
  return false;
}

function walkCompare(l: unknown, r: unknown, tr: TypeRef, path: PathElement[], c: Builders, set: SchemaSet): void {
  if (l === undefined && r !== undefined && path.length > 0) {
    // a whole new subtree (all of a create): every path in it is added, inserted level by level
    let parent = c.added;
    for (let i = 0; i < path.length - 1; i++) parent = parent.descend(path[i]);
    walkAdded(r, tr, parent, path[path.length - 1], set);
    return;
  }
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
  const la = l === undefined ? undefined : atomFor(tr, set, l);
  const ra = r === undefined ? undefined : atomFor(tr, set, r);
  const atom = ra ?? la!;
  const leaf = (): void => {
    if (l !== undefined && r !== undefined && !valuesEqual(l, r)) c.modified.insert(path);
  };
  if (la && ra && la.kind !== ra.kind) return leaf();
  if (atom.kind === 'scalar' || atom.atomic) return leaf();
  const lv = atom.kind === 'list' ? (Array.isArray(l) ? l : undefined) : isObj(l) ? l : undefined;
  const rv = atom.kind === 'list' ? (Array.isArray(r) ? r : undefined) : isObj(r) ? r : undefined;
  // Two empty (or null) containers are compared as leaves, so {} versus null still counts as a change.
  if (isEmptyContainer(lv) && isEmptyContainer(rv)) return leaf();
  if (atom.kind === 'map') {
    const lm = (lv ?? {}) as Obj;
    const rm = (rv ?? {}) as Obj;
    const lk = Object.keys(lm);
    const rk = Object.keys(rm);
    // Either side empty (every create) needs no merging of the key lists.
    const keys = lk.length === 0 ? rk : rk.length === 0 ? lk : new Set([...lk, ...rk]);
    for (const k of keys) {
      const a = lm[k];
      const b = rm[k];
      // Equal subtrees add nothing to the comparison: an update that changes a few fields skips the rest cheaply.
      if (a === b || (a !== undefined && b !== undefined && valuesEqual(a, b))) continue;
      walkCompare(a, b, fieldType(atom, k), [...path, fieldElement(k)], c, set);
    }
    return;
  }
  const lg = indexItems(atom, (lv ?? []) as unknown[], set);
  const rg = indexItems(atom, (rv ?? []) as unknown[], set);
  const keys = new Set([...lg.keys(), ...rg.keys()]);
  for (const k of keys) {
    const pe = (lg.get(k) ?? rg.get(k))!.pe;
    const li = lg.get(k)?.items ?? [];
    const ri = rg.get(k)?.items ?? [];
    const p = [...path, pe];
    if (li.length === 1 && ri.length === 1 && valuesEqual(li[0], ri[0])) continue;
    if (li.length <= 1 && ri.length <= 1) walkCompare(li[0], ri[0], elemType(atom), p, c, set);
    else if (li.length >= 2 && ri.length >= 2) {
      if (!valuesEqual(li, ri)) c.modified.insert(p);
    } else if (li.length >= 2) {
      if (ri.length) walkCompare(undefined, ri[0], elemType(atom), p, c, set);
      c.removed.insert(p);
    } else {
      if (li.length) walkCompare(li[0], undefined, elemType(atom), p, c, set);
      c.added.insert(p);
    }
  }
}

/** walkCompare(undefined, r) of the path parent+pe: the path and every path below it that r sets are added. */
function walkAdded(r: unknown, tr: TypeRef, parent: FieldSetBuilder, pe: PathElement, set: SchemaSet): void {
  parent.add(pe);
  const atom = atomFor(tr, set, r);
  if (atom.kind === 'scalar' || atom.atomic) return;
  if (atom.kind === 'map') {
    if (!isObj(r)) return;
    const keys = Object.keys(r);
    if (keys.length === 0) return;
    const b = parent.descend(pe);
    for (const k of keys) {
      const v = r[k];
      if (v !== undefined) walkAdded(v, fieldType(atom, k), b, fieldElement(k), set);
    }
    return;
  }
  if (!Array.isArray(r) || r.length === 0) return;
  const b = parent.descend(pe);
  for (const g of indexItems(atom, r, set).values()) {
    if (g.items.length === 1) walkAdded(g.items[0], elemType(atom), b, g.pe, set);
    else b.add(g.pe);
  }
}

/**
 * Adds every declared (struct) field that has children in `fs` as a member too, so that removing the set
 * removes whole structs that nobody owns anything under (Set.EnsureNamedFieldsAreMembers).
 */
export function ensureNamedFieldsAreMembers(fs: FieldSet, schema: Schema | undefined, set: SchemaSet): FieldSet {
  const b = new FieldSetBuilder();
  walkNamed(fs, schema, [], b, set);
  return b.build();
}

function walkNamed(fs: FieldSet, tr: TypeRef, path: PathElement[], b: FieldSetBuilder, set: SchemaSet): void {
  const atom = atomFor(tr, set, undefined);
  for (const pe of fs.members()) b.insert([...path, pe]);
  for (const { pe, set: child } of fs.children()) {
    let childType: TypeRef;
    if ('field' in pe) {
      if (isDeclaredField(atom, pe.field)) b.insert([...path, pe]);
      childType = fieldType(atom, pe.field);
    } else if ('key' in pe) childType = elemType(atom);
    else childType = undefined;
    if ('field' in pe || 'key' in pe) walkNamed(child, childType, [...path, pe], b, set);
    else for (const p of child.paths()) b.insert([...path, pe, ...p]);
  }
}

/**
 * A copy of `obj` without the fields in `fs` (a member removes the field and everything below it).
 * Containers left empty by the removal are dropped.
 */
export function removeFields(obj: unknown, fs: FieldSet, schema: Schema | undefined, set: SchemaSet): Obj {
  const out = removeWalk(obj, fs, schema, set);
  return isObj(out) ? out : {};
}

function removeWalk(v: unknown, fs: FieldSet, tr: TypeRef, set: SchemaSet): unknown {
  const atom = atomFor(tr, set, v);
  if (atom.kind === 'scalar') return v;
  if (atom.atomic) return undefined;
  if (atom.kind === 'list') {
    if (!Array.isArray(v) || v.length === 0) return undefined;
    const items: unknown[] = [];
    for (const item of v) {
      const pe = listItemElement(atom, item, set);
      if (typeof pe === 'string') {
        items.push(item);
        continue;
      }
      if (fs.hasMember(pe)) continue;
      const sub = fs.withPrefix(pe);
      const kept = sub.isEmpty() ? item : removeWalk(item, sub, atom.elem, set);
      if (kept !== undefined) items.push(kept);
    }
    return items.length ? items : undefined;
  }
  if (!isObj(v) || Object.keys(v).length === 0) return undefined;
  const out: Obj = {};
  for (const [k, val] of Object.entries(v)) {
    const pe = fieldElement(k);
    if (fs.hasMember(pe)) continue;
    const sub = fs.withPrefix(pe);
    const kept = sub.isEmpty() ? val : removeWalk(val, sub, fieldType(atom, k), set);
    if (kept !== undefined) out[k] = kept;
  }
  return Object.keys(out).length ? out : undefined;
}
