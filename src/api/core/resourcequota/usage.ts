// Quota evaluators (pkg/quota/v1/evaluator/core + the generic object-count evaluator): for each kind of object,
// which quota resource names it is charged to, its usage, and whether it falls under a quota's scopes.
// Shared by the ResourceQuota controller (recomputing status.used) and quota admission (charging one request).
import type { KObject } from '../../types.js';
import { podConstraints, podMatchesScope, podUsage, type ScopeRequirement } from './pod-requests.js';
import { add, mask, toList, type ResourceList } from './resource-list.js';

export interface QuotaEvaluator {
  /** API group and plural of the objects evaluated */
  group: string;
  plural: string;
  /** the quota resource names among `hard` this evaluator charges */
  matchingResources(hard: string[]): string[];
  usage(obj: KObject, now: number): ResourceList;
  /** scoped quotas only track pods: every other kind matches no scope */
  matchesScope(req: ScopeRequirement, obj: KObject): boolean;
  /** a message when the object lacks something a quota requires (pods: explicit cpu/memory) */
  constraints?(required: string[], obj: KObject): string | undefined;
  /** whether updates can change usage (admission charges the increase) */
  chargesUpdates: boolean;
}

export interface QuotaLike extends KObject {
  spec?: { hard?: Record<string, unknown> | null; scopes?: string[] | null; scopeSelector?: { matchExpressions?: ScopeRequirement[] | null } | null };
  status?: { hard?: Record<string, unknown> | null; used?: Record<string, unknown> | null };
}

const countName = (group: string, plural: string): string => (group ? `count/${plural}.${group}` : `count/${plural}`);

const noScope = (): boolean => false;

function objectCount(group: string, plural: string, legacyName?: string): QuotaEvaluator {
  const names = new Set([countName(group, plural), ...(legacyName ? [legacyName] : [])]);
  return {
    group,
    plural,
    matchingResources: (hard) => hard.filter((h) => names.has(h)),
    usage: () => Object.fromEntries([...names].map((n) => [n, '1'])),
    matchesScope: noScope,
    chargesUpdates: false,
  };
}

const POD_NAMES = new Set([
  'count/pods', 'pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
]);

const podEvaluator: QuotaEvaluator = {
  group: '',
  plural: 'pods',
  matchingResources: (hard) =>
    hard.filter((h) => POD_NAMES.has(h) || h.startsWith('hugepages-') || h.startsWith('requests.hugepages-') || (h.startsWith('requests.') && h.includes('/'))),
  usage: podUsage,
  matchesScope: podMatchesScope,
  constraints: podConstraints,
  chargesUpdates: false,
};

const SERVICE_NAMES = new Set(['count/services', 'services', 'services.loadbalancers', 'services.nodeports']);

interface ServiceLike {
  spec?: { type?: string; ports?: { nodePort?: number }[]; allocateLoadBalancerNodePorts?: boolean };
}

const serviceEvaluator: QuotaEvaluator = {
  group: '',
  plural: 'services',
  matchingResources: (hard) => hard.filter((h) => SERVICE_NAMES.has(h)),
  usage(obj) {
    const spec = (obj as ServiceLike).spec ?? {};
    const ports = spec.ports?.length ?? 0;
    const out: ResourceList = { 'count/services': '1', services: '1', 'services.loadbalancers': '0', 'services.nodeports': '0' };
    if (spec.type === 'NodePort') out['services.nodeports'] = String(ports);
    if (spec.type === 'LoadBalancer') {
      // without allocated node ports only explicitly requested ones count
      const withPorts = spec.allocateLoadBalancerNodePorts === false ? (spec.ports ?? []).filter((p) => p.nodePort).length : ports;
      out['services.nodeports'] = String(withPorts);
      out['services.loadbalancers'] = '1';
    }
    return out;
  },
  matchesScope: noScope,
  chargesUpdates: true,
};

const SC_SUFFIX = '.storageclass.storage.k8s.io/';

