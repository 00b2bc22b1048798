// PersistentVolumeClaim validation: ValidatePersistentVolumeClaimSpec, the update-only checks of
// ValidatePersistentVolumeClaimUpdate and ValidatePersistentVolumeClaimStatusUpdate (pkg/apis/core/validation,
// 1.33 defaults: RecoverVolumeExpansionFailure on, VolumeAttributesClass off), plus the data-source
// normalisation of pkg/api/persistentvolumeclaim the strategy applies.
import { FieldError } from '../../../machinery/errors.js';
import { type MetaLabelSelector } from '../../../machinery/labels.js';
import { validateLabelSelector } from '../../../machinery/label-selector-validation.js';
import { clone } from '../../../machinery/object.js';
import { nameIsDNSLabel, nameIsDNSSubdomain, validateImmutableField } from '../../../machinery/validation.js';
import { bare, invalidEach, isNativeResource, qualifiedName } from '../pod/validation-util.js';
import { BETA_STORAGE_CLASS, quantityOf, semanticEqual, structDiff, validateAccessModes, VOLUME_MODES } from '../persistentvolume/util.js';
import { quantityAt, validateResourceQuantityValue } from '../resourcequota/names.js';
import type { KObject } from '../../types.js';

type Obj = Record<string, unknown>;

export interface TypedReference {
  apiGroup?: string | null;
  kind?: string;
  name?: string;
  namespace?: string | null;
}

export interface PersistentVolumeClaimSpec {
  accessModes?: string[] | null;
  selector?: MetaLabelSelector | null;
  resources?: { requests?: Obj | null; limits?: Obj | null };
  volumeName?: string;
  storageClassName?: string | null;
  volumeMode?: string | null;
  dataSource?: TypedReference | null;
  dataSourceRef?: TypedReference | null;
  volumeAttributesClassName?: string | null;
  [k: string]: unknown;
}

export interface PersistentVolumeClaim extends KObject {
  spec?: PersistentVolumeClaimSpec;
  status?: {
    phase?: string;
    accessModes?: string[] | null;
    capacity?: Obj | null;
    allocatedResources?: Obj | null;
    allocatedResourceStatuses?: Record<string, string> | null;
    [k: string]: unknown;
  };
}

const RESIZE_STATUSES = ['ControllerResizeInProgress', 'ControllerResizeInfeasible', 'NodeResizeInProgress', 'NodeResizeInfeasible', 'NodeResizePending'];
// PersistentVolumeClaimSpec field order, for the immutability diff.
const SPEC_ORDER = ['accessModes', 'selector', 'resources', 'volumeName', 'storageClassName', 'volumeMode', 'dataSource', 'dataSourceRef', 'volumeAttributesClassName'];
const QUANTITY_MAPS = new Set(['requests', 'limits']);

const isPVCOrSnapshot = (d: TypedReference): boolean =>
  (!d.apiGroup && d.kind === 'PersistentVolumeClaim') || (d.kind === 'VolumeSnapshot' && d.apiGroup === 'snapshot.storage.k8s.io');

/** EnforceDataSourceBackwardsCompatibility + NormalizeDataSources (AnyVolumeDataSource on). */
export function normalizeDataSources(spec: PersistentVolumeClaimSpec, old?: PersistentVolumeClaimSpec): void {
  // Without dataSourceRef, only claims and snapshots may be given as dataSource; others are dropped (KEP 1495).
  if (!old?.dataSource && !spec.dataSourceRef && spec.dataSource && !isPVCOrSnapshot(spec.dataSource)) delete spec.dataSource;
  const group = (g: string | null | undefined) => (g === undefined || g === null ? {} : { apiGroup: g });
  if (spec.dataSource && !spec.dataSourceRef) {
    spec.dataSourceRef = { ...group(spec.dataSource.apiGroup), kind: spec.dataSource.kind, name: spec.dataSource.name };
  } else if (spec.dataSourceRef && !spec.dataSource && !spec.dataSourceRef.namespace) {
    spec.dataSource = { ...group(spec.dataSourceRef.apiGroup), kind: spec.dataSourceRef.kind, name: spec.dataSourceRef.name };
  }
}

