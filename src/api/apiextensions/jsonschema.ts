// apiextensions.k8s.io/v1 JSONSchemaProps and its helper types (k8s.io/apiextensions-apiserver/pkg/apis/
// apiextensions/v1/types_jsonschema.go). JSON, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool and
// JSONSchemaPropsOrStringArray take several JSON shapes, so, as in Kubernetes' OpenAPI, they have no type.
import { s, type Definitions, type Schema } from '../../machinery/schema.js';

export const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';

const props = (description?: string) => s.ref(`${APIEXT}JSONSchemaProps`, description);
const propsMap = (description: string) => s.map(s.ref(`${APIEXT}JSONSchemaProps`, undefined, { default: {} }), description);
const propsList = (description: string) => s.arr(s.ref(`${APIEXT}JSONSchemaProps`, undefined, { default: {} }), { description });
const json = (description?: string) => s.ref(`${APIEXT}JSON`, description);
const strList = (description: string) => s.arr(s.str(undefined, { default: '' }), { description });

function schemaProps(): Record<string, Schema> {
  return {
    $ref: s.str(),
    $schema: s.str(),
    additionalItems: s.ref(`${APIEXT}JSONSchemaPropsOrBool`),
    additionalProperties: s.ref(`${APIEXT}JSONSchemaPropsOrBool`),
    allOf: propsList('A value must match every schema in the list.'),
    anyOf: propsList('A value must match at least one schema in the list.'),
    default: json(
      'default is a default value for undefined object fields. Defaulting requires spec.preserveUnknownFields to be false.',
    ),
    definitions: propsMap('Not supported in CustomResourceDefinitions.'),
    dependencies: s.map(s.ref(`${APIEXT}JSONSchemaPropsOrStringArray`), 'Not supported in CustomResourceDefinitions.'),
    description: s.str(),
    enum: s.arr(json(), { description: 'The value must be one of these.' }),
    example: json(),
    exclusiveMaximum: s.bool(),
    exclusiveMinimum: s.bool(),
    externalDocs: s.ref(`${APIEXT}ExternalDocumentation`),
    format: s.str(
      'format is an OpenAPI v3 format string. Unknown formats are ignored; known ones (e.g. int32, date-time, uuid, byte, email, hostname, ipv4) are validated.',
    ),
    id: s.str(),
    items: s.ref(`${APIEXT}JSONSchemaPropsOrArray`),
    maxItems: s.int64(),
    maxLength: s.int64(),
    maxProperties: s.int64(),
    maximum: s.num(),
    minItems: s.int64(),
    minLength: s.int64(),
    minProperties: s.int64(),
    minimum: s.num(),
    multipleOf: s.num(),
    not: props(),
    nullable: s.bool(),
    oneOf: propsList('A value must match exactly one schema in the list.'),
    pattern: s.str(),
    patternProperties: propsMap('Not supported in CustomResourceDefinitions.'),
    properties: propsMap('The schemas of the named fields of an object.'),
    required: strList('The fields an object must have.'),
    title: s.str(),
    type: s.str(),
    uniqueItems: s.bool(),
    'x-kubernetes-embedded-resource': s.bool(
      'x-kubernetes-embedded-resource marks an object that is a full Kubernetes object (apiVersion, kind, metadata). The type must be object.',
    ),
    'x-kubernetes-int-or-string': s.bool(
      'x-kubernetes-int-or-string marks a value that may be an integer or a string. Without a type it allows exactly those two.',
    ),
    'x-kubernetes-list-map-keys': strList(
      'x-kubernetes-list-map-keys names the key fields of a list with x-kubernetes-list-type "map"; they must be scalar and required or defaulted.',
    ),
    'x-kubernetes-list-type': s.str(
      'x-kubernetes-list-type describes how a list is merged: "atomic" (the default; replaced as a whole), "set" (unique scalar items) or "map" (items keyed by x-kubernetes-list-map-keys).',
    ),
    'x-kubernetes-map-type': s.str(
      'x-kubernetes-map-type describes how a map is merged: "granular" (the default; fields owned separately) or "atomic" (replaced as a whole).',
    ),
    'x-kubernetes-preserve-unknown-fields': s.bool(
      'x-kubernetes-preserve-unknown-fields stops the API server from pruning fields the schema does not specify. It applies to this node only, not nested nodes with their own schema.',
    ),
    'x-kubernetes-validations': s.arr(s.ref(`${APIEXT}ValidationRule`, undefined, { default: {} }), {
      mergeKey: 'rule',
      description: 'x-kubernetes-validations describes a list of validation rules written in the CEL expression language.',
    }),
  };
}

export const jsonSchemaDefinitions: Definitions = {
  [`${APIEXT}JSONSchemaProps`]: s.obj(schemaProps(), {
    description: 'JSONSchemaProps is a JSON-Schema following Specification Draft 4 (http://json-schema.org/).',
  }),
  [`${APIEXT}JSON`]: {
    description:
      'JSON represents any valid JSON value. These types are supported: bool, int64, float64, string, []interface{}, map[string]interface{} and nil.',
  },
  [`${APIEXT}JSONSchemaPropsOrArray`]: {
    description: 'JSONSchemaPropsOrArray holds either one JSONSchemaProps or a list of them (a list is not allowed in CRDs).',
  },
  [`${APIEXT}JSONSchemaPropsOrBool`]: {
    description: 'JSONSchemaPropsOrBool holds either a boolean or a JSONSchemaProps; true is the same as an empty schema.',
  },
  [`${APIEXT}JSONSchemaPropsOrStringArray`]: {
    description: 'JSONSchemaPropsOrStringArray holds either a JSONSchemaProps or a list of strings.',
  },
  [`${APIEXT}ExternalDocumentation`]: s.obj(
    { description: s.str(), url: s.str() },
    { description: 'ExternalDocumentation allows referencing an external resource for extended documentation.' },
  ),
  [`${APIEXT}ValidationRule`]: s.obj(
    {
      fieldPath: s.str(
        'fieldPath is the JSON path (relative to the node of the rule) of the field reported when the rule fails, e.g. `.spec.replicas` or `.map[\'key\']`.',
      ),
      message: s.str('Message is shown when the rule fails; it may not contain line breaks. Defaults to "failed rule: {Rule}".'),
      messageExpression: s.str('MessageExpression is a CEL expression producing the failure message; it takes precedence over message.'),
      optionalOldSelf: s.bool(
        'optionalOldSelf makes a transition rule run on creates too, with oldSelf as an optional value (CRDValidationRatcheting).',
      ),
      reason: s.str(
        'reason is the machine-readable reason reported when the rule fails: FieldValueInvalid (the default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.',
      ),
      rule: s.str(
        'Rule is the CEL expression to evaluate; `self` is the value of the node, `oldSelf` the old value in transition rules. Stored as given: k1s does not compile it.',
        { default: '' },
      ),
    },
    { description: 'ValidationRule describes a validation rule written in the CEL expression language.', required: ['rule'] },
  ),
};
