// Server-side apply (PATCH with application/apply-patch+yaml): merges an applied configuration into the
// live object, removes fields the manager stopped applying, detects conflicts with other managers and
// records ownership in metadata.managedFields (structured-merge-diff merge.Updater.Apply + the apiserver's
// field manager chain).

import type { ManagedFieldsEntry } from './managed-fields.js';
import { allowedLastAppliedConflicts, refreshLastApplied } from './last-applied.js';
import { mergeObjects } from './merge.js';
import { validateApplied } from './validate.js';
import { isObj, valuesEqual, compareStrings, type Obj } from './values.js';
import { compareObjects, ensureNamedFieldsAreMembers, fieldsOf, removeFields } from './walk.js';
import { StatusError, errors } from '../errors.js';
import { FieldSet } from './fieldset.js';
import { formatPath, type Path } from './path.js';
import {
  BEFORE_FIRST_APPLY,
  decodeManagedFields,
  encodeManagedFields,
  filterComparison,
  formatTime,
  managerIdentifier,
  printManager,
  recordUpdate,
  stripMeta,
  withManagedFields,
  withoutManagedFields,
  type ManagerEntry,
} from './managed-fields.js';
import type { Schema, SchemaSet } from '../schema.js';

export interface ApplyParams {
  /** the stored object; undefined when the apply creates it */
  live: Obj | undefined;
  /** the applied configuration (the decoded patch body) */
  applied: Obj;
  manager: string;
  force?: boolean;
  /** the version the request is served at, e.g. "v1" or "apps/v1" */
  apiVersion: string;
  /** when given, the applied object's apiVersion and kind must match it exactly */
  kind?: string;
  subresource?: string;
  schema: Schema | undefined;
  set: SchemaSet;
  now: string | Date;
  /** fields this endpoint resets (e.g. status on the main resource); never owned */
  resetFields?: FieldSet;
  /** the empty object of the kind, for the "before-first-apply" bookkeeping; default {} */
  emptyObject?: Obj;
}

export interface ApplyResult {
  /** the merged object, carrying the new managedFields */
  object: Obj;
  managedFields: ManagedFieldsEntry[] | undefined;
  /** whether anything but managedFields differs from the live object */
  changed: boolean;
}

/** A field owned by another manager that the apply would change. */
export interface Conflict {
  /** manager identifier (JSON, as in managerIdentifier) */
  manager: string;
  path: Path;
}

/** `group/version, Kind=kind` as Go prints a GroupVersionKind. */
export function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const parts = av.split('/');
  let gv = '/';
  if (parts.length === 1 && av) gv = '/' + av;
  else if (parts.length === 2) gv = av;
  return `${gv}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** The 409 Kubernetes returns for apply conflicts, with one FieldManagerConflict cause per field. */
export function conflictError(conflicts: readonly Conflict[]): StatusError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: formatPath(c.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].manager)}: ${formatPath(conflicts[0].path)}`;
  } else {
    const byManager = new Map<string, Path[]>();
    for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.path]);
    const lines: string[] = [];
    for (const m of [...byManager.keys()].sort(compareStrings)) {
      lines.push(`conflicts with ${printManager(m)}:`);
      for (const p of byManager.get(m)!) lines.push(`- ${formatPath(p)}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}

function checkApplied(p: ApplyParams): void {
  const a = p.applied;
  if (p.kind !== undefined && (a.apiVersion !== p.apiVersion || a.kind !== p.kind)) {
    throw errors.badRequest(`invalid object type: ${gvkString(a.apiVersion, a.kind)}`);
  }
  if (a.apiVersion !== p.apiVersion) {
    const got = gvkString(a.apiVersion, a.kind).split(',')[0].replace(/^\//, '');
    throw errors.badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${got}, expected: ${p.apiVersion}`,
    );
  }
  if (isObj(a.metadata) && a.metadata.managedFields !== undefined && a.metadata.managedFields !== null) {
    throw errors.badRequest('metadata.managedFields must be nil');
  }
  const errs = validateApplied(a, p.schema, p.set);
  if (errs) {
    const meta = isObj(a.metadata) ? a.metadata : {};
    const nn = `${typeof meta.namespace === 'string' ? meta.namespace : ''}/${typeof meta.name === 'string' ? meta.name : ''}`;
    throw new StatusError(500, '', `failed to create typed patch object (${nn}; ${gvkString(a.apiVersion, a.kind)}): ${errs}`);
  }
}

/** Removes what the manager applied last time and no longer applies, unless someone else owns it. */
function prune(merged: Obj, managers: ReadonlyMap<string, ManagerEntry>, lastSet: FieldSet, p: ApplyParams): Obj {
  const enf = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, p.schema, p.set);
  const owned = (o: Obj): FieldSet => enf(fieldsOf(o, p.schema, p.set));
  const last = enf(lastSet);
  let pruned = removeFields(merged, last, p.schema, p.set);
  // Add back whatever any manager (including this apply) owns.
  let managed = FieldSet.empty();
  for (const e of managers.values()) managed = managed.union(e.set);
  const mergedSet = owned(merged);
  pruned = removeFields(merged, mergedSet.difference(owned(pruned).union(enf(managed))), p.schema, p.set);
  // Only remove what this manager owned last time (leave dangling, unowned fields alone).
  const removed = mergedSet.difference(owned(pruned)).intersection(last);
  return removeFields(merged, removed, p.schema, p.set);
}

