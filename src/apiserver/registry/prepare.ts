// What a create or an update writes, before admission sees it: the system fields (uid, timestamps, generation, the
// metadata an update may not change), the kind's strategy hooks (defaults, prepare, the status, subresource and
// finalize paths) and validation. Apart from the store's write loops, so the rules an object goes through read in
// one place and the loops only order them with admission and the compare-and-swap.
import type { KObject, ResourceDefinition } from '../../api/types.js';
import { errors, type FieldError } from '../../machinery/errors.js';
import { clone, deepEqual, generateName, newUid, rfc3339 } from '../../machinery/object.js';
import type { RequestContext } from '../context.js';
import { validateMeta, validateMetaUpdate } from './meta-validation.js';
import type { ResourceStore } from './store.js';

/**
 * System fields, defaults, create preparation and validation of an object to create, in place. Returns its metadata
 * (the object the create goes on with, whatever the strategy did to `obj.metadata`).
 */
export function prepareCreate(store: ResourceStore, namespace: string, obj: KObject): KObject['metadata'] {
  obj.apiVersion = store.apiVersion;
  obj.kind = store.def.kind;
  const meta = (obj.metadata ??= {});
  if (store.def.namespaced) meta.namespace = namespace;
  else delete meta.namespace;
  if (meta.resourceVersion) {
    throw errors.badRequest('resourceVersion should not be set on objects to be created');
  }
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  dropEmptyMeta(meta);
  meta.uid = newUid();
  meta.creationTimestamp = rfc3339();
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  if (store.def.hasGeneration) meta.generation = 1;
  else delete meta.generation;
  const st = store.def.strategy;
  st.defaults?.(obj);
  st.prepareForCreate?.(obj);
  const errs = [...validateMeta(obj, store.def), ...(st.validate?.(obj) ?? [])];
  if (errs.length) throw store.invalid(meta.name ?? meta.generateName ?? '', errs);
  return meta;
}

const OMIT_EMPTY = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields'] as const;

/** ObjectMeta's maps and lists are omitempty in kube: an empty one is not stored or returned. */
function dropEmptyMeta(meta: KObject['metadata']): void {
  const m = meta as Record<string, unknown>;
  for (const k of OMIT_EMPTY) {
    const v = m[k];
    if (v === null || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0)) delete m[k];
  }
}

/** The strategy's warnings about an object written go to the response. */
export function addWarnings(def: ResourceDefinition, ctx: RequestContext, obj: KObject, old?: KObject): void {
  const w = def.strategy.warnings?.(obj, old);
  if (w?.length) ctx.warnings.push(...w);
}

