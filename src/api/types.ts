// What a served resource is: data (names, scope, schema, table columns, selectable fields, subresources) plus a
// typed strategy (kube-apiserver's generic registry). Adding a built-in kind is one ResourceDefinition.
import type { FieldError } from '../machinery/errors.js';
import type { Definitions } from '../machinery/schema.js';
import type { ManagedFieldsEntry } from '../machinery/apply/managed-fields.js';
import type { AccessDecider } from './rbac/rules.js';

export type { ManagedFieldsEntry };

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  [k: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Any Kubernetes object. Kinds narrow this with their own fields. */
export interface KObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

export interface TableColumn<T extends KObject = KObject> {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  /** 0: default output; 1: `-o wide` only */
  priority?: number;
  cell(obj: T, ctx: { now: number }): string | number | boolean | null;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/**
 * A subresource that is a request of its own kind rather than a view of the object (pods/binding,
 * pods/eviction, serviceaccounts/token). The API server registers its implementation by name.
 */
export interface ActionSubresource {
  name: string;
  verbs: string[];
  kind: { group: string; version: string; kind: string };
}

export interface DeleteContext {
  gracePeriodSeconds?: number;
}

export interface Strategy<T extends KObject = KObject> {
  /** Fills defaulted fields; runs on every create and update body (Kubernetes defaults at decode time). */
  defaults?(obj: T): void;
  /** Resets fields a create may not set (typically status). */
  prepareForCreate?(obj: T): void;
  /** On an update of the main resource: e.g. keep the old status. */
  prepareForUpdate?(obj: T, old: T): void;
  validate?(obj: T): FieldError[];
  validateUpdate?(obj: T, old: T): FieldError[];
  /** Normalises the stored form (e.g. canonical quantities). */
  canonicalize?(obj: T): void;
  /** On an update through the status subresource: by default everything but status is taken from old. */
  prepareForStatusUpdate?(obj: T, old: T): void;
  /** A status update also takes the new finalizers (CustomResourceDefinition: its cleanup controller's path). */
  statusUpdateTakesFinalizers?: boolean;
  validateStatusUpdate?(obj: T, old: T): FieldError[];
  /**
   * A status update keeps only the request's status and annotations: with this, the store defaults and canonicalises
   * the status alone (in place of `defaults` and `canonicalize` over the whole body, whose other fields are replaced
   * by the current object's) and builds the new object around the current one, sharing its other fields read-only.
   * prepareForStatusUpdate must then change the status only, and metadata fields only by assigning them.
   */
  statusOnly?: { defaults(obj: T): void; canonicalize(obj: T): void };
  /** For definition.subresources.extra: the object to store, from the request's object and the current one. */
  prepareForSubresourceUpdate?(subresource: string, obj: T, old: T): T;
  validateSubresourceUpdate?(subresource: string, obj: T, old: T): FieldError[];
  /** Name validation messages (default: DNS-1123 subdomain). */
  validateName?(name: string, prefix: boolean): string[];
  /** Warnings returned to the client in `Warning` headers. */
  warnings?(obj: T, old?: T): string[];
  /** Whether an update moves metadata.generation (default: anything outside metadata and status changed). */
  generationChanged?(obj: T, old: T): boolean;
  /** Grace period for a graceful delete (undefined: delete immediately). */
  gracePeriodSeconds?(obj: T, ctx: DeleteContext): number | undefined;
  /** Default propagation for delete when the client does not say (Kubernetes: background, orphan for a few legacy kinds). */
  defaultGCPolicy?: 'OrphanDependents' | 'BackgroundDeletion';
  /** Whether PUT of a missing object creates it. */
  allowCreateOnUpdate?: boolean;
  /** DELETE answers with the deleted object instead of a Success Status (pods). */
  returnDeletedObject?: boolean;
  /** Runs when an object first gets its deletionTimestamp (e.g. a namespace becomes Terminating). */
  beforeDelete?(obj: T): void;
  /** Something other than metadata.finalizers keeps a deleted object (e.g. a namespace's spec.finalizers). */
  deletionBlocked?(obj: T): boolean;
  /** The `finalize` subresource: which part of the new object it may change. */
  prepareForFinalize?(obj: T, old: T): T;
}

/** The requesting user, as authentication established it. */
export interface RequestUser {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** A create-only resource computed per request and never stored (access reviews, token reviews). */
export interface VirtualCreate<T extends KObject = KObject> {
  create(obj: T, ctx: { user: RequestUser; namespace: string; authorizer?: AccessDecider }): Promise<T> | T;
}

export interface ResourceDefinition<T extends KObject = KObject> {
  group: string;
  version: string;
  kind: string;
  /** lower-case plural, the URL segment */
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
  namespaced: boolean;
  /** OpenAPI definition name of the kind's schema, e.g. "io.k8s.api.core.v1.Pod" */
  schemaRef: string;
  /** Definitions this resource's schema needs (merged into the cluster's SchemaSet). */
  definitions: Definitions;
  /** Tracks metadata.generation, bumped on changes outside metadata and status. */
  hasGeneration?: boolean;
  /**
   * status: the status subresource; scale: replicas and selector paths for autoscaling/v1 Scale; extra: more
   * subresources that, like status, update one part of the object (e.g. a CSR's `approval`), each prepared by
   * strategy.prepareForSubresourceUpdate.
   */
  subresources?: { status?: boolean; scale?: ScaleSubresource; extra?: string[]; actions?: ActionSubresource[] };
  /** Verbs served; default: all of create, delete, deletecollection, get, list, patch, update, watch. */
  verbs?: string[];
  columns: TableColumn<T>[];
  /** Field selectors beyond metadata.name and metadata.namespace. */
  selectableFields?: Record<string, (obj: T) => string | undefined>;
  strategy: Strategy<T>;
  /** Set for resources that are computed on create and not stored (verbs must be ["create"]). */
  virtual?: VirtualCreate<T>;
  /**
   * Served from a CustomResourceDefinition: a body is pruned to the schema (what was dropped is the unknown-field
   * report) instead of type-checked while decoding, stored objects are defaulted when read, and strategic merge
   * patch and protobuf are refused, as kube-apiserver does for custom resources.
   */
  custom?: CustomResourceHooks;
  /** the `Warning` every request of this version answers with (a deprecated version) */
  deprecationWarning?: string;
  /**
   * Another version or group serving the same stored objects (events.k8s.io/v1 Event over core/v1 events): the
   * storage resource and the conversion to and from its stored form.
   */
  storedAs?: {
    group: string;
    plural: string;
    toStored(obj: T): KObject;
    fromStored(obj: KObject): T;
    /** awaited before each read (get, list), e.g. to start following what fromStored needs */
    prepare?(): Promise<void>;
  };
  /**
   * Conversion that needs a call out (a CRD's conversion webhook), for every version of such a kind, the storage
   * version too (objects written under an earlier storage version stay in it). The store awaits it on each read and
   * write; definitions without it keep the synchronous codec and its fast paths.
   */
  conversion?: AsyncConversion;
}

export interface AsyncConversion {
  /** an object as stored (resourceVersion unset, in whatever version it was written) → this version */
  fromStored(obj: KObject): Promise<KObject>;
  /** an object of this version (resourceVersion unset) → the storage version */
  toStored(obj: KObject): Promise<KObject>;
}

export interface CustomResourceHooks {
  /** the CustomResourceDefinition's name (plural.group) */
  crdName: string;
  /** drops the fields the schema does not know, in place; returns their paths ("spec.foo") */
  prune(obj: KObject): string[];
  /** structural defaulting of an object read from storage (Kubernetes defaults on read too) */
  defaultOnRead?(obj: KObject): void;
  /** creates are refused while the definition is being deleted */
  terminating?: boolean;
}

export function apiVersionOf(d: { group: string; version: string }): string {
  return d.group ? `${d.group}/${d.version}` : d.version;
}

/** Identity helper so each definition is type-checked against its own T once. */
export function defineResource<T extends KObject>(def: ResourceDefinition<T>): ResourceDefinition<KObject> {
  const problems: string[] = [];
  if (!/^[a-z][a-z0-9]*$/.test(def.plural)) problems.push(`plural "${def.plural}" must be lower-case alphanumeric`);
  if (def.singular !== def.kind.toLowerCase()) problems.push(`singular "${def.singular}" should be "${def.kind.toLowerCase()}"`);
  if (!def.definitions[def.schemaRef]) problems.push(`schemaRef "${def.schemaRef}" is not in its definitions`);
  const names = new Set<string>();
  for (const c of def.columns) {
    if (names.has(c.name)) problems.push(`column "${c.name}" appears twice`);
    names.add(c.name);
  }
  if (problems.length) throw new Error(`resource ${def.plural}.${def.group || 'core'}: ${problems.join('; ')}`);
  return def as unknown as ResourceDefinition<KObject>;
}
