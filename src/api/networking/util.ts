// Helpers the networking, discovery, storage and certificates kinds share: apimachinery string checks not found in
// machinery/validation.ts (wildcard subdomains, domain-prefixed paths, FQDNs, endpoint IPs; messages verbatim),
// Go %#v renderings of bad values, and the create/update split of kube's validators.
import { FieldError, goQuote } from '../../machinery/errors.js';
import {
  byteLength,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  isDNS1123Label,
  isDNS1123Subdomain,
  maxLenError,
  regexError,
} from '../../machinery/validation.js';
import { bare } from '../core/pod/validation-util.js';
import { parseIP, to4 } from './ip.js';
import type { KObject } from '../types.js';

export { bare };

/**
 * Kubernetes validates creates and updates with different functions (updates tolerate data already stored). The
 * generic store sets metadata.resourceVersion from the stored object before validating an update, and refuses a
 * create that carries one, so an unset resourceVersion means a create.
 */
export function isCreate(obj: KObject): boolean {
  return !obj.metadata?.resourceVersion;
}

/** Go's %#v of a []byte held as base64 in JSON: `[]byte{0x2d, 0x2d}`, `[]byte{}` or `[]byte(nil)`. */
export function goBytes(b64: unknown): { toString(): string } {
  if (typeof b64 !== 'string') return bare('[]byte(nil)');
  const bytes = [...Buffer.from(b64, 'base64')];
  return bare(`[]byte{${bytes.map((b) => '0x' + b.toString(16)).join(', ')}}`);
}

/** Go's %#v of a slice of a named string type, e.g. `[]networking.PolicyType{"Ingress"}`. */
export function goStringSlice(type: string, values: unknown): { toString(): string } {
  if (!Array.isArray(values)) return bare(`[]${type}(nil)`);
  return bare(`[]${type}{${values.map((v) => goQuote(String(v))).join(', ')}}`);
}

/** Go's %#v of a pointer field inside a struct: nil or an (unreproducible) address. */
export function goPtr(type: string, v: unknown): string {
  return v === undefined || v === null ? `(*${type})(nil)` : `(*${type})(0xc000000000)`;
}

export function orEmpty<T>(v: T[] | null | undefined): T[] {
  return Array.isArray(v) ? v : [];
}

// ---- apimachinery util/validation checks ----

const dns1123SubdomainFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const wildcardFmt = '\\*\\.' + dns1123SubdomainFmt;
const wildcardRe = new RegExp(`^${wildcardFmt}$`);

/** IsWildcardDNS1123Subdomain (1.33 wording). */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!wildcardRe.test(value)) {
    errs.push(
      regexError(
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
        wildcardFmt,
        '*.example.com',
      ),
    );
  }
  return errs;
}

const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRe = new RegExp(`^${httpPathFmt}$`);

/** IsDomainPrefixedPath, e.g. an IngressClass controller "acme.io/ingress". */
export function isDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (value === '') return [FieldError.required(path, '')];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') {
    return [FieldError.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const errs = isDNS1123Subdomain(host).map((m) => FieldError.invalid(path, host, m));
  if (!httpPathRe.test(rest)) errs.push(FieldError.invalid(path, rest, regexError('Invalid path', httpPathFmt)));
  return errs;
}

/** IsFullyQualifiedDomainName: at least two labels, a trailing dot allowed. */
export function isFullyQualifiedDomainName(path: string, value: string): FieldError[] {
  if (value === '') return [FieldError.required(path, '')];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const sub = isDNS1123Subdomain(name);
  if (sub.length) return [FieldError.invalid(path, name, sub.join(','))];
  const labels = name.split('.');
  if (labels.length < 2) return [FieldError.invalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const l of labels) {
    const errs = isDNS1123Label(l);
    if (errs.length) return [FieldError.invalid(path, l, errs.join(','))];
  }
  return [];
}

/** ValidateEndpointIP: no unspecified, loopback or link-local addresses as endpoints. */
export function validateEndpointIP(value: string, path: string): FieldError[] {
  const ip = parseIP(value);
  if (!ip) return [FieldError.invalid(path, value, 'must be a valid IP address')];
  const v4 = to4(ip);
  const errs: FieldError[] = [];
  const unspecified = v4 ? v4.every((b) => b === 0) : ip.every((b) => b === 0);
  const loopback = v4 ? v4[0] === 127 : ip.slice(0, 15).every((b) => b === 0) && ip[15] === 1;
  const linkLocal = v4 ? v4[0] === 169 && v4[1] === 254 : ip[0] === 0xfe && (ip[1] & 0xc0) === 0x80;
  const llMulticast = v4 ? v4[0] === 224 && v4[1] === 0 && v4[2] === 0 : ip[0] === 0xff && (ip[1] & 0x0f) === 0x02;
  if (unspecified) errs.push(FieldError.invalid(path, value, `may not be unspecified (${value})`));
  if (loopback) errs.push(FieldError.invalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (linkLocal) errs.push(FieldError.invalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (llMulticast) errs.push(FieldError.invalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  return errs;
}