function validateDataSource(ds: TypedReference, path: string, ref: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!ds.name) errs.push(FieldError.required(`${path}.name`));
  if (!ds.kind) errs.push(FieldError.required(`${path}.kind`));
  const group = ds.apiGroup ?? '';
  if (!group && ds.kind !== 'PersistentVolumeClaim') errs.push(FieldError.invalid(path, ds.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  if (group) errs.push(...invalidEach(`${path}.apiGroup`, group, nameIsDNSSubdomain(group, false)));
  if (ref && ds.namespace) errs.push(...invalidEach(`${path}.namespace`, ds.namespace, nameIsDNSLabel(ds.namespace, false)));
  return errs;
}

/** A *field.Path bad value: Go dereferences it and prints the struct. */
const goPath = (name: string) => bare(`field.Path{name:"${name}", index:"", parent:(*field.Path)(0xc000000000)}`);

export function validatePVCSpec(spec: PersistentVolumeClaimSpec, path: string): FieldError[] {
  const errs = validateAccessModes(spec.accessModes, `${path}.accessModes`, 'at least 1 access mode is required');
  // Kubernetes checks the selector between the "required" and the per-mode checks; the order is restored here.
  const sel = spec.selector ? validateLabelSelector(spec.selector, `${path}.selector`) : [];
  if (!spec.accessModes?.length) errs.splice(1, 0, ...sel);
  else errs.unshift(...sel);
  const storagePath = `${path}.resources[storage]`;
  const requests = spec.resources?.requests ?? {};
  if (!('storage' in requests)) errs.push(FieldError.required(storagePath));
  else {
    const q = quantityAt(requests.storage, storagePath, errs);
    if (q && q.sign() <= 0) errs.push(FieldError.invalid(storagePath, q.toString(), 'must be greater than zero'));
    else if (q) errs.push(...validateResourceQuantityValue('storage', q, storagePath));
  }
  if (spec.storageClassName) errs.push(...invalidEach(`${path}.storageClassName`, spec.storageClassName, nameIsDNSSubdomain(spec.storageClassName, false)));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !VOLUME_MODES.includes(spec.volumeMode)) {
    errs.push(FieldError.notSupported(`${path}.volumeMode`, spec.volumeMode, VOLUME_MODES));
  }
  if (spec.dataSource) errs.push(...validateDataSource(spec.dataSource, `${path}.dataSource`, false));
  if (spec.dataSourceRef) errs.push(...validateDataSource(spec.dataSourceRef, `${path}.dataSourceRef`, true));
  if (spec.dataSourceRef?.namespace) {
    if (spec.dataSource) errs.push(FieldError.invalid(path, goPath('dataSource'), 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (spec.dataSource && spec.dataSourceRef) {
    const a = spec.dataSource;
    const b = spec.dataSourceRef;
    if ((a.apiGroup ?? null) !== (b.apiGroup ?? null) || a.kind !== b.kind || a.name !== b.name) {
      errs.push(FieldError.invalid(path, goPath('dataSource'), 'must match dataSourceRef'));
    }
  }
  return errs;
}

export const validatePVC = (pvc: PersistentVolumeClaim): FieldError[] => validatePVCSpec(pvc.spec ?? {}, 'spec');

/** The checks of ValidatePersistentVolumeClaimUpdate beyond ValidatePersistentVolumeClaim. */
export function validatePVCUpdate(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): FieldError[] {
  const errs: FieldError[] = [];
  const next = clone(pvc.spec ?? {});
  const prev = clone(old.spec ?? {});
  normalizeDataSources(prev); // objects stored by older versions may predate the normalisation
  if (!prev.volumeName) prev.volumeName = next.volumeName; // volumeName may be set once (binding)
  const oldAnn = old.metadata.annotations ?? {};
  const newAnn = pvc.metadata.annotations ?? {};
  const oldHas = Object.prototype.hasOwnProperty.call(oldAnn, BETA_STORAGE_CLASS);
  const newHas = Object.prototype.hasOwnProperty.call(newAnn, BETA_STORAGE_CLASS);
  const nullish = (v: unknown) => v === undefined || v === null;
  // Moving the class from the beta annotation to the field, or setting a class that was never set, is allowed.
  const fromAnnotation = oldHas && nullish(prev.storageClassName) && !nullish(next.storageClassName) &&
    next.storageClassName === oldAnn[BETA_STORAGE_CLASS] && (!newHas || newAnn[BETA_STORAGE_CLASS] === oldAnn[BETA_STORAGE_CLASS]);
  if (fromAnnotation) delete next.storageClassName;
  else {
    if ((newAnn[BETA_STORAGE_CLASS] ?? '') !== (oldAnn[BETA_STORAGE_CLASS] ?? '')) {
      errs.push(FieldError.invalid(`metadata.annotations.${BETA_STORAGE_CLASS}`, newAnn[BETA_STORAGE_CLASS] ?? '', 'field is immutable'));
    }
    if (!nullish(pvc.spec?.storageClassName) && nullish(old.spec?.storageClassName) && (!oldHas || pvc.spec?.storageClassName === oldAnn[BETA_STORAGE_CLASS])) {
      delete next.storageClassName;
    }
  }
  const bound = pvc.status?.phase === 'Bound';
  if (bound && next.resources?.requests) next.resources.requests.storage = old.spec?.resources?.requests?.storage;
  if (bound && !nullish(next.volumeAttributesClassName)) next.volumeAttributesClassName = prev.volumeAttributesClassName;
  if (!semanticEqual(next, prev, QUANTITY_MAPS)) {
    const diff = structDiff('core.PersistentVolumeClaimSpec', prev as Obj, next as Obj, SPEC_ORDER, QUANTITY_MAPS);
    errs.push(FieldError.forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${diff}`));
  }
  const newSize = quantityOf(pvc.spec?.resources?.requests?.storage);
  const oldSize = quantityOf(old.spec?.resources?.requests?.storage);
  // RecoverVolumeExpansionFailure (on in 1.33): a claim may shrink back, but not below its actual capacity.
  if (newSize.cmp(oldSize) < 0 && newSize.cmp(quantityOf(old.status?.capacity?.storage)) <= 0) {
    errs.push(FieldError.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  errs.push(...validateImmutableField(pvc.spec?.volumeMode ?? null, old.spec?.volumeMode ?? null, 'volumeMode'));
  if ((pvc.spec?.volumeAttributesClassName ?? null) !== (old.spec?.volumeAttributesClassName ?? null)) {
    errs.push(FieldError.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  }
  return errs;
}

function validateResourceKey(key: string, path: string): FieldError[] {
  const errs = qualifiedName(key, path);
  if (errs.length) return errs;
  if (isNativeResource(key) && key !== 'storage') return [FieldError.notSupported(path, key, ['storage'])];
  return [];
}

/** ValidatePersistentVolumeClaimStatusUpdate (metadata is checked by the registry). */
export function validatePVCStatusUpdate(pvc: PersistentVolumeClaim): FieldError[] {
  const errs: FieldError[] = [];
  if (!pvc.spec?.accessModes?.length) errs.push(FieldError.required('Spec.accessModes'));
  const st = pvc.status ?? {};
  for (const [k, v] of Object.entries(st.capacity ?? {})) {
    const q = quantityAt(v, `status.capacity[${k}]`, errs);
    if (q && q.value() < 0) errs.push(FieldError.invalid(`status.capacity[${k}]`, q.value(), 'must be a valid resource quantity'));
  }
  for (const [k, v] of Object.entries(st.allocatedResourceStatuses ?? {})) {
    errs.push(...validateResourceKey(k, 'status.allocatedResourceStatus'));
    if (!RESIZE_STATUSES.includes(v)) errs.push(FieldError.notSupported('status.allocatedResourceStatus', k, RESIZE_STATUSES));
  }
  for (const [k, v] of Object.entries(st.allocatedResources ?? {})) {
    const keyErrs = validateResourceKey(k, 'status.allocatedResources');
    if (keyErrs.length) {
      errs.push(...keyErrs);
      continue;
    }
    const p = `status.allocatedResources[${k}]`;
    const q = quantityAt(v, p, errs);
    if (!q) continue;
    if (q.value() < 0) errs.push(FieldError.invalid(p, q.value(), 'must be a valid resource quantity'));
    else errs.push(...validateResourceQuantityValue('storage', q, p));
  }
  return errs;
}
