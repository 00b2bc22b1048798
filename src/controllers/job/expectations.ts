// What the job controller has asked for but its caches may not show yet (ControllerExpectations and the
// finalizer-removal expectations of the job controller): pod creations, deletions, finalizer removals and its own
// status writes. Until the caches catch up a sync must not create pods again or count a pod twice.
import type { Informer } from '../../client/informer.js';
import { hasTrackingFinalizer } from './pods.js';

interface Pending {
  creates: Set<string>;
  deletes: Set<string>;
  finalizers: Set<string>;
  statusRV?: string;
  since: number;
}

/** Expectations older than this are dropped (kube uses 5 minutes; in one process caches lag milliseconds). */
const EXPECTATION_TTL_MS = 30_000;

function rvBefore(a: string | undefined, b: string): boolean {
  if (!a) return true;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) < BigInt(b);
  return a !== b;
}

export class JobExpectations {
  private readonly byJob = new Map<string, Pending>();

  constructor(private readonly pods: Informer) {}

  private entry(key: string): Pending {
    let e = this.byJob.get(key);
    if (!e) this.byJob.set(key, (e = { creates: new Set(), deletes: new Set(), finalizers: new Set(), since: performance.now() }));
    e.since = performance.now();
    return e;
  }

  expectCreate(jobKey: string, podKey: string): void {
    this.entry(jobKey).creates.add(podKey);
  }

  expectDelete(jobKey: string, uid: string): void {
    this.entry(jobKey).deletes.add(uid);
  }

  expectFinalizerRemoved(jobKey: string, uid: string): void {
    this.entry(jobKey).finalizers.add(uid);
  }

  forgetDelete(jobKey: string, uid: string): void {
    this.byJob.get(jobKey)?.deletes.delete(uid);
  }

  forgetFinalizer(jobKey: string, uid: string): void {
    this.byJob.get(jobKey)?.finalizers.delete(uid);
  }

  expectStatus(jobKey: string, resourceVersion: string | undefined): void {
    if (resourceVersion) this.entry(jobKey).statusRV = resourceVersion;
  }

  forget(jobKey: string): void {
    this.byJob.delete(jobKey);
  }

  /** Drops what the caches now show; true when pod creations and deletions are all observed. */
  podsSatisfied(jobKey: string): boolean {
    const e = this.prune(jobKey);
    return !e || (e.creates.size === 0 && e.deletes.size === 0);
  }

  /** UIDs whose finalizer removal the cache does not show yet. */
  pendingFinalizers(jobKey: string): Set<string> {
    return this.prune(jobKey)?.finalizers ?? new Set();
  }

  /** Whether the cached job is older than the controller's last status write. */
  jobStale(jobKey: string, cachedRV: string | undefined): boolean {
    const e = this.prune(jobKey);
    return !!e?.statusRV && rvBefore(cachedRV, e.statusRV);
  }

  private prune(jobKey: string): Pending | undefined {
    const e = this.byJob.get(jobKey);
    if (!e) return undefined;
    if (performance.now() - e.since > EXPECTATION_TTL_MS) {
      this.byJob.delete(jobKey);
      return undefined;
    }
    for (const k of e.creates) if (this.pods.getByKey(k)) e.creates.delete(k);
    for (const uid of e.deletes) {
      const p = this.pods.byIndex('uid', uid)[0];
      if (!p || p.metadata.deletionTimestamp) e.deletes.delete(uid);
    }
    for (const uid of e.finalizers) {
      const p = this.pods.byIndex('uid', uid)[0];
      if (!p || !hasTrackingFinalizer(p)) e.finalizers.delete(uid);
    }
    if (e.statusRV === undefined && !e.creates.size && !e.deletes.size && !e.finalizers.size) this.byJob.delete(jobKey);
    return this.byJob.get(jobKey);
  }

  /** Called when the cache shows a job at `rv`: the status expectation is met once it reaches the write. */
  observeJob(jobKey: string, rv: string | undefined): void {
    const e = this.byJob.get(jobKey);
    if (e?.statusRV && rv && !rvBefore(rv, e.statusRV)) e.statusRV = undefined;
  }
}
