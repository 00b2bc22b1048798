// The objects of one resource kept in memory for admission plugins, fed by a store watch (kube's admission plugins
// read informer listers; NamespaceStates does the same for namespaces). A pod create then neither reads nor
// decodes its ServiceAccount, the PriorityClasses, nor the LimitRanges and ResourceQuotas of its namespace.
//
// As fresh as a store read: the store hands each commit to its watchers in a microtask queued before the writers'
// promises settle, so the cache has every committed change before any writer hears back or another request runs.
// Callers still read the store when the cache is not following yet, and may on a miss.
import type { KObject } from '../../api/types.js';
import type { Watch, WatchEvent } from '../../storage/types.js';
import type { ResourceStore } from '../registry/store.js';

const NONE: ReadonlyMap<string, KObject> = new Map();

export class AdmissionCache {
  /** namespace ('' for cluster-scoped kinds) → name → the decoded object (shared: read-only) */
  private readonly byNamespace = new Map<string, Map<string, KObject>>();
  private started?: Promise<void>;
  private watch?: Watch;
  private changes = 0;
  /** called after the cached objects changed (from the watch) */
  onChange?: () => void;
  /** called for each object recorded (the first list too): its new state, undefined once deleted */
  onObject?: (namespace: string, name: string, obj: KObject | undefined) => void;

  constructor(private readonly resource: () => ResourceStore) {}

  /**
   * The objects of a namespace ('' for cluster-scoped kinds), read-only; undefined while the cache is not
   * following the store yet (the first call starts following it).
   */
  inNamespace(namespace: string): ReadonlyMap<string, KObject> | undefined {
    if (!this.watch) {
      this.start().catch(() => undefined); // the caller reads the store meanwhile; a failed start is retried
      return undefined;
    }
    return this.byNamespace.get(namespace) ?? NONE;
  }

  /** Moves on whenever what inNamespace answers may have changed (for callers that derive from the objects). */
  get version(): number {
    return this.changes;
  }

  /** Resolves once the cache follows the store. */
  start(): Promise<void> {
    this.started ??= this.begin().catch((e: unknown) => {
      this.started = undefined;
      throw e;
    });
    return this.started;
  }

  /** Stops following the store (the cache answers nothing until it follows it again). */
  stop(): void {
    this.watch?.stop();
    this.watch = undefined;
    this.started = undefined;
    this.byNamespace.clear();
    this.changes++;
  }

  private async begin(): Promise<void> {
    const rs = this.resource();
    const prefix = rs.prefix('');
    const page = await rs.deps.store.list(prefix);
    // The watch resumes right after the list's revision, so no change falls between the two.
    for (const kv of page.kvs) this.record({ type: 'ADDED', kv }, rs, prefix);
    this.watch = rs.deps.store.watch(prefix, { afterRevision: page.revision }, (ev) => {
      this.record(ev, rs, prefix);
      this.onChange?.();
    });
    this.changes++;
    this.onChange?.();
  }

  private record(ev: WatchEvent, rs: ResourceStore, prefix: string): void {
    this.changes++;
    const rel = ev.kv.key.slice(prefix.length);
    const slash = rs.def.namespaced ? rel.indexOf('/') : -1;
    const namespace = slash < 0 ? '' : rel.slice(0, slash);
    const name = slash < 0 ? rel : rel.slice(slash + 1);
    if (ev.type === 'DELETED') {
      const m = this.byNamespace.get(namespace);
      m?.delete(name);
      if (m?.size === 0) this.byNamespace.delete(namespace);
      this.onObject?.(namespace, name, undefined);
      return;
    }
    let m = this.byNamespace.get(namespace);
    if (!m) this.byNamespace.set(namespace, (m = new Map()));
    const obj = rs.decodeShared(ev.kv);
    m.set(name, obj);
    this.onObject?.(namespace, name, obj);
  }
}
