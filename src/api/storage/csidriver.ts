// storage.k8s.io/v1 CSIDriver: types.go, SetDefaults_CSIDriver (1.33: the fsGroupPolicy, lifecycle-mode and
// SELinuxMountReadWriteOncePod gates are on), pkg/registry/storage/csidriver/strategy.go, ValidateCSIDriver(Update),
// printCSIDriver.
import { FieldError } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { ageColumn, CELL_NONE, nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { goStringSlice, orEmpty } from '../networking/util.js';
import { STORAGE } from './common.js';
import { defineResource, type KObject } from '../types.js';

export interface CSIDriverSpec {
  attachRequired?: boolean | null;
  podInfoOnMount?: boolean | null;
  volumeLifecycleModes?: string[] | null;
  storageCapacity?: boolean | null;
  fsGroupPolicy?: string | null;
  tokenRequests?: Array<{ audience?: string; expirationSeconds?: number | null }> | null;
  requiresRepublish?: boolean | null;
  seLinuxMount?: boolean | null;
  nodeAllocatableUpdatePeriodSeconds?: number | null;
}
export interface CSIDriver extends KObject {
  spec?: CSIDriverSpec;
}

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MIN_TOKEN_SECONDS = 600;
const MAX_TOKEN_SECONDS = 2 ** 32;

export const csiDriverDefinitions: Definitions = {
  [`${STORAGE}CSIDriver`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${STORAGE}CSIDriverSpec`, 'spec represents the specification of the CSI Driver.', { default: {} }),
    },
    {
      description:
        'CSIDriver describes a Container Storage Interface (CSI) volume driver deployed on the cluster; its name is the name the driver reports. The attach/detach controller reads it to know whether attach is needed, the kubelet whether to pass pod information on mount. CSIDrivers are cluster-scoped.',
      required: ['spec'],
    },
  ),
  [`${STORAGE}CSIDriverSpec`]: s.obj(
    {
      attachRequired: s.bool(
        'attachRequired says the driver needs an attach operation (it implements ControllerPublishVolume), so the attach/detach controller waits for the VolumeAttachment before mounting. When false, attach is skipped. Immutable.',
      ),
      fsGroupPolicy: s.str(
        'fsGroupPolicy says whether the volume supports changing ownership and permissions before mount: ReadWriteOnceWithFSType (the default: only with an fstype and a ReadWriteOnce access mode), File or None.',
      ),
      nodeAllocatableUpdatePeriodSeconds: s.int64(
        'nodeAllocatableUpdatePeriodSeconds is the interval of periodic updates of the CSINode allocatable capacity of this driver, at least 10 seconds. Alpha: needs the MutableCSINodeAllocatableCount feature gate.',
      ),
      podInfoOnMount: s.bool(
        'podInfoOnMount, when true, makes the kubelet pass pod information (name, namespace, UID, whether the volume is ephemeral) as VolumeContext in NodePublishVolume calls. Defaults to false.',
      ),
      requiresRepublish: s.bool(
        'requiresRepublish asks for NodePublishVolume to be called periodically so the mounted volume can reflect changes; later calls should only update the contents. Defaults to false.',
      ),
      seLinuxMount: s.bool(
        'seLinuxMount says the driver supports the "-o context" mount option, so each volume can be mounted with its own SELinux context. Defaults to false.',
      ),
      storageCapacity: s.bool(
        'storageCapacity, when true, makes pod scheduling consider the capacity the driver reports in CSIStorageCapacity objects. Mutable.',
      ),
      tokenRequests: s.arr(s.ref(`${STORAGE}TokenRequest`, undefined, { default: {} }), {
        description:
          "tokenRequests asks the kubelet to pass the pods' service account tokens, one per audience, in VolumeContext on NodePublishVolume. Audiences must differ; at most one may be empty.",
      }),
      volumeLifecycleModes: s.strSet(
        'volumeLifecycleModes lists the kinds of volumes the driver supports: "Persistent" (the default, PV/PVC) and/or "Ephemeral" (inline in the pod spec, living with the pod). Immutable.',
      ),
    },
    { description: 'CSIDriverSpec is the specification of a CSIDriver.' },
  ),
  [`${STORAGE}TokenRequest`]: s.obj(
    {
      audience: s.str('audience is the intended audience of the token; it defaults to the audiences of kube-apiserver.', { default: '' }),
      expirationSeconds: s.int64('expirationSeconds is the validity of the token, with the same default as in a TokenRequest.'),
    },
    { description: 'TokenRequest contains parameters of a service account token.', required: ['audience'] },
  ),
  [`${STORAGE}CSIDriverList`]: listDefinition(`${STORAGE}CSIDriver`, 'CSIDriverList is a collection of CSIDriver objects.', 'items is the list of CSIDriver'),
};

function validateSpec(spec: CSIDriverSpec): FieldError[] {
  const errs: FieldError[] = [];
  // "attachedRequired" is Kubernetes' own (misspelt) path.
  if (spec.attachRequired == null) errs.push(FieldError.required('spec.attachedRequired', ''));
  if (spec.podInfoOnMount == null) errs.push(FieldError.required('spec.podInfoOnMount', ''));
  if (spec.storageCapacity == null) errs.push(FieldError.required('spec.storageCapacity', ''));
  if (spec.fsGroupPolicy != null && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) {
    errs.push(FieldError.notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  const audiences = new Set<string>();
  orEmpty(spec.tokenRequests).forEach((tr, i) => {
    const p = `spec.tokenRequests[${i}]`;
    const aud = tr?.audience ?? '';
    if (audiences.has(aud)) {
      errs.push(FieldError.duplicate(`${p}.audience`, aud));
      return;
    }
    audiences.add(aud);
    const exp = tr?.expirationSeconds;
    if (exp == null) return;
    if (exp < MIN_TOKEN_SECONDS) errs.push(FieldError.invalid(`${p}.expirationSeconds`, exp, 'may not specify a duration less than 10 minutes'));
    if (exp > MAX_TOKEN_SECONDS) errs.push(FieldError.invalid(`${p}.expirationSeconds`, exp, 'may not specify a duration larger than 2^32 seconds'));
  });
  for (const mode of orEmpty(spec.volumeLifecycleModes)) {
    if (!LIFECYCLE_MODES.includes(mode)) errs.push(FieldError.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  }
  if (spec.seLinuxMount == null) errs.push(FieldError.required('spec.seLinuxMount', ''));
  const period = spec.nodeAllocatableUpdatePeriodSeconds;
  if (period != null && period < 10) {
    errs.push(FieldError.invalid('spec.nodeAllocatableUpdatePeriodSeconds', period, 'must be greater than or equal to 10 seconds'));
  }
  return errs;
}

const doc = (f: string): string => csiDriverDefinitions[`${STORAGE}CSIDriverSpec`].properties![f].description!;

export const csiDriverResource = defineResource<CSIDriver>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'CSIDriver',
  plural: 'csidrivers',
  singular: 'csidriver',
  namespaced: false,
  schemaRef: `${STORAGE}CSIDriver`,
  definitions: csiDriverDefinitions,
  hasGeneration: true,
  columns: [
    nameColumn(),
    { name: 'AttachRequired', type: 'boolean', description: doc('attachRequired'), cell: (o) => o.spec?.attachRequired ?? true },
    { name: 'PodInfoOnMount', type: 'boolean', description: doc('podInfoOnMount'), cell: (o) => o.spec?.podInfoOnMount ?? false },
    { name: 'StorageCapacity', type: 'boolean', description: doc('storageCapacity'), cell: (o) => o.spec?.storageCapacity ?? false },
    {
      name: 'TokenRequests',
      type: 'string',
      description: doc('tokenRequests'),
      cell: (o) => (Array.isArray(o.spec?.tokenRequests) ? o.spec!.tokenRequests!.map((t) => t?.audience ?? '').join(',') : '<unset>'),
    },
    { name: 'RequiresRepublish', type: 'boolean', description: doc('requiresRepublish'), cell: (o) => o.spec?.requiresRepublish ?? false },
    {
      name: 'Modes',
      type: 'string',
      description: doc('volumeLifecycleModes'),
      cell: (o) => orEmpty(o.spec?.volumeLifecycleModes).join(',') || CELL_NONE,
    },
    ageColumn(),
  ],
  strategy: {
    defaults(d) {
      const spec = (d.spec ??= {});
      spec.attachRequired ??= true;
      spec.podInfoOnMount ??= false;
      spec.storageCapacity ??= false;
      spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
      if (!orEmpty(spec.volumeLifecycleModes).length) spec.volumeLifecycleModes = ['Persistent'];
      spec.requiresRepublish ??= false;
      spec.seLinuxMount ??= false;
    },
    // MutableCSINodeAllocatableCount is alpha (off) in 1.33: its field is dropped unless already stored.
    prepareForCreate(d) {
      delete d.spec?.nodeAllocatableUpdatePeriodSeconds;
    },
    prepareForUpdate(d, old) {
      if (old.spec?.nodeAllocatableUpdatePeriodSeconds == null) delete d.spec?.nodeAllocatableUpdatePeriodSeconds;
    },
    validate: (d) => validateSpec(d.spec ?? {}),
    validateUpdate(d, old) {
      const errs: FieldError[] = [];
      if ((d.spec?.attachRequired ?? null) !== (old.spec?.attachRequired ?? null)) {
        errs.push(FieldError.invalid('spec.attachedRequired', d.spec?.attachRequired ?? null, 'field is immutable'));
      }
      const modes = d.spec?.volumeLifecycleModes;
      if (JSON.stringify(orEmpty(modes)) !== JSON.stringify(orEmpty(old.spec?.volumeLifecycleModes))) {
        errs.push(FieldError.invalid('spec.volumeLifecycleModes', goStringSlice('storage.VolumeLifecycleMode', modes), 'field is immutable'));
      }
      return errs;
    },
    allowCreateOnUpdate: false,
  },
});
