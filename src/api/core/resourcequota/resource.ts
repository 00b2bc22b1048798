// core/v1 ResourceQuota: schema (k8s.io/api/core/v1 types.go, 1.33), ValidateResourceQuota(Update/StatusUpdate)
// (pkg/apis/core/validation), resourcequotaStrategy (status reset on create, kept on spec updates) and
// printResourceQuota (REQUEST / LIMIT from status.used over status.hard).
import { FieldError, goQuote } from '../../../machinery/errors.js';
import { s, type Definitions } from '../../../machinery/schema.js';
import { compareGoStrings } from '../../../machinery/validation.js';
import { CORE } from '../common.js';
import { bare } from '../pod/validation-util.js';
import { quantityString } from '../persistentvolume/util.js';
import { canonicalResourceList, isStandardQuotaResourceName, quantityAt, roundResourceList, validateQuotaResourceName, validateResourceQuantityValue } from './names.js';
import { ageColumn, nameColumn } from '../../format.js';
import { kindHeader, listDefinition } from '../../meta.js';
import { defineResource, type KObject } from '../../types.js';

type ResourceList = Record<string, unknown>;

export interface ScopedRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[] | null;
}

export interface ResourceQuota extends KObject {
  spec?: { hard?: ResourceList | null; scopes?: string[] | null; scopeSelector?: { matchExpressions?: ScopedRequirement[] | null } | null };
  status?: { hard?: ResourceList | null; used?: ResourceList | null };
}

