// apiextensions.k8s.io/v1 CustomResourceDefinition definitions (k8s.io/apiextensions-apiserver/pkg/apis/
// apiextensions/v1/types.go).
import { s, type Definitions } from '../../machinery/schema.js';
import { APIEXT, jsonSchemaDefinitions } from './jsonschema.js';
import { kindHeader, listDefinition } from '../meta.js';

const strList = (description: string) => s.arr(s.str(undefined, { default: '' }), { description });
const reqStr = (description: string) => s.str(description, { default: '' });
const item = (name: string) => s.ref(`${APIEXT}${name}`, undefined, { default: {} });

const crdDefinitions: Definitions = {
  [`${APIEXT}CustomResourceDefinition`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${APIEXT}CustomResourceDefinitionSpec`, 'spec describes the custom resource type: group, names, scope and versions.', { default: {} }),
      status: s.ref(`${APIEXT}CustomResourceDefinitionStatus`, 'status is the observed state of the CustomResourceDefinition.', { default: {} }),
    },
    {
      description:
        'CustomResourceDefinition defines a resource type the API server serves in addition to the built-in ones. Its name must be <spec.names.plural>.<spec.group>.',
      required: ['spec'],
    },
  ),
  [`${APIEXT}CustomResourceDefinitionSpec`]: s.obj(
    {
      conversion: s.ref(`${APIEXT}CustomResourceConversion`, 'conversion defines conversion settings for the CRD.'),
      group: reqStr('group is the API group of the defined custom resource, served under `/apis/<group>/...`. Must match the name of the CRD (`<names.plural>.<group>`).'),
      names: s.ref(`${APIEXT}CustomResourceDefinitionNames`, 'names specify the resource and kind names for the custom resource.', { default: {} }),
      preserveUnknownFields: s.bool(
        'preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage. Must be false in v1; use `x-kubernetes-preserve-unknown-fields: true` in the schema instead.',
      ),
      scope: reqStr('scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.'),
      versions: s.arr(item('CustomResourceDefinitionVersion'), {
        description:
          'versions is the list of all API versions of the defined custom resource. Exactly one version must be the storage version. Versions are sorted by priority (GA before beta before alpha, higher numbers first) for discovery.',
      }),
    },
    { description: 'CustomResourceDefinitionSpec describes a custom resource type.', required: ['group', 'names', 'scope', 'versions'] },
  ),
  [`${APIEXT}CustomResourceDefinitionNames`]: s.obj(
    {
      categories: strList('categories is a list of grouped resources this custom resource belongs to (e.g. \'all\'), used by `kubectl get <category>`.'),
      kind: reqStr('kind is the serialized kind of the resource. It is normally CamelCase and singular.'),
      listKind: s.str('listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
      plural: reqStr('plural is the plural name of the resource to serve, all lowercase: `/apis/<group>/<version>/.../<plural>`. Must match the name of the CRD.'),
      shortNames: strList('shortNames are short names for the resource, exposed in API discovery documents, and used by clients to support invocations like `kubectl get <shortname>`. It must be all lowercase.'),
      singular: s.str('singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`.'),
    },
    { description: 'CustomResourceDefinitionNames are the names the custom resource type is served under.', required: ['plural', 'kind'] },
  ),
  [`${APIEXT}CustomResourceDefinitionVersion`]: s.obj(
    {
      additionalPrinterColumns: s.arr(item('CustomResourceColumnDefinition'), {
        description: 'additionalPrinterColumns specifies additional columns returned in Table output. If none are given, a single column with the age is used.',
      }),
      deprecated: s.bool('deprecated indicates this version of the custom resource API is deprecated; requests to it get a warning header. Defaults to false.'),
      deprecationWarning: s.str('deprecationWarning overrides the default warning returned to API clients. May only be set when `deprecated` is true.'),
      name: reqStr('name is the version name, e.g. “v1”, “v2beta1”, etc. The custom resources are served under this version at `/apis/<group>/<version>/...` if `served` is true.'),
      schema: s.ref(`${APIEXT}CustomResourceValidation`, 'schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.'),
      selectableFields: s.arr(item('SelectableField'), {
        description: 'selectableFields specifies paths to fields that may be used as field selectors. A maximum of 8 selectable fields are allowed.',
      }),
      served: s.bool('served is a flag enabling/disabling this version from being served via REST APIs', { default: false }),
      storage: s.bool('storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.', {
        default: false,
      }),
      subresources: s.ref(`${APIEXT}CustomResourceSubresources`, 'subresources specify what subresources this version of the defined custom resource have.'),
    },
    { description: 'CustomResourceDefinitionVersion describes one API version of a custom resource type.', required: ['name', 'served', 'storage'] },
  ),
  [`${APIEXT}CustomResourceValidation`]: s.obj(
    { openAPIV3Schema: s.ref(`${APIEXT}JSONSchemaProps`, 'openAPIV3Schema is the OpenAPI v3 schema to use for validation and pruning.') },
    { description: 'CustomResourceValidation holds the schema of one version of a custom resource.' },
  ),
  [`${APIEXT}CustomResourceSubresources`]: s.obj(
    {
      scale: s.ref(`${APIEXT}CustomResourceSubresourceScale`, 'scale indicates the custom resource should serve a `/scale` subresource that returns an `autoscaling/v1` Scale object.'),
      status: s.ref(`${APIEXT}CustomResourceSubresourceStatus`, 'status indicates the custom resource should serve a `/status` subresource. When enabled, the main resource ignores changes to status and the status subresource ignores everything else.'),
    },
    { description: 'CustomResourceSubresources enables the status and scale subresources of a custom resource.' },
  ),
  [`${APIEXT}CustomResourceSubresourceStatus`]: s.obj(
    {},
    {
      description:
        'CustomResourceSubresourceStatus enables the /status subresource: writes to it change only `.status`, and writes to the main resource leave `.status` alone. It has no fields.',
    },
  ),
  [`${APIEXT}CustomResourceSubresourceScale`]: s.obj(
    {
      labelSelectorPath: s.str('labelSelectorPath defines the JSON path inside of a custom resource that corresponds to Scale `status.selector`, under `.status` or `.spec`.'),
      specReplicasPath: reqStr('specReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `spec.replicas`. Only JSON paths without the array notation are allowed, under `.spec`.'),
      statusReplicasPath: reqStr('statusReplicasPath defines the JSON path inside of a custom resource that corresponds to Scale `status.replicas`, under `.status`.'),
    },
    { description: 'CustomResourceSubresourceScale maps the scale subresource onto fields of the custom resource.', required: ['specReplicasPath', 'statusReplicasPath'] },
  ),
  [`${APIEXT}CustomResourceColumnDefinition`]: s.obj(
    {
      description: s.str('description is a human readable description of this column.'),
      format: s.str('format is an optional OpenAPI format for this column, e.g. "name" for the column holding the resource name.'),
      jsonPath: reqStr('jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.'),
      name: reqStr('name is a human readable name for the column.'),
      priority: s.int32('priority is an integer defining the relative importance of this column compared to others. 0 is shown by default; higher numbers only in wide output.'),
      type: reqStr('type is an OpenAPI type definition for this column: integer, number, string, boolean or date.'),
    },
    { description: 'CustomResourceColumnDefinition is one extra column of the table output of a custom resource.', required: ['name', 'type', 'jsonPath'] },
  ),
  [`${APIEXT}SelectableField`]: s.obj(
    { jsonPath: reqStr('jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value. It must point to a string, boolean or integer field.') },
    { description: 'SelectableField specifies the JSON path of a field that may be used with field selectors.', required: ['jsonPath'] },
  ),
  [`${APIEXT}CustomResourceConversion`]: s.obj(
    {
      strategy: reqStr('strategy specifies how custom resources are converted between versions: "None" (only apiVersion changes) or "Webhook" (calls an external webhook).'),
      webhook: s.ref(`${APIEXT}WebhookConversion`, 'webhook describes how to call the conversion webhook. Required when `strategy` is set to `"Webhook"`.'),
    },
    { description: 'CustomResourceConversion says how objects are converted between the versions of a custom resource.', required: ['strategy'] },
  ),
  [`${APIEXT}WebhookConversion`]: s.obj(
    {
      clientConfig: s.ref(`${APIEXT}WebhookClientConfig`, 'clientConfig is the instructions for how to call the webhook if strategy is `Webhook`.'),
      conversionReviewVersions: strList('conversionReviewVersions is an ordered list of preferred `ConversionReview` versions the Webhook expects; the API server uses the first one it supports.'),
    },
    { description: 'WebhookConversion says how to call a conversion webhook.', required: ['conversionReviewVersions'] },
  ),
  [`${APIEXT}WebhookClientConfig`]: s.obj(
    {
      caBundle: s.bytes("caBundle is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used."),
      service: s.ref(`${APIEXT}ServiceReference`, 'service is a reference to the service for this webhook. Either service or url must be specified.'),
      url: s.str('url gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified; the scheme must be "https".'),
    },
    { description: 'WebhookClientConfig says how to reach a webhook over TLS.' },
  ),
  [`${APIEXT}ServiceReference`]: s.obj(
    {
      name: reqStr('name is the name of the service. Required'),
      namespace: reqStr('namespace is the namespace of the service. Required'),
      path: s.str('path is an optional URL path at which the webhook will be contacted.'),
      port: s.int32('port is an optional service port at which the webhook will be contacted. `port` should be a valid port number (1-65535, inclusive). Defaults to 443 for backward compatibility.'),
    },
    { description: 'ServiceReference points to the Service that serves a conversion webhook.', required: ['namespace', 'name'] },
  ),
  [`${APIEXT}CustomResourceDefinitionStatus`]: s.obj(
    {
      acceptedNames: s.ref(`${APIEXT}CustomResourceDefinitionNames`, 'acceptedNames are the names that are actually being used to serve discovery. They may be different than the names in spec.', { default: {} }),
      conditions: s.arr(item('CustomResourceDefinitionCondition'), {
        listType: 'map',
        mapKeys: ['type'],
        description: 'conditions report aspects of the state of the CustomResourceDefinition (NamesAccepted, Established, ...).',
      }),
      storedVersions: strList(
        'storedVersions lists all versions of CustomResources that were ever persisted. Tracking these versions allows a migration path for stored versions in etcd. A version may only be removed from this list after all objects stored in it have been migrated.',
      ),
    },
    { description: 'CustomResourceDefinitionStatus is the observed state of a CustomResourceDefinition.' },
  ),
  [`${APIEXT}CustomResourceDefinitionCondition`]: s.obj(
    {
      lastTransitionTime: s.time('lastTransitionTime last time the condition transitioned from one status to another.'),
      message: s.str('message is a human-readable message indicating details about last transition.'),
      reason: s.str("reason is a unique, one-word, CamelCase reason for the condition's last transition."),
      status: reqStr('status is the status of the condition. Can be True, False, Unknown.'),
      type: reqStr('type is the type of the condition. Types include Established, NamesAccepted and Terminating.'),
    },
    { description: 'CustomResourceDefinitionCondition is one observed aspect of the state of a CustomResourceDefinition.', required: ['type', 'status'] },
  ),
  [`${APIEXT}CustomResourceDefinitionList`]: listDefinition(
    `${APIEXT}CustomResourceDefinition`,
    'CustomResourceDefinitionList is a list of CustomResourceDefinition objects.',
    'items are the CustomResourceDefinitions.',
  ),
};

export const apiextensionsDefinitions: Definitions = { ...crdDefinitions, ...jsonSchemaDefinitions };
export { APIEXT };
