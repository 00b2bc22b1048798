// What NamespaceLifecycle needs to know of each namespace (does it exist, is it terminating), kept in memory and
// fed by a store watch, so a create neither reads nor decodes its namespace.
//
// As fresh as a store read: the store hands each commit to its watchers in a microtask queued before the writers'
// promises settle, so the map has every committed change before any writer hears back or another request runs.
// A name missing from the map is still looked up in the store, so a miss can never wrongly refuse a create.
import type { Watch, WatchEvent } from '../../storage/types.js';
import type { ResourceStore } from '../registry/store.js';

export class NamespaceStates {
  /** namespace name → whether it has a deletionTimestamp */
  private readonly terminatingByName = new Map<string, boolean>();
  private started?: Promise<void>;
  private watch?: Watch;

  constructor(private readonly namespaces: () => ResourceStore) {}

  /** Whether a namespace the map knows is terminating, without waiting; undefined when the map cannot tell. */
  known(name: string): boolean | undefined {
    return this.watch ? this.terminatingByName.get(name) : undefined;
  }

  /** undefined when the namespace does not exist, else whether it is being terminated. */
  async terminating(name: string): Promise<boolean | undefined> {
    await (this.started ??= this.start());
    const known = this.terminatingByName.get(name);
    if (known !== undefined) return known;
    const kv = await this.namespaces().deps.store.get(this.namespaces().key('', name));
    return kv ? Boolean(this.namespaces().decode(kv).metadata.deletionTimestamp) : undefined;
  }

  /** Stops following the store (the map is then left as it was). */
  stop(): void {
    this.watch?.stop();
  }

  private async start(): Promise<void> {
    const rs = this.namespaces();
    const prefix = rs.prefix('');
    const page = await rs.deps.store.list(prefix);
    // The watch resumes right after the list's revision, so no change falls between the two.
    for (const kv of page.kvs) this.record({ type: 'ADDED', kv });
    this.watch = rs.deps.store.watch(prefix, { afterRevision: page.revision }, (ev) => this.record(ev));
  }

  private record(ev: WatchEvent): void {
    const obj = this.namespaces().decode(ev.kv);
    const name = obj.metadata.name ?? '';
    if (ev.type === 'DELETED') this.terminatingByName.delete(name);
    else this.terminatingByName.set(name, Boolean(obj.metadata.deletionTimestamp));
  }
}
