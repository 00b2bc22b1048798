// Namespace controller (pkg/controller/namespace): a namespace with a deletionTimestamp is marked Terminating, its
// pods are deleted first (OrderedNamespaceDeletion, on in 1.33), then every other namespaced resource; the five
// deletion conditions report progress; once nothing is left the `kubernetes` finalizer is removed through the
// finalize subresource and the API server deletes the namespace.
import type { Namespace, NamespaceCondition } from '../../api/core/namespace.js';
import type { KObject } from '../../api/types.js';
import { StatusError } from '../../machinery/errors.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import type { ReconcileResult } from '../../client/workqueue.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import type { GCResource } from '../garbage-collector/owners.js';
import type { Informer } from '../../client/informer.js';
import { CRD_API, customResourceOf } from '../framework/custom-resources.js';
import { NamespaceDeletionReport, applyNamespaceConditions } from './conditions.js';

export interface NamespaceControllerOptions {
  /** the resources to empty a namespace of (kube uses discovery); cluster-scoped entries are ignored */
  resources: GCResource[];
}

const FINALIZER = 'kubernetes';
/** deletion.finalizerEstimateSeconds: what kube assumes finalizers on remaining items need */
const FINALIZER_ESTIMATE_SECONDS = 15;
const PODS: GCResource = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };

class RemainingError extends Error {
  constructor(readonly estimate: number) {
    super(`some content remains in the namespace, estimate ${estimate} seconds before it is removed`);
  }
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');
const versionOf = (apiVersion: string) => apiVersion.slice(apiVersion.indexOf('/') + 1);
/** schema.GroupVersionResource's String(): "apps/v1, Resource=deployments" */
const gvrString = (r: GCResource) => `${groupOf(r.apiVersion)}/${versionOf(r.apiVersion)}, Resource=${r.plural}`;

class NamespaceDeleter extends Reconciler {
  readonly name = 'namespace';

  constructor(
    ctx: ControllerContext,
    private readonly opts: NamespaceControllerOptions,
  ) {
    super(ctx, { baseDelayMs: 100, maxDelayMs: 60_000 });
  }

  private crds?: Informer;

  private customResources(): GCResource[] {
    const out: GCResource[] = [];
    for (const c of this.crds?.list() ?? []) {
      const r = customResourceOf(c);
      if (r) out.push(r);
    }
    return out;
  }

  setup(): void {
    this.crds = this.informer(...CRD_API);
    const inf = this.informer('v1', 'namespaces');
    inf.addHandler({
      add: (o) => o.metadata.deletionTimestamp && this.enqueueObject(o),
      update: (_, o) => o.metadata.deletionTimestamp && this.enqueueObject(o),
    });
  }

  private nsClient() {
    return this.ctx.client.resource('v1', 'namespaces');
  }

  async reconcile(name: string): Promise<ReconcileResult | void> {
    let ns: Namespace;
    try {
      ns = (await this.nsClient().get('', name)) as Namespace;
    } catch (e) {
      if (e instanceof StatusError && e.code === 404) return;
      throw e;
    }
    if (!ns.metadata.deletionTimestamp) return;
    if (ns.status?.phase !== 'Terminating') {
      ns = (await this.nsClient().update('', { ...clone(ns), status: { ...ns.status, phase: 'Terminating' } }, { subresource: 'status' })) as Namespace;
    }
    if (!(ns.spec?.finalizers ?? []).includes(FINALIZER)) return;
    try {
      await this.deleteAllContent(ns);
    } catch (e) {
      // ResourcesRemainingError: look again after half the estimate (namespace_controller.go)
      if (e instanceof RemainingError) return { requeueAfterMs: (Math.floor(e.estimate / 2) + 1) * 1000 };
      throw e;
    }
    await this.finalize(ns);
  }

  private async deleteAllContent(ns: Namespace): Promise<void> {
    const name = ns.metadata.name!;
    const report = new NamespaceDeletionReport();
    let estimate = 0;
    const errs: string[] = [];
    const run = async (r: GCResource) => {
      try {
        estimate = Math.max(estimate, await this.deleteResource(r, name, report));
      } catch (e) {
        const msg = (e as Error).message;
        errs.push(msg);
        report.contentErrors.push(msg);
      }
    };
    // pods go first; nothing else is deleted while pods remain
    await run(PODS);
    if ((report.remaining.get('pods.') ?? 0) > 0) {
      await this.updateConditions(ns, report);
      if (errs.length) throw new Error(errs.join(', '));
      throw new RemainingError(Math.max(estimate, 1));
    }
    for (const r of [...this.opts.resources, ...this.customResources()]) {
      if (!r.namespaced || (r.apiVersion === 'v1' && r.plural === 'pods')) continue;
      await run(r);
    }
    report.totalsKnown = true;
    await this.updateConditions(ns, report);
    if (errs.length) throw new Error(errs.join(', '));
    if (estimate > 0) throw new RemainingError(estimate);
  }

