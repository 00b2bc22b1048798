// apiextensions.k8s.io/v1 CustomResourceDefinition: k8s.io/apiextensions-apiserver/pkg/registry/
// customresourcedefinition (strategy: status reset on create, kept on update, generation on spec changes,
// stored versions tracked; no create on update), defaults from pkg/apis/apiextensions/v1/defaults.go, the default
// NAME / CREATED AT table. The naming and establishing controllers' step runs where the CRD is stored
// (canonicalize, naming.ts); a DELETE starts the cleanup of its objects (the customresourcecleanup finalizer,
// worked by the API server's custom-resource controller, which also serves the objects).
import type { Definitions } from '../../machinery/schema.js';
import { acceptNames, startTermination, type NamesInUse } from './naming.js';
import { apiextensionsDefinitions as schemaDefinitions, APIEXT } from './schema.js';
import { validateCRD, validateCRDUpdate, validateNames, type CRDNames, type CustomResourceDefinition } from './validation.js';
import { defineResource, type ResourceDefinition } from '../types.js';

export { APIEXT } from './schema.js';
export type { CustomResourceDefinition, CRDNames, CRDVersion, CRDCondition } from './validation.js';

export const apiextensionsDefinitions: Definitions = schemaDefinitions;
export { acceptNames, isEstablished, CLEANUP_FINALIZER, type NamesInUse } from './naming.js';

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

/** The CRD resource; `namesInUse` gives the naming controller its view of the other CRDs (none: no conflicts). */
export function customResourceDefinitionResourceWith(namesInUse?: NamesInUse): ResourceDefinition {
  return defineResource<CustomResourceDefinition>({
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
      // the naming controller's step; a deleted CRD keeps its names while its objects go
      if (!crd.metadata.deletionTimestamp) acceptNames(crd, undefined, namesInUse?.(crd));
    },
    beforeDelete: (crd) => startTermination(crd),
    validateStatusUpdate: (crd) => validateNames(crd.status?.acceptedNames, 'status.acceptedNames'),
    // kube's CRD status strategy resets spec, labels, annotations and owners only
    statusUpdateTakesFinalizers: true,
    prepareForStatusUpdate(crd, old) {
      if (old.metadata.annotations === undefined) delete crd.metadata.annotations;
      else crd.metadata.annotations = old.metadata.annotations;
    },
    allowCreateOnUpdate: false,
  },
  });
}

export const customResourceDefinitionResource = customResourceDefinitionResourceWith();

export const apiextensionsResources: ResourceDefinition[] = [customResourceDefinitionResource];
