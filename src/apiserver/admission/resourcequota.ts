// ResourceQuota admission (plugin/pkg/admission/resourcequota): a create (or an update that grows usage) is refused
// when it would take a matching quota past its hard limits; otherwise its usage is charged into the quota's
// status.used with compare-and-swap, so concurrent requests cannot overshoot together.
// Runs after LimitRanger (which fills in the requests quota charges).
import type { KObject } from '../../api/types.js';
import { errors, type GroupResource } from '../../machinery/errors.js';
import { add, canonical, exceeded, isZero, mask, prettyPrint, subtract, toList, type ResourceList } from '../../api/core/resourcequota/resource-list.js';
import { evaluatorFor, quotaMatches, type QuotaEvaluator, type QuotaLike } from '../../api/core/resourcequota/usage.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';
import { AdmissionCache } from './cache.js';
import type { ResourceStore } from '../registry/store.js';

const maxChargeRetries = 16;

function resourceName(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function forbidden(store: ResourceStore, obj: KObject, message: string): Error {
  const name = obj.metadata.name ?? obj.metadata.generateName ?? '';
  return errors.forbidden(store.gr, name, `${resourceName(store.gr)} "${name}" is forbidden: ${message}`);
}

/** The usage a request adds to one quota: on updates of an object the quota already covered, only the growth. */
function requestedDelta(ev: QuotaEvaluator, attrs: AdmissionAttributes, rq: QuotaLike, hard: string[], now: number): ResourceList {
  let delta = ev.usage(attrs.object, now);
  const old = attrs.old;
  if (attrs.operation === 'UPDATE' && old?.metadata.resourceVersion && quotaMatches(rq, ev, old, hard)) {
    delta = subtract(delta, ev.usage(old, now), { nonNegative: true });
  }
  return Object.fromEntries(Object.entries(delta).filter(([, v]) => !isZero({ v })));
}

/**
 * The status.used a quota gets after charging `delta`, or an error naming what would be exceeded.
 * Only the resources the request asks for are compared.
 */
function charge(rq: QuotaLike, delta: ResourceList): { used: ResourceList } | { error: string } {
  const hard = toList(rq.status?.hard);
  const used = toList(rq.status?.used);
  const requested = mask(delta, Object.keys(hard));
  const next = add(used, requested);
  const over = exceeded(mask(next, Object.keys(requested)), hard);
  if (over.length) {
    return {
      error: `exceeded quota: ${rq.metadata.name}, requested: ${prettyPrint(mask(requested, over))}, used: ${prettyPrint(mask(used, over))}, limited: ${prettyPrint(mask(hard, over))}`,
    };
  }
  return { used: next };
}

export interface ResourceQuotaAdmissionOptions {
  /** the resourcequotas store of the cluster */
  quotas: () => ResourceStore;
  now?: () => number;
}

export function resourceQuotaAdmission(opts: ResourceQuotaAdmissionOptions): AdmissionPlugin {
  const now = opts.now ?? Date.now;
  const cache = new AdmissionCache(opts.quotas);
  return {
    name: 'ResourceQuota',
    admit(attrs) {
      const { store, operation } = attrs;
      if (!store.def.namespaced || (operation !== 'CREATE' && operation !== 'UPDATE')) return;
      const ev = evaluatorFor(store.def.group, store.def.plural);
      if (operation === 'UPDATE' && !ev.chargesUpdates) return;
      // most namespaces have no quota: decided from memory; with quotas, they are read and charged in the store
      if (cache.inNamespace(attrs.namespace)?.size === 0) return;
      return admitQuota(opts.quotas(), ev, attrs, now());
    },
  };
}

async function admitQuota(quotas: ResourceStore, ev: QuotaEvaluator, attrs: AdmissionAttributes, now: number): Promise<void> {
  const { store, object, namespace } = attrs;
  const listed = await quotas.deps.store.list(quotas.prefix(namespace));
  if (!listed.kvs.length) return;
  const deltas = new Map<string, ResourceList>();
  for (const kv of listed.kvs) {
    const rq = quotas.decode(kv) as QuotaLike;
    const hard = Object.keys(toList(rq.status?.hard));
    if (!quotaMatches(rq, ev, object, hard)) continue;
    const restricted = ev.matchingResources(hard);
    const problem = ev.constraints?.(restricted, object);
    if (problem) throw forbidden(store, object, `failed quota: ${rq.metadata.name}: ${problem}`);
    const used = toList(rq.status?.used);
    if (restricted.some((r) => !(r in used))) {
      throw forbidden(store, object, `status unknown for quota: ${rq.metadata.name}, resources: ${[...restricted].sort().join(',')}`);
    }
    const delta = requestedDelta(ev, attrs, rq, hard, now);
    if (Object.keys(delta).length) deltas.set(rq.metadata.name!, delta);
    // Check every quota first so a refusal charges nothing; charging follows with compare-and-swap.
    const res = charge(rq, delta);
    if ('error' in res) throw forbidden(store, object, res.error);
  }
  if (attrs.ctx.dryRun) return;
  for (const [name, delta] of deltas) await chargeOne(quotas, namespace, name, delta, store, object);
}

async function chargeOne(quotas: ResourceStore, namespace: string, name: string, delta: ResourceList, store: ResourceStore, object: KObject): Promise<void> {
  for (let attempt = 0; attempt < maxChargeRetries; attempt++) {
    const kv = await quotas.deps.store.get(quotas.key(namespace, name));
    if (!kv) return; // the quota went away: nothing to charge
    const rq = quotas.decode(kv) as QuotaLike;
    const res = charge(rq, delta);
    if ('error' in res) throw forbidden(store, object, res.error);
    rq.status = { ...(rq.status ?? {}), used: canonical({ ...toList(rq.status?.used), ...mask(res.used, Object.keys(toList(rq.status?.hard))) }) };
    const written = await quotas.deps.store.update(kv.key, quotas.encode(rq), kv.modRevision);
    if (written.ok) return;
  }
  throw errors.staleResourceVersion(quotas.gr, name);
}
