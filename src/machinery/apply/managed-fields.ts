// metadata.managedFields: decoding/encoding entries and recording ownership for non-apply writes
// (create, update, patch), following k8s.io/apimachinery/pkg/util/managedfields/internal.

import { compareStrings, goJSONString, goQuote, isObj, valuesEqual, type Obj } from './values.js';
import { compareObjects, type Comparison } from './walk.js';
import { FieldSet } from './fieldset.js';
import { fieldElement } from './path.js';
import { createdFieldsV1 } from './managed-fields-create.js';
import { rfc3339 } from '../object.js';
import type { Schema, SchemaSet } from '../schema.js';

/** One metadata.managedFields entry as stored (metav1.ManagedFieldsEntry). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export type Operation = 'Apply' | 'Update';

/** One decoded managedFields entry. */
export interface ManagerEntry {
  readonly manager: string;
  readonly operation: Operation;
  readonly apiVersion: string;
  readonly subresource?: string;
  readonly time?: string;
  readonly set: FieldSet;
  /**
   * The stored fieldsV1 `set` was decoded from (when that text is canonical): encoding an entry whose set is
   * still that one reuses it instead of emitting the same object again.
   */
  readonly decodedFrom?: { readonly set: FieldSet; readonly fieldsV1: Record<string, unknown> };
}

/** Entries keyed by manager identifier (see managerIdentifier). */
export type Managed = ReadonlyMap<string, ManagerEntry>;

/** Manager name Kubernetes uses for fields that existed before the first apply to an untracked object. */
export const BEFORE_FIRST_APPLY = 'before-first-apply';
/** Manager that absorbs the oldest Update managers beyond the cap. */
export const ANCIENT_CHANGES = 'ancient-changes';
/** At most this many Update managers are kept. */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;

/**
 * The key that decides which entries are "the same manager": the JSON of the entry without time and
 * fields, and without apiVersion for Apply entries (BuildManagerIdentifier).
 */
export function managerIdentifier(e: { manager?: string; operation?: string; apiVersion?: string; subresource?: string }): string {
  const parts: string[] = [];
  if (e.manager) parts.push(`"manager":${goJSONString(e.manager)}`);
  if (e.operation) parts.push(`"operation":${goJSONString(e.operation)}`);
  if (e.apiVersion && e.operation !== 'Apply') parts.push(`"apiVersion":${goJSONString(e.apiVersion)}`);
  if (e.subresource) parts.push(`"subresource":${goJSONString(e.subresource)}`);
  return '{' + parts.join(',') + '}';
}

/** How a manager is named in conflict messages: `"kubectl"`, `"x" using v1`, `"x" with subresource "status" using v1`. */
export function printManager(identifier: string): string {
  let e: { manager?: unknown; operation?: unknown; apiVersion?: unknown; subresource?: unknown };
  try {
    e = JSON.parse(identifier) as typeof e;
    if (!isObj(e)) throw new Error('not an object');
  } catch {
    return goQuote(identifier);
  }
  let s = goQuote(typeof e.manager === 'string' ? e.manager : '');
  if (typeof e.subresource === 'string' && e.subresource) s += ` with subresource ${goQuote(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${typeof e.apiVersion === 'string' ? e.apiVersion : ''}`;
  return s;
}

/** metav1.Time text: RFC 3339 in UTC with whole seconds. */
export function formatTime(now: string | Date): string {
  const ms = typeof now === 'string' ? Date.parse(now) : now.getTime();
  if (Number.isNaN(ms)) return String(now);
  return rfc3339(ms);
}

function unixSeconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/**
 * Decodes metadata.managedFields; throws an Error with Kubernetes' message for an invalid entry.
 * `canonical`: the entries are as encodeManagedFields wrote them (a stored object's), so their fieldsV1 may be
 * written back as they are while their sets do not change. `lazy` (with canonical): the sets are read as they are
 * used (FieldSet.fromFieldsV1), so a malformed fieldsV1 throws where it is first read instead.
 */
