// A CRD version's openAPIV3Schema as k1s definitions: what k8s.io/apiextensions-apiserver/pkg/controller/openapi/
// builder publishes for OpenAPI v3 (and feeds server-side apply), in the subset k1s's Schema models. Value
// validations (pattern, minimum, anyOf, CEL rules, ...) and nullable are not modelled: they are checked by the
// validator, not by the walkers that read Schema.
import type { Definitions, Schema, SchemaType } from '../../../machinery/schema.js';
import { clone } from '../../../machinery/object.js';
import { compareGoStrings } from '../../../machinery/validation.js';
import { META, kindHeader } from '../../meta.js';
import { isObj, type JSP } from '../structural.js';

const TYPES = new Set<string>(['object', 'array', 'string', 'integer', 'number', 'boolean']);
const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
const EMBEDDED_API_VERSION = `apiVersion defines the versioned schema of this representation of an object. More info: ${CONVENTIONS}#resources`;
const EMBEDDED_KIND = `kind is a string value representing the type of this object. In CamelCase. More info: ${CONVENTIONS}#types-kinds`;
const METADATA = `Standard object's metadata. More info: ${CONVENTIONS}#metadata`;

/**
 * util.ToRESTFriendlyName of "<group>/<version>.<kind>": the group's dot-separated parts reversed, e.g.
 * stable.example.com/v1 CronTab → com.example.stable.v1.CronTab.
 */
export function crdDefinitionName(group: string, version: string, kind: string): string {
  const g = group.includes('.') ? group.split('.').reverse().join('.') : group;
  return `${g}.${version}.${kind}`;
}

function sortedProperties(props: Record<string, Schema>): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const k of Object.keys(props).sort(compareGoStrings)) out[k] = props[k];
  return out;
}

const typeMeta = () => {
  const h = kindHeader();
  return { apiVersion: h.apiVersion, kind: h.kind };
};

/** One structural schema node as Schema. Enums are kept only when every value is a string (Schema.enum is string[]). */
export function toSchema(s: JSP): Schema {
  const out: Schema = {};
  if (typeof s.type === 'string' && TYPES.has(s.type)) out.type = s.type as SchemaType;
  if (typeof s.format === 'string' && s.format) out.format = s.format;
  if (typeof s.description === 'string' && s.description) out.description = s.description;
  if (s.default !== undefined && s.default !== null) out.default = clone(s.default);
  if (Array.isArray(s.enum) && s.enum.length && s.enum.every((v) => typeof v === 'string')) out.enum = [...(s.enum as string[])];
  if (Array.isArray(s.required) && s.required.length) out.required = s.required.filter((r): r is string => typeof r === 'string');
  if (isObj(s.properties)) {
    const props: Record<string, Schema> = {};
    for (const [k, v] of Object.entries(s.properties)) props[k] = toSchema(isObj(v) ? v : {});
    out.properties = props;
  }
  // additionalProperties: true is an open map of anything; false cannot be said in Schema (and prunes like true)
  if (isObj(s.additionalProperties)) out.additionalProperties = toSchema(s.additionalProperties);
  else if (s.additionalProperties === true) out.additionalProperties = {};
  if (isObj(s.items)) out.items = toSchema(s.items);
  if (s['x-kubernetes-int-or-string'] === true) out.intOrString = true;
  if (s['x-kubernetes-preserve-unknown-fields'] === true) out.preserveUnknownFields = true;
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'atomic' || lt === 'set' || lt === 'map') out.listType = lt;
  const keys = s['x-kubernetes-list-map-keys'];
  if (Array.isArray(keys) && keys.length) out.listMapKeys = keys.filter((k): k is string => typeof k === 'string');
  const mt = s['x-kubernetes-map-type'];
  if (mt === 'atomic' || mt === 'granular') out.mapType = mt;
  if (s['x-kubernetes-embedded-resource'] === true) {
    out.embeddedResource = true;
    // addEmbeddedProperties: TypeMeta and ObjectMeta, kind and apiVersion required
    out.properties = {
      ...out.properties,
      apiVersion: { type: 'string', description: EMBEDDED_API_VERSION },
      kind: { type: 'string', description: EMBEDDED_KIND },
      metadata: { ref: META.ObjectMeta, description: METADATA },
    };
    const req = [...(out.required ?? [])];
    for (const f of ['kind', 'apiVersion']) if (!req.includes(f)) req.push(f);
    out.required = req;
  }
  if (out.properties) out.properties = sortedProperties(out.properties);
  return out;
}

/**
 * The definitions of one served version: the kind (buildKubeNative: the schema with TypeMeta's apiVersion and kind
 * and an ObjectMeta ref as metadata) and its list (buildListSchema). Without a schema the kind is a bare
 * `{type: object}`, as Kubernetes publishes it; walkers treat an object without properties as open.
 */
export function crdSchemaDefinitions(
  group: string,
  version: string,
  kind: string,
  listKind: string,
  openAPIV3Schema: JSP | undefined,
  plural = `${kind.toLowerCase()}s`,
): { ref: string; definitions: Definitions } {
  const ref = crdDefinitionName(group, version, kind);
  let root: Schema;
  if (!openAPIV3Schema) root = { type: 'object' };
  else {
    root = toSchema(openAPIV3Schema);
    root.properties = sortedProperties({ ...root.properties, ...typeMeta(), metadata: { ref: META.ObjectMeta, description: METADATA } });
  }
  const list: Schema = {
    type: 'object',
    description: `${listKind} is a list of ${kind}`,
    required: ['items'],
    properties: {
      apiVersion: typeMeta().apiVersion,
      items: { type: 'array', description: `List of ${plural}. More info: ${CONVENTIONS}`, items: { ref } },
      kind: typeMeta().kind,
      metadata: { ref: META.ListMeta, description: `Standard list metadata. More info: ${CONVENTIONS}#types-kinds` },
    },
  };
  return { ref, definitions: { [ref]: root, [crdDefinitionName(group, version, listKind)]: list } };
}
