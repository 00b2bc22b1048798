// The generic store: one fixed pipeline for every kind (kube-apiserver's genericregistry.Store).
// system fields → generateName → defaults → prepare → validate → admission → canonicalize → CAS write.
import type { KObject, ResourceDefinition } from '../../api/types.js';
import { apiVersionOf } from '../../api/types.js';
import { errors, FieldError, StatusError, type GroupResource } from '../../machinery/errors.js';
import { clone, deepEqual, generateName, isPlainObject, newUid, rfc3339 } from '../../machinery/object.js';
import type { Schema, SchemaSet } from '../../machinery/schema.js';
import type { KeyValue, Store } from '../../storage/types.js';
import type { DeleteOptions, RequestContext } from '../context.js';
import type { Admission } from '../admission/chain.js';
import { validateMeta, validateMetaUpdate } from './meta-validation.js';
import { trackManagedFields } from './managed-fields-hook.js';
import { DecodedRevisions } from './decoded-revisions.js';
import { fieldsOf } from './selection.js';
import { encodeRemembered } from './stored-json.js';

export interface StoreDeps {
  store: Store;
  schemas: SchemaSet;
  admission: Admission;
  /** schema definition name of a served apiVersion/kind (for decoding typed bodies) */
  kindSchema: (apiVersion: string, kind: string) => string | undefined;
  /** deep-freeze the objects watchers share (a debugging aid for tests) */
  freezeWatchObjects?: boolean;
}

export interface DeleteResult {
  object: KObject;
  /** false when the object still exists (finalizers or a grace period) */
  deleted: boolean;
}

const maxUpdateRetries = 16;

/** Which revision of a key a write replaces (its compare-and-swap precondition). */
export type StoredRevision = Pick<KeyValue, 'key' | 'modRevision'>;

export class ResourceStore {
  readonly gr: GroupResource;
  readonly apiVersion: string;
  readonly keyPrefix: string;
  readonly schema: Schema;

  constructor(
    readonly def: ResourceDefinition,
    readonly deps: StoreDeps,
  ) {
    this.gr = { group: def.group, resource: def.plural };
    this.apiVersion = apiVersionOf(def);
    const sg = def.storedAs?.group ?? def.group;
    const sp = def.storedAs?.plural ?? def.plural;
    this.keyPrefix = `/registry/${sg || 'core'}/${sp}/`;
    this.schema = { ref: def.schemaRef };
    this.revisions = new DecodedRevisions({ enabled: !def.storedAs, freeze: !!deps.freezeWatchObjects });
  }

  key(namespace: string, name: string): string {
    return this.def.namespaced ? `${this.keyPrefix}${namespace}/${name}` : `${this.keyPrefix}${name}`;
  }

  prefix(namespace: string): string {
    return this.def.namespaced && namespace ? `${this.keyPrefix}${namespace}/` : this.keyPrefix;
  }

  /** One decoded object per committed revision, shared by every watcher of this resource (read-only for them). */
  private readonly decodedEvents = new WeakMap<KeyValue, KObject>();
  /** decoded latest revisions of the keys being written and watched now */
  private readonly revisions: DecodedRevisions;

  /** decode() for watch fan-out: N watchers of a change cost one JSON.parse, not N (or 2N with selectors). */
  decodeShared(kv: KeyValue): KObject {
    let obj = this.decodedEvents.get(kv);
    if (!obj) {
      obj = this.readOnly(kv);
      this.decodedEvents.set(kv, obj);
    }
    return obj;
  }

  /** The decoded object of a revision, shared: nobody may modify it (frozen with K1S_FREEZE_WATCH_OBJECTS=1). */
  readOnly(kv: KeyValue): KObject {
    let obj = this.revisions.get(kv);
    if (!obj) {
      obj = this.parse(kv);
      this.revisions.remember(kv.key, kv.modRevision, obj);
    }
    return obj;
  }

