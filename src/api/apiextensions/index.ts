// apiextensions.k8s.io/v1 CustomResourceDefinition: k8s.io/apiextensions-apiserver/pkg/registry/
// customresourcedefinition (strategy: status reset on create, kept on update, generation on spec changes,
// stored versions tracked; no create on update), defaults from pkg/apis/apiextensions/v1/defaults.go, the default
// NAME / CREATED AT table. Kubernetes' naming and establishing controllers set status.acceptedNames and the
// NamesAccepted / Established conditions right after a write; k1s does the same when it stores the object
// (canonicalize), without their cross-CRD name-conflict checks. Serving the custom resources is not done here,
// and deletion is immediate (no customresourcecleanup finalizer, since no instances exist to clean up).
import type { Definitions } from '../../machinery/schema.js';
import { rfc3339 } from '../../machinery/object.js';
import { apiextensionsDefinitions as schemaDefinitions, APIEXT } from './schema.js';
import { validateCRD, validateCRDUpdate, validateNames, type CRDNames, type CustomResourceDefinition } from './validation.js';
import { defineResource, type ResourceDefinition } from '../types.js';

export { APIEXT } from './schema.js';
export type { CustomResourceDefinition, CRDNames, CRDVersion, CRDCondition } from './validation.js';

export const apiextensionsDefinitions: Definitions = schemaDefinitions;

/** SetDefaults_CustomResourceDefinition(Spec) and SetDefaults_ServiceReference. */
export function defaultCRD(crd: CustomResourceDefinition): void {
  const spec = (crd.spec ??= {});
  const names = (spec.names ??= {});
  if (!names.singular) names.singular = (names.kind ?? '').toLowerCase();
  if (!names.singular) delete names.singular;
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  const svc = spec.conversion?.webhook?.clientConfig?.service;
  if (svc && typeof svc === 'object') svc.port ??= 443;
  const status = (crd.status ??= {});
  if (!status.storedVersions?.length) {
    const storage = (spec.versions ?? []).find((v) => v?.storage);
    if (storage?.name) status.storedVersions = [storage.name];
  }
}

/** Adds the storage version to status.storedVersions (PrepareForCreate / PrepareForUpdate). */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = (crd.spec?.versions ?? []).find((v) => v?.storage);
  if (!storage?.name) return;
  const status = (crd.status ??= {});
  const stored = status.storedVersions ?? [];
  if (!stored.includes(storage.name)) status.storedVersions = [...stored, storage.name];
}

function copyNames(n: CRDNames | undefined): CRDNames {
  const out: CRDNames = {};
  for (const k of ['categories', 'kind', 'listKind', 'plural', 'shortNames', 'singular'] as const) {
    const v = n?.[k];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && v !== '') (out as Record<string, unknown>)[k] = Array.isArray(v) ? [...v] : v;
  }
  return out;
}

/** What the naming and establishing controllers write once the names are accepted. */
export function acceptNames(crd: CustomResourceDefinition, now = rfc3339()): void {
  const status = (crd.status ??= {});
  status.acceptedNames = copyNames(crd.spec?.names);
  const conds = [...(status.conditions ?? [])];
  const set = (type: string, reason: string, message: string) => {
    const i = conds.findIndex((c) => c.type === type);
    if (i >= 0 && conds[i].status === 'True') return;
    const c = { type, status: 'True', lastTransitionTime: now, reason, message };
    if (i >= 0) conds[i] = c;
    else conds.push(c);
  };
  set('NamesAccepted', 'NoConflicts', 'no conflicts found');
  set('Established', 'InitialNamesAccepted', 'the initial names have been accepted');
  status.conditions = conds;
}

export const customResourceDefinitionResource = defineResource<CustomResourceDefinition>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  namespaced: false,
  schemaRef: `${APIEXT}CustomResourceDefinition`,
  definitions: schemaDefinitions,
  hasGeneration: true,
  subresources: { status: true },
  columns: [],
  strategy: {
    defaults: defaultCRD,
    prepareForCreate(crd) {
      crd.status = {};
      recordStorageVersion(crd);
    },
    prepareForUpdate: recordStorageVersion,
    validate: (crd) => validateCRD(crd),
    validateUpdate: validateCRDUpdate,
    canonicalize(crd) {
      // Only where the controllers would act: a main-resource write, or names not yet accepted.
      const accepted = crd.status?.acceptedNames;
      if (!accepted?.kind || !crd.status?.conditions?.length || JSON.stringify(copyNames(crd.spec?.names)) !== JSON.stringify(accepted)) acceptNames(crd);
    },
    validateStatusUpdate: (crd) => validateNames(crd.status?.acceptedNames, 'status.acceptedNames'),
    allowCreateOnUpdate: false,
  },
});

export const apiextensionsResources: ResourceDefinition[] = [customResourceDefinitionResource];
