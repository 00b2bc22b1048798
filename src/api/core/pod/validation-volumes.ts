// Volume validation of ValidatePodSpec (ValidateVolumes / validateVolumeSource in
// pkg/apis/core/validation/validation.go, 1.33). Paths and messages follow Kubernetes, quirks included
// (the misspelt "downwarAPI" path, GCE disks checked under "persistentDisk").
import { FieldError } from '../../../machinery/errors.js';
import { validateLabelSelector } from '../../../machinery/label-selector-validation.js';
import { nameIsDNSSubdomain, validateAnnotations, validateLabels } from '../../../machinery/validation.js';
import type { Volume } from './types.js';
import { VOLUME_FIELD_PATHS, validateObjectFieldSelector, validateResourceFieldSelector } from './validation-fields.js';
import {
  dns1123Label, inclusiveRangeError, invalidEach, isObj, parseQuantity, validateLocalDescendingPath, validateLocalNonReservedPath,
  validatePathNoBacksteps, type VolumeSources,
} from './validation-util.js';

type Obj = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

function requiredStrings(src: Obj, path: string, ...fields: string[]): FieldError[] {
  return fields.filter((f) => !str(src[f])).map((f) => FieldError.required(`${path}.${f}`));
}

function validMode(v: unknown, path: string): FieldError[] {
  return typeof v === 'number' && (v < 0 || v > 0o777) ? [FieldError.invalid(path, v, FILE_MODE)] : [];
}

export function validateKeyToPath(kp: Obj, path: string): FieldError[] {
  const errs = requiredStrings(kp, path, 'key', 'path');
  errs.push(...validateLocalNonReservedPath(str(kp.path), `${path}.path`));
  errs.push(...validMode(kp.mode, `${path}.mode`));
  return errs;
}

const itemsOf = (src: Obj): Obj[] => (Array.isArray(src.items) ? (src.items as Obj[]) : []);

function validateKeyItems(src: Obj, path: string): FieldError[] {
  return itemsOf(src).flatMap((kp, i) => validateKeyToPath(kp, `${path}.items[${i}]`));
}

