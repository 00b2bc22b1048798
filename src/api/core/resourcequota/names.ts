// Resource-name and quantity helpers of pkg/apis/core/helper and pkg/apis/core/validation (1.33) that quota,
// limit ranges, nodes and volumes share: standard/quota/integer resource names, ValidateResourceQuantityValue,
// SetDefaults_ResourceList rounding, and the Go %#v rendering of a resource.Quantity used as a bad value.
import { FieldError, goQuote } from '../../../machinery/errors.js';
import { Quantity } from '../../../machinery/quantity.js';
import { bare, isExtendedResourceName, parseQuantity, qualifiedName } from '../pod/validation-util.js';
import { roundedQuantity } from '../pod/defaults.js';

export type ResourceList = Record<string, unknown>;

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers',
  'secrets', 'persistentvolumeclaims', 'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets',
  'configmaps', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const INTEGER_RESOURCES = new Set([
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers',
]);

export const isQuotaHugePageResourceName = (n: string): boolean => n.startsWith('hugepages-') || n.startsWith('requests.hugepages-');
export const isStandardResourceName = (n: string): boolean => STANDARD_RESOURCES.has(n) || isQuotaHugePageResourceName(n);
export const isStandardQuotaResourceName = (n: string): boolean => STANDARD_QUOTA_RESOURCES.has(n) || isQuotaHugePageResourceName(n);
export const isIntegerResourceName = (n: string): boolean => INTEGER_RESOURCES.has(n) || isExtendedResourceName(n);

/** validateResourceName: a qualified name; unprefixed names must be standard. */
export function validateResourceName(name: string, path: string): FieldError[] {
  const errs = qualifiedName(name, path);
  if (errs.length) return errs;
  if (!name.includes('/') && !isStandardResourceName(name)) {
    errs.push(FieldError.invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  return errs;
}

/** ValidateResourceQuotaResourceName. */
export function validateQuotaResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) {
    errs.push(FieldError.invalid(path, name, 'must be a standard resource for quota'));
  }
  return errs;
}

const MAX_INT64 = 2n ** 63n - 1n;

/**
 * A resource.Quantity passed by value as a field.Error bad value: its String() has a pointer receiver, so Go prints
 * the raw struct with %#v. Values Go keeps as inf.Dec (huge or very precise ones) print a heap pointer there; we
 * print them as int64Amount instead.
 */
export function goQuantity(q: Quantity): { toString(): string } {
  let value = q.mantissa;
  let scale = q.exponent;
  // The string Go caches while parsing, when the input was already canonical (Quantity keeps it as `original`).
  let cached = (q as unknown as { original?: string }).original ?? '';
  if (scale < -3) {
    value = q.scaledValue(-3); // SetDefaults_ResourceList's RoundUp(Milli) clears the cached string
    scale = -3;
    cached = '';
  }
  if (value > MAX_INT64 || value < -MAX_INT64) value = value > 0n ? MAX_INT64 : -MAX_INT64;
  return bare(
    `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${goQuote(cached)}, Format:${goQuote(q.format)}}`,
  );
}

/** Parses a ResourceList value; an unparsable one yields the decode error as a field error. */
export function quantityAt(raw: unknown, path: string, errs: FieldError[]): Quantity | undefined {
  const q = parseQuantity(raw);
  if (typeof q === 'string') {
    errs.push(FieldError.invalid(path, bare(String(raw)), q));
    return undefined;
  }
  return q;
}

/** ValidateResourceQuantityValue: not negative; integer resources must be whole numbers. */
export function validateResourceQuantityValue(name: string, q: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (q.sign() < 0) errs.push(FieldError.invalid(path, q.toString(), 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && q.scaledValue(-3) % 1000n !== 0n) errs.push(FieldError.invalid(path, goQuantity(q), 'must be an integer'));
  return errs;
}

/**
 * SetDefaults_ResourceList: values finer than milli units are rounded up to milli. Other values are left as
 * written so validation sees what Go would (canonicalResourceList writes the serialised form afterwards).
 */
export function roundResourceList(list: unknown): void {
  if (typeof list !== 'object' || list === null || Array.isArray(list)) return;
  const l = list as ResourceList;
  for (const k of Object.keys(l)) {
    const q = parseQuantity(l[k]);
    if (typeof q !== 'string' && q.exponent < -3) l[k] = roundedQuantity(l[k]);
  }
}

/** The form Go stores and returns: each quantity as Quantity.MarshalJSON writes it. */
export function canonicalResourceList(list: unknown): void {
  if (typeof list !== 'object' || list === null || Array.isArray(list)) return;
  const l = list as ResourceList;
  for (const k of Object.keys(l)) {
    const q = parseQuantity(l[k]);
    if (typeof q !== 'string') l[k] = q.toString();
  }
}