export function decodeManagedFields(
  entries: readonly ManagedFieldsEntry[] | undefined | null,
  opts: { canonical?: boolean; lazy?: boolean } = {},
): Map<string, ManagerEntry> {
  const out = new Map<string, ManagerEntry>();
  (entries ?? []).forEach((e, i) => {
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!e.apiVersion) throw new Error('apiVersion must not be empty');
    if (!e.fieldsType) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${goQuote(String(e.fieldsType))} in managed fields entry ${i}`);
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {}, { canonical: opts.canonical, lazy: opts.lazy });
    } catch (err) {
      throw new Error(`error decoding versioned set for ${goQuote(e.manager ?? '')}: error decoding set: ${(err as Error).message}`);
    }
    const entry: ManagerEntry = {
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.subresource ? { subresource: e.subresource } : {}),
      ...(e.time ? { time: e.time } : {}),
      set,
      ...(opts.canonical && isObj(e.fieldsV1) ? { decodedFrom: { set, fieldsV1: e.fieldsV1 as Record<string, unknown> } } : {}),
    };
    out.set(managerIdentifier(e), entry);
  });
  return out;
}

/** Encodes entries in Kubernetes' order (operation, time, manager, apiVersion, subresource); undefined when none. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.size === 0) return undefined;
  const entries = [...managed.values()].map((e) => {
    const out: ManagedFieldsEntry = {};
    if (e.manager) out.manager = e.manager;
    out.operation = e.operation;
    out.apiVersion = e.apiVersion;
    if (e.time) out.time = e.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = e.decodedFrom?.set === e.set ? e.decodedFrom.fieldsV1 : e.set.toFieldsV1();
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
  entries.sort(
    (p, q) =>
      compareStrings(p.operation ?? '', q.operation ?? '') ||
      unixSeconds(p.time) - unixSeconds(q.time) ||
      compareStrings(p.manager ?? '', q.manager ?? '') ||
      compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
      compareStrings(p.subresource ?? '', q.subresource ?? ''),
  );
  return entries;
}

// The fields no manager may own: apiVersion, kind, metadata itself and the system metadata fields
// (built once: field sets are immutable).
const UNOWNABLE = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map(
    (m) => [fieldElement('metadata'), fieldElement(m)],
  ),
);

/** Removes the fields no manager may own: apiVersion, kind, metadata itself and the system metadata fields. */
export function stripMeta(set: FieldSet): FieldSet {
  return set.difference(UNOWNABLE);
}

/** A copy of an object without metadata.managedFields. */
export function withoutManagedFields(obj: Obj): Obj {
  const meta = obj.metadata;
  if (!isObj(meta) || !('managedFields' in meta)) return obj;
  const { managedFields: _drop, ...rest } = meta;
  return { ...obj, metadata: rest };
}

export function filterComparison(c: Comparison, reset: FieldSet | undefined): Comparison {
  if (!reset || reset.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(reset),
    modified: c.modified.recursiveDifference(reset),
    removed: c.removed.recursiveDifference(reset),
  };
}

export interface RecordUpdate {
  manager: string;
  apiVersion: string;
  subresource?: string;
  time: string;
  schema: Schema | undefined;
  set: SchemaSet;
  resetFields?: FieldSet;
}

/**
 * Records an Update from `before` to `after` (both without managedFields): every manager loses the fields
 * that changed or were removed, and the writer gains the changed fields, merged into its existing entry.
 */
export function recordUpdate(managed: Managed, before: Obj, after: Obj, u: RecordUpdate): Map<string, ManagerEntry> {
  const cmp = filterComparison(compareObjects(before, after, u.schema, u.set), u.resetFields);
  const changed = cmp.modified.union(cmp.added);
  const out = new Map<string, ManagerEntry>();
  for (const [id, e] of managed) {
    const s = e.set.difference(changed).difference(cmp.removed);
    if (!s.isEmpty()) out.set(id, s === e.set ? e : { ...e, set: s });
  }
  let mine = changed;
  if (u.resetFields) mine = mine.recursiveDifference(u.resetFields);
  mine = stripMeta(mine);
  if (mine.isEmpty()) return out;
  const manager = u.manager || 'unknown';
  const id = managerIdentifier({ manager, operation: 'Update', apiVersion: u.apiVersion, subresource: u.subresource });
  const prev = out.get(id);
  out.set(id, {
    manager,
    operation: 'Update',
    apiVersion: u.apiVersion,
    ...(u.subresource ? { subresource: u.subresource } : {}),
    time: u.time,
    set: prev ? mine.union(prev.set) : mine,
  });
  return out;
}

/** Merges the oldest Update managers into "ancient-changes" (per apiVersion) when there are more than `max`. */
export function capUpdateManagers(managed: Managed, max = DEFAULT_MAX_UPDATE_MANAGERS): Map<string, ManagerEntry> {
  const out = new Map(managed);
  const updaters = [...out.entries()].filter(([, e]) => e.operation === 'Update');
  if (updaters.length <= max) return out;
  updaters.sort(([ia, a], [ib, b]) => unixSeconds(a.time) - unixSeconds(b.time) || compareStrings(ia, ib));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const [id, e] = updaters[i];
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: e.apiVersion });
    const first = firstByVersion.get(e.apiVersion);
    if (first === undefined) {
      firstByVersion.set(e.apiVersion, id);
      continue;
    }
    let bucketSet = out.get(bucket)?.set;
    if (!bucketSet) {
      bucketSet = out.get(first)?.set ?? FieldSet.empty();
      out.delete(first);
    }
    out.delete(id);
    out.set(bucket, {
      manager: ANCIENT_CHANGES,
      operation: 'Update',
      apiVersion: e.apiVersion,
      ...(e.time ? { time: e.time } : {}),
      set: e.set.union(bucketSet),
    });
    length--;
  }
  return out;
}

function isReset(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return true;
  return mf.length === 1 && valuesEqual(mf[0], {});
}

function decodeOrEmpty(mf: unknown, opts: { canonical: boolean; lazy?: boolean }): Map<string, ManagerEntry> {
  try {
    return decodeManagedFields(Array.isArray(mf) ? (mf as ManagedFieldsEntry[]) : undefined, opts);
  } catch {
    return new Map();
  }
}

export interface UpdateParams {
  /** the stored object; undefined on create */
  live: Obj | undefined;
  /** the object about to be stored; its managedFields (if any) come from the request */
  updated: Obj;
  manager: string;
  operation?: 'Update';
  apiVersion: string;
  subresource?: string;
  now: string | Date;
  schema: Schema | undefined;
  set: SchemaSet;
  /** fields this endpoint resets (e.g. status on the main resource); never owned */
  resetFields?: FieldSet;
  /** what a create is compared against (the empty object of the kind); default {} */
  emptyObject?: Obj;
  maxUpdateManagers?: number;
}

/**
 * Records a create/update/patch in managedFields. Returns a copy of `updated` carrying the new
 * managedFields (absent when there are none) and the entries themselves.
 */
export function updateManagedFields(p: UpdateParams): { object: Obj; managedFields: ManagedFieldsEntry[] | undefined } {
  const managedFields = managedFieldsAfterUpdate(p);
  return { object: withManagedFields(withoutManagedFields(p.updated), managedFields), managedFields };
}

/** The managedFields entries `updateManagedFields` would give the object (undefined when none), without the copy. */
export function managedFieldsAfterUpdate(p: UpdateParams): ManagedFieldsEntry[] | undefined {
  try {
    // the stored entries decoded lazily: an update reads only the parts of each set it changes
    return afterUpdate(p, true);
  } catch {
    // a stored fieldsV1 found malformed while read: decided as a whole decoding does (such entries are dropped)
    return afterUpdate(p, false);
  }
}

function afterUpdate(p: UpdateParams, lazy: boolean): ManagedFieldsEntry[] | undefined {
  const liveMeta = isObj(p.live?.metadata) ? p.live.metadata : {};
  const newMeta = isObj(p.updated.metadata) ? p.updated.metadata : {};
  // Which managedFields to start from: the live object's on subresources; else the request's, unless
  // it resets them ([] or [{}]) or they are missing/invalid, in which case the live object's.
  let managed: Map<string, ManagerEntry>;
  // The live object's entries are canonical (this module encoded them); the request's only when they are the same.
  if (p.subresource) managed = decodeOrEmpty(liveMeta.managedFields, { canonical: true, lazy });
  else if (isReset(newMeta.managedFields)) managed = new Map();
  else {
    const asLive = p.live !== undefined && valuesEqual(newMeta.managedFields, liveMeta.managedFields);
    managed = decodeOrEmpty(newMeta.managedFields, { canonical: asLive, lazy });
    if (managed.size === 0) managed = decodeOrEmpty(liveMeta.managedFields, { canonical: true, lazy });
  }
  const after = withoutManagedFields(p.updated);
  const isCreate = p.live === undefined || !liveMeta.uid;
  // A plain create (no entries to start from, nothing reset): its one entry is written straight from the object.
  if (p.live === undefined && managed.size === 0 && !p.resetFields && (!p.emptyObject || Object.keys(p.emptyObject).length === 0)) {
    return firstEntry(createdFieldsV1(after, p.schema, p.set), p);
  }
  // Objects that exist but are not tracked stay untracked until their first apply.
  if (managed.size > 0 || isCreate) {
    const before = p.live === undefined ? (p.emptyObject ?? {}) : withoutManagedFields(p.live);
    managed = recordUpdate(managed, before, after, {
      manager: p.manager,
      apiVersion: p.apiVersion,
      subresource: p.subresource,
      time: formatTime(p.now),
      schema: p.schema,
      set: p.set,
      resetFields: p.resetFields,
    });
    managed = capUpdateManagers(managed, p.maxUpdateManagers);
  }
  return encodeManagedFields(managed);
}

/** The one Update entry of a plain create, as encodeManagedFields writes it; undefined when it owns nothing. */
function firstEntry(fieldsV1: Record<string, unknown> | undefined, p: UpdateParams): ManagedFieldsEntry[] | undefined {
  if (!fieldsV1) return undefined;
  const out: ManagedFieldsEntry = { manager: p.manager || 'unknown', operation: 'Update', apiVersion: p.apiVersion, time: formatTime(p.now), fieldsType: 'FieldsV1', fieldsV1 };
  if (p.subresource) out.subresource = p.subresource;
  return [out];
}

/** A copy of `obj` with metadata.managedFields set (or removed when undefined). */
export function withManagedFields(obj: Obj, managedFields: ManagedFieldsEntry[] | undefined): Obj {
  const base = withoutManagedFields(obj);
  if (!managedFields) return base;
  const meta = isObj(base.metadata) ? base.metadata : {};
  return { ...base, metadata: { ...meta, managedFields } };
}