/** validateDownwardAPIVolumeFile; `path` is the volume's (not the item's), as in Kubernetes. */
function validateDownwardFile(file: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(file.path)) errs.push(FieldError.required(`${path}.path`));
  errs.push(...validateLocalNonReservedPath(str(file.path), `${path}.path`));
  if (isObj(file.fieldRef)) {
    errs.push(...validateObjectFieldSelector(file.fieldRef, VOLUME_FIELD_PATHS, `${path}.fieldRef`));
    if (isObj(file.resourceFieldRef)) errs.push(FieldError.invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (isObj(file.resourceFieldRef)) {
    errs.push(...validateResourceFieldSelector(file.resourceFieldRef, `${path}.resourceFieldRef`, true));
  } else errs.push(FieldError.required(path, 'one of fieldRef and resourceFieldRef is required'));
  errs.push(...validMode(file.mode, `${path}.mode`));
  return errs;
}

function validateProjected(src: Obj, path: string): FieldError[] {
  const errs = validMode(src.defaultMode, `${path}.defaultMode`);
  const seen = new Set<string>();
  const claim = (p: string, value: unknown) => {
    if (seen.has(p)) errs.push(FieldError.invalid(path, value, 'conflicting duplicate paths'));
    else seen.add(p);
  };
  ((Array.isArray(src.sources) ? src.sources : []) as Obj[]).forEach((s, i) => {
    const sp = `${path}.sources[${i}]`;
    let n = 0;
    for (const kind of ['secret', 'configMap']) {
      const ref = s[kind];
      if (!isObj(ref)) continue;
      n++;
      if (!str(ref.name)) errs.push(FieldError.required(`${sp}.${kind}.name`));
      itemsOf(ref).forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, `${sp}.${kind}.items[${j}]`));
        if (str(kp.path)) claim(str(kp.path), str(ref.name));
      });
    }
    if (isObj(s.downwardAPI)) {
      n++;
      for (const file of itemsOf(s.downwardAPI)) {
        errs.push(...validateDownwardFile(file, `${sp}.downwardAPI`));
        if (str(file.path)) claim(str(file.path), str(file.path));
      }
    }
    const tok = s.serviceAccountToken;
    if (isObj(tok)) {
      n++;
      const exp = typeof tok.expirationSeconds === 'number' ? tok.expirationSeconds : 0;
      if (exp < 600) errs.push(FieldError.invalid(`${sp}.serviceAccountToken.expirationSeconds`, exp, 'may not specify a duration less than 10 minutes'));
      if (exp > 2 ** 32) errs.push(FieldError.invalid(`${sp}.serviceAccountToken.expirationSeconds`, exp, 'may not specify a duration larger than 2^32 seconds'));
      // Kubernetes reports the token path at the volume's path.
      if (!str(tok.path)) errs.push(FieldError.required(`${path}.path`));
      else errs.push(...validateLocalNonReservedPath(str(tok.path), `${path}.path`));
    }
    if (n > 1) errs.push(FieldError.forbidden(sp, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}

function validatePVCTemplate(tmpl: Obj, path: string): FieldError[] {
  const meta = isObj(tmpl.metadata) ? tmpl.metadata : {};
  const errs = validateAnnotations(meta.annotations as Record<string, string>, `${path}.metadata.annotations`);
  errs.push(...validateLabels(meta.labels as Record<string, string>, `${path}.metadata.labels`));
  for (const k of Object.keys(meta)) {
    if (k !== 'labels' && k !== 'annotations' && !(k === 'creationTimestamp' && meta[k] === null)) errs.push(FieldError.forbidden(`${path}.metadata.${k}`, 'cannot be set'));
  }
  const spec = isObj(tmpl.spec) ? tmpl.spec : {};
  const sp = `${path}.spec`;
  const modes = (Array.isArray(spec.accessModes) ? spec.accessModes : []) as string[];
  if (!modes.length) errs.push(FieldError.required(`${sp}.accessModes`, 'at least 1 access mode is required'));
  if (isObj(spec.selector)) errs.push(...validateLabelSelector(spec.selector, `${sp}.selector`));
  for (const m of modes) if (!ACCESS_MODES.includes(m)) errs.push(FieldError.notSupported(`${sp}.accessModes`, m, ACCESS_MODES));
  if (modes.includes('ReadWriteOncePod') && modes.some((m) => m !== 'ReadWriteOncePod' && ACCESS_MODES.includes(m))) {
    errs.push(FieldError.forbidden(`${sp}.accessModes`, 'may not use ReadWriteOncePod with other access modes'));
  }
  const requests = (isObj(spec.resources) && isObj(spec.resources.requests) ? spec.resources.requests : {}) as Obj;
  const storagePath = `${sp}.resources[storage]`;
  if (!('storage' in requests)) errs.push(FieldError.required(storagePath));
  else {
    const q = parseQuantity(requests.storage);
    if (typeof q !== 'string' && q.sign() <= 0) errs.push(FieldError.invalid(storagePath, q.toString(), 'must be greater than zero'));
  }
  if (str(spec.storageClassName)) errs.push(...invalidEach(`${sp}.storageClassName`, spec.storageClassName, nameIsDNSSubdomain(str(spec.storageClassName), false)));
  if (spec.volumeMode !== undefined && !['Block', 'Filesystem'].includes(str(spec.volumeMode))) {
    errs.push(FieldError.notSupported(`${sp}.volumeMode`, spec.volumeMode, ['Block', 'Filesystem']));
  }
  return errs;
}

/** The checks of one source kind; `p` is the source's path. */
function validateSource(kind: string, src: Obj, p: string, volName: string, podName: string | undefined): FieldError[] {
  switch (kind) {
    case 'emptyDir': {
      const q = src.sizeLimit === undefined ? undefined : parseQuantity(src.sizeLimit);
      return q && typeof q !== 'string' && q.sign() < 0 ? [FieldError.forbidden(`${p}.sizeLimit`, 'SizeLimit field must be a valid resource quantity')] : [];
    }
    case 'hostPath': {
      if (!str(src.path)) return [FieldError.required(`${p}.path`)];
      const errs = validatePathNoBacksteps(str(src.path), `${p}.path`);
      if (src.type !== undefined && !HOST_PATH_TYPES.includes(str(src.type))) errs.push(FieldError.notSupported(`${p}.type`, src.type, HOST_PATH_TYPES));
      return errs;
    }
    case 'gitRepo':
      return [...requiredStrings(src, p, 'repository'), ...validateLocalDescendingPath(str(src.directory), `${p}.directory`)];
    case 'gcePersistentDisk':
    case 'awsElasticBlockStore': {
      const sub = kind === 'gcePersistentDisk' ? p.replace(/gcePersistentDisk$/, 'persistentDisk') : p;
      const errs = requiredStrings(src, sub, kind === 'gcePersistentDisk' ? 'pdName' : 'volumeID');
      const part = typeof src.partition === 'number' ? src.partition : 0;
      if (part < 0 || part > 255) errs.push(FieldError.invalid(`${sub}.partition`, part, inclusiveRangeError(1, 255)));
      return errs;
    }
    case 'secret':
    case 'configMap':
      return [
        ...requiredStrings(src, p, kind === 'secret' ? 'secretName' : 'name'),
        ...validMode(src.defaultMode, `${p}.defaultMode`),
        ...validateKeyItems(src, p),
      ];
    case 'nfs': {
      const errs = requiredStrings(src, p, 'server', 'path');
      if (!str(src.path).startsWith('/')) errs.push(FieldError.invalid(`${p}.path`, str(src.path), 'must be an absolute path'));
      return errs;
    }
    case 'iscsi': {
      const errs = requiredStrings(src, p, 'targetPortal', 'iqn');
      const iqn = str(src.iqn);
      if (iqn && !/^(iqn|eui|naa)/.test(iqn)) errs.push(FieldError.invalid(`${p}.iqn`, iqn, 'must be valid format starting with iqn, eui, or naa'));
      const lun = typeof src.lun === 'number' ? src.lun : 0;
      if (lun < 0 || lun > 255) errs.push(FieldError.invalid(`${p}.lun`, lun, inclusiveRangeError(0, 255)));
      if ((src.chapAuthDiscovery || src.chapAuthSession) && !isObj(src.secretRef)) errs.push(FieldError.required(`${p}.secretRef`));
      if (src.initiatorName !== undefined && (volName + ':' + str(src.targetPortal)).length > 64) {
        errs.push(FieldError.invalid(`${p}.name`, volName, 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.'));
      }
      return errs;
    }
    case 'glusterfs':
      return requiredStrings(src, p, 'endpoints', 'path');
    case 'persistentVolumeClaim':
      return requiredStrings(src, p, 'claimName');
    case 'rbd':
      return [...(Array.isArray(src.monitors) && src.monitors.length ? [] : [FieldError.required(`${p}.monitors`)]), ...requiredStrings(src, p, 'image')];
    case 'cephfs':
      return Array.isArray(src.monitors) && src.monitors.length ? [] : [FieldError.required(`${p}.monitors`)];
    case 'cinder':
    case 'portworxVolume':
      return requiredStrings(src, p, 'volumeID');
    case 'flocker': {
      const errs: FieldError[] = [];
      if (!str(src.datasetName) && !str(src.datasetUUID)) errs.push(FieldError.required(p, 'one of datasetName and datasetUUID is required'));
      if (str(src.datasetName) && str(src.datasetUUID)) errs.push(FieldError.invalid(p, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
      if (str(src.datasetName).includes('/')) errs.push(FieldError.invalid(`${p}.datasetName`, src.datasetName, "must not contain '/'"));
      return errs;
    }
    case 'downwardAPI':
      return [...validMode(src.defaultMode, `${p}.defaultMode`), ...itemsOf(src).flatMap((f) => validateDownwardFile(f, p))];
    case 'flexVolume':
      return requiredStrings(src, p, 'driver');
    case 'azureFile':
      return requiredStrings(src, p, 'secretName', 'shareName');
    case 'vsphereVolume':
      return requiredStrings(src, p, 'volumePath');
    case 'photonPersistentDisk':
      return requiredStrings(src, p, 'pdID');
    case 'azureDisk':
      return requiredStrings(src, p, 'diskName', 'diskURI');
    case 'storageos':
      return str(src.volumeName) ? dns1123Label(str(src.volumeName), `${p}.volumeName`) : [FieldError.required(`${p}.volumeName`)];
    case 'projected':
      return validateProjected(src, p);
    case 'scaleIO':
      return requiredStrings(src, p, 'gateway', 'system', 'volumeName');
    case 'csi': {
      const driver = str(src.driver);
      const errs = driver ? [] : [FieldError.required(`${p}.driver`)];
      if (driver.length > 63) errs.push(FieldError.tooLong(`${p}.driver`, '', 63));
      errs.push(...invalidEach(`${p}.driver`, driver, nameIsDNSSubdomain(driver.toLowerCase(), false)));
      const ref = src.nodePublishSecretRef;
      if (isObj(ref)) {
        if (!str(ref.name)) errs.push(FieldError.required(`${p}.nodePublishSecretRef.name`));
        else errs.push(...invalidEach(`${p}.name`, ref.name, nameIsDNSSubdomain(str(ref.name), false)));
      }
      return errs;
    }
    case 'ephemeral': {
      if (!isObj(src.volumeClaimTemplate)) return [FieldError.required(`${p}.volumeClaimTemplate`)];
      const errs = validatePVCTemplate(src.volumeClaimTemplate, `${p}.volumeClaimTemplate`);
      if (podName && volName) {
        const pvc = `${podName}-${volName}`;
        for (const m of nameIsDNSSubdomain(pvc, false)) errs.push(FieldError.invalid(`${p}.name`, volName, `PVC name "${pvc}": ${m}`));
      }
      return errs;
    }
    default:
      return [];
  }
}

// The order Kubernetes checks the sources in, and the path segment each one is reported under when a second
// source is found.
const SOURCE_ORDER: [string, string][] = [
  ['emptyDir', 'emptyDir'], ['hostPath', 'hostPath'], ['gitRepo', 'gitRepo'], ['gcePersistentDisk', 'gcePersistentDisk'],
  ['awsElasticBlockStore', 'awsElasticBlockStore'], ['secret', 'secret'], ['nfs', 'nfs'], ['iscsi', 'iscsi'], ['glusterfs', 'glusterfs'],
  ['flocker', 'flocker'], ['persistentVolumeClaim', 'persistentVolumeClaim'], ['rbd', 'rbd'], ['cinder', 'cinder'], ['cephfs', 'cephFS'],
  ['quobyte', 'quobyte'], ['downwardAPI', 'downwarAPI'], ['fc', 'fc'], ['flexVolume', 'flexVolume'], ['configMap', 'configMap'],
  ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'], ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'], ['azureDisk', 'azureDisk'], ['storageos', 'storageos'], ['projected', 'projected'],
  ['scaleIO', 'scaleIO'], ['csi', 'csi'], ['ephemeral', 'ephemeral'], ['image', 'image'],
];

function validateVolumeSource(v: Volume, path: string, podName: string | undefined): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  for (const [kind, dupName] of SOURCE_ORDER) {
    const src = v[kind];
    if (src === undefined || src === null) continue;
    if (n > 0) {
      errs.push(FieldError.forbidden(`${path}.${dupName}`, 'may not specify more than 1 volume type'));
      continue;
    }
    n++;
    errs.push(...validateSource(kind, isObj(src) ? src : {}, `${path}.${kind}`, str(v.name), podName));
  }
  if (n === 0) errs.push(FieldError.required(path, 'must specify a volume type'));
  return errs;
}

/** ValidateVolumes: returns the volumes containers may mount (those without errors) and the errors. */
export function validateVolumes(volumes: Volume[] | undefined, podName: string | undefined, path: string): { sources: VolumeSources; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const sources: VolumeSources = new Map();
  const created = new Set(podName ? (volumes ?? []).filter((v) => v.ephemeral !== undefined).map((v) => `${podName}-${str(v.name)}`) : []);
  (volumes ?? []).forEach((v, i) => {
    const ip = `${path}[${i}]`;
    const name = str(v.name);
    const el = validateVolumeSource(v, ip, podName);
    if (!name) el.push(FieldError.required(`${ip}.name`));
    else el.push(...dns1123Label(name, `${ip}.name`));
    if (sources.has(name)) el.push(FieldError.duplicate(`${ip}.name`, name));
    if (el.length === 0) sources.set(name, v);
    else errs.push(...el);
    const claim = isObj(v.persistentVolumeClaim) ? str(v.persistentVolumeClaim.claimName) : '';
    if (claim && created.has(claim)) {
      errs.push(FieldError.invalid(`${ip}.persistentVolumeClaim.claimName`, claim, 'must not reference a PVC that gets created for an ephemeral volume'));
    }
  });
  return { sources, errs };
}
