// Name and ObjectMeta validation with kube-apiserver 1.33's exact messages
// (apimachinery pkg/util/validation, pkg/api/validation, pkg/apis/meta/v1/validation).
import { FieldError, goQuote } from './errors.js';

/** Byte length of the UTF-8 encoding: Go's len(string), which all the length limits use. */
export function byteLength(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

/** Go's string order (UTF-8 bytes, i.e. code points), which differs from JS's UTF-16 order above U+FFFF. */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800-DFFF) encode code points above U+FFFF, so must sort after E000-FFFF.
    x = x >= 0xe000 ? x - 0x800 : x >= 0xd800 ? x + 0x2000 : x;
    y = y >= 0xe000 ? y - 0x800 : y >= 0xd800 ? y + 0x2000 : y;
    return x - y;
  }
  return a.length - b.length;
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return 'must be non-empty';
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // The double space after each example's comma ("'a',  or 'b'") is Kubernetes' own.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

const full = (fmt: string): RegExp => new RegExp(`^${fmt}$`);

const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRe = full(qualifiedNameFmt);
export const QUALIFIED_NAME_MAX_LENGTH = 63;

/** Label keys, annotation keys (lower-cased), finalizers: `[prefix/]name`. */
/**
 * The answers of isQualifiedName for the names seen lately (label and annotation keys, toleration keys: the same
 * few on every pod), frozen as callers only read them; at most 4,096, cleared whole when full.
 */
const qualifiedNames = new Map<string, readonly string[]>();

export function isQualifiedName(value: string): readonly string[] {
  let errs = qualifiedNames.get(value);
  if (errs === undefined) {
    errs = Object.freeze(qualifiedNameErrors(value));
    if (qualifiedNames.size >= 4096) qualifiedNames.clear();
    qualifiedNames.set(value, errs);
  }
  return errs;
}

function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part ' + emptyError());
    else for (const m of isDNS1123Subdomain(prefix)) errs.push('prefix part ' + m);
  } else {
    return [
      'a qualified name ' +
        regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part ' + emptyError());
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push('name part ' + maxLenError(QUALIFIED_NAME_MAX_LENGTH));
  if (!qualifiedNameRe.test(name)) {
    errs.push('name part ' + regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc'));
  }
  return errs;
}

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueMsg = regexError(
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  labelValueFmt, 'MyValue', 'my_value', '12345');
export const LABEL_VALUE_MAX_LENGTH = 63;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelMsg = regexError(
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  dns1123LabelFmt, 'my-name', '123-abc');
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainMsg = regexError(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  dns1123SubdomainFmt, 'example.com');
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelMsg = regexError(
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
  dns1035LabelFmt, 'my-name', 'abc-123');
export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;

// Length (in bytes) first, then format: both messages can be returned together.
function lengthAndFormat(value: string, max: number, re: RegExp, formatMsg: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > max) errs.push(maxLenError(max));
  if (!re.test(value)) errs.push(formatMsg);
  return errs;
}
const labelValueRe = full(labelValueFmt);
const dns1123LabelRe = full(dns1123LabelFmt);
const dns1123SubdomainRe = full(dns1123SubdomainFmt);
const dns1035LabelRe = full(dns1035LabelFmt);

export function isValidLabelValue(value: string): string[] {
  return lengthAndFormat(value, LABEL_VALUE_MAX_LENGTH, labelValueRe, labelValueMsg);
}

export function isDNS1123Subdomain(value: string): string[] {
  return lengthAndFormat(value, DNS1123_SUBDOMAIN_MAX_LENGTH, dns1123SubdomainRe, dns1123SubdomainMsg);
}

export function isDNS1123Label(value: string): string[] {
  // A valid subdomain that is not a valid label can only be failing because of dots.
  const msg = dns1123SubdomainRe.test(value) ? 'must not contain dots' : dns1123LabelMsg;
  return lengthAndFormat(value, DNS1123_LABEL_MAX_LENGTH, dns1123LabelRe, msg);
}

export function isDNS1035Label(value: string): string[] {
  return lengthAndFormat(value, DNS1035_LABEL_MAX_LENGTH, dns1035LabelRe, dns1035LabelMsg);
}

/** Names used as REST path segments (the generic registry's check for every resource). */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return isValidPathSegmentPrefix(name);
}

export function isValidPathSegmentPrefix(name: string): string[] {
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** (name, prefix) → messages; prefix=true when validating generateName. */
export type NameFn = (name: string, prefix: boolean) => string[];

export const validatePathSegmentName: NameFn = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);

// Kubernetes' maskTrailingDash drops the last TWO characters before appending 'a' ("ab-" → "a" + "a"); kept as is.
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? name.slice(0, -2) + 'a' : name;
}

export const nameIsDNSSubdomain: NameFn = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameFn = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameFn = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);
export const validateNamespaceName: NameFn = nameIsDNSLabel;

export function validateLabelName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((m) => FieldError.invalid(path, name, m));
}

/** Errors are reported at the map's own path (not per key), as Kubernetes does. */
export function validateLabels(labels: Record<string, string> | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    errs.push(...validateLabelName(k, path));
    for (const m of isValidLabelValue(v)) errs.push(FieldError.invalid(path, v, m));
  }
  return errs;
}

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function validateAnnotations(annotations: Record<string, string> | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    // Annotation keys are qualified names except that case does not matter.
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(FieldError.invalid(path, k, m));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(FieldError.tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

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

export const FIELD_IMMUTABLE = 'field is immutable';

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

export function validateImmutableField(newVal: unknown, oldVal: unknown, path: string): FieldError[] {
  return newVal === oldVal ? [] : [FieldError.invalid(path, newVal, FIELD_IMMUTABLE)];
}

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
