// The ResourceQuota controller (pkg/controller/resourcequota): keeps status.hard equal to spec.hard and
// status.used equal to what the namespace's objects use, recomputed when those objects change and fully every
// five minutes. Quota admission charges creates as they happen; this controller corrects usage afterwards
// (deletes, pods reaching a terminal phase, failed writes that were charged).
import type { KObject } from '../api/types.js';
import { splitKey, type Informer } from '../client/informer.js';
import { StatusError } from '../machinery/errors.js';
import { clone } from '../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../client/controller.js';
import { canonical, equals, mask, toList, type ResourceList } from '../api/core/resourcequota/resource-list.js';
import { evaluatorFor, evaluatorsFor, usageOf, type QuotaEvaluator, type QuotaLike } from '../api/core/resourcequota/usage.js';

/** The resync period of kube-controller-manager's --resource-quota-sync-period. */
export const QUOTA_RESYNC_MS = 5 * 60_000;

/** Kinds whose changes can move usage, followed through shared informers. */
const WATCHED: { apiVersion: string; plural: string }[] = [
  { apiVersion: 'v1', plural: 'pods' },
  { apiVersion: 'v1', plural: 'services' },
  { apiVersion: 'v1', plural: 'persistentvolumeclaims' },
  { apiVersion: 'v1', plural: 'configmaps' },
  { apiVersion: 'v1', plural: 'secrets' },
  { apiVersion: 'v1', plural: 'replicationcontrollers' },
];

/** Preferred versions of the built-in groups, for count/<plural>.<group> quotas over kinds without an informer here. */
const GROUP_VERSIONS: Record<string, string> = {
  apps: 'v1', batch: 'v1', autoscaling: 'v2', policy: 'v1', 'networking.k8s.io': 'v1', 'discovery.k8s.io': 'v1',
  'rbac.authorization.k8s.io': 'v1', 'storage.k8s.io': 'v1', 'coordination.k8s.io': 'v1', 'scheduling.k8s.io': 'v1',
  'events.k8s.io': 'v1', 'node.k8s.io': 'v1', 'certificates.k8s.io': 'v1', 'apiextensions.k8s.io': 'v1',
  'admissionregistration.k8s.io': 'v1',
};

export class ResourceQuotaController extends Reconciler {
  readonly name = 'resourcequota';
  private quotas!: Informer;
  private readonly informers = new Map<string, Informer>();

  constructor(ctx: ControllerContext) {
    super(ctx);
  }

  setup(): void {
    this.quotas = this.informer('v1', 'resourcequotas');
    this.quotas.addHandler({
      add: (o) => this.enqueueObject(o),
      update: (old, o) => {
        // our own status writes come back here: only spec changes, or status drifting from spec, need work
        if (JSON.stringify((old as QuotaLike).spec) !== JSON.stringify((o as QuotaLike).spec) || !this.statusCurrent(o as QuotaLike)) this.enqueueObject(o);
      },
      delete: () => undefined,
    });
    // quotas count themselves (count/resourcequotas)
    this.quotas.addHandler({ add: (o) => this.replenish(o), delete: (o) => this.replenish(o) });
    for (const w of WATCHED) {
      const inf = this.informer(w.apiVersion, w.plural);
      this.informers.set(w.plural, inf);
      const ev = evaluatorFor('', w.plural);
      inf.addHandler({
        add: (o) => this.replenish(o),
        update: (old, o) => {
          // most namespaces have no quota: skip computing usage for every pod write
          if (!this.quotas.list(o.metadata.namespace ?? '').length) return;
          const now = this.ctx.now();
          if (!equals(ev.usage(old, now), ev.usage(o, now)) || JSON.stringify(old.spec) !== JSON.stringify(o.spec)) this.replenish(o);
        },
        delete: (o) => this.replenish(o),
      });
    }
  }