interface Outcome {
  object: Obj;
  managers: Map<string, ManagerEntry>;
  changed: boolean;
}

function runApply(p: ApplyParams, live: Obj, managed: ReadonlyMap<string, ManagerEntry>, id: string, force: boolean): Outcome {
  const manager = p.manager || 'unknown';
  const merged = mergeObjects(live, p.applied, p.schema, p.set);
  const last = managed.get(id);
  let applied = fieldsOf(p.applied, p.schema, p.set);
  if (p.resetFields) applied = applied.recursiveDifference(p.resetFields);
  const managers = new Map(managed);
  managers.set(id, {
    manager,
    operation: 'Apply',
    apiVersion: p.apiVersion,
    ...(p.subresource ? { subresource: p.subresource } : {}),
    ...(last?.time ? { time: last.time } : {}),
    set: applied,
  });
  const object = last && !last.set.isEmpty() ? prune(merged, managers, last.set, p) : merged;

  const cmp = filterComparison(compareObjects(live, object, p.schema, p.set), p.resetFields);
  const changedFields = cmp.modified.union(cmp.added);
  const conflicts: Conflict[] = [];
  const out = new Map<string, ManagerEntry>();
  for (const mid of [...managers.keys()].sort(compareStrings)) {
    const e = managers.get(mid)!;
    if (mid === id) {
      const s = stripMeta(e.set);
      if (!s.isEmpty()) out.set(mid, { ...e, set: s });
      continue;
    }
    const c = e.set.intersection(changedFields);
    for (const path of c.paths()) conflicts.push({ manager: mid, path });
    const s = e.set.difference(c).difference(cmp.removed);
    if (!s.isEmpty()) out.set(mid, { ...e, set: s });
  }
  if (conflicts.length > 0 && !force) throw Object.assign(conflictError(conflicts), { conflicts });
  const changed = !valuesEqual(live, object);
  const mine = out.get(id);
  if (changed && mine) out.set(id, { ...mine, time: formatTime(p.now) });
  return { object, managers: out, changed };
}

/** Restores system metadata the merge may have dropped (it is never owned, so apply never sets it). */
function keepSystemFields(obj: Obj, live: Obj | undefined): Obj {
  const lm = isObj(live?.metadata) ? live.metadata : undefined;
  if (!lm) return obj;
  const meta = isObj(obj.metadata) ? { ...obj.metadata } : {};
  for (const k of ['uid', 'creationTimestamp', 'resourceVersion', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink']) {
    if (meta[k] === undefined && lm[k] !== undefined) meta[k] = lm[k];
  }
  return { ...obj, metadata: meta };
}

/**
 * Applies `applied` on top of `live` for `manager`. Throws a 409 StatusError listing the conflicts when
 * other managers own fields the configuration changes (unless `force`), or a 400 for a malformed config.
 */
export function applyPatch(p: ApplyParams): ApplyResult {
  if (!isObj(p.applied)) throw errors.badRequest('error decoding patch: the applied configuration must be an object');
  checkApplied(p);
  const live = withoutManagedFields(p.live ?? {});
  let managed: Map<string, ManagerEntry>;
  try {
    managed = decodeManagedFields(isObj(p.live?.metadata) ? (p.live.metadata.managedFields as ManagedFieldsEntry[]) : undefined);
  } catch (e) {
    throw new StatusError(500, '', `failed to decode managed fields: ${(e as Error).message}`);
  }
  if (managed.size === 0 && p.live !== undefined) {
    // An untracked object: whatever it holds so far is attributed to "before-first-apply".
    managed = recordUpdate(managed, p.emptyObject ?? {}, live, {
      manager: BEFORE_FIRST_APPLY,
      apiVersion: p.apiVersion,
      time: formatTime(p.now),
      schema: p.schema,
      set: p.set,
      resetFields: p.resetFields,
    });
  }
  const id = managerIdentifier({ manager: p.manager || 'unknown', operation: 'Apply', subresource: p.subresource });
  let outcome: Outcome;
  try {
    outcome = runApply(p, live, managed, id, p.force === true);
  } catch (e) {
    const conflicts = (e as { conflicts?: Conflict[] }).conflicts;
    if (!conflicts || p.manager !== 'kubectl') throw e;
    // kubectl upgrading from client-side apply: conflicts on fields that still match its
    // last-applied-configuration annotation are forced; others are reported.
    const allowed = allowedLastAppliedConflicts(p.live, p.apiVersion, p.schema, p.set);
    if (!allowed) throw e;
    const remaining = conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) throw Object.assign(conflictError(remaining), { conflicts: remaining });
    outcome = runApply(p, live, managed, id, true);
  }
  let object = keepSystemFields(outcome.object, p.live);
  if (p.manager === 'kubectl') object = refreshLastApplied(object, p.applied);
  const managedFields = encodeManagedFields(outcome.managers);
  return { object: withManagedFields(object, managedFields), managedFields, changed: outcome.changed };
}

/** applyPatch, returning only the resulting object (with its managedFields). */
export function applyConfiguration(p: ApplyParams): Obj {
  return applyPatch(p).object;
}
