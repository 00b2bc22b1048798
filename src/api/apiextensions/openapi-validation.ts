// validateCustomResourceDefinitionValidation and ValidateCustomResourceDefinitionOpenAPISchema of
// k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/validation.go (Kubernetes 1.33), minus what
// needs a CEL compiler (x-kubernetes-validations rules are checked for shape only, never compiled) and the
// checks of defaults against the schema.
import { compileSchemaRules } from './customresource/cel-rules.js';
import { FieldError } from '../../machinery/errors.js';
import { child, isObj, itemsSchema, keyed, sortedProps, str, validateStructural, type JSP } from './structural.js';
import { GoValue } from '../rbac/gostring.js';

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const RULE_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
// Go field order of the internal JSONSchemaProps, with the JSON names, for the root check below.
const ROOT_FIELDS: Array<[go: string, json: string]> = [
  ['ID', 'id'], ['Schema', '$schema'], ['Ref', '$ref'], ['Description', 'description'], ['Type', 'type'], ['Nullable', 'nullable'],
  ['Format', 'format'], ['Title', 'title'], ['Default', 'default'], ['Maximum', 'maximum'], ['ExclusiveMaximum', 'exclusiveMaximum'],
  ['Minimum', 'minimum'], ['ExclusiveMinimum', 'exclusiveMinimum'], ['MaxLength', 'maxLength'], ['MinLength', 'minLength'],
  ['Pattern', 'pattern'], ['MaxItems', 'maxItems'], ['MinItems', 'minItems'], ['UniqueItems', 'uniqueItems'], ['MultipleOf', 'multipleOf'],
  ['Enum', 'enum'], ['MaxProperties', 'maxProperties'], ['MinProperties', 'minProperties'], ['Required', 'required'], ['Items', 'items'],
  ['AllOf', 'allOf'], ['OneOf', 'oneOf'], ['AnyOf', 'anyOf'], ['Not', 'not'], ['Properties', 'properties'],
  ['AdditionalProperties', 'additionalProperties'], ['PatternProperties', 'patternProperties'], ['Dependencies', 'dependencies'],
  ['AdditionalItems', 'additionalItems'], ['Definitions', 'definitions'], ['ExternalDocs', 'externalDocs'], ['Example', 'example'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'], ['XEmbeddedResource', 'x-kubernetes-embedded-resource'],
  ['XIntOrString', 'x-kubernetes-int-or-string'], ['XListMapKeys', 'x-kubernetes-list-map-keys'], ['XListType', 'x-kubernetes-list-type'],
  ['XMapType', 'x-kubernetes-map-type'], ['XValidations', 'x-kubernetes-validations'],
];
const ROOT_ALLOWED = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations'];

const isSet = (v: unknown) =>
  v !== undefined && v !== null && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0) && !(isObj(v) && Object.keys(v).length === 0);

interface Ctx {
  /** why defaults are forbidden here (inside top-level metadata, kind or apiVersion), if they are */
  noDefaults?: string;
  insideMeta?: boolean;
}

function standard(s: JSP, path: string, ctx: Ctx, errs: FieldError[]): void {
  const type = str(s.type);
  if (type && !OPENAPI_TYPES.includes(type)) errs.push(FieldError.notSupported(child(path, 'type'), type, OPENAPI_TYPES));
  if (s.default !== undefined && ctx.noDefaults) errs.push(FieldError.forbidden(child(path, 'default'), `must not be set ${ctx.noDefaults}`));
  const forbid = (k: string, msg: string) => errs.push(FieldError.forbidden(child(path, k), msg));
  if (str(s.id)) forbid('id', 'id is not supported');
  if (s.additionalItems != null) forbid('additionalItems', 'additionalItems is not supported');
  if (isSet(s.patternProperties)) forbid('patternProperties', 'patternProperties is not supported');
  if (isSet(s.definitions)) forbid('definitions', 'definitions is not supported');
  if (s.dependencies != null) forbid('dependencies', 'dependencies is not supported');
  if (s.$ref != null) forbid('$ref', '$ref is not supported');
  if (type === 'null') forbid('type', 'type cannot be set to null, use nullable as an alternative');
  if (Array.isArray(s.items) && s.items.length > 0) forbid('items', 'items must be a schema object and not an array');
  if (ctx.insideMeta && s['x-kubernetes-embedded-resource'] === true) forbid('x-kubernetes-embedded-resource', 'must not be used inside of resource meta');
}

