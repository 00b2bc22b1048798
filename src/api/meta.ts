// OpenAPI definitions of apimachinery's shared types (meta/v1, resource.Quantity, intstr.IntOrString, runtime
// RawExtension), named as in Kubernetes' OpenAPI so clients keying on them keep working. Descriptions are what
// `kubectl explain` prints; they paraphrase the Kubernetes API reference.
import { s, type Definitions, type Schema } from '../machinery/schema.js';

const M = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

export const META = {
  ObjectMeta: `${M}ObjectMeta`,
  ListMeta: `${M}ListMeta`,
  OwnerReference: `${M}OwnerReference`,
  ManagedFieldsEntry: `${M}ManagedFieldsEntry`,
  FieldsV1: `${M}FieldsV1`,
  Time: `${M}Time`,
  MicroTime: `${M}MicroTime`,
  Status: `${M}Status`,
  StatusDetails: `${M}StatusDetails`,
  StatusCause: `${M}StatusCause`,
  LabelSelector: `${M}LabelSelector`,
  LabelSelectorRequirement: `${M}LabelSelectorRequirement`,
  DeleteOptions: `${M}DeleteOptions`,
  Preconditions: `${M}Preconditions`,
  WatchEvent: `${M}WatchEvent`,
  Condition: `${M}Condition`,
  APIResource: `${M}APIResource`,
  APIResourceList: `${M}APIResourceList`,
  APIGroup: `${M}APIGroup`,
  APIGroupList: `${M}APIGroupList`,
  APIVersions: `${M}APIVersions`,
  GroupVersionForDiscovery: `${M}GroupVersionForDiscovery`,
  ServerAddressByClientCIDR: `${M}ServerAddressByClientCIDR`,
  Patch: `${M}Patch`,
  Quantity: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
  IntOrString: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  RawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
} as const;

const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
/** A required string field: Kubernetes' OpenAPI v3 gives those default "". */
const reqStr = (description?: string) => s.str(description, { default: '' });
/** A struct embedded by value (list items, metadata): OpenAPI v3 default {}. */
const item = (ref: string) => s.ref(ref, undefined, { default: {} });

/** The `apiVersion` / `kind` / `metadata` trio every top-level kind starts with. */
export function kindHeader(): Record<string, Schema> {
  return {
    apiVersion: s.str(`APIVersion is the versioned schema this representation of the object uses. Servers convert recognized schemas to their latest internal form and may reject unknown ones. More info: ${CONVENTIONS}#resources`),
    kind: s.str(`Kind is the REST resource type this object represents, in CamelCase. Servers may infer it from the endpoint the client calls. Cannot be updated. More info: ${CONVENTIONS}#types-kinds`),
    metadata: s.ref(META.ObjectMeta, `Standard object's metadata. More info: ${CONVENTIONS}#metadata`, { default: {} }),
  };
}

/** `<Kind>List` definition: apiVersion, kind, ListMeta metadata and items of the given definition. */
export function listDefinition(itemRef: string, description: string, itemsDescription: string): Schema {
  const h = kindHeader();
  return s.obj(
    {
      apiVersion: h.apiVersion,
      items: s.arr(item(itemRef), { description: itemsDescription }),
      kind: h.kind,
      metadata: s.ref(META.ListMeta, `Standard list metadata. More info: ${CONVENTIONS}#types-kinds`, { default: {} }),
    },
    { description, required: ['items'] },
  );
}

