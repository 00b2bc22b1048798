// Structural-schema checks of a CRD's openAPIV3Schema: validateStructuralInvariants and the nested value-validation
// rules of k8s.io/apiextensions-apiserver/pkg/apiserver/schema/validation.go (Kubernetes 1.33). Not covered: the
// completeness check (value validations naming fields the structure lacks), RE2 pattern compilation, and the
// validation of defaults against the schema.
import { FieldError } from '../../machinery/errors.js';
import { compareGoStrings } from '../../machinery/validation.js';

/** A JSONSchemaProps as decoded from JSON. */
export type JSP = Record<string, unknown>;

export const isObj = (v: unknown): v is JSP => v !== null && typeof v === 'object' && !Array.isArray(v);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const child = (path: string, key: string): string => `${path}.${key}`;
/** field.Path.Key: `path[key]` */
export const keyed = (path: string, key: string): string => `${path}[${key}]`;

/** The single schema of `items` (an array of schemas is not structural). */
export function itemsSchema(s: JSP): JSP | undefined {
  return isObj(s.items) ? s.items : undefined;
}

export function sortedProps(s: JSP): Array<[string, JSP]> {
  const p = isObj(s.properties) ? s.properties : {};
  return Object.keys(p)
    .sort(compareGoStrings)
    .map((k) => [k, isObj(p[k]) ? (p[k] as JSP) : {}]);
}

type Level = 'root' | 'item' | 'field';

const INT_OR_STRING_ANY_OF = (v: unknown): boolean =>
  Array.isArray(v) &&
  v.length === 2 &&
  isObj(v[0]) &&
  isObj(v[1]) &&
  Object.keys(v[0]).length === 1 &&
  v[0].type === 'integer' &&
  Object.keys(v[1]).length === 1 &&
  v[1].type === 'string';

function invariants(s: JSP | undefined, lvl: Level, path: string, errs: FieldError[]): void {
  if (!s) return;
  const type = str(s.type);
  const items = itemsSchema(s);
  if (type === 'array' && s.items === undefined) errs.push(FieldError.required(child(path, 'items'), 'must be specified'));
  invariants(items, 'item', child(path, 'items'), errs);
  for (const [k, v] of sortedProps(s)) invariants(v, 'field', keyed(child(path, 'properties'), k), errs);
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === 'root') errs.push(FieldError.forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (isObj(s.additionalProperties)) invariants(s.additionalProperties, 'field', child(path, 'additionalProperties'), errs);
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve)
    errs.push(FieldError.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded)
    errs.push(FieldError.invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  valueValidation(s, lvl, path, errs, INT_OR_STRING_ANY_OF(s.anyOf));
  if (embedded && type !== 'object') {
    if (!type) errs.push(FieldError.required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(FieldError.invalid(child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!type && !intOrString && !preserve) {
    const where = lvl === 'root' ? 'at the root' : lvl === 'item' ? 'for specified array items' : 'for specified object fields';
    errs.push(FieldError.required(child(path, 'type'), `must not be empty ${where}`));
  }
  if (embedded && s.additionalProperties != null)
    errs.push(FieldError.forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && type && type !== 'object') errs.push(FieldError.invalid(child(path, 'type'), type, 'must be object at the root'));
  const checkMeta = lvl === 'root' || embedded;
  const props = isObj(s.properties) ? s.properties : {};
  for (const f of ['kind', 'apiVersion']) {
    if (checkMeta && isObj(props[f]) && (props[f] as JSP).type !== 'string')
      errs.push(FieldError.invalid(child(keyed(child(path, 'properties'), f), 'type'), str((props[f] as JSP).type), 'must be string'));
  }
  if (isObj(props.metadata)) metadataInvariants(props.metadata, checkMeta, lvl, keyed(child(path, 'properties'), 'metadata'), errs);
  if (embedded && !preserve && Object.keys(props).length === 0)
    errs.push(
      FieldError.required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'),
    );
}

function metadataInvariants(m: JSP, checkMeta: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (checkMeta && m.type !== 'object') errs.push(FieldError.invalid(child(path, 'type'), str(m.type), 'must be object'));
  if (lvl !== 'root') return;
  // At the root, metadata may only restrict name and generateName; type, description and default are tolerated.
  const props = Object.keys(isObj(m.properties) ? m.properties : {});
  const onlyNames = props.every((p) => p === 'name' || p === 'generateName');
  // Description and title count (the structural form keeps them); zero values do not.
  const set = (v: unknown) => v !== undefined && v !== null && v !== false && v !== '';
  const other = Object.keys(m).filter((k) => !['type', 'properties', 'default'].includes(k) && set(m[k]));
  if (!onlyNames || other.length > 0)
    errs.push(FieldError.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
}

function valueValidation(s: JSP, lvl: Level, path: string, errs: FieldError[], skipAnyOf: boolean): void {
  const list = (k: string) => (Array.isArray(s[k]) ? (s[k] as unknown[]) : []);
  if (!skipAnyOf) list('anyOf').forEach((v, i) => nested(v, lvl, `${child(path, 'anyOf')}[${i}]`, errs));
  list('allOf').forEach((v, i) => nested(v, lvl, `${child(path, 'allOf')}[${i}]`, errs, i === 0 && isObj(v) && INT_OR_STRING_ANY_OF(v.anyOf)));
  list('oneOf').forEach((v, i) => nested(v, lvl, `${child(path, 'oneOf')}[${i}]`, errs));
  if (s.not !== undefined) nested(s.not, lvl, child(path, 'not'), errs);
}

/** validateNestedValueValidation: inside anyOf/allOf/oneOf/not only value validations may appear. */
function nested(v: unknown, lvl: Level, path: string, errs: FieldError[], skipAnyOf = false): void {
  if (!isObj(v)) return;
  valueValidation(v, lvl, path, errs, skipAnyOf);
  if (isObj(v.items)) nested(v.items, lvl, child(path, 'items'), errs);
  for (const [k, p] of sortedProps(v)) nested(p, 'field', keyed(child(path, 'properties'), k), errs);
  const forbid = (k: string, msg: string) => errs.push(FieldError.forbidden(child(path, k), msg));
  if (str(v.type)) forbid('type', 'must be empty to be structural');
  if (v.additionalProperties != null) forbid('additionalProperties', 'must be undefined to be structural');
  if (v.default !== undefined && v.default !== null) forbid('default', 'must be undefined to be structural');
  if (str(v.title)) forbid('title', 'must be empty to be structural');
  if (str(v.description)) forbid('description', 'must be empty to be structural');
  if (v.nullable === true) forbid('nullable', 'must be false to be structural');
  if (v['x-kubernetes-preserve-unknown-fields'] === true) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (v['x-kubernetes-embedded-resource'] === true) forbid('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (v['x-kubernetes-int-or-string'] === true) forbid('x-kubernetes-int-or-string', 'must be false to be structural');
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0) forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (v['x-kubernetes-list-type'] != null) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
  if (v['x-kubernetes-map-type'] != null) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
  if (Array.isArray(v['x-kubernetes-validations']) && v['x-kubernetes-validations'].length > 0)
    forbid('x-kubernetes-validations', 'must be empty to be structural');
  if (isObj(v.properties) && 'metadata' in v.properties)
    errs.push(FieldError.forbidden(keyed(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
}

/** ValidateStructural: errors sorted by their text, as Kubernetes sorts them. */
export function validateStructural(schema: JSP, path: string): FieldError[] {
  const errs: FieldError[] = [];
  invariants(schema, 'root', path, errs);
  return errs.sort((a, b) => compareGoStrings(a.toString(), b.toString()));
}
