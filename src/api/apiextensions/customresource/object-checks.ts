// The checks of a custom object beside its OpenAPI validation (Kubernetes 1.33): embedded resources need apiVersion,
// kind and valid metadata (schema/objectmeta validation), and list-type set/map items must be unique
// (schema/listtype validation). Both run on every create and update, before CEL rules.
import { FieldError } from '../../../machinery/errors.js';
import { deepEqual, isPlainObject } from '../../../machinery/object.js';
import { validateObjectMeta, type ObjectMeta } from '../../../machinery/object-meta-validation.js';
import { compareGoStrings, isDNS1035Label, validatePathSegmentName } from '../../../machinery/validation.js';
import { isObj, type JSP } from '../structural.js';

const at = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** schema.ParseGroupVersion's errors for an apiVersion string. */
function groupVersionError(v: string): string | undefined {
  const parts = v.split('/');
  if (parts.length > 2) return `unexpected GroupVersion string: ${v}`;
  return undefined;
}

function embeddedResource(x: Record<string, unknown>, path: string, errs: FieldError[]): void {
  if (!('apiVersion' in x)) errs.push(FieldError.required(at(path, 'apiVersion'), 'must not be empty'));
  if (!('kind' in x)) errs.push(FieldError.required(at(path, 'kind'), 'must not be empty'));
  for (const k of Object.keys(x).sort(compareGoStrings)) {
    const v = x[k];
    if (k === 'apiVersion') {
      if (typeof v !== 'string') errs.push(FieldError.invalid(at(path, k), v, 'must be a string'));
      else if (!v) errs.push(FieldError.invalid(at(path, k), v, 'must not be empty'));
      else {
        const e = groupVersionError(v);
        if (e) errs.push(FieldError.invalid(at(path, k), v, e));
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') errs.push(FieldError.invalid(at(path, k), v, 'must be a string'));
      else if (!v) errs.push(FieldError.invalid(at(path, k), v, 'must not be empty'));
      else {
        const m = isDNS1035Label(v.toLowerCase());
        if (m.length) errs.push(FieldError.invalid(at(path, k), v, 'may have mixed case, but should otherwise match: ' + m.join(',')));
      }
    } else if (k === 'metadata' && isPlainObject(v)) {
      const meta = { ...(v as ObjectMeta) };
      if (!meta.name) meta.name = 'fakename'; // as Kubernetes does: an embedded object may leave its name out
      errs.push(...validateObjectMeta(meta, { namespaced: !!meta.namespace, nameFn: validatePathSegmentName }, at(path, 'metadata')));
    }
  }
}

function walk(x: unknown, s: JSP, path: string, root: boolean, errs: FieldError[]): void {
  if (Array.isArray(x)) {
    listInvariants(x, s, path, errs);
    if (isObj(s.items)) x.forEach((v, i) => walk(v, s.items as JSP, `${path}[${i}]`, false, errs));
    return;
  }
  if (!isPlainObject(x)) return;
  if (s['x-kubernetes-embedded-resource'] === true && !root) embeddedResource(x, path, errs);
  const props = isObj(s.properties) ? s.properties : {};
  for (const k of Object.keys(x).sort(compareGoStrings)) {
    const c = isObj(props[k]) ? (props[k] as JSP) : isObj(s.additionalProperties) ? s.additionalProperties : undefined;
    if (c) walk(x[k], c, at(path, k), false, errs);
  }
}

/** x-kubernetes-list-type set: no duplicate items; map: no two items with the same keys. */
function listInvariants(x: unknown[], s: JSP, path: string, errs: FieldError[]): void {
  const type = s['x-kubernetes-list-type'];
  if (type === 'set') {
    // scalars by a set, as Kubernetes does, so a long list of strings stays linear
    const scalars = new Set<string>();
    const others: unknown[] = [];
    x.forEach((v, i) => {
      let dup: boolean;
      if (v !== null && typeof v === 'object') {
        dup = others.some((w) => deepEqual(v, w));
        if (!dup) others.push(v);
      } else {
        const key = `${typeof v}:${String(v)}`;
        dup = scalars.has(key);
        scalars.add(key);
      }
      if (dup) errs.push(FieldError.duplicate(`${path}[${i}]`, v));
    });
  } else if (type === 'map' && Array.isArray(s['x-kubernetes-list-map-keys'])) {
    const keys = (s['x-kubernetes-list-map-keys'] as unknown[]).filter((k): k is string => typeof k === 'string');
    const seen = new Set<string>();
    x.forEach((v, i) => {
      if (!isPlainObject(v)) return;
      const key: Record<string, unknown> = {};
      for (const k of keys) if (k in v) key[k] = v[k];
      const id = JSON.stringify(keys.map((k) => key[k] ?? null));
      if (seen.has(id)) errs.push(FieldError.duplicate(`${path}[${i}]`, keyValue(key)));
      seen.add(id);
    });
  }
}

/** Go's %#v of the key map: map[string]interface {}{"name":"http"}. */
function keyValue(key: Record<string, unknown>): { toString(): string } {
  const v = (x: unknown) => (typeof x === 'string' ? JSON.stringify(x) : String(x));
  return { toString: () => `map[string]interface {}{${Object.keys(key).sort(compareGoStrings).map((k) => `"${k}":${v(key[k])}`).join(', ')}}` };
}

/** Embedded-resource and list invariant errors of a custom object. */
export function validateObjectChecks(obj: unknown, schema: JSP): FieldError[] {
  const errs: FieldError[] = [];
  walk(obj, schema, '', true, errs);
  return errs;
}
