// PersistentVolume validation: ValidatePersistentVolumeSpec / ValidatePersistentVolumeUpdate
// (pkg/apis/core/validation/validation.go, 1.33 defaults: VolumeAttributesClass off) and the mount-options check of
// pkg/volume/validation. Sources are checked for the fields Kubernetes requires; paths keep Kubernetes' quirks
// (GCE disks validated under "persistentDisk", a second cephfs reported as "cephFS").
import { posix } from 'node:path';
import { FieldError } from '../../../machinery/errors.js';
import { nameIsDNSSubdomain, validateImmutableField } from '../../../machinery/validation.js';
import { dns1123Label, dns1123Subdomain, inclusiveRangeError, invalidEach, isObj, validatePathNoBacksteps } from '../pod/validation-util.js';
import { validateAffinity } from '../pod/validation-scheduling.js';
import { goResourceList, semanticEqual, structDiff, validateAccessModes, VOLUME_MODES } from './util.js';
import { persistentVolumeSourceFields } from './schema.js';
import { quantityAt } from '../resourcequota/names.js';
import type { KObject } from '../../types.js';

type Obj = Record<string, unknown>;

export interface PersistentVolume extends KObject {
  spec?: Obj & {
    capacity?: Obj | null;
    accessModes?: string[] | null;
    claimRef?: { namespace?: string; name?: string; [k: string]: unknown } | null;
    persistentVolumeReclaimPolicy?: string;
    storageClassName?: string;
    volumeMode?: string | null;
    nodeAffinity?: { required?: Obj | null } | null;
    volumeAttributesClassName?: string | null;
  };
  status?: { phase?: string; message?: string; reason?: string; lastPhaseTransitionTime?: string | null };
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const RECLAIM = ['Delete', 'Recycle', 'Retain'];
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const MOUNT_OPTIONS = 'volume.beta.kubernetes.io/mount-options';
// Sources whose plugins accept mount options (pkg/volume/validation).
const MOUNT_OPTION_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs', 'azureFile',
  'vsphereVolume', 'azureDisk', 'photonPersistentDisk', 'flocker', 'scaleIO', 'fc', 'portworxVolume',
];

const required = (src: Obj, path: string, ...fields: string[]): FieldError[] => fields.filter((f) => !str(src[f])).map((f) => FieldError.required(`${path}.${f}`));

/** validatePVSecretReference: name and namespace required. */
function validateSecretRef(ref: unknown, path: string): FieldError[] {
  if (!isObj(ref)) return [];
  const errs: FieldError[] = [];
  if (!str(ref.name)) errs.push(FieldError.required(`${path}.name`));
  else errs.push(...dns1123Subdomain(str(ref.name), `${path}.name`));
  if (!str(ref.namespace)) errs.push(FieldError.required(`${path}.namespace`));
  else errs.push(...dns1123Label(str(ref.namespace), `${path}.namespace`));
  return errs;
}

function validatePartition(src: Obj, path: string): FieldError[] {
  const p = typeof src.partition === 'number' ? src.partition : 0;
  return p < 0 || p > 255 ? [FieldError.invalid(`${path}.partition`, p, inclusiveRangeError(1, 255))] : [];
}