const objectMeta = s.obj(
  {
    annotations: s.strMap('Annotations is an unstructured key/value map for arbitrary metadata that tools and extensions store and read. It is not queryable and is kept when the object is modified. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations'),
    creationTimestamp: s.time('CreationTimestamp is the server time when this object was created. Clients may not set it. It is in RFC3339 form, in UTC. Populated by the system; read-only; null for lists.'),
    deletionGracePeriodSeconds: s.int64('Number of seconds the object is allowed to terminate gracefully before it is removed from the system. Only set when deletionTimestamp is set. May only be shortened. Read-only.'),
    deletionTimestamp: s.time('DeletionTimestamp is the RFC 3339 time after which this resource will be deleted. Set by the server when a graceful deletion is requested, not by clients. The object stays visible through the API until its finalizers are removed and the grace period has passed; once set it cannot be unset or moved later. Populated by the system when a graceful deletion is requested; read-only.'),
    finalizers: s.strSet(
      'Finalizers must be empty before the object is removed from the registry. Each entry names a component that will remove its entry when it is done. When deletionTimestamp is set, entries may only be removed. Finalizers may run in any order; components must not depend on that order.',
      { strategy: 'merge' },
    ),
    generateName: s.str(
      'GenerateName is an optional prefix the server uses to generate a unique name when name is empty. The final name is the prefix plus a random suffix, so the prefix may be shortened to fit. If the generated name is taken the server answers 409. Applied only when name is not given. More info: ' +
        `${CONVENTIONS}#idempotency`,
    ),
    generation: s.int64('A sequence number representing a specific generation of the desired state. Populated by the system; read-only.'),
    labels: s.strMap('Map of string keys and values used to organize and categorize (scope and select) objects. Label selectors match on them. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels'),
    managedFields: s.arr(item(META.ManagedFieldsEntry), { description: 'ManagedFields maps workflow IDs and versions to the set of fields that workflow manages. It is mainly for internal housekeeping (server-side apply); users generally should not set or read it.' }),
    name: s.str('Name must be unique within a namespace. It is required when creating resources, although some resources let a client request a generated name (see generateName). It is used for idempotence and configuration definition and cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names'),
    namespace: s.str('Namespace defines the space within which each name must be unique. An empty namespace is equivalent to "default", but "default" is the canonical form. Not every object needs a namespace; for cluster-scoped objects it is empty. Must be a DNS_LABEL. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces'),
    ownerReferences: s.arr(item(META.OwnerReference), {
      mergeKey: 'uid',
      mapKeys: ['uid'],
      description:
        'List of objects this object depends on. The object is garbage collected once all of them are deleted. An object managed by a controller has an entry pointing to it with controller set to true; there may be at most one managing controller.',
    }),
    resourceVersion: s.str(`An opaque value that represents the internal version of this object. Clients use it to detect changes and for optimistic concurrency, change detection and watches; they must treat it as opaque and pass it back unmodified. Populated by the system; read-only. More info: ${CONVENTIONS}#concurrency-control-and-consistency`),
    selfLink: s.str('Deprecated: selfLink is a legacy read-only field that the system no longer populates.'),
    uid: s.str('UID is the unique-in-time-and-space value for this object. It is typically generated by the server on successful creation of a resource and may not change on PUT. Populated by the system; read-only. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids'),
  },
  { description: 'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.' },
);