  /**
   * The stored value of `obj`; for a watched key, a copy of `obj` is what its next revision decodes to.
   * `shared`: nobody changes `obj` after the write (it is only serialised), so it is kept itself, not a copy.
   * `current`: the revision an update replaces; the values `obj` took from it as they are stay shared in the copy.
   */
  private encodeWrite(key: string, obj: KObject, opts: { shared?: boolean; current?: KObject; remember?: boolean } = {}): string {
    // a shared result is only serialised afterwards: a JSON response is then the stored text plus its revision (an
    // in-process caller's is the object itself: a text kept for it would only outlive young collections)
    const value = opts.shared && opts.remember && !this.def.storedAs && obj.metadata.resourceVersion === undefined ? encodeRemembered(obj) : this.encode(obj);
    // unwatched keys (most events): a copy nobody reads would only cost; the next update parses instead
    if (!this.def.storedAs && this.deps.store.watched?.(key) !== false) {
      if (opts.shared && obj.metadata.resourceVersion === undefined) {
        this.revisions.expect(key, value, obj);
        return value;
      }
      const copy = (opts.current && copySharing(obj, opts.current)) || clone(obj);
      delete copy.metadata.resourceVersion;
      this.revisions.expect(key, value, copy);
    }
    return value;
  }

  /**
   * Compare-and-swap of `obj` (without resourceVersion) over revision `kv`, for writers that build the new object
   * themselves and never touch it again (pods/binding): a watched key keeps `obj` itself as its next revision's
   * decoded object, so watchers need not parse what was just encoded.
   */
  async writeKept(kv: StoredRevision, obj: KObject): Promise<boolean> {
    const value = JSON.stringify(obj);
    if (!this.def.storedAs && this.deps.store.watched?.(kv.key) !== false) this.revisions.expect(kv.key, value, obj);
    return (await this.deps.store.update(kv.key, value, kv.modRevision)).ok;
  }

  private readonly triggerFns = new Map<string, (kv: KeyValue) => string | undefined>();

  /** A watch trigger's value function for `field`: one per field, so the watch hub indexes its watchers together. */
  triggerValueOf(field: string): (kv: KeyValue) => string | undefined {
    let fn = this.triggerFns.get(field);
    if (!fn) this.triggerFns.set(field, (fn = (kv) => fieldsOf(this.def, this.decodeShared(kv))[field]));
    return fn;
  }

  /** Stored bytes → the object in this definition's version, with resourceVersion set (the caller's own copy). */
  decode(kv: KeyValue): KObject {
    const c = this.revisions.get(kv);
    return c !== undefined ? clone(c) : this.parse(kv);
  }

  private parse(kv: KeyValue): KObject {
    let obj = JSON.parse(kv.value) as KObject;
    if (this.def.storedAs) obj = this.def.storedAs.fromStored(obj);
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
    obj.metadata.resourceVersion = String(kv.modRevision);
    return obj;
  }

  encode(obj: KObject): string {
    // Nothing to drop or convert (e.g. a create): the copy below would serialise the same.
    if (!this.def.storedAs && obj.metadata && obj.metadata.resourceVersion === undefined) return JSON.stringify(obj);
    const o = this.def.storedAs ? this.def.storedAs.toStored(clone(obj)) : { ...obj, metadata: { ...obj.metadata } };
    delete o.metadata.resourceVersion;
    return JSON.stringify(o);
  }

  async getKV(namespace: string, name: string): Promise<KeyValue> {
    await this.def.storedAs?.prepare?.();
    const kv = await this.deps.store.get(this.key(namespace, name));
    if (!kv) throw errors.notFound(this.gr, name);
    return kv;
  }

  /**
   * The latest revision of a key with its decoded object (shared, read-only); undefined when absent. The stored
   * text is read only when no decoded object of that revision is kept: a writer mostly replaces a revision that
   * watchers and informers have decoded already.
   */
  async latestShared(key: string): Promise<{ rev: StoredRevision; current: KObject } | undefined> {
    const store = this.deps.store;
    if (store.revision && !this.def.storedAs) {
      const r = await store.revision(key);
      if (!r) return undefined;
      const kept = this.revisions.peek(key, r.modRevision);
      if (kept) return { rev: { key, modRevision: r.modRevision }, current: kept };
    }
    const kv = await store.get(key);
    return kv && { rev: kv, current: this.readOnly(kv) };
  }

  async get(namespace: string, name: string): Promise<KObject> {
    return this.decode(await this.getKV(namespace, name));
  }

