// Serves the custom resources of every established CustomResourceDefinition (apiextensions-apiserver's CRD
// handler): the CRDs in storage are followed with a watch, and each change replaces the resource definitions the
// CRD serves in the registry, so schema changes apply to the next request. A CRD being deleted has its objects
// deleted first (the customresourcecleanup finalizer's controller), then the finalizer is removed.
import { CLEANUP_FINALIZER, isEstablished, type CRDNames, type CustomResourceDefinition } from '../../api/apiextensions/index.js';
import { customResourceDefinitions } from '../../api/apiextensions/customresource/definition.js';
import type { KObject } from '../../api/types.js';
import type { Watch } from '../../storage/types.js';
import { newContext } from '../context.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';
import { WebhookClients } from '../admission/webhook/client.js';
import { resolveServiceEndpoint } from '../admission/webhook/service-endpoint.js';
import { conversionWebhook } from './conversion-webhook.js';

const CRDS = ['apiextensions.k8s.io', 'v1', 'customresourcedefinitions'] as const;
const system = { name: 'system:apiserver', groups: ['system:masters'] };
const cleanupRetryMs = 1000;

export class CustomResourceController {
  /** the stored CRDs by name (their accepted names feed the naming step of the others) */
  private readonly crds = new Map<string, CustomResourceDefinition>();
  private watch?: Watch;
  private readonly cleaning = new Set<string>();
  private stopped = false;
  /** the HTTPS clients of the conversion webhooks */
  private readonly clients = new WebhookClients();

  constructor(
    private readonly registry: Registry,
    private readonly log: (msg: string) => void = () => {},
  ) {}

  /** The accepted names of the other CRDs of `crd`'s group. */
  namesInUse(crd: CustomResourceDefinition): CRDNames[] {
    const out: CRDNames[] = [];
    for (const [name, c] of this.crds) {
      if (name !== crd.metadata.name && c.spec?.group === crd.spec?.group && c.status?.acceptedNames) out.push(c.status.acceptedNames);
    }
    return out;
  }

  private get store(): ResourceStore {
    return this.registry.mustLookup(...CRDS);
  }

  /** Installs what storage holds, then follows changes. */
  async start(): Promise<void> {
    const rs = this.store;
    const listed = await this.registry.store.list(rs.keyPrefix);
    for (const kv of listed.kvs) this.apply(rs.decode(kv));
    this.watch = this.registry.store.watch(rs.keyPrefix, { afterRevision: listed.revision }, (ev) => {
      if (this.stopped) return;
      const crd = this.store.decode(ev.kv) as CustomResourceDefinition;
      if (ev.type === 'DELETED') this.withdraw(crd.metadata.name ?? '');
      else this.apply(crd);
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.clients.clear();
  }

  private apply(crd: CustomResourceDefinition): void {
    const name = crd.metadata.name ?? '';
    this.crds.set(name, crd);
    if (!isEstablished(crd)) {
      this.registry.replaceOwned(name, []);
      return;
    }
    try {
      const convert = conversionWebhook(crd, this.clients, (ref) => resolveServiceEndpoint(this.registry, ref));
      const refused = this.registry.replaceOwned(name, customResourceDefinitions(crd, { convert }));
      for (const d of refused) this.log(`k1s: CustomResourceDefinition ${name}: ${d.plural}.${d.group}/${d.version} is served already; not served again`);
    } catch (e) {
      this.log(`k1s: CustomResourceDefinition ${name} not served: ${(e as Error).message}`);
    }
    if (crd.metadata.deletionTimestamp && (crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) void this.cleanup(name);
  }

  private withdraw(name: string): void {
    this.crds.delete(name);
    this.registry.replaceOwned(name, []);
  }

  /** Deletes every object of a terminating CRD (waiting for their own finalizers), then drops the CRD's finalizer. */
  private async cleanup(name: string): Promise<void> {
    if (this.cleaning.has(name)) return;
    this.cleaning.add(name);
    try {
      for (;;) {
        if (this.stopped) return;
        const crd = this.crds.get(name);
        if (!crd?.metadata.deletionTimestamp) return;
        const rs = this.servingStore(crd);
        const left = rs ? await this.deleteAll(rs) : 0;
        if (left === 0) {
          await this.removeFinalizer(name);
          return;
        }
        await new Promise((r) => setTimeout(r, cleanupRetryMs));
      }
    } catch (e) {
      this.log(`k1s: cleanup of CustomResourceDefinition ${name} failed: ${(e as Error).message}; retrying`);
      setTimeout(() => void this.cleanup(name), cleanupRetryMs);
    } finally {
      this.cleaning.delete(name);
    }
  }

  private servingStore(crd: CustomResourceDefinition): ResourceStore | undefined {
    const group = crd.spec?.group ?? '';
    const plural = crd.status?.acceptedNames?.plural ?? crd.spec?.names?.plural ?? '';
    for (const v of crd.spec?.versions ?? []) {
      const rs = v?.name ? this.registry.lookup(group, v.name, plural) : undefined;
      if (rs && !rs.def.storedAs) return rs;
    }
    return undefined;
  }

  /** Deletes what is left; returns how many objects remain (held by finalizers). */
  private async deleteAll(rs: ResourceStore): Promise<number> {
    const ctx = newContext(system);
    const listed = await this.registry.store.list(rs.keyPrefix);
    for (const kv of listed.kvs) {
      const o = rs.decode(kv) as KObject;
      if (o.metadata.deletionTimestamp) continue;
      try {
        await rs.delete(ctx, o.metadata.namespace ?? '', o.metadata.name ?? '', {});
      } catch (e) {
        if ((e as { code?: number }).code !== 404) throw e;
      }
    }
    return this.registry.store.count(rs.keyPrefix);
  }

  private async removeFinalizer(name: string): Promise<void> {
    const ctx = newContext(system);
    await this.store.guaranteedUpdate(ctx, '', name, (cur) => {
      if (!cur) throw new Error('gone');
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
      return cur;
      // through /status, as kube's finalizer controller does: a CRD whose spec no longer validates can still go
    }, { subresource: 'status' }).catch((e) => {
      if ((e as { code?: number }).code !== 404) throw e;
    });
  }
}
