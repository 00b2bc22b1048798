// ControllerExpectations for the DaemonSet controller: pods it created or deleted that its informer has not seen yet.
// Until the cache catches up a sync must not create or delete again (it would double pods on a node). Entries
// expire after a while, as in Kubernetes, so a lost watch event cannot wedge a DaemonSet.
import type { Informer } from '../../client/informer.js';

const EXPIRE_MS = 5 * 60 * 1000;

interface Pending {
  creates: Set<string>;
  deletes: Set<string>;
  since: number;
}

export class PodExpectations {
  private readonly byKey = new Map<string, Pending>();

  constructor(
    private readonly pods: Informer,
    private readonly now: () => number,
  ) {}

  private entry(key: string): Pending {
    let e = this.byKey.get(key);
    if (!e) this.byKey.set(key, (e = { creates: new Set(), deletes: new Set(), since: this.now() }));
    return e;
  }

  expectCreate(key: string, namespace: string, name: string): void {
    this.entry(key).creates.add(`${namespace}/${name}`);
  }

  expectDelete(key: string, namespace: string, name: string, uid: string): void {
    this.entry(key).deletes.add(`${namespace}/${name}/${uid}`);
  }

  /** True when every expected create is cached and every expected delete is gone or terminating. */
  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    for (const k of e.creates) if (this.pods.getByKey(k)) e.creates.delete(k);
    for (const k of e.deletes) {
      const [ns, name, uid] = k.split('/');
      const p = this.pods.get(ns, name);
      if (!p || p.metadata.uid !== uid || p.metadata.deletionTimestamp) e.deletes.delete(k);
    }
    if ((!e.creates.size && !e.deletes.size) || this.now() - e.since > EXPIRE_MS) {
      this.byKey.delete(key);
      return true;
    }
    return false;
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }
}
