// ObjectMeta validation on create and update with kube-apiserver 1.33's exact messages (apimachinery
// pkg/api/validation/objectmeta.go, pkg/apis/meta/v1/validation): what the generic registry checks of every
// object's metadata, apart from the name and label format checks in validation.ts it builds on.
import { FieldError, goQuote } from './errors.js';
import {
  FIELD_IMMUTABLE,
  byteLength,
  compareGoStrings,
  isQualifiedName,
  validateAnnotations,
  validateImmutableField,
  validateLabels,
  validateNamespaceName,
  type NameFn,
} from './validation.js';

export interface OwnerReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean | null;
  blockOwnerDeletion?: boolean | null;
}

// Go prints the offending struct with %#v; reproduce that shape (pointer addresses cannot be, so a fixed one).
function goOwnerRef(r: OwnerReference): string {
  const ptr = (b: boolean | null | undefined): string => (b === undefined || b === null ? '(*bool)(nil)' : '(*bool)(0xc000000000)');
  return `v1.OwnerReference{APIVersion:${goQuote(r.apiVersion ?? '')}, Kind:${goQuote(r.kind ?? '')}, Name:${goQuote(r.name ?? '')}, UID:${goQuote(r.uid ?? '')}, Controller:${ptr(r.controller)}, BlockOwnerDeletion:${ptr(r.blockOwnerDeletion)}}`;
}

const stringer = (s: string): { toString(): string } => ({ toString: () => s });

function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' }; // unparsable: Go keeps only the kind
}