/** Applies system-field rules, strategy preparation, generation and validation to an update. */
export function prepareUpdate(store: ResourceStore, ctx: RequestContext, desired: KObject, current: KObject, subresource: string, opts: { owned?: boolean } = {}): KObject {
  const obj = opts.owned ? desired : clone(desired);
  obj.apiVersion = store.apiVersion;
  obj.kind = store.def.kind;
  const meta = (obj.metadata ??= {});
  const cm = current.metadata;
  const name = cm.name!;
  if (meta.uid && meta.uid !== cm.uid) {
    throw errors.conflict(store.gr, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${cm.uid}`);
  }
  if (meta.name !== undefined && meta.name !== name) {
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  }
  meta.name = name;
  dropEmptyMeta(meta);
  // unconditional updates (no resourceVersion) apply to the current version; pinned ones were checked already
  meta.resourceVersion = cm.resourceVersion;
  if (store.def.namespaced) meta.namespace = cm.namespace;
  meta.uid = cm.uid;
  meta.creationTimestamp = cm.creationTimestamp;
  if (cm.deletionTimestamp) {
    meta.deletionTimestamp = cm.deletionTimestamp;
    meta.deletionGracePeriodSeconds = cm.deletionGracePeriodSeconds;
  } else {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  if (meta.generateName === undefined && cm.generateName !== undefined) meta.generateName = cm.generateName;
  const st = store.def.strategy;
  let errs: FieldError[];
  if (subresource === 'status') {
    // the status subresource changes status and annotations (kube's status strategies reset spec and labels but
    // keep the new annotations: the deployment controller records revisions through deployments/status)
    const statusOnly = st.statusOnly;
    if (statusOnly) statusOnly.defaults(obj);
    else st.defaults?.(obj);
    const next = statusUpdateBase(current, statusOnly ? 'all' : ctx.managedFieldsDone ? 'nothing' : 'managedFields');
    next.status = obj.status;
    if (meta.annotations === undefined) delete next.metadata.annotations;
    else next.metadata.annotations = meta.annotations;
    if (st.statusUpdateTakesFinalizers) {
      if (meta.finalizers === undefined) delete next.metadata.finalizers;
      else next.metadata.finalizers = meta.finalizers;
    }
    if (st.prepareForStatusUpdate) st.prepareForStatusUpdate(next, current);
    next.metadata.resourceVersion = meta.resourceVersion;
    errs = [...validateMetaUpdate(next, current, store.def), ...(st.validateStatusUpdate?.(next, current) ?? [])];
    if (errs.length) throw store.invalid(name, errs);
    return next;
  }
  st.defaults?.(obj);
  if (subresource && store.def.subresources?.extra?.includes(subresource) && st.prepareForSubresourceUpdate) {
    const next = st.prepareForSubresourceUpdate(subresource, obj, clone(current));
    next.metadata.resourceVersion = meta.resourceVersion;
    errs = [...validateMetaUpdate(next, current, store.def), ...(st.validateSubresourceUpdate?.(subresource, next, current) ?? [])];
    if (errs.length) throw store.invalid(name, errs);
    return next;
  }
  if (subresource === 'finalize' && st.prepareForFinalize) {
    const next = st.prepareForFinalize(obj, clone(current));
    next.metadata.resourceVersion = meta.resourceVersion;
    return next;
  }
  if (store.def.subresources?.status && subresource === '') {
    if (current.status === undefined) delete obj.status;
    else obj.status = clone(current.status);
  }
  st.prepareForUpdate?.(obj, current);
  if (store.def.hasGeneration) {
    meta.generation = cm.generation ?? 1;
    if (st.generationChanged ? st.generationChanged(obj, current) : specChanged(obj, current)) meta.generation = (cm.generation ?? 0) + 1;
  } else delete meta.generation;
  errs = [
    ...validateMeta(obj, store.def),
    ...validateMetaUpdate(obj, current, store.def),
    ...(st.validate?.(obj) ?? []),
    ...(st.validateUpdate?.(obj, current) ?? []),
  ];
  if (errs.length) throw store.invalid(name, errs);
  addWarnings(store.def, ctx, obj, current);
  return obj;
}

/**
 * The object a status update puts its status in: `current`'s fields in its key order (what
 * { ...clone(current), status } was), without a copy of the status it replaces. `shares`: 'all' for a strategy that
 * changes only the status (statusOnly): every value is `current`'s own, read-only, in a metadata object of its own;
 * 'managedFields': copies, but managedFields are recomputed (assigned, never changed in place), so the current list
 * is shared; 'nothing': copies.
 */
function statusUpdateBase(current: KObject, shares: 'all' | 'managedFields' | 'nothing'): KObject {
  const copy = (v: unknown) => (shares === 'all' ? v : clone(v));
  const next: Record<string, unknown> = {};
  const cur = current as unknown as Record<string, unknown>;
  for (const k in cur) {
    if (!Object.prototype.hasOwnProperty.call(cur, k)) continue;
    if (k === 'status') next.status = undefined; // the key's place
    else if (k !== 'metadata') next[k] = copy(cur[k]);
    else {
      const meta: Record<string, unknown> = {};
      const cm = current.metadata as Record<string, unknown>;
      for (const m in cm) if (Object.prototype.hasOwnProperty.call(cm, m)) meta[m] = m === 'managedFields' && shares !== 'nothing' ? cm[m] : copy(cm[m]);
      next.metadata = meta;
    }
  }
  return next as unknown as KObject;
}

/** Generation moves on changes outside metadata and status. */
function specChanged(obj: KObject, old: KObject): boolean {
  const strip = (o: KObject) => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !deepEqual(strip(obj), strip(old));
}
