// Protobuf field numbers of admissionregistration.k8s.io/v1 and apiextensions.k8s.io/v1 types, from the Go struct
// tags (`protobuf:"bytes,N,..."`) of k8s.io/api and k8s.io/apiextensions-apiserver v0.33. The rbac, authorization
// and authentication tables are in auth.ts. JSON, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool and
// JSONSchemaPropsOrStringArray have no table: their wire form (raw JSON bytes, a oneof of schema or list) differs
// from their JSON form, so a protobuf CRD body using them is rejected with 400 (kubectl sends CRDs as JSON).
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const AR = 'io.k8s.api.admissionregistration.v1.';
const X = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });
const top = { apiVersion: 0, kind: 0, metadata: 1 };
const list = { ...top, items: 2 };
/** Rule is embedded inline in Go (its own message on the wire) and has no OpenAPI definition of its own. */
const RULE = `${AR}Rule(inline)`;

export const authExtraProtoTags: ProtoTags = {
  [RULE]: { apiGroups: 1, apiVersions: 2, resources: 3, scope: k(4) },
  [`${AR}RuleWithOperations`]: { operations: 1, '@rule': { tag: 2, inline: RULE } },
  [`${AR}NamedRuleWithOperations`]: { resourceNames: 1, '@ruleWithOperations': { tag: 2, inline: `${AR}RuleWithOperations` } },
  [`${AR}WebhookClientConfig`]: { url: k(3), service: 1, caBundle: 2 },
  [`${AR}ServiceReference`]: { namespace: k(1), name: k(2), path: k(3), port: k(4) },
  [`${AR}MatchCondition`]: { name: k(1), expression: k(2) },
  [`${AR}ValidatingWebhook`]: {
    name: k(1), clientConfig: 2, rules: 3, failurePolicy: k(4), matchPolicy: k(9), namespaceSelector: 5, objectSelector: 10,
    sideEffects: k(6), timeoutSeconds: k(7), admissionReviewVersions: 8, matchConditions: 11,
  },
  [`${AR}MutatingWebhook`]: {
    name: k(1), clientConfig: 2, rules: 3, failurePolicy: k(4), matchPolicy: k(9), namespaceSelector: 5, objectSelector: 11,
    sideEffects: k(6), timeoutSeconds: k(7), admissionReviewVersions: 8, reinvocationPolicy: k(10), matchConditions: 12,
  },
  [`${AR}ValidatingWebhookConfiguration`]: { ...top, webhooks: 2 },
  [`${AR}MutatingWebhookConfiguration`]: { ...top, webhooks: 2 },
  [`${AR}ValidatingWebhookConfigurationList`]: list,
  [`${AR}MutatingWebhookConfigurationList`]: list,
  [`${AR}ParamKind`]: { apiVersion: 1, kind: 2 },
  [`${AR}MatchResources`]: { namespaceSelector: 1, objectSelector: 2, resourceRules: 3, excludeResourceRules: 4, matchPolicy: k(7) },
  [`${AR}Validation`]: { expression: k(1), message: 2, reason: k(3), messageExpression: 4 },
  [`${AR}Variable`]: { name: k(1), expression: k(2) },
  [`${AR}AuditAnnotation`]: { key: k(1), valueExpression: k(2) },
  [`${AR}ValidatingAdmissionPolicySpec`]: {
    paramKind: 1, matchConstraints: 2, validations: 3, failurePolicy: k(4), auditAnnotations: 5, matchConditions: 6, variables: 7,
  },
  [`${AR}ExpressionWarning`]: { fieldRef: k(2), warning: k(3) },
  [`${AR}TypeChecking`]: { expressionWarnings: 1 },
  [`${AR}ValidatingAdmissionPolicyStatus`]: { observedGeneration: 1, typeChecking: 2, conditions: 3 },
  [`${AR}ValidatingAdmissionPolicy`]: { ...top, spec: 2, status: 3 },
  [`${AR}ParamRef`]: { name: 1, namespace: 2, selector: 3, parameterNotFoundAction: k(4) },
  [`${AR}ValidatingAdmissionPolicyBindingSpec`]: { policyName: 1, paramRef: 2, matchResources: 3, validationActions: 4 },
  [`${AR}ValidatingAdmissionPolicyBinding`]: { ...top, spec: 2 },
  [`${AR}ValidatingAdmissionPolicyList`]: list,
  [`${AR}ValidatingAdmissionPolicyBindingList`]: list,

  [`${X}CustomResourceDefinition`]: { ...top, spec: 2, status: 3 },
  [`${X}CustomResourceDefinitionList`]: list,
  [`${X}CustomResourceDefinitionSpec`]: { group: k(1), names: 3, scope: k(4), versions: 7, conversion: 9, preserveUnknownFields: 10 },
  [`${X}CustomResourceDefinitionNames`]: { plural: k(1), singular: 2, shortNames: 3, kind: k(4), listKind: 5, categories: 6 },
  [`${X}CustomResourceDefinitionVersion`]: {
    name: k(1), served: k(2), storage: k(3), deprecated: 7, deprecationWarning: k(8), schema: 4, subresources: 5,
    additionalPrinterColumns: 6, selectableFields: 9,
  },
  [`${X}CustomResourceValidation`]: { openAPIV3Schema: 1 },
  [`${X}CustomResourceSubresources`]: { status: 1, scale: 2 },
  [`${X}CustomResourceSubresourceStatus`]: {},
  [`${X}CustomResourceSubresourceScale`]: { specReplicasPath: k(1), statusReplicasPath: k(2), labelSelectorPath: k(3) },
  [`${X}CustomResourceColumnDefinition`]: { name: k(1), type: k(2), format: 3, description: 4, priority: 5, jsonPath: k(6) },
  [`${X}SelectableField`]: { jsonPath: k(1) },
  [`${X}CustomResourceConversion`]: { strategy: k(1), webhook: 2 },
  [`${X}WebhookConversion`]: { clientConfig: 2, conversionReviewVersions: 3 },
  [`${X}WebhookClientConfig`]: { url: k(3), service: 1, caBundle: 2 },
  [`${X}ServiceReference`]: { namespace: k(1), name: k(2), path: k(3), port: k(4) },
  [`${X}CustomResourceDefinitionStatus`]: { conditions: 1, acceptedNames: 2, storedVersions: 3 },
  [`${X}CustomResourceDefinitionCondition`]: { type: k(1), status: k(2), lastTransitionTime: 3, reason: 4, message: 5 },
  [`${X}ExternalDocumentation`]: { description: 1, url: 2 },
  [`${X}ValidationRule`]: { rule: k(1), message: 2, messageExpression: 3, reason: k(4), fieldPath: 5, optionalOldSelf: k(6) },
  [`${X}JSONSchemaProps`]: {
    id: 1, $schema: 2, $ref: k(3), description: 4, type: 5, format: 6, title: 7, default: 8, maximum: k(9), exclusiveMaximum: 10,
    minimum: k(11), exclusiveMinimum: 12, maxLength: k(13), minLength: k(14), pattern: 15, maxItems: k(16), minItems: k(17),
    uniqueItems: 18, multipleOf: k(19), enum: 20, maxProperties: k(21), minProperties: k(22), required: 23, items: 24, allOf: 25,
    oneOf: 26, anyOf: 27, not: 28, properties: 29, additionalProperties: 30, patternProperties: 31, dependencies: 32,
    additionalItems: 33, definitions: 34, externalDocs: 35, example: 36, nullable: 37, 'x-kubernetes-preserve-unknown-fields': k(38),
    'x-kubernetes-embedded-resource': 39, 'x-kubernetes-int-or-string': 40, 'x-kubernetes-list-map-keys': 41,
    'x-kubernetes-list-type': k(42), 'x-kubernetes-map-type': k(43), 'x-kubernetes-validations': 44,
  },
};