  invalid(name: string, errs: FieldError[]): StatusError {
    return errors.invalid(this.def.kind, this.def.group, name, errs);
  }

  /**
   * `owned`: the caller hands `input` over (a freshly decoded body), so it is changed in place instead of copied.
   * `readOnlyResult`: the caller only reads (serialises) the object returned, which watchers may then share.
   */
  async create(ctx: RequestContext, namespace: string, input: KObject, opts: { owned?: boolean; readOnlyResult?: boolean } = {}): Promise<KObject> {
    const obj = opts.owned ? input : clone(input);
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
    const meta = (obj.metadata ??= {});
    if (this.def.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    if (meta.resourceVersion) {
      throw errors.badRequest('resourceVersion should not be set on objects to be created');
    }
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
    meta.uid = newUid();
    meta.creationTimestamp = rfc3339();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (this.def.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    const st = this.def.strategy;
    st.defaults?.(obj);
    st.prepareForCreate?.(obj);
    const errs = [...validateMeta(obj, this.def), ...(st.validate?.(obj) ?? [])];
    if (errs.length) throw this.invalid(meta.name ?? meta.generateName ?? '', errs);
    await this.deps.admission.admit({ ctx, store: this, operation: 'CREATE', object: obj, namespace });
    st.canonicalize?.(obj);
    this.addWarnings(ctx, obj);
    trackManagedFields(this, ctx, { live: undefined, updated: obj, subresource: '' });
    if (ctx.dryRun) return obj;
    const key = this.key(namespace, meta.name!);
    const res = await this.deps.store.create(key, this.encodeWrite(key, obj, { shared: opts.readOnlyResult, remember: ctx.respondsWithJson }));
    if (!res.ok) throw errors.alreadyExists(this.gr, meta.name!);
    const rv = String(res.kv.modRevision);
    // a shared object may have been given its resourceVersion (and been frozen) by a watcher's decode already
    if (meta.resourceVersion !== rv) meta.resourceVersion = rv;
    return obj;
  }

  private addWarnings(ctx: RequestContext, obj: KObject, old?: KObject): void {
    const w = this.def.strategy.warnings?.(obj, old);
    if (w?.length) ctx.warnings.push(...w);
  }

  /**
   * Read-modify-write with compare-and-swap, retried on conflicts unless the caller pinned a resourceVersion.
   * `mutate` returns the desired object from the current one (or throws).
   */
  async guaranteedUpdate(
    ctx: RequestContext,
    namespace: string,
    name: string,
    mutate: (current: KObject | undefined) => Promise<KObject> | KObject,
    opts: {
      subresource: string;
      allowCreate?: boolean;
      /** false when `mutate` never looks at its argument (a PUT): it then gets no copy of the current object */
      readsCurrent?: boolean;
      /** every object `mutate` returns is new and the store's to change (else it works on a copy) */
      freshDesired?: boolean;
      /** `mutate` only reads its argument: it gets the shared current object itself, not a copy */
      currentReadOnly?: boolean;
      /** the caller only reads (serialises) the object returned: it may share the stored revisions' values */
      readOnlyResult?: boolean;
    },
  ): Promise<{ object: KObject; created: boolean }> {
    for (let attempt = 0; ; attempt++) {
      const latest = await this.latestShared(this.key(namespace, name));
      if (!latest && !opts.allowCreate) throw errors.notFound(this.gr, name);
      const kv = latest?.rev;
      // read-only from here on (admission's `old`, the strategy's `old`, managedFields' `live`): only copies change
      const current = latest?.current;
      const desired = await mutate(current && opts.readsCurrent !== false ? (opts.currentReadOnly ? current : clone(current)) : undefined);
      if (!current) {
        const created = await this.create(ctx, namespace, desired);
        return { object: created, created: true };
      }
      const pinned = desired.metadata?.resourceVersion;
      if (pinned && pinned !== current.metadata.resourceVersion) throw errors.staleResourceVersion(this.gr, name);
      const obj = this.prepareUpdate(ctx, desired, current, opts.subresource, { owned: opts.freshDesired });
      await this.deps.admission.admit({ ctx, store: this, operation: 'UPDATE', object: obj, old: current, namespace });
      const statusOnly = opts.subresource === 'status' ? this.def.strategy.statusOnly : undefined;
      if (statusOnly) statusOnly.canonicalize(obj);
      else this.def.strategy.canonicalize?.(obj);
      // what `obj` shares with the current revision (a status update's spec) is copied for a caller that may change it
      const result = (o: KObject): KObject => (opts.readOnlyResult ? o : unshare(o, current));
      if (deepEqual({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined, managedFields: undefined } }, {
        ...current,
        metadata: { ...current.metadata, resourceVersion: undefined, managedFields: undefined },
      })) {
        // no-op updates do not write (and keep the resourceVersion), as Kubernetes does
        return { object: clone(current), created: false };
      }
      trackManagedFields(this, ctx, { live: current, updated: obj, subresource: opts.subresource });
      if (ctx.dryRun) return { object: result(obj), created: false };
      if (shouldDeleteDuringUpdate(obj) && !this.def.strategy.deletionBlocked?.(obj)) {
        const del = await this.deps.store.delete(kv!.key, { expectedRevision: kv!.modRevision });
        if (del.ok) return { object: result(obj), created: false };
      } else {
        // a result only serialised is kept itself as the new revision (no copy for watchers); it then has no
        // resourceVersion until committed, as a create's
        const shared = opts.readOnlyResult && !this.def.storedAs;
        if (shared) delete obj.metadata.resourceVersion;
        const res = await this.deps.store.update(kv!.key, this.encodeWrite(kv!.key, obj, { current, shared, remember: ctx.respondsWithJson }), kv!.modRevision);
        if (res.ok) {
          const rv = String(res.kv.modRevision);
          // a shared object may have been given its resourceVersion (and been frozen) by a watcher's decode already
          if (obj.metadata.resourceVersion !== rv) obj.metadata.resourceVersion = rv;
          return { object: result(obj), created: false };
        }
      }
      if (pinned) throw errors.staleResourceVersion(this.gr, name);
      if (attempt >= maxUpdateRetries) throw errors.staleResourceVersion(this.gr, name);
    }
  }

  /** Applies system-field rules, strategy preparation, generation and validation to an update. */
  prepareUpdate(ctx: RequestContext, desired: KObject, current: KObject, subresource: string, opts: { owned?: boolean } = {}): KObject {
    const obj = opts.owned ? desired : clone(desired);
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
    const meta = (obj.metadata ??= {});
    const cm = current.metadata;
    const name = cm.name!;
    if (meta.uid && meta.uid !== cm.uid) {
      throw errors.conflict(this.gr, name, `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${cm.uid}`);
    }
    if (meta.name !== undefined && meta.name !== name) {
      throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    meta.name = name;
    // unconditional updates (no resourceVersion) apply to the current version; pinned ones were checked already
    meta.resourceVersion = cm.resourceVersion;
    if (this.def.namespaced) meta.namespace = cm.namespace;
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
    const st = this.def.strategy;
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
      if (st.prepareForStatusUpdate) st.prepareForStatusUpdate(next, current);
      next.metadata.resourceVersion = meta.resourceVersion;
      errs = [...validateMetaUpdate(next, current, this.def), ...(st.validateStatusUpdate?.(next, current) ?? [])];
      if (errs.length) throw this.invalid(name, errs);
      return next;
    }
    st.defaults?.(obj);
    if (subresource && this.def.subresources?.extra?.includes(subresource) && st.prepareForSubresourceUpdate) {
      const next = st.prepareForSubresourceUpdate(subresource, obj, clone(current));
      next.metadata.resourceVersion = meta.resourceVersion;
      errs = [...validateMetaUpdate(next, current, this.def), ...(st.validateSubresourceUpdate?.(subresource, next, current) ?? [])];
      if (errs.length) throw this.invalid(name, errs);
      return next;
    }
    if (subresource === 'finalize' && st.prepareForFinalize) {
      const next = st.prepareForFinalize(obj, clone(current));
      next.metadata.resourceVersion = meta.resourceVersion;
      return next;
    }
    if (this.def.subresources?.status && subresource === '') {
      if (current.status === undefined) delete obj.status;
      else obj.status = clone(current.status);
    }
    st.prepareForUpdate?.(obj, current);
    if (this.def.hasGeneration) {
      meta.generation = cm.generation ?? 1;
      if (st.generationChanged ? st.generationChanged(obj, current) : specChanged(obj, current)) meta.generation = (cm.generation ?? 0) + 1;
    } else delete meta.generation;
    errs = [
      ...validateMeta(obj, this.def),
      ...validateMetaUpdate(obj, current, this.def),
      ...(st.validate?.(obj) ?? []),
      ...(st.validateUpdate?.(obj, current) ?? []),
    ];
    if (errs.length) throw this.invalid(name, errs);
    this.addWarnings(ctx, obj, current);
    return obj;
  }

  /**
   * PUT. `reparse` (optional) decodes the request body again: the first attempt then builds the new object in
   * `input` itself and a retry after a conflict starts from a fresh decoding, so no attempt needs a copy.
   */
  async update(
    ctx: RequestContext,
    namespace: string,
    name: string,
    input: KObject,
    subresource = '',
    opts: { reparse?: () => KObject; readOnlyResult?: boolean } = {},
  ): Promise<{ object: KObject; created: boolean }> {
    if (input.metadata?.name !== undefined && input.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${input.metadata.name}) does not match the name on the URL (${name})`);
    }
    const allowCreate = subresource === '' && !!this.def.strategy.allowCreateOnUpdate;
    const { reparse, readOnlyResult } = opts;
    if (reparse) {
      let attempts = 0;
      const fresh = () => (attempts++ === 0 ? input : reparse());
      return this.guaranteedUpdate(ctx, namespace, name, fresh, { subresource, allowCreate, readsCurrent: false, freshDesired: true, readOnlyResult });
    }
    // prepareUpdate and create copy what they are given, so every attempt starts from the untouched input
    return this.guaranteedUpdate(ctx, namespace, name, () => input, { subresource, allowCreate, readsCurrent: false, readOnlyResult });
  }

  async delete(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    for (let attempt = 0; ; attempt++) {
      const kv = await this.getKV(namespace, name);
      const obj = this.decode(kv);
      const meta = obj.metadata;
      const pre = opts.preconditions;
      if (pre?.uid && pre.uid !== meta.uid) {
        throw errors.conflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
        throw errors.conflict(
          this.gr,
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
        );
      }
      await this.deps.admission.admit({ ctx, store: this, operation: 'DELETE', object: obj, old: obj, namespace });
      const next = clone(obj);
      const changed = this.markForDeletion(next, opts);
      const pending = (next.metadata.finalizers?.length ?? 0) > 0 || (next.metadata.deletionGracePeriodSeconds ?? 0) > 0 ||
        !!this.def.strategy.deletionBlocked?.(next);
      if (ctx.dryRun) return { object: next, deleted: !pending };
      if (pending) {
        if (!changed) return { object: obj, deleted: false };
        const res = await this.deps.store.update(kv.key, this.encode(next), kv.modRevision);
        if (res.ok) {
          next.metadata.resourceVersion = String(res.kv.modRevision);
          return { object: next, deleted: false };
        }
      } else {
        const res = await this.deps.store.delete(kv.key, { expectedRevision: kv.modRevision });
        if (res.ok) return { object: obj, deleted: true };
      }
      if (attempt >= maxUpdateRetries) throw errors.staleResourceVersion(this.gr, name);
    }
  }

  /** Sets deletionTimestamp, grace period and GC finalizers; returns whether anything changed. */
  private markForDeletion(obj: KObject, opts: DeleteOptions): boolean {
    const meta = obj.metadata;
    const st = this.def.strategy;
    let changed = false;
    const policy =
      opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : opts.orphanDependents === false ? 'Background' : undefined);
    const finalizers = new Set(meta.finalizers ?? []);
    const hadFinalizers = finalizers.size > 0;
    const effective = policy ?? (st.defaultGCPolicy === 'OrphanDependents' ? 'Orphan' : undefined);
    if (hadFinalizers || meta.deletionTimestamp) {
      // the GC acts on these finalizers only for objects that wait anyway
      if (effective === 'Orphan' && !finalizers.has('orphan')) finalizers.add('orphan');
      if (effective === 'Foreground' && !finalizers.has('foregroundDeletion')) finalizers.add('foregroundDeletion');
    } else if (effective === 'Foreground' || (effective === 'Orphan' && policy)) {
      finalizers.add(effective === 'Foreground' ? 'foregroundDeletion' : 'orphan');
    }
    if (finalizers.size !== (meta.finalizers?.length ?? 0)) {
      meta.finalizers = [...finalizers];
      changed = true;
    }
    let grace = st.gracePeriodSeconds?.(obj, { gracePeriodSeconds: opts.gracePeriodSeconds });
    if (grace !== undefined && opts.gracePeriodSeconds !== undefined) grace = opts.gracePeriodSeconds;
    const now = Date.now();
    if (!meta.deletionTimestamp) {
      if (st.beforeDelete) {
        st.beforeDelete(obj);
        changed = true;
      }
      meta.deletionTimestamp = rfc3339(now + (grace ?? 0) * 1000);
      meta.deletionGracePeriodSeconds = grace ?? 0;
      changed = true;
    } else {
      // a shorter grace period may replace a longer one; an explicit 0 (force delete) ends a graceful deletion
      const shorter = grace ?? (opts.gracePeriodSeconds === 0 && st.gracePeriodSeconds ? 0 : undefined);
      if (shorter !== undefined && shorter < (meta.deletionGracePeriodSeconds ?? 0)) {
        meta.deletionTimestamp = rfc3339(now + shorter * 1000);
        meta.deletionGracePeriodSeconds = shorter;
        changed = true;
      }
    }
    if (meta.generation !== undefined && changed && this.def.hasGeneration) meta.generation += 1;
    return changed;
  }
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

/**
 * A deep copy of `obj` (as clone gives) in which the top-level and metadata values that are `current`'s own objects
 * (a status update's spec, labels, owner references) are shared instead: they belong to a stored revision, so they
 * are plain JSON already and nobody changes them. Undefined when `obj` has a key a plain copy cannot take over.
 */
function copySharing(obj: KObject, current: KObject): KObject | undefined {
  const meta = obj.metadata as unknown as Record<string, unknown>;
  if (!isPlainObject(meta)) return undefined;
  const out = copyLevel(obj as unknown as Record<string, unknown>, current as unknown as Record<string, unknown>, 'metadata');
  const m = out && copyLevel(meta, current.metadata as unknown as Record<string, unknown>);
  if (!out || !m) return undefined;
  out.metadata = m;
  return out as unknown as KObject;
}

/** One level of copySharing; the key `skip` is left for the caller. */
function copyLevel(src: Record<string, unknown>, shared: Record<string, unknown>, skip?: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const k in src) {
    if (!Object.prototype.hasOwnProperty.call(src, k)) continue;
    const v = src[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue; // JSON drops these
    if (k === '__proto__') return undefined; // JSON.parse makes it an own key, an assignment the prototype
    if (k === skip) out[k] = undefined; // the key's place
    else out[k] = typeof v === 'object' && v !== null && v === shared[k] ? v : clone(v);
  }
  return out;
}

/** `obj` with copies of the top-level and metadata values it shares with `current` (read-only ones). */
function unshare(obj: KObject, current: KObject): KObject {
  unshareLevel(obj as unknown as Record<string, unknown>, current as unknown as Record<string, unknown>);
  const meta = obj.metadata as unknown as Record<string, unknown>;
  const cm = current.metadata as unknown as Record<string, unknown>;
  if (isPlainObject(meta) && isPlainObject(cm)) unshareLevel(meta, cm);
  return obj;
}

function unshareLevel(o: Record<string, unknown>, cur: Record<string, unknown>): void {
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'object' && v !== null && v === cur[k] && Object.prototype.hasOwnProperty.call(o, k)) o[k] = clone(v);
  }
}

function shouldDeleteDuringUpdate(obj: KObject): boolean {
  const m = obj.metadata;
  return !!m.deletionTimestamp && !(m.finalizers?.length) && !(m.deletionGracePeriodSeconds);
}

/** Generation moves on changes outside metadata and status. */
function specChanged(obj: KObject, old: KObject): boolean {
  const strip = (o: KObject) => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !deepEqual(strip(obj), strip(old));
}
