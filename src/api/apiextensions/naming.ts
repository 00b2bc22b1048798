// The naming and establishing controllers of apiextensions-apiserver, run where k1s stores a CRD: each requested
// name is accepted unless another CRD of the same group already uses it (then the old accepted name stays and
// NamesAccepted is False with the conflict's reason); a CRD is Established once its names were first accepted and
// stays so. Terminating is set when its deletion starts (the customresourcecleanup finalizer's work).
import { rfc3339 } from '../../machinery/object.js';
import type { CRDCondition, CRDNames, CustomResourceDefinition } from './validation.js';

/** The accepted names of the other CRDs of a CRD's group (the naming controller's view of its group). */
export type NamesInUse = (crd: CustomResourceDefinition) => CRDNames[];

export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export function copyNames(n: CRDNames | undefined): CRDNames {
  const out: CRDNames = {};
  for (const k of ['categories', 'kind', 'listKind', 'plural', 'shortNames', 'singular'] as const) {
    const v = n?.[k];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && v !== '') (out as Record<string, unknown>)[k] = Array.isArray(v) ? [...v] : v;
  }
  return out;
}

function setCondition(conds: CRDCondition[], c: CRDCondition): void {
  const i = conds.findIndex((x) => x.type === c.type);
  if (i < 0) conds.push(c);
  else if (conds[i].status !== c.status || conds[i].reason !== c.reason || conds[i].message !== c.message) {
    conds[i] = { ...c, lastTransitionTime: conds[i].status === c.status ? conds[i].lastTransitionTime : c.lastTransitionTime };
  }
}

/** What the naming and establishing controllers write for `crd`, given the names the rest of its group uses. */
export function acceptNames(crd: CustomResourceDefinition, now = rfc3339(), others: CRDNames[] = []): void {
  const status = (crd.status ??= {});
  const requested = copyNames(crd.spec?.names);
  const old = copyNames(status.acceptedNames);
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    for (const r of [o.plural, o.singular, ...(o.shortNames ?? [])]) if (r) resources.add(r);
    for (const k of [o.kind, o.listKind]) if (k) kinds.add(k);
  }
  const next: CRDNames = { ...old };
  let conflict: { reason: string; message: string } | undefined;
  const take = <K extends keyof CRDNames>(key: K, inUse: (v: NonNullable<CRDNames[K]>) => string | undefined, reason: string) => {
    const v = requested[key];
    const bad = v === undefined ? undefined : inUse(v as NonNullable<CRDNames[K]>);
    if (bad === undefined) {
      if (v === undefined) delete next[key];
      else next[key] = v;
    } else conflict ??= { reason, message: `"${bad}" is already in use` };
  };
  const used = (set: Set<string>) => (v: string) => (set.has(v) ? v : undefined);
  take('plural', used(resources), 'PluralConflict');
  take('singular', used(resources), 'SingularConflict');
  take('shortNames', (vs) => vs.find((s) => resources.has(s)), 'ShortNamesConflict');
  take('kind', used(kinds), 'KindConflict');
  take('listKind', used(kinds), 'ListKindConflict');
  if (requested.categories) next.categories = requested.categories;
  else delete next.categories;
  status.acceptedNames = copyNames(next);
  const conds = [...(status.conditions ?? [])];
  setCondition(conds, conflict
    ? { type: 'NamesAccepted', status: 'False', lastTransitionTime: now, ...conflict }
    : { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' });
  const established = conds.find((c) => c.type === 'Established');
  if (established?.status !== 'True') {
    setCondition(conds, conflict
      ? { type: 'Established', status: 'False', lastTransitionTime: now, reason: 'NotAccepted', message: 'not all names are accepted' }
      : { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
  }
  status.conditions = conds;
}

/** The DELETE of a CRD: its objects are deleted first, by the cleanup finalizer's controller. */
export function startTermination(crd: CustomResourceDefinition, now = rfc3339()): void {
  const m = crd.metadata;
  if (!(m.finalizers ?? []).includes(CLEANUP_FINALIZER)) m.finalizers = [...(m.finalizers ?? []), CLEANUP_FINALIZER];
  const status = (crd.status ??= {});
  const conds = [...(status.conditions ?? [])];
  setCondition(conds, { type: 'Terminating', status: 'True', lastTransitionTime: now, reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
  status.conditions = conds;
}

/** Whether the CRD's names were accepted and it serves its objects. */
export function isEstablished(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}