function openAPISchema(s: JSP | undefined, path: string, ctx: Ctx, root: boolean, errs: FieldError[]): void {
  if (!s) return;
  standard(s, path, ctx, errs);
  if (s.uniqueItems === true)
    errs.push(FieldError.forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const ap = s.additionalProperties;
  if (ap !== undefined && ap !== null) {
    if (isSet(s.properties) && (ap === false || isObj(ap)))
      errs.push(FieldError.forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    const sub = ctx.insideMeta ? { ...ctx, noDefaults: 'inside additionalProperties applying to object metadata' } : ctx;
    if (isObj(ap)) openAPISchema(ap, child(path, 'additionalProperties'), sub, false, errs);
  }
  for (const [k, v] of sortedProps(s)) {
    let sub = ctx;
    if ((root || s['x-kubernetes-embedded-resource'] === true) && ['metadata', 'kind', 'apiVersion'].includes(k)) {
      sub = { ...sub, insideMeta: true };
      if (root) sub.noDefaults = `in top-level ${k}`;
    }
    openAPISchema(v, keyed(child(path, 'properties'), k), sub, false, errs);
  }
  if (isObj(s.not)) openAPISchema(s.not, child(path, 'not'), ctx, false, errs);
  for (const k of ['allOf', 'oneOf', 'anyOf']) {
    (Array.isArray(s[k]) ? (s[k] as unknown[]) : []).forEach((v, i) => openAPISchema(isObj(v) ? v : {}, `${child(path, k)}[${i}]`, ctx, false, errs));
  }
  openAPISchema(itemsSchema(s), child(path, 'items'), ctx, false, errs);
  extensions(s, path, errs);
}

function extensions(s: JSP, path: string, errs: FieldError[]): void {
  const type = str(s.type);
  const listType = s['x-kubernetes-list-type'];
  const mapType = s['x-kubernetes-map-type'];
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [];
  if (s['x-kubernetes-preserve-unknown-fields'] === false)
    errs.push(FieldError.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  if (mapType != null && type !== 'object') {
    if (!type) errs.push(FieldError.required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(FieldError.invalid(child(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType != null && mapType !== 'atomic' && mapType !== 'granular')
    errs.push(FieldError.notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  const items = itemsSchema(s);
  if (listType != null && type !== 'array') {
    if (!type) errs.push(FieldError.required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(FieldError.invalid(child(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] != null && items['x-kubernetes-list-type'] !== 'atomic')
      errs.push(FieldError.invalid(child(child(path, 'items'), 'x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic')
      // Kubernetes reports the item's list type here (nil for an object), which prints as "null".
      errs.push(FieldError.invalid(child(child(path, 'items'), 'x-kubernetes-map-type'), items['x-kubernetes-list-type'] ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
  }
  if (listType != null && !['atomic', 'set', 'map'].includes(String(listType)))
    errs.push(FieldError.notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  if (keys.length > 0) {
    if (listType == null) errs.push(FieldError.required(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(FieldError.invalid(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (keys.length === 0) errs.push(FieldError.required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items == null) errs.push(FieldError.required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    else if (!items) errs.push(FieldError.invalid(child(path, 'items'), new GoValue('&apiextensions.JSONSchemaPropsOrArray{...}'), 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object')
      errs.push(FieldError.invalid(child(child(path, 'items'), 'type'), str(items.type), "must be object if parent array's x-kubernetes-list-type is map"));
    if (items && items.type === 'object') {
      const ip = isObj(items.properties) ? items.properties : {};
      const seen = new Set<string>();
      for (const k of keys) {
        const p = ip[k];
        if (isObj(p)) {
          if (p.type === 'array' || p.type === 'object')
            errs.push(FieldError.invalid(child(keyed(child(child(path, 'items'), 'properties'), k), 'type'), 'object', "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        } else errs.push(FieldError.invalid(child(path, 'x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'));
        if (seen.has(k)) errs.push(FieldError.invalid(child(path, 'x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  const rules = Array.isArray(s['x-kubernetes-validations']) ? (s['x-kubernetes-validations'] as unknown[]) : [];
  rules.forEach((r0, i) => {
    const r = isObj(r0) ? r0 : {};
    const p = `${child(path, 'x-kubernetes-validations')}[${i}]`;
    const rule = str(r.rule).trim();
    const msg = str(r.message);
    if (!rule) errs.push(FieldError.required(child(p, 'rule'), 'rule is not specified'));
    else if (msg.length > 0 && !msg.trim()) errs.push(FieldError.invalid(child(p, 'message'), msg, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(msg.trim())) errs.push(FieldError.invalid(child(p, 'message'), msg, 'message must not contain line breaks'));
    else if (/[\n\r]/.test(rule) && !msg.trim()) errs.push(FieldError.required(child(p, 'message'), 'message must be specified if rule contains line breaks'));
    const me = str(r.messageExpression);
    if (me.length > 0 && !me.trim()) errs.push(FieldError.required(child(p, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    if (r.reason != null && !RULE_REASONS.includes(String(r.reason))) errs.push(FieldError.notSupported(child(p, 'reason'), r.reason, RULE_REASONS));
    const fp = str(r.fieldPath);
    if (fp.length > 0 && !fp.trim()) errs.push(FieldError.invalid(child(p, 'fieldPath'), fp, 'fieldPath must be non-empty if specified'));
    if (/[\n\r]/.test(fp)) errs.push(FieldError.invalid(child(p, 'fieldPath'), fp, 'fieldPath must not contain line breaks'));
  });
}

/** The checks of one CustomResourceValidation (`path` is e.g. "spec.validation" or "spec.versions[1].schema"). */
export function validateCRDSchema(validation: JSP | undefined, statusEnabled: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const schema = validation && isObj(validation.openAPIV3Schema) ? validation.openAPIV3Schema : undefined;
  if (!schema) return errs;
  const root = child(path, 'openAPIV3Schema');
  if (statusEnabled) {
    for (const [go, json] of ROOT_FIELDS) {
      if (!isSet(schema[json])) continue;
      if (go === 'Type') {
        if (schema.type !== 'object') {
          errs.push(FieldError.invalid(`${root}.type`, str(schema.type), 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!ROOT_ALLOWED.includes(go)) {
        errs.push(
          FieldError.invalid(root, new GoValue('apiextensions.JSONSchemaProps{...}'), `only [${ROOT_ALLOWED.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`),
        );
        break;
      }
    }
  }
  if (schema.nullable === true) errs.push(FieldError.forbidden(`${root}.nullable`, 'nullable cannot be true at the root'));
  errs.push(...validateStructural(schema, root));
  openAPISchema(schema, root, {}, true, errs);
  // CEL rules compile over the structural schema's types, so only a schema without errors gets that far
  if (!errs.length) errs.push(...compileSchemaRules(schema, root));
  return errs;
}

/** Whether any schema node sets a default (specHasDefaults). */
export function schemaHasDefaults(s: unknown): boolean {
  if (!isObj(s)) return Array.isArray(s) && s.some(schemaHasDefaults);
  if (s.default !== undefined && s.default !== null) return true;
  return ['properties', 'additionalProperties', 'items', 'allOf', 'anyOf', 'oneOf', 'not'].some((k) =>
    k === 'properties' && isObj(s[k]) ? Object.values(s[k] as JSP).some(schemaHasDefaults) : schemaHasDefaults(s[k]),
  );
}
