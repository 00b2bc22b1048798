// Namespace controller: when a namespace is deleted, delete everything in it, then remove the "kubernetes"
// finalizer through the finalize subresource so the namespace itself goes away.
import type { KObject } from '../api/types.js';
import type { Registry } from '../apiserver/registry.js';
import { apiVersionOf } from '../api/types.js';
import { StatusError } from '../machinery/errors.js';
import type { Client } from '../client/types.js';
import { WorkQueue, type ReconcileResult } from '../client/workqueue.js';

export class NamespaceController {
  private readonly queue: WorkQueue;
  private watch?: { stop(): void };

  constructor(
    private readonly client: Client,
    /** used only to enumerate namespaced resources (kube's controller reads discovery) */
    private readonly registry: Registry,
  ) {
    this.queue = new WorkQueue((key) => this.reconcile(key), {
      baseDelayMs: 100,
      maxDelayMs: 30_000,
      onError: (key, err) => console.error(`k1s: namespace controller: ${key}: ${(err as Error).message}`),
    });
  }

  async start(): Promise<void> {
    this.watch = await this.client.resource('v1', 'namespaces').watch('', {}, (ev) => {
      if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return;
      if (ev.object.metadata.deletionTimestamp) this.queue.add(ev.object.metadata.name!);
    });
  }

  stop(): void {
    this.watch?.stop();
    this.queue.stop();
  }

  /** One resource per storage location: events.k8s.io/v1 events are the core events. */
  private namespacedResources(): { apiVersion: string; plural: string }[] {
    return this.registry.definitions
      .filter((d) => d.namespaced && !d.storedAs && !(d.verbs && !d.verbs.includes('deletecollection')))
      .map((d) => ({ apiVersion: apiVersionOf(d), plural: d.plural }));
  }

  async reconcile(name: string): Promise<ReconcileResult | void> {
    const nsClient = this.client.resource('v1', 'namespaces');
    let ns: KObject;
    try {
      ns = await nsClient.get('', name);
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return;
      throw e;
    }
    if (!ns.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const r of this.namespacedResources()) {
      const rc = this.client.resource(r.apiVersion, r.plural);
      await rc.deleteCollection(name, {}, { propagationPolicy: 'Background' });
      remaining += (await rc.list(name, { limit: 1 })).items.length;
    }
    if (remaining > 0) return { requeueAfterMs: 1000 };
    const spec = (ns.spec ?? {}) as { finalizers?: string[] };
    if (!spec.finalizers?.includes('kubernetes')) return;
    await nsClient.update('', { ...ns, spec: { ...spec, finalizers: spec.finalizers.filter((f) => f !== 'kubernetes') } }, { subresource: 'finalize' });
  }
}
