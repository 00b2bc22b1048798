// The APIServices in force, followed from storage with a watch (kube-aggregator's APIService informer): the
// proxy, discovery and the controllers read them from here.
import { isLocal, type APIService } from '../../api/apiregistration/index.js';
import type { Watch } from '../../storage/types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';

export class APIServiceCache {
  private readonly byName = new Map<string, APIService>();
  private watch?: Watch;
  private readonly listeners = new Set<(name: string) => void>();

  constructor(private readonly registry: Registry) {}

  get store(): ResourceStore {
    return this.registry.mustLookup('apiregistration.k8s.io', 'v1', 'apiservices');
  }

  async start(): Promise<void> {
    const rs = this.store;
    const listed = await this.registry.store.list(rs.keyPrefix);
    for (const kv of listed.kvs) {
      const o = rs.decode(kv) as APIService;
      this.byName.set(o.metadata.name ?? '', o);
    }
    this.watch = this.registry.store.watch(rs.keyPrefix, { afterRevision: listed.revision }, (ev) => {
      const o = rs.decode(ev.kv) as APIService;
      const name = o.metadata.name ?? '';
      if (ev.type === 'DELETED') this.byName.delete(name);
      else this.byName.set(name, o);
      for (const l of this.listeners) l(name);
    });
  }

  stop(): void {
    this.watch?.stop();
  }

  /** Calls `listener` with the name of each APIService added, changed or deleted. */
  onChange(listener: (name: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(name: string): APIService | undefined {
    return this.byName.get(name);
  }

  all(): APIService[] {
    return [...this.byName.values()];
  }

  /** The APIService that sends `group`/`version` to a Service, if one does (the core group is never proxied). */
  remote(group: string, version: string): APIService | undefined {
    if (!group) return undefined;
    const o = this.byName.get(`${version}.${group}`);
    return o && !isLocal(o) ? o : undefined;
  }

  /** Every APIService with a Service. */
  remotes(): APIService[] {
    return this.all().filter((o) => !isLocal(o) && o.spec?.group);
  }
}
