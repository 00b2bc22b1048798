// LimitRanger admission (plugin/pkg/admission/limitranger): on pod CREATE, containers and init containers get
// the namespace's Container `defaultRequest` / `default` for what they leave unset (noted in the
// kubernetes.io/limit-ranger annotation); then min, max and maxLimitRequestRatio of Container, Pod and
// PersistentVolumeClaim limits are enforced with kube's messages. Pods are not checked on update (their
// resources are immutable there); claims are checked when their spec changes.
import { computeQOS } from '../../api/core/pod/admission.js';
import type { Pod } from '../../api/core/pod/types.js';
import type { LimitRange, LimitRangeItem } from '../../api/core/limitrange.js';
import type { KObject } from '../../api/types.js';
import { errors } from '../../machinery/errors.js';
import { deepEqual } from '../../machinery/object.js';
import { Quantity } from '../../machinery/quantity.js';
import { podLimits, podRequests } from '../../api/core/resourcequota/pod-requests.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';
import { AdmissionCache } from './cache.js';
import type { ResourceStore } from '../registry/store.js';

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

type Quantities = Record<string, unknown>;

interface ContainerLike {
  name?: string;
  resources?: { requests?: Quantities; limits?: Quantities };
}

// resource.MaxMilliValue: above it, comparisons fall back to whole units
const MAX_MILLI = 9223372036854775n;

const qty = (v: unknown): Quantity => Quantity.fromJSON(v);

/** requestLimitEnforcedValues: milli-units when none would overflow, else whole units. */
function enforcedValues(req: Quantity | undefined, lim: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const zero = Quantity.fromInt(0);
  const r = req ?? zero;
  const l = lim ?? zero;
  const whole = [r.scaledValue(0), l.scaledValue(0), enforced.scaledValue(0)] as [bigint, bigint, bigint];
  if (whole.every((v) => v <= MAX_MILLI)) return [r.scaledValue(-3), l.scaledValue(-3), enforced.scaledValue(-3)];
  return whole;
}

const get = (list: Quantities | undefined, k: string): Quantity | undefined => (list && list[k] !== undefined && list[k] !== null ? qty(list[k]) : undefined);

function minConstraint(type: string, res: string, enforced: Quantity, requests?: Quantities, limits?: Quantities): string | undefined {
  const req = get(requests, res);
  const lim = get(limits, res);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  if (!req) return `minimum ${res} usage per ${type} is ${enforced}.  No request is specified`;
  if (r < e) return `minimum ${res} usage per ${type} is ${enforced}, but request is ${req}`;
  if (lim && l < e) return `minimum ${res} usage per ${type} is ${enforced}, but limit is ${lim}`;
  return undefined;
}

function maxConstraint(type: string, res: string, enforced: Quantity, requests?: Quantities, limits?: Quantities): string | undefined {
  const req = get(requests, res);
  const lim = get(limits, res);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  if (!lim) return `maximum ${res} usage per ${type} is ${enforced}.  No limit is specified`;
  if (l > e) return `maximum ${res} usage per ${type} is ${enforced}, but limit is ${lim}`;
  if (req && r > e) return `maximum ${res} usage per ${type} is ${enforced}, but request is ${req}`;
  return undefined;
}

/** For claims, whose limits are not user input: the max bounds the request. */
function maxRequestConstraint(type: string, res: string, enforced: Quantity, requests?: Quantities): string | undefined {
  const req = get(requests, res);
  const [r, , e] = enforcedValues(req, undefined, enforced);
  if (!req) return `maximum ${res} usage per ${type} is ${enforced}.  No request is specified`;
  if (r > e) return `maximum ${res} usage per ${type} is ${enforced}, but request is ${req}`;
  return undefined;
}

function ratioConstraint(type: string, res: string, enforced: Quantity, requests?: Quantities, limits?: Quantities): string | undefined {
  const req = get(requests, res);
  const lim = get(limits, res);
  const [r, l] = enforcedValues(req, lim, enforced);
  if (!req || r === 0n) return `${res} max limit to request ratio per ${type} is ${enforced}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${res} max limit to request ratio per ${type} is ${enforced}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  let compared = observed;
  let allowed = Number(enforced.scaledValue(0));
  if (enforced.scaledValue(0) <= MAX_MILLI) {
    compared = observed * 1000;
    allowed = Number(enforced.scaledValue(-3));
  }
  if (compared > allowed) return `${res} max limit to request ratio per ${type} is ${enforced}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
}

const sortedEntries = (l: Quantities | undefined): [string, Quantity][] =>
  Object.keys(l ?? {})
    .sort()
    .map((k) => [k, qty(l![k])]);

