// storage.k8s.io/v1 StorageClass: staging/src/k8s.io/api/storage/v1/types.go, SetDefaults_StorageClass,
// ValidateStorageClass(Update) in pkg/apis/storage/validation/validation.go, printStorageClass.
import { FieldError } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { byteLength, isQualifiedName } from '../../machinery/validation.js';
import { CORE } from '../core/common.js';
import { ageColumn, jsonEqual, nameColumn, sortedKeys } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { dropEmpty, STORAGE, topologySelectorDefinitions, validateAllowedTopologies, type TopologySelectorTerm } from './common.js';
import { defineResource, type KObject } from '../types.js';

export interface StorageClass extends KObject {
  provisioner?: string;
  parameters?: Record<string, string> | null;
  reclaimPolicy?: string | null;
  mountOptions?: string[] | null;
  allowVolumeExpansion?: boolean | null;
  volumeBindingMode?: string | null;
  allowedTopologies?: TopologySelectorTerm[] | null;
}

export const ANNOTATION_IS_DEFAULT_STORAGE_CLASS = 'storageclass.kubernetes.io/is-default-class';
export const ANNOTATION_BETA_IS_DEFAULT_STORAGE_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

export const storageClassDefinitions: Definitions = {
  [`${STORAGE}StorageClass`]: s.obj(
    {
      ...kindHeader(),
      allowVolumeExpansion: s.bool('allowVolumeExpansion says whether volumes of this class may be expanded.'),
      allowedTopologies: s.arr(s.ref(`${CORE}TopologySelectorTerm`, undefined, { default: {} }), {
        description:
          'allowedTopologies restricts the node topologies where volumes can be dynamically provisioned; each volume plugin defines what it supports. Empty means no restriction.',
      }),
      mountOptions: s.arr(s.str(undefined, { default: '' }), {
        description: 'mountOptions are the mount options of dynamically provisioned PersistentVolumes of this class, e.g. ["ro", "soft"]. Not validated: mounting simply fails if one is invalid.',
      }),
      parameters: s.strMap('parameters holds the parameters for the provisioner that should create volumes of this storage class.'),
      provisioner: s.str('provisioner indicates the type of the provisioner.', { default: '' }),
      reclaimPolicy: s.enumOf(['Delete', 'Recycle', 'Retain'], 'reclaimPolicy is the reclaim policy of dynamically provisioned PersistentVolumes of this class. Defaults to Delete.'),
      volumeBindingMode: s.enumOf(
        ['Immediate', 'WaitForFirstConsumer'],
        'volumeBindingMode says how PersistentVolumeClaims are provisioned and bound: Immediate (the default) or WaitForFirstConsumer (when the first pod using the claim is scheduled).',
      ),
    },
    {
      description:
        'StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned. StorageClasses are cluster-scoped.',
      required: ['provisioner'],
    },
  ),
  [`${STORAGE}StorageClassList`]: listDefinition(`${STORAGE}StorageClass`, 'StorageClassList is a collection of storage classes.', 'items is the list of StorageClasses'),
  ...topologySelectorDefinitions,
};

function validateParameters(params: Record<string, string> | null | undefined): FieldError[] {
  const keys = sortedKeys(params);
  if (keys.length > MAX_PARAMETERS) return [FieldError.tooLong('parameters', '', MAX_PARAMETERS)];
  const errs: FieldError[] = [];
  let size = 0;
  for (const k of keys) {
    if (k === '') errs.push(FieldError.invalid('parameters', k, 'field can not be empty.'));
    size += byteLength(k) + byteLength(params![k] ?? '');
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(FieldError.tooLong('parameters', '', MAX_PARAMETERS_SIZE));
  return errs;
}

function validateStorageClass(sc: StorageClass): FieldError[] {
  const errs: FieldError[] = [];
  const prov = sc.provisioner ?? '';
  if (prov === '') errs.push(FieldError.required('provisioner', ''));
  else for (const m of isQualifiedName(prov.toLowerCase())) errs.push(FieldError.invalid('provisioner', prov.toLowerCase(), m));
  errs.push(...validateParameters(sc.parameters));
  const rp = sc.reclaimPolicy ?? '';
  if (rp !== '' && !RECLAIM_POLICIES.includes(rp)) errs.push(FieldError.notSupported('reclaimPolicy', rp, RECLAIM_POLICIES));
  if (sc.volumeBindingMode == null) errs.push(FieldError.required('volumeBindingMode', ''));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(FieldError.notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  errs.push(...validateAllowedTopologies(sc.allowedTopologies, 'allowedTopologies'));
  return errs;
}

const doc = (f: string): string => storageClassDefinitions[`${STORAGE}StorageClass`].properties![f].description!;

/** storageutil.IsDefaultAnnotation: the GA or the beta annotation set to "true". */
export function isDefaultStorageClass(sc: KObject): boolean {
  const a = sc.metadata.annotations ?? {};
  return a[ANNOTATION_IS_DEFAULT_STORAGE_CLASS] === 'true' || a[ANNOTATION_BETA_IS_DEFAULT_STORAGE_CLASS] === 'true';
}

export const storageClassResource = defineResource<StorageClass>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'StorageClass',
  plural: 'storageclasses',
  singular: 'storageclass',
  shortNames: ['sc'],
  namespaced: false,
  schemaRef: `${STORAGE}StorageClass`,
  definitions: storageClassDefinitions,
  columns: [
    { ...nameColumn<StorageClass>(), cell: (o) => `${o.metadata.name ?? ''}${isDefaultStorageClass(o) ? ' (default)' : ''}` },
    { name: 'Provisioner', type: 'string', description: doc('provisioner'), cell: (o) => o.provisioner ?? '' },
    {
      name: 'ReclaimPolicy',
      type: 'string',
      description: doc('reclaimPolicy'),
      cell: (o) => o.reclaimPolicy ?? 'Delete',
    },
    {
      name: 'VolumeBindingMode',
      type: 'string',
      description: doc('volumeBindingMode'),
      cell: (o) => o.volumeBindingMode ?? 'Immediate',
    },
    {
      name: 'AllowVolumeExpansion',
      type: 'string',
      description: doc('allowVolumeExpansion'),
      cell: (o) => o.allowVolumeExpansion ?? false,
    },
    ageColumn(),
  ],
  strategy: {
    defaults(sc) {
      sc.reclaimPolicy ??= 'Delete';
      sc.volumeBindingMode ??= 'Immediate';
      dropEmpty(sc, 'parameters', 'mountOptions', 'allowedTopologies');
    },
    validate: validateStorageClass,
    validateUpdate(sc, old) {
      const errs: FieldError[] = [];
      if (!jsonEqual(sc.parameters ?? null, old.parameters ?? null)) errs.push(FieldError.forbidden('parameters', 'updates to parameters are forbidden.'));
      if ((sc.provisioner ?? '') !== (old.provisioner ?? '')) errs.push(FieldError.forbidden('provisioner', 'updates to provisioner are forbidden.'));
      if ((sc.reclaimPolicy ?? '') !== (old.reclaimPolicy ?? '')) errs.push(FieldError.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
      if ((sc.volumeBindingMode ?? null) !== (old.volumeBindingMode ?? null)) {
        errs.push(FieldError.invalid('volumeBindingMode', sc.volumeBindingMode ?? null, 'field is immutable'));
      }
      return errs;
    },
    allowCreateOnUpdate: false,
  },
});
