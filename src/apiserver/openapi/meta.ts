// Names of the apimachinery definitions every OpenAPI document refers to (list metadata, request and response
// bodies of the generic verbs), and small stand-ins used only when the cluster's SchemaSet lacks one: a dangling
// $ref makes kubectl reject the whole /openapi/v2 document, and with it every `kubectl apply`.
import { s, type Definitions } from '../../machinery/schema.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

export const DEF = {
  objectMeta: `${META}.ObjectMeta`,
  listMeta: `${META}.ListMeta`,
  status: `${META}.Status`,
  statusDetails: `${META}.StatusDetails`,
  statusCause: `${META}.StatusCause`,
  deleteOptions: `${META}.DeleteOptions`,
  preconditions: `${META}.Preconditions`,
  watchEvent: `${META}.WatchEvent`,
  patch: `${META}.Patch`,
  rawExtension: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
  scale: 'io.k8s.api.autoscaling.v1.Scale',
  scaleSpec: 'io.k8s.api.autoscaling.v1.ScaleSpec',
  scaleStatus: 'io.k8s.api.autoscaling.v1.ScaleStatus',
} as const;

export const SCALE_GVK = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

const API_VERSION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.';
const KIND =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.';

export const typeMetaProps = () => ({ apiVersion: s.str(API_VERSION), kind: s.str(KIND) });

export const META_FALLBACKS: Definitions = {
  [DEF.listMeta]: s.obj(
    {
      continue: s.str('continue may be set if the user set a limit on the number of items returned.'),
      remainingItemCount: s.int64('The number of subsequent items in the list which are not included in this list response.'),
      resourceVersion: s.str('String that identifies the server\'s internal version of this object.'),
      selfLink: s.str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
    },
    { description: 'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.' },
  ),
  [DEF.status]: s.obj(
    {
      ...typeMetaProps(),
      code: s.int32('Suggested HTTP return code for this status, 0 if not set.'),
      details: s.ref(DEF.statusDetails, 'Extended data associated with the reason.'),
      message: s.str('A human-readable description of the status of this operation.'),
      metadata: s.ref(DEF.listMeta, 'Standard list metadata.', { default: {} }),
      reason: s.str('A machine-readable description of why this operation is in the "Failure" status.'),
      status: s.str('Status of the operation. One of: "Success" or "Failure".'),
    },
    { description: 'Status is a return value for calls that don\'t return other objects.' },
  ),
  [DEF.statusDetails]: s.obj(
    {
      causes: s.arr(s.ref(DEF.statusCause, undefined, { default: {} }), { description: 'The Causes array includes more details associated with the StatusReason failure.' }),
      group: s.str('The group attribute of the resource associated with the status StatusReason.'),
      kind: s.str('The kind attribute of the resource associated with the status StatusReason.'),
      name: s.str('The name attribute of the resource associated with the status StatusReason.'),
      retryAfterSeconds: s.int32('If specified, the time in seconds before the operation should be retried.'),
      uid: s.str('UID of the resource.'),
    },
    { description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.' },
  ),
  [DEF.statusCause]: s.obj(
    {
      field: s.str('The field of the resource that has caused this error, as named by its JSON serialization.'),
      message: s.str('A human-readable description of the cause of the error.'),
      reason: s.str('A machine-readable description of the cause of the error.'),
    },
    { description: 'StatusCause provides more information about an api.Status failure.' },
  ),
  [DEF.deleteOptions]: s.obj(
    {
      ...typeMetaProps(),
      dryRun: s.arr(s.str(undefined, { default: '' }), { description: 'When present, indicates that modifications should not be persisted.' }),
      gracePeriodSeconds: s.int64('The duration in seconds before the object should be deleted.'),
      orphanDependents: s.bool('Deprecated: please use the PropagationPolicy.'),
      preconditions: s.ref(DEF.preconditions, 'Must be fulfilled before a deletion is carried out.'),
      propagationPolicy: s.str('Whether and how garbage collection will be performed: Orphan, Background or Foreground.'),
    },
    { description: 'DeleteOptions may be provided when deleting an API object.' },
  ),
  [DEF.preconditions]: s.obj(
    { resourceVersion: s.str('Specifies the target ResourceVersion'), uid: s.str('Specifies the target UID.') },
    { description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.' },
  ),
  [DEF.watchEvent]: s.obj(
    {
      object: s.ref(DEF.rawExtension, 'Object is: * If Type is Added or Modified: the new state of the object. * If Type is Deleted: the state of the object immediately before deletion. * If Type is Error: *Status is recommended.'),
      type: s.str(undefined, { default: '' }),
    },
    { description: 'Event represents a single event to a watched resource.', required: ['type', 'object'] },
  ),
  [DEF.rawExtension]: { type: 'object', description: 'RawExtension is used to hold extensions in external versions.' },
  [DEF.patch]: { type: 'object', description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.' },
  [DEF.scale]: s.obj(
    {
      ...typeMetaProps(),
      metadata: s.ref(DEF.objectMeta, 'Standard object metadata.', { default: {} }),
      spec: s.ref(DEF.scaleSpec, 'spec defines the behavior of the scale.', { default: {} }),
      status: s.ref(DEF.scaleStatus, 'status is the current status of the scale. Read-only.', { default: {} }),
    },
    { description: 'Scale represents a scaling request for a resource.' },
  ),
  [DEF.scaleSpec]: s.obj({ replicas: s.int32('replicas is the desired number of instances for the scaled object.') }, { description: 'ScaleSpec describes the attributes of a scale subresource.' }),
  [DEF.scaleStatus]: s.obj(
    {
      replicas: s.int32('replicas is the actual number of observed instances of the scaled object.', { default: 0 }),
      selector: s.str('selector is the label query over pods that should match the replicas count, in the serialized form of a label selector.'),
    },
    { description: 'ScaleStatus represents the current status of a scale subresource.', required: ['replicas'] },
  ),
};