/** min, max and ratio of one item over a requests/limits pair. */
function checkItem(item: LimitRangeItem, requests: Quantities | undefined, limits: Quantities | undefined, errs: string[]): void {
  const type = item.type ?? '';
  for (const [k, v] of sortedEntries(item.min)) push(errs, minConstraint(type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.max)) push(errs, maxConstraint(type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) push(errs, ratioConstraint(type, k, v, requests, limits));
}

function push(errs: string[], e: string | undefined): void {
  if (e) errs.push(e);
}

/** utilerrors.NewAggregate(...).Error(): one message, or "[a, b]". */
function aggregate(errs: string[]): string | undefined {
  if (!errs.length) return undefined;
  return errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
}

function containersOf(pod: KObject): { containers: ContainerLike[]; initContainers: ContainerLike[] } {
  const spec = (pod.spec ?? {}) as { containers?: ContainerLike[]; initContainers?: ContainerLike[] };
  return { containers: spec.containers ?? [], initContainers: spec.initContainers ?? [] };
}

/** PodMutateLimitFunc: the Container items' defaults, and the annotation naming what was set. */
export function applyPodDefaults(lr: LimitRange, pod: KObject): void {
  const requests: Quantities = {};
  const limits: Quantities = {};
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  const notes: string[] = [];
  const merge = (c: ContainerLike, kind: string) => {
    const res = (c.resources ??= {});
    const setLimits: string[] = [];
    const setRequests: string[] = [];
    res.limits ??= {};
    res.requests ??= {};
    for (const [k, v] of Object.entries(limits)) {
      if (res.limits[k] === undefined) {
        res.limits[k] = v;
        setLimits.push(k);
      }
    }
    for (const [k, v] of Object.entries(requests)) {
      if (res.requests[k] === undefined) {
        res.requests[k] = v;
        setRequests.push(k);
      }
    }
    // Go keeps empty maps out of the encoding (omitempty)
    if (!Object.keys(res.limits).length) delete res.limits;
    if (!Object.keys(res.requests).length) delete res.requests;
    if (setRequests.length) notes.push(`${setRequests.sort().join(', ')} request for ${kind} ${c.name}`);
    if (setLimits.length) notes.push(`${setLimits.sort().join(', ')} limit for ${kind} ${c.name}`);
  };
  const { containers, initContainers } = containersOf(pod);
  for (const c of containers) merge(c, 'container');
  for (const c of initContainers) merge(c, 'init container');
  if (notes.length) {
    pod.metadata.annotations ??= {};
    pod.metadata.annotations[LIMIT_RANGER_ANNOTATION] = `LimitRanger plugin set: ${notes.join('; ')}`;
  }
}

/** PodValidateLimitFunc: the message of everything a pod violates, or undefined. */
export function validatePodLimits(lr: LimitRange, pod: KObject): string | undefined {
  const errs: string[] = [];
  for (const item of lr.spec?.limits ?? []) {
    if (item.type === 'Container') {
      const { containers, initContainers } = containersOf(pod);
      for (const c of [...containers, ...initContainers]) checkItem(item, c.resources?.requests, c.resources?.limits, errs);
    }
    if (item.type === 'Pod') {
      // the limit ranger's pod totals leave pod overhead out
      const bare = { ...pod, spec: { ...(pod.spec as object), overhead: undefined } } as KObject;
      checkItem(item, podRequests(bare), podLimits(bare), errs);
    }
  }
  return aggregate(errs);
}

/** PersistentVolumeClaimValidateLimitFunc. */
export function validateClaimLimits(lr: LimitRange, pvc: KObject): string | undefined {
  const errs: string[] = [];
  const requests = (pvc.spec as { resources?: { requests?: Quantities } } | undefined)?.resources?.requests;
  for (const item of lr.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min)) push(errs, minConstraint(item.type, k, v, requests, {}));
    for (const [k, v] of sortedEntries(item.max)) push(errs, maxRequestConstraint(item.type, k, v, requests));
  }
  return aggregate(errs);
}

export interface LimitRangerOptions {
  /** the limitranges store of the cluster */
  limitRanges: () => ResourceStore;
}

export function limitRangerAdmission(opts: LimitRangerOptions): AdmissionPlugin {
  const cache = new AdmissionCache(opts.limitRanges);
  return {
    name: 'LimitRanger',
    admit(attrs) {
      const { store, operation } = attrs;
      if (store.def.group !== '') return;
      const isPod = store.def.plural === 'pods' && operation === 'CREATE';
      const isClaim =
        store.def.plural === 'persistentvolumeclaims' &&
        (operation === 'CREATE' || (operation === 'UPDATE' && !deepEqual(attrs.object.spec, attrs.old?.spec)));
      // objects being deleted are left alone
      if ((!isPod && !isClaim) || attrs.old?.metadata.deletionTimestamp) return;
      // a namespace without LimitRanges (most) is decided from memory
      if (cache.inNamespace(attrs.namespace)?.size === 0) return;
      return admitLimits(opts.limitRanges(), attrs, { pod: isPod });
    },
  };
}

async function admitLimits(limitRanges: ResourceStore, attrs: AdmissionAttributes, opts: { pod: boolean }): Promise<void> {
  const listed = await limitRanges.deps.store.list(limitRanges.prefix(attrs.namespace));
  if (!listed.kvs.length) return;
  const items = listed.kvs.map((kv) => limitRanges.decode(kv) as LimitRange);
  const { object, store } = attrs;
  if (opts.pod) {
    const before = JSON.stringify(object.spec);
    for (const lr of items) applyPodDefaults(lr, object);
    if (JSON.stringify(object.spec) !== before) {
      // kube runs mutating admission before validation; here validation already ran, so check the result again
      const errs = store.def.strategy.validate?.(object) ?? [];
      if (errs.length) throw store.invalid(object.metadata.name ?? '', errs);
      const status = (object.status ??= {}) as { qosClass?: string };
      status.qosClass = computeQOS(object as Pod);
    }
  }
  for (const lr of items) {
    const problem = opts.pod ? validatePodLimits(lr, object) : validateClaimLimits(lr, object);
    if (problem) {
      const name = object.metadata.name ?? '';
      throw errors.forbidden(store.gr, name, `${store.gr.resource} "${name}" is forbidden: ${problem}`);
    }
  }
}
