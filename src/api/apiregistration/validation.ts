// APIService validation and defaulting as kube-aggregator's apis/apiregistration/validation and v1/defaults.go.
import { FieldError } from '../../machinery/errors.js';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName } from '../../machinery/validation.js';
import type { KObject } from '../types.js';

export interface ServiceReference {
  namespace?: string;
  name?: string;
  port?: number;
}

export interface APIServiceCondition {
  type: string;
  status: string;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface APIService extends KObject {
  spec?: {
    service?: ServiceReference | null;
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    caBundle?: string;
    groupPriorityMinimum?: number;
    versionPriority?: number;
  };
  status?: { conditions?: APIServiceCondition[] | null };
}

export function defaultAPIService(o: APIService): void {
  const spec = (o.spec ??= {});
  // groupPriorityMinimum and versionPriority have no omitempty: Go writes 0 when unset
  spec.groupPriorityMinimum ??= 0;
  spec.versionPriority ??= 0;
  if (spec.service) spec.service.port ??= 443;
}

/** `version.group`: the only name an APIService may have. */
export const apiServiceName = (group: string, version: string): string => `${version}.${group}`;

export function validateAPIService(o: APIService): FieldError[] {
  const errs: FieldError[] = [];
  const spec = o.spec ?? {};
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const name = o.metadata.name ?? '';
  const required = apiServiceName(group, version);
  // the path-segment rules are the strategy's validateName; here the rule that needs the spec
  if (name && isValidPathSegmentName(name).length === 0 && name !== required) {
    errs.push(FieldError.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: "${required}"`));
  }
  if (group === '' && version !== 'v1') errs.push(FieldError.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const m of isDNS1123Subdomain(group)) errs.push(FieldError.invalid('spec.group', group, m));
  for (const m of isDNS1035Label(version)) errs.push(FieldError.invalid('spec.version', version, m));
  const gpm = spec.groupPriorityMinimum ?? 0;
  if (gpm <= 0 || gpm > 20000) errs.push(FieldError.invalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  const vp = spec.versionPriority ?? 0;
  if (vp <= 0 || vp > 1000) errs.push(FieldError.invalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const caBytes = spec.caBundle ? Buffer.from(spec.caBundle, 'base64').length : 0;
  if (!spec.service) {
    if (caBytes) errs.push(FieldError.invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify) errs.push(FieldError.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  if (!spec.service.namespace) errs.push(FieldError.required('spec.service.namespace'));
  if (!spec.service.name) errs.push(FieldError.required('spec.service.name'));
  if (spec.insecureSkipTLSVerify && caBytes) errs.push(FieldError.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

export function validateAPIServiceStatus(o: APIService): FieldError[] {
  const errs: FieldError[] = [];
  (o.status?.conditions ?? []).forEach((c, i) => {
    if (!CONDITION_STATUSES.includes(c?.status)) errs.push(FieldError.notSupported(`status.conditions[${i}].status`, c?.status, CONDITION_STATUSES));
  });
  return errs;
}

export const isLocal = (o: APIService): boolean => !o.spec?.service;

export function availableCondition(o: APIService): APIServiceCondition | undefined {
  return (o.status?.conditions ?? []).find((c) => c?.type === 'Available');
}

export const isAvailable = (o: APIService): boolean => availableCondition(o)?.status === 'True';

/** SetAPIServiceCondition: replaces the condition of the same type, keeping its transition time when the status did not change. */
export function setCondition(o: APIService, c: APIServiceCondition): void {
  const conditions = (o.status ??= {}).conditions ?? [];
  const i = conditions.findIndex((x) => x?.type === c.type);
  if (i < 0) {
    o.status.conditions = [...conditions, c];
    return;
  }
  const old = conditions[i]!;
  const next = old.status === c.status ? { ...c, lastTransitionTime: old.lastTransitionTime } : c;
  o.status.conditions = conditions.map((x, j) => (j === i ? next : x));
}

/** The condition kube gives a Local APIService on create. */
export function localAvailableCondition(now: string): APIServiceCondition {
  return { type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' };
}