const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const POD_COUNT = new Set(['pods']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const EXISTS_ONLY = new Set(['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity']);
const CONFLICTS = [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']];
const QUOTA_DOC = 'https://kubernetes.io/docs/concepts/policy/resource-quotas/';

export const resourceQuotaDefinitions: Definitions = {
  [`${CORE}ResourceQuota`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${CORE}ResourceQuotaSpec`, 'The hard limits to enforce.', { default: {} }),
      status: s.ref(`${CORE}ResourceQuotaStatus`, 'Enforced limits and current usage, maintained by the quota controller.', { default: {} }),
    },
    { description: `ResourceQuota caps the total resources and object counts of a namespace. More info: ${QUOTA_DOC}` },
  ),
  [`${CORE}ResourceQuotaSpec`]: s.obj(
    {
      hard: s.map(s.quantity(), `Hard limit per named resource. More info: ${QUOTA_DOC}`),
      scopes: s.arr(s.enumOf(SCOPES), { description: 'Filters of the objects tracked; all must match. Cannot change after creation.' }),
      scopeSelector: s.ref(`${CORE}ScopeSelector`, 'Filters of the tracked objects as expressions over scopes; all must match.'),
    },
    { description: 'ResourceQuotaSpec defines the hard limits of a quota.' },
  ),
  [`${CORE}ScopeSelector`]: s.obj(
    { matchExpressions: s.arr(s.ref(`${CORE}ScopedResourceSelectorRequirement`, undefined, { default: {} }), { description: 'Requirements over scopes.' }) },
    { mapType: 'atomic', description: 'ANDed requirements over quota scopes.' },
  ),
  [`${CORE}ScopedResourceSelectorRequirement`]: s.obj(
    {
      scopeName: s.enumOf(SCOPES, 'The scope the requirement applies to.'),
      operator: s.enumOf(['DoesNotExist', 'Exists', 'In', 'NotIn'], 'Relation to the values: In, NotIn, Exists or DoesNotExist.'),
      values: s.arr(s.str(undefined, { default: '' }), { description: 'Values for In and NotIn; must be empty for Exists and DoesNotExist.' }),
    },
    { required: ['scopeName', 'operator'], description: 'A requirement over a quota scope.' },
  ),
  [`${CORE}ResourceQuotaStatus`]: s.obj(
    {
      hard: s.map(s.quantity(), `Enforced hard limit per named resource. More info: ${QUOTA_DOC}`),
      used: s.map(s.quantity(), 'Current usage per named resource in the namespace.'),
    },
    { description: 'ResourceQuotaStatus holds the enforced limits and current usage.' },
  ),
  [`${CORE}ResourceQuotaList`]: listDefinition(`${CORE}ResourceQuota`, 'ResourceQuotaList is a list of ResourceQuota items.', `Items is a list of ResourceQuota objects. More info: ${QUOTA_DOC}`),
};

const goScopes = (scopes: string[] | null | undefined) =>
  bare(scopes ? `[]core.ResourceQuotaScope{${scopes.map((x) => goQuote(x)).join(', ')}}` : '[]core.ResourceQuotaScope(nil)');

function scopeValidFor(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return POD_COUNT.has(resource);
  if (SCOPES.includes(scope)) return POD_COUNT.has(resource) || POD_COMPUTE.has(resource);
  return true;
}

function validateQuantities(list: ResourceList | null | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(list ?? {})) {
    const p = `${path}[${k}]`;
    errs.push(...validateQuotaResourceName(k, p));
    const q = quantityAt(v, p, errs);
    if (q) errs.push(...validateResourceQuantityValue(k, q, p));
  }
  return errs;
}

function validateScopes(rq: ResourceQuota): FieldError[] {
  const scopes = rq.spec?.scopes ?? [];
  if (!scopes.length) return [];
  const errs: FieldError[] = [];
  const hard = Object.keys(rq.spec?.hard ?? {}).sort(compareGoStrings);
  for (const scope of scopes) {
    if (!SCOPES.includes(scope)) errs.push(FieldError.invalid('spec.scopes', goScopes(scopes), 'unsupported scope'));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !scopeValidFor(scope, k)) errs.push(FieldError.invalid('spec.scopes', goScopes(scopes), 'unsupported scope applied to resource'));
    }
  }
  for (const pair of CONFLICTS) if (pair.every((x) => scopes.includes(x))) errs.push(FieldError.invalid('spec.scopes', goScopes(scopes), 'conflicting scopes'));
  return errs;
}

function validateScopeSelector(rq: ResourceQuota): FieldError[] {
  const sel = rq.spec?.scopeSelector;
  if (!sel) return [];
  const errs: FieldError[] = [];
  const path = 'spec.scopeSelector.matchExpressions';
  const hard = Object.keys(rq.spec?.hard ?? {}).sort(compareGoStrings);
  const seen = new Set<string>();
  for (const req of sel.matchExpressions ?? []) {
    const scope = req.scopeName ?? '';
    if (!SCOPES.includes(scope)) errs.push(FieldError.invalid(`${path}.scopeName`, scope, 'unsupported scope'));
    for (const k of hard) {
      if (isStandardQuotaResourceName(k) && !scopeValidFor(scope, k)) {
        errs.push(FieldError.invalid(path, bare(`&core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{...}}`), 'unsupported scope applied to resource'));
      }
    }
    const op = req.operator ?? '';
    if (EXISTS_ONLY.has(scope) && op !== 'Exists') {
      errs.push(FieldError.invalid(`${path}.operator`, op, "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"));
    }
    const values = req.values ?? [];
    if (op === 'In' || op === 'NotIn') {
      if (!values.length) errs.push(FieldError.required(`${path}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length) errs.push(FieldError.invalid(`${path}.values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else errs.push(FieldError.invalid(`${path}.operator`, op, 'not a valid selector operator'));
    seen.add(scope);
  }
  for (const pair of CONFLICTS) if (pair.every((x) => seen.has(x))) errs.push(FieldError.invalid(path, goScopes(rq.spec?.scopes), 'conflicting scopes'));
  return errs;
}

/** ValidateResourceQuota: spec (hard, scopes, scope selector) and status. */
export function validateResourceQuota(rq: ResourceQuota): FieldError[] {
  return [
    ...validateQuantities(rq.spec?.hard, 'spec.hard'),
    ...validateScopes(rq),
    ...validateScopeSelector(rq),
    ...validateQuantities(rq.status?.hard, 'status.hard'),
    ...validateQuantities(rq.status?.used, 'status.used'),
  ];
}

/** ValidateResourceQuotaUpdate's own check: scopes cannot change. */
export function validateResourceQuotaUpdate(rq: ResourceQuota, old: ResourceQuota): FieldError[] {
  const a = new Set(rq.spec?.scopes ?? []);
  const b = new Set(old.spec?.scopes ?? []);
  const same = a.size === b.size && [...a].every((x) => b.has(x));
  return same ? [] : [FieldError.invalid('spec.scopes', goScopes(rq.spec?.scopes), 'field is immutable')];
}

/** The REQUEST and LIMIT cells: `name: used/hard` for every resource of status.hard, split on "limits." names. */
export function quotaColumns(rq: ResourceQuota): { request: string; limit: string } {
  const hard = rq.status?.hard ?? {};
  const used = rq.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const k of Object.keys(hard).sort(compareGoStrings)) {
    const parts = k.split('.');
    (parts.length > 1 && parts[0] === 'limits' ? limit : request).push(`${k}: ${quantityString(used[k])}/${quantityString(hard[k])}`);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

export const resourceQuotaResource = defineResource<ResourceQuota>({
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  singular: 'resourcequota',
  shortNames: ['quota'],
  namespaced: true,
  schemaRef: `${CORE}ResourceQuota`,
  definitions: resourceQuotaDefinitions,
  subresources: { status: true },
  columns: [
    nameColumn(),
    { name: 'Request', type: 'string', description: 'Request represents a minimum amount of cpu/memory that a container may consume.', cell: (q) => quotaColumns(q).request },
    {
      name: 'Limit',
      type: 'string',
      description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      cell: (q) => quotaColumns(q).limit,
    },
    ageColumn(),
  ],
  strategy: {
    defaults(rq) {
      rq.spec ??= {};
      rq.status ??= {};
      roundResourceList(rq.spec.hard);
      roundResourceList(rq.status.hard);
      roundResourceList(rq.status.used);
    },
    prepareForCreate(rq) {
      rq.status = {};
    },
    validate: validateResourceQuota,
    canonicalize(rq) {
      canonicalResourceList(rq.spec?.hard);
      canonicalResourceList(rq.status?.hard);
      canonicalResourceList(rq.status?.used);
    },
    validateUpdate: validateResourceQuotaUpdate,
    validateStatusUpdate: (rq) => [...validateQuantities(rq.status?.hard, 'status.hard'), ...validateQuantities(rq.status?.used, 'status.used')],
    allowCreateOnUpdate: false,
  },
});