interface PVCLike {
  spec?: { storageClassName?: string; resources?: { requests?: Record<string, unknown> } };
  status?: { allocatedResources?: Record<string, unknown> };
}

function storageClassOf(pvc: KObject): string {
  const sc = (pvc as PVCLike).spec?.storageClassName;
  return sc ?? pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '';
}

const pvcEvaluator: QuotaEvaluator = {
  group: '',
  plural: 'persistentvolumeclaims',
  matchingResources: (hard) =>
    hard.filter(
      (h) =>
        h === 'count/persistentvolumeclaims' || h === 'persistentvolumeclaims' || h === 'requests.storage' ||
        (h.includes(SC_SUFFIX) && (h.endsWith('/persistentvolumeclaims') || h.endsWith('/requests.storage'))),
    ),
  usage(obj) {
    const out: ResourceList = { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1' };
    const sc = storageClassOf(obj);
    if (sc) out[`${sc}${SC_SUFFIX}persistentvolumeclaims`] = '1';
    const req = toList((obj as PVCLike).spec?.resources?.requests).storage;
    if (req !== undefined) {
      out['requests.storage'] = req;
      if (sc) out[`${sc}${SC_SUFFIX}requests.storage`] = req;
    }
    return out;
  },
  matchesScope: noScope,
  chargesUpdates: true,
};

const BUILTIN: QuotaEvaluator[] = [
  podEvaluator,
  serviceEvaluator,
  pvcEvaluator,
  objectCount('', 'configmaps', 'configmaps'),
  objectCount('', 'secrets', 'secrets'),
  objectCount('', 'replicationcontrollers', 'replicationcontrollers'),
  objectCount('', 'resourcequotas', 'resourcequotas'),
];

/** The evaluator for objects of group/plural: a built-in one, or a plain object count (count/<plural>.<group>). */
export function evaluatorFor(group: string, plural: string): QuotaEvaluator {
  return BUILTIN.find((e) => e.group === group && e.plural === plural) ?? objectCount(group, plural);
}

/** Every evaluator a quota's hard names need: the built-ins plus object counts named count/<plural>.<group>. */
export function evaluatorsFor(hard: string[]): QuotaEvaluator[] {
  const out = BUILTIN.filter((e) => e.matchingResources(hard).length > 0);
  for (const h of hard) {
    if (!h.startsWith('count/')) continue;
    const rest = h.slice('count/'.length);
    const dot = rest.indexOf('.');
    const plural = dot < 0 ? rest : rest.slice(0, dot);
    const group = dot < 0 ? '' : rest.slice(dot + 1);
    if (!out.some((e) => e.group === group && e.plural === plural)) out.push(evaluatorFor(group, plural));
  }
  return out;
}

/** The scopes of a quota as selector requirements (spec.scopes become Exists). */
export function quotaScopes(rq: QuotaLike): ScopeRequirement[] {
  return [
    ...(rq.spec?.scopes ?? []).map((s) => ({ scopeName: s, operator: 'Exists' })),
    ...(rq.spec?.scopeSelector?.matchExpressions ?? []),
  ];
}

/** quota.Matches: the quota constrains one of the evaluator's resources and every scope matches. */
export function quotaMatches(rq: QuotaLike, ev: QuotaEvaluator, obj: KObject, hard: string[]): boolean {
  if (!ev.matchingResources(hard).length) return false;
  return quotaScopes(rq).every((s) => ev.matchesScope(s, obj));
}

/** CalculateUsageStats: the usage of `objects` for the evaluator's resources among hard, zeros included. */
export function usageOf(rq: QuotaLike, ev: QuotaEvaluator, hard: string[], objects: KObject[], now: number): ResourceList {
  const resources = ev.matchingResources(hard);
  let used: ResourceList = Object.fromEntries(resources.map((r) => [r, '0']));
  const scopes = quotaScopes(rq);
  for (const o of objects) {
    if (!scopes.every((s) => ev.matchesScope(s, o))) continue;
    used = add(used, mask(ev.usage(o, now), resources));
  }
  return used;
}
