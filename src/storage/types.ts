// The revisioned key-value store every backend implements (SQLite, etcd).
// Values are opaque strings (JSON of an object without metadata.resourceVersion); the store's revision is the
// object's resourceVersion. A revision mismatch is a result, not an exception; only "compacted" and
// "future revision" throw (as StoreError).

export interface KeyValue {
  key: string;
  value: string;
  /** revision of the last write to this key (its resourceVersion) */
  modRevision: number;
  /** revision at which this key was (last) created */
  createRevision: number;
}

/** A key's revision without its value. */
export type Revision = Pick<KeyValue, 'modRevision' | 'createRevision'>;

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent {
  type: WatchEventType;
  /** For DELETED: the last value before deletion, with modRevision = the deletion (tombstone) revision. */
  kv: KeyValue;
  /**
   * The value before this change (MODIFIED and DELETED), for watchers that filter by selector. A store may read its
   * value only when asked (SQLite does), so read it while handling the event: once compacted away it is ''.
   */
  prev?: KeyValue;
}

export type WriteResult = { ok: true; kv: KeyValue } | { ok: false; current?: KeyValue };

export interface ListOptions {
  /** read at this revision (0/undefined: latest) */
  revision?: number;
  /** maximum number of keys returned; 0/undefined: all */
  limit?: number;
  /** return keys strictly greater than this one (continue token decoded by the caller) */
  startAfter?: string;
}

export interface ListResult {
  kvs: KeyValue[];
  /** the revision the list was read at */
  revision: number;
  /** true when more keys follow the last one returned */
  more: boolean;
  /** how many keys are left after this page (for ListMeta.remainingItemCount) */
  remaining?: number;
}

export interface WatchOptions {
  /** deliver every change with revision > afterRevision; 0 means "from now" */
  afterRevision: number;
  /** live changes reach this watcher only when their trigger value (or their previous one) matches */
  trigger?: WatchTrigger;
}

/**
 * kube's watch-cache triggers: a kubelet watching `spec.nodeName=X` out of every pod is handed only the changes of
 * its own pods, found through an index, instead of each change being offered to every kubelet's watch.
 */
export interface WatchTrigger {
  /** the value a stored object has; watchers of one prefix that share this function are indexed together */
  valueOf: (kv: KeyValue) => string | undefined;
  /** changes whose value or previous value equals this one reach the watcher (undefined values reach all) */
  value: string;
}

export interface Watch {
  stop(): void;
}

/** An error's message as a thread sends it back (errors do not cross threads whole). */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Unavailable: the backend could not be reached in time (etcd down); the request fails, the store goes on. */
export type StoreErrorCode = 'Compacted' | 'FutureRevision' | 'Closed' | 'Unavailable';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** for Compacted: the oldest revision still available */
    readonly revision?: number,
  ) {
    super(message);
  }
}

export interface Store {
  /** Fails with {ok:false, current} when the key exists. */
  create(key: string, value: string): Promise<WriteResult>;
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  /**
   * The latest revision of a key without its value (optional): for writers that keep decoded objects by revision
   * and need the stored text only when they have none.
   */
  revision?(key: string): Promise<Revision | undefined>;
  /**
   * Whether the stored value of this revision of key would be stored otherwise now (optional): encryption at rest
   * under an older key, provider or none. An update that changes nothing still writes such a value again.
   */
  stale?(key: string, modRevision: number): Promise<boolean>;
  /** Compare-and-swap: succeeds only when the key's modRevision equals expectedRevision. */
  update(key: string, value: string, expectedRevision: number): Promise<WriteResult>;
  /** Deletes the key; with expectedRevision, only if it matches. The result's kv carries the tombstone revision. */
  delete(key: string, opts?: { expectedRevision?: number }): Promise<WriteResult>;
  /** Keys starting with prefix, in key order. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  count(prefix: string): Promise<number>;
  /** Calls onEvent for each change under prefix, in revision order, with no polling. Throws StoreError('Compacted'). */
  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void): Watch;
  /** Drops history at or below revision (keeps the latest value of every live key). */
  compact(revision: number): Promise<void>;
  currentRevision(): number;
  /** Whether a change of `key` would reach a watcher now (optional: callers assume it would). */
  watched?(key: string): boolean;
  /** Oldest revision a watch or a list may start from. */
  compactedRevision(): number;
  close(): Promise<void>;
}
