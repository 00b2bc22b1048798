// The generic store: one fixed pipeline for every kind (kube-apiserver's genericregistry.Store).
// system fields → generateName → defaults → prepare → validate → admission → canonicalize → CAS write.
// This file holds the codec and the write loops; the steps before admission are prepare.ts, DELETE's marks deletion.ts.
import type { KObject, ResourceDefinition } from '../../api/types.js';
import { apiVersionOf } from '../../api/types.js';
import { errors, FieldError, goQuote, StatusError, type GroupResource } from '../../machinery/errors.js';
import { isValidPathSegmentName } from '../../machinery/validation.js';
import { clone, deepEqual } from '../../machinery/object.js';
import type { Schema, SchemaSet } from '../../machinery/schema.js';
import type { KeyValue, Store } from '../../storage/types.js';
import type { DeleteOptions, RequestContext } from '../context.js';
import type { Admission } from '../admission/chain.js';
import { trackManagedFields } from './managed-fields-hook.js';
import { DecodedRevisions } from './decoded-revisions.js';
import { fieldsOf } from './selection.js';
import { encodeRemembered } from './stored-json.js';
import { addWarnings, prepareCreate, prepareUpdate } from './prepare.js';
import { maxUpdateRetries, shouldDeleteDuringUpdate } from './deletion.js';
import { deleteObject } from './delete-object.js';
import { copySharing, unshare } from './copy-sharing.js';
import type { GoOrder } from '../../machinery/go-order.js';
import { followsInObjectMeta, followsInSortedMap, withResourceVersion, type FollowsResourceVersion } from './resource-version-place.js';
import { orderInPlace } from './wire-order.js';

export interface StoreDeps {
  store: Store;
  schemas: SchemaSet;
  admission: Admission;
  /** schema definition name of a served apiVersion/kind (for decoding typed bodies) */
  kindSchema: (apiVersion: string, kind: string) => string | undefined;
  /** deep-freeze the objects watchers share (a debugging aid for tests) */
  freezeWatchObjects?: boolean;
  /** the member order kube writes (objects are stored and answered in it); unset: as they come */
  order?: GoOrder;
}

