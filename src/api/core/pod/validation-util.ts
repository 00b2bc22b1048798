// Validation helpers the pod validators share: apimachinery string checks not found in machinery/validation.ts
// (ports, env var names, HTTP headers, IPs, user/group IDs; messages verbatim), resource-name rules of
// pkg/apis/core/helper, and small FieldError builders.
import { isIP } from 'node:net';
import { FieldError } from '../../../machinery/errors.js';
import { Quantity, QuantityParseError } from '../../../machinery/quantity.js';
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, maxLenError, regexError } from '../../../machinery/validation.js';

export { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain, isQualifiedName };

/** A value printed through its own text (Go's fmt.Stringer / %v case) rather than quoted. */
export function bare(text: string): { toString(): string } {
  return { toString: () => text };
}

export const invalidEach = (path: string, value: unknown, msgs: readonly string[]): FieldError[] => msgs.map((m) => FieldError.invalid(path, value, m));

export function dns1123Label(value: string, path: string): FieldError[] {
  return invalidEach(path, value, isDNS1123Label(value));
}

export function dns1123Subdomain(value: string, path: string): FieldError[] {
  return invalidEach(path, value, isDNS1123Subdomain(value));
}

export function qualifiedName(value: string, path: string): FieldError[] {
  return invalidEach(path, value, isQualifiedName(value));
}

