// The client interface every component uses. In one process it calls the API machinery directly; a remote agent
// gets the same interface over HTTPS. Components cannot tell the difference.
import type { KObject } from '../api/types.js';
import type { DeleteOptions, ListParams, PatchType, WatchParams } from '../apiserver/context.js';

export interface ObjectList {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: KObject[];
}

export interface ClientWatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KObject;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  subresource?: string;
  force?: boolean;
  /**
   * In-process callers only (the HTTP client ignores it): the caller will not change the object returned, so the
   * store may hand over the very object its watchers share instead of a copy (a kubelet's status write).
   */
  readOnlyResult?: boolean;
}

export interface ResourceClient {
  /** With a subresource, reads <name>/<subresource> (a Scale from /scale). */
  get(namespace: string, name: string, opts?: { subresource?: string }): Promise<KObject>;
  list(namespace: string, params?: ListParams): Promise<ObjectList>;
  create(namespace: string, obj: KObject, opts?: WriteOptions): Promise<KObject>;
  update(namespace: string, obj: KObject, opts?: WriteOptions): Promise<KObject>;
  patch(namespace: string, name: string, type: PatchType, patch: unknown, opts?: WriteOptions): Promise<KObject>;
  /** Returns the object if it still exists (finalizers, grace period), else undefined. */
  delete(namespace: string, name: string, opts?: DeleteOptions): Promise<KObject | undefined>;
  deleteCollection(namespace: string, params?: ListParams, opts?: DeleteOptions): Promise<void>;
  watch(namespace: string, params: WatchParams, onEvent: (ev: ClientWatchEvent) => void): Promise<{ stop(): void }>;
}

export interface Client {
  resource(apiVersion: string, plural: string): ResourceClient;
}