  /** Deletes one resource's objects in the namespace and returns a wait estimate in seconds if some remain. */
  private async deleteResource(r: GCResource, ns: string, report: NamespaceDeletionReport): Promise<number> {
    const rc = this.ctx.client.resource(r.apiVersion, r.plural);
    let estimate = 0;
    if (r.plural === 'pods' && r.apiVersion === 'v1') estimate = await this.podsGraceEstimate(ns);
    try {
      await rc.deleteCollection(ns, {}, { propagationPolicy: 'Background' });
    } catch (e) {
      if (!(e instanceof StatusError && (e.code === 405 || e.code === 404))) throw e;
      // no deletecollection: delete item by item
      const list = await rc.list(ns).catch((err) => {
        if (err instanceof StatusError && (err.code === 405 || err.code === 404)) return undefined;
        throw err;
      });
      for (const o of list?.items ?? []) {
        await rc.delete(ns, o.metadata.name!, { propagationPolicy: 'Background', preconditions: { uid: o.metadata.uid } }).catch((err) => {
          if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
        });
      }
    }
    let items: KObject[];
    try {
      items = (await rc.list(ns)).items;
    } catch (e) {
      if (e instanceof StatusError && (e.code === 405 || e.code === 404)) return 0;
      throw e;
    }
    const gr = `${r.plural}.${groupOf(r.apiVersion)}`;
    report.remaining.set(gr, items.length);
    if (!items.length) return 0;
    let withFinalizers = 0;
    for (const o of items) {
      const fins = o.metadata.finalizers ?? [];
      if (fins.length) withFinalizers++;
      for (const f of fins) report.finalizers.set(f, (report.finalizers.get(f) ?? 0) + 1);
    }
    if (estimate > 0) return estimate;
    if (withFinalizers > 0) return FINALIZER_ESTIMATE_SECONDS;
    throw new Error(`unexpected items still remain in namespace: ${ns} for gvr: ${gvrString(r)}`);
  }

  /** The longest termination grace period of the namespace's non-terminal pods. */
  private async podsGraceEstimate(ns: string): Promise<number> {
    const pods = (await this.ctx.client.resource('v1', 'pods').list(ns)).items as (KObject & {
      spec?: { terminationGracePeriodSeconds?: number };
      status?: { phase?: string };
    })[];
    let estimate = 0;
    for (const p of pods) {
      const phase = p.status?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      estimate = Math.max(estimate, p.spec?.terminationGracePeriodSeconds ?? 0);
    }
    return estimate;
  }

  private async updateConditions(ns: Namespace, report: NamespaceDeletionReport): Promise<void> {
    const now = rfc3339(this.ctx.now());
    const next = applyNamespaceConditions(ns.status?.conditions ?? [], report.conditions(now), now);
    if (!next) return;
    try {
      const latest = (await this.nsClient().get('', ns.metadata.name!)) as Namespace;
      const merged = applyNamespaceConditions(latest.status?.conditions ?? [], report.conditions(now), now);
      if (!merged) return;
      await this.nsClient().update('', { ...clone(latest), status: { ...latest.status, conditions: merged as NamespaceCondition[] } }, { subresource: 'status' });
    } catch (e) {
      // kube logs condition write failures and carries on with the deletion
      this.ctx.log(`k1s: namespace controller: ${ns.metadata.name}: updating conditions: ${(e as Error).message}`);
    }
  }

  /** Removes our finalizer through /finalize, retrying on conflicts. */
  private async finalize(ns: Namespace): Promise<void> {
    let cur = ns;
    for (let attempt = 0; ; attempt++) {
      const fins = (cur.spec?.finalizers ?? []).filter((f) => f !== FINALIZER);
      try {
        await this.nsClient().update('', { ...clone(cur), spec: { ...cur.spec, finalizers: [...new Set(fins)].sort() } }, { subresource: 'finalize' });
        return;
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) return;
        if (!(e instanceof StatusError && e.code === 409) || attempt >= 5) throw e;
        cur = (await this.nsClient().get('', ns.metadata.name!)) as Namespace;
        if (cur.metadata.uid !== ns.metadata.uid) throw new Error('namespace uid has changed across retries');
      }
    }
  }
}

/** The namespace controller over `resources` (the same list the garbage collector takes). */
export function namespaceController(opts: NamespaceControllerOptions): ControllerFactory {
  return (ctx) => new NamespaceDeleter(ctx, opts);
}