const defs: Definitions = {
  [META.Time]: {
    type: 'string',
    format: 'date-time',
    description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON (RFC 3339, second precision).',
  },
  [META.MicroTime]: {
    type: 'string',
    format: 'date-time',
    description: 'MicroTime is version of Time with microsecond level precision.',
  },
  // Accepts a JSON number too (OpenAPI v3 gives oneOf string/number); v2 and our schema say string.
  [META.Quantity]: {
    type: 'string',
    description:
      "Quantity is a fixed-point representation of a number such as '100m' or '1Gi': a signed decimal, optionally followed by a binary SI suffix (Ki, Mi, Gi, Ti, Pi, Ei), a decimal SI suffix (n, u, m, '', k, M, G, T, P, E) or a decimal exponent (e.g. 1e3). It serializes to its canonical string form.",
  },
  [META.IntOrString]: {
    type: 'string',
    format: 'int-or-string',
    intOrString: true,
    description: 'IntOrString is a type that can hold an int32 or a string; it serializes as whichever it holds.',
  },
  [META.RawExtension]: {
    type: 'object',
    preserveUnknownFields: true,
    description: 'RawExtension holds an embedded object (any JSON) whose schema is not known here.',
  },
  [META.FieldsV1]: {
    type: 'object',
    preserveUnknownFields: true,
    description:
      "FieldsV1 stores a set of fields in a JSON trie: each key is a field ('f:<name>'), a map key ('k:<json>'), a list value ('v:<json>') or an index ('i:<n>'), and '.' marks the field itself.",
  },
  [META.Patch]: {
    type: 'object',
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
  },
  [META.ObjectMeta]: objectMeta,
  [META.ListMeta]: s.obj(
    {
      continue: s.str('continue may be set if the user set a limit on the number of items returned, and indicates that the server has more data available. It is an opaque token for the next list request; it expires after a while.'),
      remainingItemCount: s.int64('remainingItemCount is the number of later items in the list not included in this response. Only set when the list is paginated and the count is known; it may be an estimate.'),
      resourceVersion: s.str(`String that identifies the server's internal version of this list, for use with watches. Read-only. More info: ${CONVENTIONS}#concurrency-control-and-consistency`),
      selfLink: s.str('Deprecated: selfLink is a legacy read-only field that the system no longer populates.'),
    },
    { description: 'ListMeta describes metadata that synthetic resources (lists) must have.' },
  ),
  [META.OwnerReference]: s.obj(
    {
      apiVersion: reqStr('API version of the referent.'),
      blockOwnerDeletion: s.bool('If true and the owner has the "foregroundDeletion" finalizer, the owner cannot be deleted from storage until this reference is removed. Setting it requires delete permission on the owner.'),
      controller: s.bool('If true, this reference points to the managing controller.'),
      kind: reqStr(`Kind of the referent. More info: ${CONVENTIONS}#types-kinds`),
      name: reqStr('Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names'),
      uid: reqStr('UID of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#uids'),
    },
    {
      description:
        'OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped, so there is no namespace field.',
      required: ['apiVersion', 'kind', 'name', 'uid'],
      mapType: 'atomic',
    },
  ),
  [META.ManagedFieldsEntry]: s.obj(
    {
      apiVersion: s.str('APIVersion of the resource the fieldset applies to; fieldsets are tracked per version.'),
      fieldsType: s.str('FieldsType is the discriminator for the fields format. The only valid value is "FieldsV1".'),
      fieldsV1: s.ref(META.FieldsV1, 'FieldsV1 holds the first JSON version format as described in the "FieldsV1" type.'),
      manager: s.str('Manager is an identifier of the workflow managing these fields.'),
      operation: s.str("Operation is the type of operation which led to this entry being created. Valid values are 'Apply' and 'Update'."),
      subresource: s.str('Subresource is the name of the subresource used to update the object, or empty for the main resource. Entries from different subresources are tracked separately even for the same manager.'),
      time: s.time('Time is the timestamp of when this entry was added, or of the last change to the managed fields by that manager.'),
    },
    { description: 'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.' },
  ),
  [META.Status]: s.obj(
    {
      apiVersion: kindHeader().apiVersion,
      code: s.int32('Suggested HTTP return code for this status, 0 if not set.'),
      details: s.ref(
        META.StatusDetails,
        'Extended data associated with the reason. Each reason may define its own details; this field is optional and the data returned is not guaranteed to conform to any schema except that defined by the reason type.',
      ),
      kind: kindHeader().kind,
      message: s.str('A human-readable description of the status of this operation.'),
      metadata: s.ref(META.ListMeta, `Standard list metadata. More info: ${CONVENTIONS}#types-kinds`, { default: {} }),
      reason: s.str('A machine-readable description of why this operation is in the "Failure" status. If empty there is no information available. A reason clarifies an HTTP status code but does not override it.'),
      status: s.str(`Status of the operation. One of: "Success" or "Failure". More info: ${CONVENTIONS}#spec-and-status`),
    },
    { description: 'Status is a return value for calls that don\'t return other objects.' },
  ),
  [META.StatusDetails]: s.obj(
    {
      causes: s.arr(item(META.StatusCause), { description: 'The Causes array includes more details associated with the StatusReason failure.' }),
      group: s.str('The group attribute of the resource associated with the status StatusReason.'),
      kind: s.str(`The kind attribute of the resource associated with the status StatusReason. More info: ${CONVENTIONS}#types-kinds`),
      name: s.str('The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described).'),
      retryAfterSeconds: s.int32('If specified, the time in seconds before the operation should be retried.'),
      uid: s.str('UID of the resource (when there is a single resource which can be described).'),
    },
    { description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.' },
  ),
  [META.StatusCause]: s.obj(
    {
      field: s.str('The field of the resource that has caused this error, as named by its JSON serialization, e.g. "name" or "items[0].name".'),
      message: s.str('A human-readable description of the cause of the error.'),
      reason: s.str('A machine-readable description of the cause of the error. If empty there is no information available.'),
    },
    { description: 'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.' },
  ),
  [META.LabelSelector]: s.obj(
    {
      matchExpressions: s.arr(item(META.LabelSelectorRequirement), { description: 'matchExpressions is a list of label selector requirements. The requirements are ANDed.' }),
      matchLabels: s.strMap('matchLabels is a map of {key,value} pairs. A single {key,value} is equivalent to a matchExpressions element whose key is "key", operator is "In" and values holds only "value". The requirements are ANDed.'),
    },
    {
      description:
        'A label selector is a label query over a set of resources. matchLabels and matchExpressions are ANDed. An empty selector matches all objects; a null one matches none.',
      mapType: 'atomic',
    },
  ),
  [META.LabelSelectorRequirement]: s.obj(
    {
      key: reqStr('key is the label key that the selector applies to.'),
      operator: reqStr("operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist."),
      values: s.arr(reqStr(), { description: 'values is an array of string values. For In and NotIn it must be non-empty; for Exists and DoesNotExist it must be empty. Replaced as a whole by a strategic merge patch.' }),
    },
    {
      description: 'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
      required: ['key', 'operator'],
    },
  ),
  [META.Preconditions]: s.obj(
    {
      resourceVersion: s.str('Specifies the target ResourceVersion'),
      uid: s.str('Specifies the target UID.'),
    },
    { description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.' },
  ),
  [META.DeleteOptions]: s.obj(
    {
      apiVersion: kindHeader().apiVersion,
      dryRun: s.arr(reqStr(), { description: 'When present, modifications are not persisted. An invalid or unrecognized dryRun directive results in an error and no further processing. The only valid value is "All".' }),
      gracePeriodSeconds: s.int64('The duration in seconds before the object should be deleted. Must be non-negative; zero means delete immediately. If unset, the default for the type is used.'),
      ignoreStoreReadErrorWithClusterBreakingPotential: s.bool('If true, unsafely delete a resource whose stored data cannot be decoded or transformed, bypassing the usual deletion flow. Requires the "delete-ignore-read-errors" permission; may break the cluster if misused.'),
      kind: kindHeader().kind,
      orphanDependents: s.bool('Deprecated: please use propagationPolicy; this field will be removed. Should the dependent objects be orphaned: if true the "orphan" finalizer is added, if false it is removed. Either this field or propagationPolicy may be set, not both.'),
      preconditions: s.ref(
        META.Preconditions,
        'Must be fulfilled before a deletion is carried out. If not possible, a 409 Conflict status will be returned.',
      ),
      propagationPolicy: s.str("Whether and how garbage collection will be performed. Either this field or orphanDependents may be set, not both. The default is set by the existing finalizers and the resource's default policy. Values: 'Orphan' orphans the dependents; 'Background' deletes the dependents in the background; 'Foreground' deletes all dependents first (cascading)."),
    },
    { description: 'DeleteOptions may be provided when deleting an API object.' },
  ),
  [META.WatchEvent]: s.obj(
    {
      object: s.ref(
        META.RawExtension,
        'Object is: the object as of the event for ADDED and MODIFIED; the object as it was just before deletion for DELETED; a Status for ERROR; an object with only the new resourceVersion for BOOKMARK.',
      ),
      type: reqStr('Type of the event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
    },
    { description: 'Event represents a single event to a watched resource.', required: ['type', 'object'] },
  ),
  [META.Condition]: s.obj(
    {
      lastTransitionTime: s.time('lastTransitionTime is the last time the condition moved from one status to another, normally when the underlying condition changed. If that is unknown, use the time the API field changed.'),
      message: reqStr('message is a human readable message indicating details about the transition. This may be an empty string.'),
      observedGeneration: s.int64('observedGeneration is the .metadata.generation the condition was set based upon; if it is older than the current generation the condition is out of date.'),
      reason: s.str(
        'reason contains a programmatic identifier indicating the reason for the condition\'s last transition, in CamelCase. It may not be empty.',
        { default: '' },
      ),
      status: reqStr('status of the condition, one of True, False, Unknown.'),
      type: reqStr('type of condition in CamelCase or in foo.example.com/CamelCase.'),
    },
    {
      description: 'Condition contains details for one aspect of the current state of this API Resource.',
      required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    },
  ),
  ...discoveryDefinitions(),
};

function discoveryDefinitions(): Definitions {
  const h = kindHeader();
  const strList = (d: string) => s.arr(reqStr(), { description: d });
  return {
    [META.GroupVersionForDiscovery]: s.obj(
      {
        groupVersion: reqStr('groupVersion specifies the API group and version in the form "group/version"'),
        version: reqStr('version specifies the version in the form of "version", to save clients the trouble of splitting it from groupVersion.'),
      },
      { description: 'GroupVersion contains the "group/version" and "version" strings of a version. It is a struct so it can be extended.', required: ['groupVersion', 'version'] },
    ),
    [META.ServerAddressByClientCIDR]: s.obj(
      {
        clientCIDR: reqStr('The CIDR with which clients can match their IP to figure out the server address that they should use.'),
        serverAddress: reqStr('Address of this server, suitable for a client that matches the above CIDR. Can be a hostname, hostname:port, IP or IP:port.'),
      },
      { description: 'ServerAddressByClientCIDR helps the client determine the server address it should use, depending on the clientCIDR it matches.', required: ['clientCIDR', 'serverAddress'] },
    ),
    [META.APIResource]: s.obj(
      {
        categories: strList("categories is a list of the grouped resources this resource belongs to (e.g. 'all')"),
        group: s.str('group is the preferred group of the resource. Empty implies the group of the containing resource list.'),
        kind: reqStr("kind is the kind for the resource (e.g. 'Foo' is the kind for a resource 'foo')"),
        name: reqStr('name is the plural name of the resource.'),
        namespaced: s.bool('namespaced indicates if a resource is namespaced or not.', { default: false }),
        shortNames: strList('shortNames is a list of suggested short names of the resource.'),
        singularName: reqStr('singularName is the singular name of the resource, used by clients such as kubectl.'),
        storageVersionHash: s.str('The hash value of the storage version, the version this resource is converted to when written to the data store. Clients may only compare it for equality.'),
        verbs: strList('verbs is a list of supported kube verbs (this includes get, list, watch, create, update, patch, delete, deletecollection, and proxy)'),
        version: s.str('version is the preferred version of the resource. Empty implies the version of the containing resource list.'),
      },
      { description: 'APIResource specifies the name of a resource and whether it is namespaced.', required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'] },
    ),
    [META.APIResourceList]: s.obj(
      {
        apiVersion: h.apiVersion,
        groupVersion: reqStr('groupVersion is the group and version this APIResourceList is for.'),
        kind: h.kind,
        resources: s.arr(item(META.APIResource), { description: 'resources contains the name of the resources and if they are namespaced.' }),
      },
      { description: 'APIResourceList is a list of APIResource, used to expose the name of the resources supported in a specific group and version.', required: ['groupVersion', 'resources'] },
    ),
    [META.APIGroup]: s.obj(
      {
        apiVersion: h.apiVersion,
        kind: h.kind,
        name: reqStr('name is the name of the group.'),
        preferredVersion: s.ref(META.GroupVersionForDiscovery, 'preferredVersion is the version preferred by the API server, which probably is the storage version.', { default: {} }),
        serverAddressByClientCIDRs: s.arr(item(META.ServerAddressByClientCIDR), { description: 'A map of client CIDR to server address that is serving this group, used by clients to find the server address to use.' }),
        versions: s.arr(item(META.GroupVersionForDiscovery), { description: 'versions are the versions supported in this group.' }),
      },
      { description: 'APIGroup contains the name, the supported versions, and the preferred version of a group.', required: ['name', 'versions'] },
    ),
    [META.APIGroupList]: s.obj(
      {
        apiVersion: h.apiVersion,
        groups: s.arr(item(META.APIGroup), { description: 'groups is a list of APIGroup.' }),
        kind: h.kind,
      },
      { description: 'APIGroupList is a list of APIGroup, to allow clients to discover the API at /apis.', required: ['groups'] },
    ),
    [META.APIVersions]: s.obj(
      {
        apiVersion: h.apiVersion,
        kind: h.kind,
        serverAddressByClientCIDRs: s.arr(item(META.ServerAddressByClientCIDR), { description: 'A map of client CIDR to server address that is serving this group, used by clients to find the server address to use.' }),
        versions: strList('versions are the api versions that are available.'),
      },
      { description: 'APIVersions lists the versions that are available, to allow clients to discover the API at /api, which is the root path of the legacy v1 API.', required: ['versions', 'serverAddressByClientCIDRs'] },
    ),
  };
}

export const metaDefinitions: Definitions = defs;