export function validateOwnerReferences(refs: OwnerReference[] | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs ?? []) {
    const gv = splitAPIVersion(ref.apiVersion ?? '');
    const kind = ref.kind ?? '';
    if (!gv.version) errs.push(FieldError.invalid(`${path}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!kind) errs.push(FieldError.invalid(`${path}.kind`, kind, 'kind must not be empty'));
    if (!ref.name) errs.push(FieldError.invalid(`${path}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(FieldError.invalid(`${path}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(FieldError.invalid(path, stringer(goOwnerRef(ref)), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const cur = `${kind}/${ref.name ?? ''}`;
      if (firstController) {
        const all = stringer(`[]v1.OwnerReference{${(refs ?? []).map(goOwnerRef).join(', ')}}`);
        errs.push(FieldError.invalid(path, all,
          `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`));
      } else {
        firstController = cur;
      }
    }
  }
  return errs;
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** Generic finalizer checks: qualified names (reported at the list path) and the orphan/foreground conflict. */
export function validateFinalizers(finalizers: string[] | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = finalizers ?? [];
  for (const f of list) errs.push(...isQualifiedName(f).map((m) => FieldError.invalid(path, f, m)));
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(FieldError.invalid(path, list, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/**
 * The extra check built-in API groups run (core validation's validateKubeFinalizerName), appended after the
 * generic ObjectMeta errors: a finalizer without '/' must be a standard one. Reported per index.
 */
export function validateKubeFinalizers(finalizers: string[] | undefined | null, path: string): FieldError[] {
  return (finalizers ?? []).flatMap((f, i) =>
    !f.includes('/') && !STANDARD_FINALIZERS.has(f)
      ? [FieldError.invalid(`${path}[${i}]`, f, 'name is neither a standard finalizer name nor is it fully qualified')]
      : [],
  );
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

const isPrint = (ch: string): boolean => /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch);

export function validateFieldManager(manager: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(manager) > 128) errs.push(FieldError.tooLong(path, '', 128));
  let pos = 0; // byte offset, as Go's range over a string reports
  for (const ch of manager) {
    if (!isPrint(ch)) {
      const hex = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(FieldError.invalid(path, manager, `invalid character U+${hex} (at position ${pos})`));
    }
    pos += byteLength(ch);
  }
  return errs;
}

export function validateManagedFields(entries: ManagedFieldsEntry[] | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((e, i) => {
    const p = `${path}[${i}]`;
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push(FieldError.invalid(`${p}.operation`, e.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') {
      errs.push(FieldError.invalid(`${p}.fieldsType`, e.fieldsType, 'must be `FieldsV1`'));
    }
    errs.push(...validateFieldManager(e.manager ?? '', `${p}.manager`));
    if (byteLength(e.subresource ?? '') > 256) errs.push(FieldError.tooLong(`${p}.subresource`, '', 256));
  });
  return errs;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReference[] | null;
  finalizers?: string[] | null;
  managedFields?: ManagedFieldsEntry[] | null;
}

export interface ObjectMetaOptions {
  namespaced: boolean;
  nameFn: NameFn;
  /** Built-in API groups also require un-prefixed finalizers to be standard ones. */
  kubeFinalizers?: boolean;
}

/** ValidateObjectMetaAccessor: metadata on create (after name generation). */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaOptions, path = 'metadata'): FieldError[] {
  const errs: FieldError[] = [];
  if (meta.generateName) {
    for (const m of opts.nameFn(meta.generateName, true)) errs.push(FieldError.invalid(`${path}.generateName`, meta.generateName, m));
  }
  if (!meta.name) errs.push(FieldError.required(`${path}.name`, 'name or generateName is required'));
  else for (const m of opts.nameFn(meta.name, false)) errs.push(FieldError.invalid(`${path}.name`, meta.name, m));
  if (opts.namespaced) {
    if (!meta.namespace) errs.push(FieldError.required(`${path}.namespace`, ''));
    else for (const m of validateNamespaceName(meta.namespace, false)) errs.push(FieldError.invalid(`${path}.namespace`, meta.namespace, m));
  } else if (meta.namespace) {
    errs.push(FieldError.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  if ((meta.generation ?? 0) < 0) errs.push(FieldError.invalid(`${path}.generation`, meta.generation, 'must be greater than or equal to 0'));
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(meta.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(meta.managedFields, `${path}.managedFields`));
  if (opts.kubeFinalizers) errs.push(...validateKubeFinalizers(meta.finalizers, `${path}.finalizers`));
  return errs;
}

/** Go's time.Time String() in UTC, which is how a metav1.Time bad value prints. */
function goTime(ts: string | null | undefined): string {
  const ms = ts ? Date.parse(ts) : NaN;
  if (!ts || Number.isNaN(ms)) return '0001-01-01 00:00:00 +0000 UTC';
  const iso = new Date(ms).toISOString(); // 2024-01-02T03:04:05.678Z
  const frac = iso.slice(20, 23).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? '.' + frac : ''} +0000 UTC`;
}

const sameTime = (a: string | null | undefined, b: string | null | undefined): boolean =>
  (a ? Date.parse(a) : null) === (b ? Date.parse(b) : null) || (a ?? null) === (b ?? null);

/** ValidateObjectMetaAccessorUpdate. */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta,
  oldMeta: ObjectMeta,
  opts: { kubeFinalizers?: boolean } = {},
  path = 'metadata',
): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    const old = new Set(oldMeta.finalizers ?? []);
    const extra = [...new Set(newMeta.finalizers ?? [])].filter((f) => !old.has(f)).sort(compareGoStrings);
    if (extra.length) {
      errs.push(FieldError.forbidden(`${path}.finalizers`,
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map(goQuote).join(', ')}}`));
    }
  }
  if (!newMeta.resourceVersion) errs.push(FieldError.invalid(`${path}.resourceVersion`, newMeta.resourceVersion ?? '', 'must be specified for an update'));
  if ((newMeta.generation ?? 0) < (oldMeta.generation ?? 0)) {
    errs.push(FieldError.invalid(`${path}.generation`, newMeta.generation ?? 0, 'must not be decremented'));
  }
  errs.push(...validateImmutableField(newMeta.name ?? '', oldMeta.name ?? '', `${path}.name`));
  errs.push(...validateImmutableField(newMeta.namespace ?? '', oldMeta.namespace ?? '', `${path}.namespace`));
  errs.push(...validateImmutableField(newMeta.uid ?? '', oldMeta.uid ?? '', `${path}.uid`));
  if (!sameTime(newMeta.creationTimestamp, oldMeta.creationTimestamp)) {
    errs.push(FieldError.invalid(`${path}.creationTimestamp`, stringer(goTime(newMeta.creationTimestamp)), FIELD_IMMUTABLE));
  }
  if (!sameTime(newMeta.deletionTimestamp, oldMeta.deletionTimestamp)) {
    const v = newMeta.deletionTimestamp ? stringer(goTime(newMeta.deletionTimestamp)) : null;
    errs.push(FieldError.invalid(`${path}.deletionTimestamp`, v, FIELD_IMMUTABLE));
  }
  errs.push(...validateImmutableField(newMeta.deletionGracePeriodSeconds ?? null, oldMeta.deletionGracePeriodSeconds ?? null,
    `${path}.deletionGracePeriodSeconds`));
  errs.push(...validateLabels(newMeta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(newMeta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(newMeta.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateManagedFields(newMeta.managedFields, `${path}.managedFields`));
  if (opts.kubeFinalizers) errs.push(...validateKubeFinalizers(newMeta.finalizers, `${path}.finalizers`));
  return errs;
}