export function isValidPortNum(port: unknown): string[] {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** IANA_SVC_NAME: 1-15 of [-a-z0-9], at least one letter, no leading/trailing or double hyphen. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** RelaxedEnvironmentVariableValidation is on by default in 1.33: any printable ASCII but '='. */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push('environment variable name must be non-empty');
  for (const ch of value) {
    const c = ch.codePointAt(0)!;
    if (c > 0x7e || c < 0x20 || ch === '=') {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

export function isHTTPHeaderName(value: string): string[] {
  return /^[-A-Za-z0-9]+$/.test(value) ? [] : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", '[-A-Za-z0-9]+', 'X-Header-Name')];
}

export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!/^[-._a-zA-Z0-9]+$/.test(value)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", '[-._a-zA-Z0-9]+', 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const MAX_INT32 = 2147483647;

export function isValidID(id: unknown): string[] {
  return typeof id === 'number' && id >= 0 && id <= MAX_INT32 ? [] : [inclusiveRangeError(0, MAX_INT32)];
}

/** netutils.ParseIPSloppy: like isIP, but IPv4 octets may carry leading zeros. */
export function parseIPSloppy(value: string): 4 | 6 | 0 {
  if (/^[0-9]+(\.[0-9]+){3}$/.test(value)) {
    const octets = value.split('.').map((o) => Number(o));
    return octets.every((o) => o <= 255) ? 4 : 0;
  }
  const v = isIP(value);
  return v === 4 || v === 6 ? v : 0;
}

/** validation.IsValidIP (1.33). */
export function validIP(value: string, path: string): FieldError[] {
  return parseIPSloppy(value) ? [] : [FieldError.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

export function parseQuantity(v: unknown): Quantity | string {
  try {
    return Quantity.fromJSON(v);
  } catch (e) {
    if (e instanceof QuantityParseError) return e.message;
    throw e;
  }
}

// ---- resource names (pkg/apis/core/helper) ----

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);

export const isHugePageResourceName = (name: string): boolean => name.startsWith('hugepages-');
export const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');

export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName('requests.' + name).length === 0;
}

/** Native resources may be overcommitted (request < limit), except hugepages. */
export const isOvercommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePageResourceName(name);

function isStandardResourceName(name: string): boolean {
  return STANDARD_RESOURCES.has(name) || isHugePageResourceName(name) || name.startsWith('requests.hugepages-');
}

/** validateContainerResourceName. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = qualifiedName(name, path);
  if (!name.includes('/')) {
    if (!errs.length && !isStandardResourceName(name)) errs.push(FieldError.invalid(path, name, 'must be a standard resource type or fully qualified'));
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePageResourceName(name)) {
      errs.push(FieldError.invalid(path, name, 'must be a standard resource for containers'));
    }
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    errs.push(FieldError.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

/** ValidateResourceQuantityValue: not negative; extended (integer) resources must be whole numbers. */
export function validateResourceQuantity(name: string, q: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(FieldError.invalid(path, q.toString(), 'must be greater than or equal to 0'));
  if (isExtendedResourceName(name) && q.scaledValue(-3) % 1000n !== 0n) errs.push(FieldError.invalid(path, bare(q.toString()), 'must be an integer'));
  return errs;
}

/** hugepages-<size> values must be whole multiples of the page size. */
export function hugePageError(name: string, q: Quantity): string | undefined {
  const size = parseQuantity(name.slice('hugepages-'.length));
  if (typeof size === 'string' || size.sign() <= 0) return undefined;
  const v = q.scaledValue(0);
  const s = size.scaledValue(0);
  return v % s === 0n ? undefined : `${q.toString()} is not positive integer multiple of ${name}`;
}

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Volume name → source object, for the volumes that validated cleanly (what containers may refer to). */
export type VolumeSources = Map<string, Record<string, unknown>>;

/** validatePathNoBacksteps: no `..` path element. */
export function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split(/[\\/]/).includes('..') ? [FieldError.invalid(path, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative and without `..`. */
export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs = target.startsWith('/') ? [FieldError.invalid(path, target, 'must be a relative path')] : [];
  return [...errs, ...validatePathNoBacksteps(target, path)];
}

/** ValidateLocalNonReservedPath: also refuses a leading `..` that is not a path element ("..data"). */
export function validateLocalNonReservedPath(target: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(FieldError.invalid(path, target, "must not start with '..'"));
  return errs;
}

const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const goProfile = (kind: string, p: Record<string, unknown>): { toString(): string } =>
  bare(`core.${kind}{Type:"${String(p.type ?? '')}", LocalhostProfile:(*string)(0xc000000000)}`);

/** validateSeccompProfileField / ValidateAppArmorProfileField for the profile under `holderPath`. */
export function validateSecurityProfiles(holder: Record<string, unknown>, holderPath: string, which: 'seccomp' | 'apparmor'): FieldError[] {
  const field = which === 'seccomp' ? 'seccompProfile' : 'appArmorProfile';
  const p = holder[field];
  if (!isObj(p)) return [];
  const path = `${holderPath}.${field}`;
  const name = which === 'seccomp' ? 'seccomp' : 'AppArmor';
  const type = typeof p.type === 'string' ? p.type : '';
  const lp = p.localhostProfile;
  const errs: FieldError[] = [];
  if (type === '') errs.push(FieldError.required(`${path}.type`, `type is required when ${which === 'seccomp' ? 'seccompProfile' : 'appArmorProfile'} is set`));
  else if (!PROFILE_TYPES.includes(type)) errs.push(FieldError.notSupported(`${path}.type`, type, PROFILE_TYPES));
  if (which === 'apparmor' && type === '') return errs;
  if (type === 'Localhost') {
    const msg = `must be set when ${name} type is Localhost`;
    if (typeof lp !== 'string') errs.push(FieldError.required(`${path}.localhostProfile`, msg));
    else if (which === 'seccomp') errs.push(...validateLocalDescendingPath(lp, `${path}.localhostProfile`));
    else if (lp.trim() !== lp) errs.push(FieldError.invalid(`${path}.localhostProfile`, lp, 'must not be padded with whitespace'));
    else if (lp === '') errs.push(FieldError.required(`${path}.localhostProfile`, msg));
    if (which === 'apparmor' && typeof lp === 'string' && lp.length > 4095) errs.push(FieldError.tooLong(`${path}.localhostProfile`, '', 4095));
  } else if (lp !== undefined && lp !== null && (which === 'seccomp' || PROFILE_TYPES.includes(type))) {
    const value = which === 'seccomp' ? goProfile('SeccompProfile', p) : lp;
    errs.push(FieldError.invalid(`${path}.localhostProfile`, value, `can only be set when ${name} type is Localhost`));
  }
  return errs;
}

const SUBDOMAIN_UNDERSCORE = /^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*$/;

/** IsDNS1123SubdomainWithUnderscore; its message quotes the plain subdomain regex, as Kubernetes' does. */
export function regexErrorSubdomainUnderscore(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!SUBDOMAIN_UNDERSCORE.test(value)) {
    errs.push(regexError(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character",
      '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*', 'example.com'));
  }
  return errs;
}
