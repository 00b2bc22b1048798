// core/v1 PersistentVolume as a served resource: SetDefaults_PersistentVolume, persistentvolumeStrategy
// (status Pending with a phase transition time on create, kept on spec updates), GetWarningsForPersistentVolume
// and printPersistentVolume.
import { rfc3339 } from '../../../machinery/object.js';
import { CORE } from '../common.js';
import { accessModesString, BETA_STORAGE_CLASS, quantityString, storageClassOf } from './util.js';
import { pvDefinitions } from './schema.js';
import { validatePersistentVolume, validatePersistentVolumeUpdate, type PersistentVolume } from './validation.js';
import { canonicalResourceList, roundResourceList } from '../resourcequota/names.js';
import { ageColumn, nameColumn } from '../../format.js';
import { defineResource, type TableColumn } from '../../types.js';

export type { PersistentVolume } from './validation.js';
export { pvDefinitions } from './schema.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const setIfUnset = (o: Obj, k: string, v: unknown): void => {
  if (o[k] === undefined || o[k] === null || o[k] === '') o[k] = v;
};

/** SetDefaults_PersistentVolume and the +default markers of the source types a PV may use. */
export function defaultPersistentVolume(pv: PersistentVolume): void {
  const spec = (pv.spec ??= {});
  spec.persistentVolumeReclaimPolicy ||= 'Retain';
  spec.volumeMode ??= 'Filesystem';
  roundResourceList(spec.capacity);
  const status = (pv.status ??= {});
  status.phase ||= 'Pending';
  if (isObj(spec.hostPath) && (spec.hostPath.type === undefined || spec.hostPath.type === null)) spec.hostPath.type = '';
  if (isObj(spec.iscsi)) setIfUnset(spec.iscsi, 'iscsiInterface', 'default');
  if (isObj(spec.rbd)) {
    setIfUnset(spec.rbd, 'pool', 'rbd');
    setIfUnset(spec.rbd, 'user', 'admin');
    setIfUnset(spec.rbd, 'keyring', '/etc/ceph/keyring');
  }
  if (isObj(spec.azureDisk)) {
    setIfUnset(spec.azureDisk, 'cachingMode', 'ReadWrite');
    setIfUnset(spec.azureDisk, 'fsType', 'ext4');
    spec.azureDisk.readOnly ??= false;
    setIfUnset(spec.azureDisk, 'kind', 'Shared');
  }
  if (isObj(spec.scaleIO)) {
    setIfUnset(spec.scaleIO, 'storageMode', 'ThinProvisioned');
    setIfUnset(spec.scaleIO, 'fsType', 'xfs');
  }
}

function pvWarnings(pv: PersistentVolume): string[] {
  const w: string[] = [];
  if (pv.metadata.annotations?.[BETA_STORAGE_CLASS] !== undefined) {
    w.push(`metadata.annotations[${BETA_STORAGE_CLASS}]: deprecated since v1.8; use "storageClassName" attribute instead`);
  }
  if (pv.spec?.persistentVolumeReclaimPolicy === 'Recycle') {
    w.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.');
  }
  return w;
}

const specDoc = (f: string): string => pvDefinitions[`${CORE}PersistentVolumeSpec`].properties![f].description!;
const statusDoc = (f: string): string => pvDefinitions[`${CORE}PersistentVolumeStatus`].properties![f].description!;

const pvColumns: TableColumn<PersistentVolume>[] = [
  nameColumn(),
  { name: 'Capacity', type: 'string', description: specDoc('capacity'), cell: (pv) => quantityString(pv.spec?.capacity?.storage) },
  { name: 'Access Modes', type: 'string', description: specDoc('accessModes'), cell: (pv) => accessModesString(pv.spec?.accessModes) },
  { name: 'Reclaim Policy', type: 'string', description: specDoc('persistentVolumeReclaimPolicy'), cell: (pv) => pv.spec?.persistentVolumeReclaimPolicy ?? '' },
  { name: 'Status', type: 'string', description: statusDoc('phase'), cell: (pv) => (pv.metadata.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? '')) },
  {
    name: 'Claim',
    type: 'string',
    description: specDoc('claimRef'),
    cell: (pv) => (pv.spec?.claimRef ? `${pv.spec.claimRef.namespace ?? ''}/${pv.spec.claimRef.name ?? ''}` : ''),
  },
  { name: 'StorageClass', type: 'string', description: 'StorageClass of the pv', cell: (pv) => storageClassOf(pv, pv.spec?.storageClassName) },
  { name: 'VolumeAttributesClass', type: 'string', description: 'VolumeAttributesClass of the pv', cell: (pv) => pv.spec?.volumeAttributesClassName ?? '<unset>' },
  { name: 'Reason', type: 'string', description: statusDoc('reason'), cell: (pv) => pv.status?.reason ?? '' },
  ageColumn(),
  { name: 'VolumeMode', type: 'string', priority: 1, description: specDoc('volumeMode'), cell: (pv) => pv.spec?.volumeMode ?? '<unset>' },
];

export const persistentVolumeResource = defineResource<PersistentVolume>({
  group: '',
  version: 'v1',
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  singular: 'persistentvolume',
  shortNames: ['pv'],
  namespaced: false,
  schemaRef: `${CORE}PersistentVolume`,
  definitions: pvDefinitions,
  subresources: { status: true },
  columns: pvColumns,
  // "name" is a historical bug kept for compatibility.
  selectableFields: { name: (pv) => pv.metadata.name ?? '' },
  strategy: {
    defaults: defaultPersistentVolume,
    prepareForCreate(pv) {
      pv.status = { phase: 'Pending', lastPhaseTransitionTime: rfc3339() };
      // VolumeAttributesClass is off by default in 1.33: the field is dropped unless already in use.
      if (pv.spec) delete pv.spec.volumeAttributesClassName;
    },
    prepareForUpdate(pv, old) {
      if (pv.spec && old.spec?.volumeAttributesClassName == null) delete pv.spec.volumeAttributesClassName;
    },
    validate: validatePersistentVolume,
    canonicalize: (pv) => canonicalResourceList(pv.spec?.capacity),
    validateUpdate: validatePersistentVolumeUpdate,
    prepareForStatusUpdate(pv, old) {
      const st = (pv.status ??= {});
      const prev = old.status ?? {};
      if (st.phase === prev.phase && !st.lastPhaseTransitionTime) {
        if (prev.lastPhaseTransitionTime) st.lastPhaseTransitionTime = prev.lastPhaseTransitionTime;
        else delete st.lastPhaseTransitionTime;
      } else if (st.phase !== prev.phase && (!st.lastPhaseTransitionTime || st.lastPhaseTransitionTime === prev.lastPhaseTransitionTime)) {
        st.lastPhaseTransitionTime = rfc3339();
      }
    },
    warnings: pvWarnings,
    allowCreateOnUpdate: false,
  },
});
