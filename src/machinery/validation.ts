// Name, label and annotation validation with kube-apiserver 1.33's exact messages (apimachinery
// pkg/util/validation, pkg/api/validation): the format checks every API group's validation builds on.
// The rest of ObjectMeta is validated in object-meta-validation.ts.
import { FieldError } from './errors.js';

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

export const FIELD_IMMUTABLE = 'field is immutable';

export function validateImmutableField(newVal: unknown, oldVal: unknown, path: string): FieldError[] {
  return newVal === oldVal ? [] : [FieldError.invalid(path, newVal, FIELD_IMMUTABLE)];
}