/** The checks of one source kind; `p` is where Kubernetes reports them. */
function validateSource(kind: string, src: Obj, p: string): FieldError[] {
  switch (kind) {
    case 'hostPath': {
      const errs = str(src.path) ? [] : [FieldError.required(`${p}.path`)];
      errs.push(...validatePathNoBacksteps(str(src.path), `${p}.path`));
      if (src.type !== undefined && src.type !== null && !HOST_PATH_TYPES.includes(str(src.type))) {
        errs.push(FieldError.notSupported(`${p}.type`, src.type, HOST_PATH_TYPES));
      }
      return errs;
    }
    case 'gcePersistentDisk':
      return [...required(src, p, 'pdName'), ...validatePartition(src, p)];
    case 'awsElasticBlockStore':
      return [...required(src, p, 'volumeID'), ...validatePartition(src, p)];
    case 'glusterfs':
      return required(src, p, 'endpoints', 'path');
    case 'flocker': {
      const n = (str(src.datasetName) ? 1 : 0) + (str(src.datasetUUID) ? 1 : 0);
      if (n === 0) return [FieldError.required(p, 'one of datasetName and datasetUUID is required')];
      if (n === 2) return [FieldError.invalid(p, 'resource', 'datasetName and datasetUUID can not be specified simultaneously')];
      return [];
    }
    case 'nfs': {
      const errs = required(src, p, 'server', 'path');
      if (str(src.path) && !str(src.path).startsWith('/')) errs.push(FieldError.invalid(`${p}.path`, src.path, 'must be an absolute path'));
      return errs;
    }
    case 'rbd': {
      const errs = Array.isArray(src.monitors) && src.monitors.length ? [] : [FieldError.required(`${p}.monitors`)];
      return [...errs, ...required(src, p, 'image')];
    }
    case 'quobyte':
      return required(src, p, 'registry', 'volume');
    case 'cephfs':
      return Array.isArray(src.monitors) && src.monitors.length ? [] : [FieldError.required(`${p}.monitors`)];
    case 'iscsi': {
      const errs = required(src, p, 'targetPortal', 'iqn');
      const lun = typeof src.lun === 'number' ? src.lun : 0;
      if (lun < 0 || lun > 255) errs.push(FieldError.invalid(`${p}.lun`, lun, inclusiveRangeError(0, 255)));
      return errs;
    }
    case 'cinder':
      return required(src, p, 'volumeID');
    case 'fc': {
      const wwns = Array.isArray(src.targetWWNs) ? src.targetWWNs.length : 0;
      const wwids = Array.isArray(src.wwids) ? src.wwids.length : 0;
      if (!wwns && !wwids) return [FieldError.required(`${p}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both')];
      if (wwns && wwids) return [FieldError.invalid(`${p}.targetWWNs`, src.targetWWNs, 'targetWWNs and wwids can not be specified simultaneously')];
      if (wwns && (src.lun === undefined || src.lun === null)) return [FieldError.required(`${p}.lun`, 'lun is required if targetWWNs is specified')];
      return [];
    }
    case 'flexVolume':
      return required(src, p, 'driver');
    case 'azureFile':
      return required(src, p, 'secretName', 'shareName');
    case 'vsphereVolume':
      return required(src, p, 'volumePath');
    case 'photonPersistentDisk':
      return required(src, p, 'pdID');
    case 'portworxVolume':
      return required(src, p, 'volumeID');
    case 'azureDisk':
      return required(src, p, 'diskName', 'diskURI');
    case 'scaleIO':
      return required(src, p, 'gateway', 'system', 'volumeName');
    case 'local':
      return str(src.path) ? validatePathNoBacksteps(str(src.path), `${p}.path`) : [FieldError.required(`${p}.path`)];
    case 'storageos': {
      const errs = str(src.volumeName) ? dns1123Label(str(src.volumeName), `${p}.volumeName`) : [FieldError.required(`${p}.volumeName`)];
      if (str(src.volumeNamespace)) errs.push(...dns1123Label(str(src.volumeNamespace), `${p}.volumeNamespace`));
      if (isObj(src.secretRef)) {
        if (!str(src.secretRef.name)) errs.push(FieldError.required(`${p}.secretRef.name`));
        if (!str(src.secretRef.namespace)) errs.push(FieldError.required(`${p}.secretRef.namespace`));
      }
      return errs;
    }
    case 'csi': {
      const driver = str(src.driver);
      const errs = driver ? [] : [FieldError.required(`${p}.driver`)];
      if (driver.length > 63) errs.push(FieldError.tooLong(`${p}.driver`, '', 63));
      errs.push(...invalidEach(`${p}.driver`, driver, nameIsDNSSubdomain(driver.toLowerCase(), false)));
      if (!str(src.volumeHandle)) errs.push(FieldError.required(`${p}.volumeHandle`));
      for (const ref of ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef']) {
        errs.push(...validateSecretRef(src[ref], `${p}.${ref}`));
      }
      return errs;
    }
    default:
      return [];
  }
}

// Kubernetes' check order, the path a second source is reported under, and where a source's own errors go.
const SOURCES: [string, string, string][] = [
  ['hostPath', 'hostPath', 'hostPath'], ['gcePersistentDisk', 'gcePersistentDisk', 'persistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore', 'awsElasticBlockStore'], ['glusterfs', 'glusterfs', 'glusterfs'],
  ['flocker', 'flocker', 'flocker'], ['nfs', 'nfs', 'nfs'], ['rbd', 'rbd', 'rbd'], ['quobyte', 'quobyte', 'quobyte'],
  ['cephfs', 'cephFS', 'cephfs'], ['iscsi', 'iscsi', 'iscsi'], ['cinder', 'cinder', 'cinder'], ['fc', 'fc', 'fc'],
  ['flexVolume', '', 'flexVolume'], ['azureFile', 'azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk', 'photonPersistentDisk'], ['portworxVolume', 'portworxVolume', 'portworxVolume'],
  ['azureDisk', 'azureDisk', 'azureDisk'], ['scaleIO', 'scaleIO', 'scaleIO'], ['local', 'local', 'local'],
  ['storageos', 'storageos', 'storageos'], ['csi', 'csi', 'csi'],
];

/** ValidateNodeSelector under `path`, through the pod validator of required node affinity. */
function validateNodeSelector(selector: Obj, path: string): FieldError[] {
  const prefix = '.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
  return validateAffinity({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: selector } }, '').map(
    (e) => new FieldError(e.type, path + e.field.slice(prefix.length), e.badValue, e.detail),
  );
}

export function validatePersistentVolume(pv: PersistentVolume): FieldError[] {
  const spec = pv.spec ?? {};
  const errs = validateAccessModes(spec.accessModes, 'spec.accessModes', '');
  const cap = spec.capacity;
  if (!cap || !Object.keys(cap).length) errs.push(FieldError.required('spec.capacity'));
  if (!cap || !('storage' in cap) || Object.keys(cap).length > 1) errs.push(FieldError.notSupported('spec.capacity', goResourceList(cap), ['storage']));
  for (const [k, v] of Object.entries(cap ?? {})) {
    const p = `spec.capacity[${k}]`;
    const q = quantityAt(v, p, errs);
    if (!q) continue;
    if (q.value() < 0) errs.push(FieldError.invalid(p, q.value(), 'must be a valid resource quantity'));
    if (q.sign() <= 0) errs.push(FieldError.invalid(p, q.toString(), 'must be greater than zero'));
  }
  const policy = spec.persistentVolumeReclaimPolicy ?? '';
  if (policy && !RECLAIM.includes(policy)) errs.push(FieldError.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM));
  const affinity = spec.nodeAffinity;
  if (isObj(affinity)) {
    if (isObj(affinity.required)) errs.push(...validateNodeSelector(affinity.required, 'spec.nodeAffinity.required'));
    else errs.push(FieldError.required('spec.nodeAffinity.required', 'must specify required node constraints'));
  }
  let n = 0;
  for (const [kind, dupPath, ownPath] of SOURCES) {
    const src = spec[kind];
    if (src === undefined || src === null) continue;
    // flexVolume is counted without the "more than one" check, as in Kubernetes.
    if (n > 0 && dupPath) {
      errs.push(FieldError.forbidden(`spec.${dupPath}`, 'may not specify more than 1 volume type'));
      continue;
    }
    n++;
    errs.push(...validateSource(kind, isObj(src) ? src : {}, `spec.${ownPath}`));
    if (kind === 'local' && !isObj(affinity)) errs.push(FieldError.required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (n === 0) errs.push(FieldError.required('spec', 'must specify a volume type'));
  const hp = spec.hostPath;
  if (isObj(hp) && posix.normalize(str(hp.path) || '.') === '/' && policy === 'Recycle') {
    errs.push(FieldError.forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (spec.storageClassName) errs.push(...invalidEach('spec.storageClassName', spec.storageClassName, nameIsDNSSubdomain(spec.storageClassName, false)));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(FieldError.notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  }
  if (pv.metadata.annotations?.[MOUNT_OPTIONS] !== undefined && !MOUNT_OPTION_SOURCES.some((k) => spec[k] !== undefined && spec[k] !== null)) {
    errs.push(FieldError.forbidden(`metadata.annotations.${MOUNT_OPTIONS}`, 'may not specify mount options for this volume type'));
  }
  return errs;
}

const sourceOf = (pv: PersistentVolume): Obj => {
  const out: Obj = {};
  for (const k of Object.keys(persistentVolumeSourceFields)) if (pv.spec?.[k] !== undefined && pv.spec[k] !== null) out[k] = pv.spec[k];
  return out;
};

// Go's field names of PersistentVolumeSource, for the diff.
const SOURCE_GO_ORDER = Object.keys(persistentVolumeSourceFields);

/** ValidatePersistentVolumeUpdate's own checks (ValidatePersistentVolume runs as the strategy's validate). */
export function validatePersistentVolumeUpdate(pv: PersistentVolume, old: PersistentVolume): FieldError[] {
  const errs: FieldError[] = [];
  const after = sourceOf(pv);
  const before = sourceOf(old);
  // A CSI controllerExpandSecretRef may be added later.
  if (isObj(before.csi) && !isObj(before.csi.controllerExpandSecretRef) && isObj(after.csi) && isObj(after.csi.controllerExpandSecretRef)) {
    const { controllerExpandSecretRef: _ignored, ...rest } = after.csi;
    after.csi = rest;
  }
  if (!semanticEqual(after, before)) {
    errs.push(FieldError.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${structDiff('core.PersistentVolumeSource', before, after, SOURCE_GO_ORDER)}`));
  }
  errs.push(...validateImmutableField(pv.spec?.volumeMode ?? null, old.spec?.volumeMode ?? null, 'volumeMode'));
  if (old.spec?.nodeAffinity && !semanticEqual(pv.spec?.nodeAffinity, old.spec.nodeAffinity)) {
    errs.push(FieldError.invalid('nodeAffinity', pv.spec?.nodeAffinity ?? null, 'field is immutable, except for updating from beta label to GA'));
  }
  if ((pv.spec?.volumeAttributesClassName ?? null) !== (old.spec?.volumeAttributesClassName ?? null)) {
    errs.push(FieldError.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  }
  return errs;
}