  /** Every quota of the object's namespace may need new usage. */
  private replenish(obj: KObject): void {
    const ns = obj.metadata.namespace ?? '';
    for (const rq of this.quotas.list(ns)) this.enqueueObject(rq);
  }

  private statusCurrent(rq: QuotaLike): boolean {
    const hard = toList(rq.spec?.hard);
    const st = toList(rq.status?.hard);
    return equals(hard, st) && Object.keys(hard).every((k) => k in toList(rq.status?.used));
  }

  async reconcile(key: string): Promise<{ requeueAfterMs: number } | void> {
    const cached = this.quotas.getByKey(key) as QuotaLike | undefined;
    if (!cached) return;
    const { namespace } = splitKey(key);
    const hard = toList(cached.spec?.hard);
    const hardNames = Object.keys(hard);
    const now = this.ctx.now();
    // start from the recorded usage so resources nobody evaluates keep their values (as kube does)
    let used: ResourceList = toList(cached.status?.used);
    for (const ev of evaluatorsFor(hardNames)) {
      const objects = await this.objectsOf(ev, namespace);
      if (!objects) continue;
      used = { ...used, ...usageOf(cached, ev, hardNames, objects, now) };
    }
    used = canonical(mask(used, hardNames));
    const status = { hard: canonical(hard), used };
    if (!equals(toList(cached.status?.hard), status.hard) || !equals(toList(cached.status?.used), used) ||
        Object.keys(toList(cached.status?.used)).length !== hardNames.length) {
      const next = clone(cached) as QuotaLike;
      next.status = status;
      try {
        await this.ctx.client.resource('v1', 'resourcequotas').update(namespace, next, { subresource: 'status' });
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) return;
        throw e;
      }
    }
    return { requeueAfterMs: QUOTA_RESYNC_MS };
  }

  /** The namespace's objects of an evaluator's kind, from an informer (undefined if the kind is not served). */
  private async objectsOf(ev: QuotaEvaluator, namespace: string): Promise<KObject[] | undefined> {
    if (ev.group === '' && ev.plural === 'resourcequotas') return this.quotas.list(namespace);
    const watched = ev.group === '' ? this.informers.get(ev.plural) : undefined;
    if (watched) return watched.list(namespace);
    const apiVersion = await this.versionOf(ev.group);
    if (!apiVersion) return undefined;
    const key = `${apiVersion}/${ev.plural}`;
    let inf = this.informers.get(key);
    if (!inf) {
      // count/<resource>.<group> quotas follow their kind from now on (kube's quota monitors); a list first,
      // since an informer over a resource the server does not serve would retry forever
      try {
        await this.ctx.client.resource(apiVersion, ev.plural).list(namespace, { limit: 1 });
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) return undefined;
        throw e;
      }
      inf = this.informers.get(key);
      if (!inf) {
        inf = this.informer(apiVersion, ev.plural);
        this.informers.set(key, inf);
        inf.addHandler({ add: (o) => this.replenish(o), delete: (o) => this.replenish(o) });
      }
    }
    await inf.start();
    return inf.list(namespace);
  }

  /** A built-in group's version, or the storage version of a CustomResourceDefinition's group. */
  private async versionOf(group: string): Promise<string | undefined> {
    if (group === '') return 'v1';
    if (GROUP_VERSIONS[group]) return `${group}/${GROUP_VERSIONS[group]}`;
    const crds = await this.ctx.client.resource('apiextensions.k8s.io/v1', 'customresourcedefinitions').list('');
    const crd = crds.items.find((c) => (c.spec as { group?: string } | undefined)?.group === group);
    const versions = ((crd?.spec as { versions?: { name: string; storage?: boolean; served?: boolean }[] } | undefined)?.versions ?? []);
    const v = versions.find((x) => x.storage) ?? versions.find((x) => x.served);
    return v ? `${group}/${v.name}` : undefined;
  }
}

export function resourceQuotaController(): ControllerFactory {
  return (ctx) => new ResourceQuotaController(ctx);
}
