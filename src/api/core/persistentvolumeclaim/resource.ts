// core/v1 PersistentVolumeClaim as a served resource: SetDefaults_PersistentVolumeClaim(Spec),
// persistentvolumeclaimStrategy (status reset on create, data sources normalised), GetWarningsForPersistentVolumeClaim
// and printPersistentVolumeClaim.
import { CORE } from '../common.js';
import { accessModesString, BETA_STORAGE_CLASS, quantityOf, quantityString, storageClassOf } from '../persistentvolume/util.js';
import { pvcDefinitions } from './schema.js';
import {
  normalizeDataSources, validatePVC, validatePVCStatusUpdate, validatePVCUpdate, type PersistentVolumeClaim,
} from './validation.js';
import { podDefinitions } from '../pod/schema.js';
import { canonicalResourceList, roundResourceList } from '../resourcequota/names.js';
import { ageColumn, nameColumn } from '../../format.js';
import { defineResource, type TableColumn } from '../../types.js';

export type { PersistentVolumeClaim } from './validation.js';
export { pvcDefinitions } from './schema.js';

/** SetDefaults_PersistentVolumeClaim(Spec), ResourceList rounding and the always-present spec.resources. */
export function defaultPVC(pvc: PersistentVolumeClaim): void {
  const spec = (pvc.spec ??= {});
  spec.volumeMode ??= 'Filesystem';
  spec.resources ??= {};
  roundResourceList(spec.resources.requests);
  roundResourceList(spec.resources.limits);
  const st = (pvc.status ??= {});
  st.phase ||= 'Pending';
  roundResourceList(st.capacity);
  roundResourceList(st.allocatedResources);
}

/** Drops fields of disabled features (VolumeAttributesClass, CrossNamespaceVolumeDataSource) unless in use. */
function dropDisabledFields(pvc: PersistentVolumeClaim, old?: PersistentVolumeClaim): void {
  const spec = pvc.spec ?? {};
  if (old?.spec?.volumeAttributesClassName == null) delete spec.volumeAttributesClassName;
  if (spec.dataSourceRef && !old?.spec?.dataSourceRef?.namespace) delete spec.dataSourceRef.namespace;
}

function fractional(path: string, v: unknown): string[] {
  if (v === undefined || v === null) return [];
  const q = quantityOf(v);
  return q.scaledValue(-3) % 1000n !== 0n ? [`${path}: fractional byte value "${q.toString()}" is invalid, must be an integer`] : [];
}

function pvcWarnings(pvc: PersistentVolumeClaim): string[] {
  const w: string[] = [];
  if (pvc.metadata.annotations?.[BETA_STORAGE_CLASS] !== undefined) {
    w.push(`metadata.annotations[${BETA_STORAGE_CLASS}]: deprecated since v1.8; use "storageClassName" attribute instead`);
  }
  w.push(...fractional('spec.resources.requests[storage]', pvc.spec?.resources?.requests?.storage));
  w.push(...fractional('spec.resources.limits[storage]', pvc.spec?.resources?.limits?.storage));
  return w;
}

const statusDoc = (f: string): string => pvcDefinitions[`${CORE}PersistentVolumeClaimStatus`].properties![f].description!;
const specDoc = (f: string): string => podDefinitions[`${CORE}PersistentVolumeClaimSpec`].properties![f].description!;

const pvcColumns: TableColumn<PersistentVolumeClaim>[] = [
  nameColumn(),
  { name: 'Status', type: 'string', description: statusDoc('phase'), cell: (c) => (c.metadata.deletionTimestamp ? 'Terminating' : (c.status?.phase ?? '')) },
  { name: 'Volume', type: 'string', description: specDoc('volumeName'), cell: (c) => c.spec?.volumeName ?? '' },
  // Capacity and access modes come from the bound volume, so they stay empty until the claim names one.
  { name: 'Capacity', type: 'string', description: statusDoc('capacity'), cell: (c) => (c.spec?.volumeName ? quantityString(c.status?.capacity?.storage) : '') },
  { name: 'Access Modes', type: 'string', description: statusDoc('accessModes'), cell: (c) => (c.spec?.volumeName ? accessModesString(c.status?.accessModes) : '') },
  { name: 'StorageClass', type: 'string', description: 'StorageClass of the pvc', cell: (c) => storageClassOf(c, c.spec?.storageClassName) },
  { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClass of the pvc', cell: (c) => c.spec?.volumeAttributesClassName ?? '<unset>' },
  ageColumn(),
  { name: 'VolumeMode', type: 'string', priority: 1, description: specDoc('volumeMode'), cell: (c) => c.spec?.volumeMode ?? '<unset>' },
];

export const persistentVolumeClaimResource = defineResource<PersistentVolumeClaim>({
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  shortNames: ['pvc'],
  namespaced: true,
  schemaRef: `${CORE}PersistentVolumeClaim`,
  definitions: pvcDefinitions,
  subresources: { status: true },
  columns: pvcColumns,
  // "name" is a historical bug kept for compatibility.
  selectableFields: { name: (c) => c.metadata.name ?? '' },
  strategy: {
    defaults: defaultPVC,
    prepareForCreate(pvc) {
      // The stored status is empty; reads default its phase to Pending, which we store directly.
      pvc.status = { phase: 'Pending' };
      dropDisabledFields(pvc);
      normalizeDataSources((pvc.spec ??= {}));
    },
    prepareForUpdate(pvc, old) {
      dropDisabledFields(pvc, old);
      normalizeDataSources((pvc.spec ??= {}), old.spec);
    },
    validate: validatePVC,
    canonicalize(pvc) {
      canonicalResourceList(pvc.spec?.resources?.requests);
      canonicalResourceList(pvc.spec?.resources?.limits);
      canonicalResourceList(pvc.status?.capacity);
      canonicalResourceList(pvc.status?.allocatedResources);
    },
    validateUpdate: validatePVCUpdate,
    validateStatusUpdate: validatePVCStatusUpdate,
    warnings: pvcWarnings,
    allowCreateOnUpdate: false,
  },
});