export interface DeleteResult {
  object: KObject;
  /** false when the object still exists (finalizers or a grace period) */
  deleted: boolean;
}


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
    this.plain = !def.storedAs && !def.conversion;
    const follows = (this.followsResourceVersion = def.custom ? followsInSortedMap : followsInObjectMeta);
    this.revisions = new DecodedRevisions({
      enabled: this.plain,
      freeze: !!deps.freezeWatchObjects,
      withResourceVersion: (meta, rv) => withResourceVersion(meta, rv, follows),
    });
  }

  /** where metadata.resourceVersion goes among metadata's members in this kind's JSON */
  readonly followsResourceVersion: FollowsResourceVersion;

  /**
   * `v` (an object of this kind, or one of its lists' items) in the member order kube-apiserver writes it: a
   * built-in type's Go field order, a custom resource's keys sorted as an unstructured map's; `v` itself when it is.
   */
  goOrdered<T>(v: T): T {
    const order = this.deps.order;
    if (!order) return v;
    return this.def.custom ? order.sorted(v) : order.struct(v, this.def.schemaRef);
  }


  /** stored text is this version's object as it is: decoded revisions can be kept and shared */
  private readonly plain: boolean;

  /** The key of an object; a name that cannot be one path segment is refused first, as kube's KeyFunc does. */
  key(namespace: string, name: string): string {
    const msgs = isValidPathSegmentName(name);
    if (msgs.length) throw errors.badRequest(`Name parameter invalid: ${goQuote(name)}: ${msgs.join(';')}`);
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
    const value = opts.shared && opts.remember && this.plain && obj.metadata.resourceVersion === undefined ? encodeRemembered(obj, this.followsResourceVersion) : this.encode(obj);
    // unwatched keys (most events): a copy nobody reads would only cost; the next update parses instead
    if (this.plain && this.deps.store.watched?.(key) !== false) {
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
    orderInPlace(obj, this.goOrdered(obj));
    const value = JSON.stringify(obj);
    if (this.plain && this.deps.store.watched?.(kv.key) !== false) this.revisions.expect(kv.key, value, obj);
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
    return this.served(obj, kv);
  }

  /**
   * decode() for a definition whose conversion is a call out (a conversion webhook): every read of such a kind
   * takes this path, none of the synchronous ones that serve.
   */
  async decodeConverted(kv: KeyValue): Promise<KObject> {
    return this.served(await this.def.conversion!.fromStored(JSON.parse(kv.value) as KObject), kv);
  }

  /** The stored text of `obj` for a definition with an async conversion. */
  async encodeConverted(obj: KObject): Promise<string> {
    const o = { ...obj, apiVersion: this.apiVersion, kind: this.def.kind, metadata: { ...obj.metadata } };
    delete o.metadata.resourceVersion;
    return JSON.stringify(await this.def.conversion!.toStored(o));
  }

  /** The object of this version once converted: read defaults, apiVersion and kind, the revision. */
  private served(obj: KObject, kv: KeyValue): KObject {
    this.def.custom?.defaultOnRead?.(obj);
    obj.apiVersion = this.apiVersion;
    obj.kind = this.def.kind;
    if (obj.metadata) obj.metadata = withResourceVersion(obj.metadata as Record<string, unknown>, String(kv.modRevision), this.followsResourceVersion);
    return obj;
  }

  encode(obj: KObject): string {
    // Nothing to drop or convert (e.g. a create): the copy below would serialise the same.
    if (!this.def.storedAs && obj.metadata && obj.metadata.resourceVersion === undefined) return JSON.stringify(this.goOrdered(obj));
    const o = this.def.storedAs ? this.def.storedAs.toStored(clone(obj)) : { ...obj, metadata: { ...obj.metadata } };
    delete o.metadata.resourceVersion;
    return JSON.stringify(this.def.storedAs ? o : this.goOrdered(o));
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
    if (store.revision && this.plain) {
      const r = await store.revision(key);
      if (!r) return undefined;
      const kept = this.revisions.peek(key, r.modRevision);
      if (kept) return { rev: { key, modRevision: r.modRevision }, current: kept };
    }
    const kv = await store.get(key);
    if (!kv) return undefined;
    return { rev: kv, current: this.def.conversion ? await this.decodeConverted(kv) : this.readOnly(kv) };
  }

  async get(namespace: string, name: string): Promise<KObject> {
    const kv = await this.getKV(namespace, name);
    return this.def.conversion ? this.decodeConverted(kv) : this.decode(kv);
  }

  invalid(name: string, errs: FieldError[]): StatusError {
    return errors.invalid(this.def.kind, this.def.group, name, errs);
  }

  /**
   * `owned`: the caller hands `input` over (a freshly decoded body), so it is changed in place instead of copied.
   * `readOnlyResult`: the caller only reads (serialises) the object returned, which watchers may then share.
   */
  async create(ctx: RequestContext, namespace: string, input: KObject, opts: { owned?: boolean; readOnlyResult?: boolean } = {}): Promise<KObject> {
    if (this.def.custom?.terminating) throw new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', {});
    const obj = opts.owned ? input : clone(input);
    const meta = prepareCreate(this, namespace, obj);
    await this.deps.admission.admit({ ctx, store: this, operation: 'CREATE', object: obj, namespace });
    this.def.strategy.canonicalize?.(obj);
    addWarnings(this.def, ctx, obj);
    trackManagedFields(this, ctx, { live: undefined, updated: obj, subresource: '' });
    orderInPlace(obj, this.goOrdered(obj));
    if (ctx.dryRun) return obj;
    const key = this.key(namespace, meta.name!);
    const conv = this.def.conversion;
    const value = conv ? await this.encodeConverted(obj) : this.encodeWrite(key, obj, { shared: opts.readOnlyResult, remember: ctx.respondsWithJson });
    const res = await this.deps.store.create(key, value);
    if (!res.ok) throw errors.alreadyExists(this.gr, meta.name!);
    // kube answers with what it stored decoded again: under conversion, converted back from the storage version
    if (conv) return this.decodeConverted(res.kv);
    const rv = String(res.kv.modRevision);
    // a shared object may have been given its resourceVersion (and been frozen) by a watcher's decode already
    if (obj.metadata.resourceVersion !== rv) obj.metadata.resourceVersion = rv;
    return obj;
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
      await this.deps.admission.admit({ ctx, store: this, operation: 'UPDATE', object: obj, old: current, namespace, subresource: opts.subresource });
      const statusOnly = opts.subresource === 'status' ? this.def.strategy.statusOnly : undefined;
      if (statusOnly) statusOnly.canonicalize(obj);
      else this.def.strategy.canonicalize?.(obj);
      // what `obj` shares with the current revision (a status update's spec) is copied for a caller that may change it
      const result = (o: KObject): KObject => (opts.readOnlyResult ? o : unshare(o, current));
      if (deepEqual({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined, managedFields: undefined } }, {
        ...current,
        metadata: { ...current.metadata, resourceVersion: undefined, managedFields: undefined },
      }) && !(await this.deps.store.stale?.(kv!.key, kv!.modRevision))) {
        // no-op updates do not write (and keep the resourceVersion), as Kubernetes does, unless the stored value is
        // stale (encrypted under an older key): rewriting unchanged objects is how they are encrypted anew
        return { object: clone(current), created: false };
      }
      trackManagedFields(this, ctx, { live: current, updated: obj, subresource: opts.subresource });
      orderInPlace(obj, this.goOrdered(obj));
      if (ctx.dryRun) return { object: result(obj), created: false };
      if (shouldDeleteDuringUpdate(obj) && !this.def.strategy.deletionBlocked?.(obj)) {
        const del = await this.deps.store.delete(kv!.key, { expectedRevision: kv!.modRevision });
        if (del.ok) return { object: result(obj), created: false };
      } else {
        // a result only serialised is kept itself as the new revision (no copy for watchers); it then has no
        // resourceVersion until committed, as a create's
        const shared = opts.readOnlyResult && this.plain;
        if (shared) delete obj.metadata.resourceVersion;
        const conv = this.def.conversion;
        const value = conv ? await this.encodeConverted(obj) : this.encodeWrite(kv!.key, obj, { current, shared, remember: ctx.respondsWithJson });
        const res = await this.deps.store.update(kv!.key, value, kv!.modRevision);
        if (res.ok && conv) return { object: await this.decodeConverted(res.kv), created: false };
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
    return prepareUpdate(this, ctx, desired, current, subresource, opts);
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
    return deleteObject(this, ctx, namespace, name, opts);
  }
}
