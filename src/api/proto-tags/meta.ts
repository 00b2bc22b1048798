// Protobuf field numbers of apimachinery meta/v1 types, by OpenAPI definition and JSON field name.
// Generated from the Go struct tags (`protobuf:"..."`, `json:"..."`) of k8s.io/apimachinery v0.33.13
// pkg/apis/meta/v1. Time, MicroTime, Duration, FieldsV1, Quantity, IntOrString and RawExtension are decoded specially.
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const M = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });

export const metaProtoTags: ProtoTags = {
  [M + 'TypeMeta']: { kind: 1, apiVersion: 2 },
  [M + 'ListMeta']: { selfLink: 1, resourceVersion: 2, continue: 3, remainingItemCount: k(4) },
  [M + 'ObjectMeta']: {
    name: 1, generateName: 2, namespace: 3, selfLink: 4, uid: 5, resourceVersion: 6, generation: 7, creationTimestamp: 8,
    deletionTimestamp: 9, deletionGracePeriodSeconds: k(10), labels: 11, annotations: 12, ownerReferences: 13, finalizers: 14,
    managedFields: 17,
  },
  [M + 'OwnerReference']: { apiVersion: k(5), kind: k(1), name: k(3), uid: k(4), controller: k(6), blockOwnerDeletion: k(7) },
  [M + 'ListOptions']: {
    apiVersion: 0, kind: 0, labelSelector: 1, fieldSelector: 2, watch: 3, allowWatchBookmarks: 9, resourceVersion: 4,
    resourceVersionMatch: 10, timeoutSeconds: k(5), limit: 7, continue: 8, sendInitialEvents: k(11),
  },
  [M + 'GetOptions']: { apiVersion: 0, kind: 0, resourceVersion: 1 },
  [M + 'DeleteOptions']: {
    apiVersion: 0, kind: 0, gracePeriodSeconds: k(1), preconditions: 2, orphanDependents: k(3), propagationPolicy: k(4),
    dryRun: 5, ignoreStoreReadErrorWithClusterBreakingPotential: k(6),
  },
  [M + 'CreateOptions']: { apiVersion: 0, kind: 0, dryRun: 1, fieldManager: 3, fieldValidation: 4 },
  [M + 'PatchOptions']: { apiVersion: 0, kind: 0, dryRun: 1, force: k(2), fieldManager: 3, fieldValidation: 4 },
  [M + 'ApplyOptions']: { apiVersion: 0, kind: 0, dryRun: 1, force: k(2), fieldManager: k(3) },
  [M + 'UpdateOptions']: { apiVersion: 0, kind: 0, dryRun: 1, fieldManager: 2, fieldValidation: 3 },
  [M + 'Preconditions']: { uid: k(1), resourceVersion: k(2) },
  [M + 'Status']: { apiVersion: 0, kind: 0, metadata: 1, status: 2, message: 3, reason: 4, details: 5, code: 6 },
  [M + 'StatusDetails']: { name: 1, group: 2, kind: 3, uid: 6, causes: 4, retryAfterSeconds: 5 },
  [M + 'StatusCause']: { reason: 1, message: 2, field: 3 },
  [M + 'List']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [M + 'APIVersions']: { apiVersion: 0, kind: 0, versions: 1, serverAddressByClientCIDRs: 2 },
  [M + 'APIGroupList']: { apiVersion: 0, kind: 0, groups: 1 },
  [M + 'APIGroup']: { apiVersion: 0, kind: 0, name: k(1), versions: 2, preferredVersion: 3, serverAddressByClientCIDRs: 4 },
  [M + 'ServerAddressByClientCIDR']: { clientCIDR: k(1), serverAddress: k(2) },
  [M + 'GroupVersionForDiscovery']: { groupVersion: k(1), version: k(2) },
  [M + 'APIResource']: {
    name: k(1), singularName: k(6), namespaced: k(2), group: 8, version: 9, kind: k(3), verbs: 4, shortNames: 5, categories: 7,
    storageVersionHash: 10,
  },
  [M + 'APIResourceList']: { apiVersion: 0, kind: 0, groupVersion: k(1), resources: 2 },
  [M + 'RootPaths']: { paths: 1 },
  [M + 'LabelSelector']: { matchLabels: 1, matchExpressions: 2 },
  [M + 'LabelSelectorRequirement']: { key: k(1), operator: k(2), values: 3 },
  [M + 'FieldSelectorRequirement']: { key: k(1), operator: k(2), values: 3 },
  [M + 'ManagedFieldsEntry']: { manager: 1, operation: 2, apiVersion: 3, time: 4, fieldsType: 6, fieldsV1: 7, subresource: 8 },
  [M + 'FieldsV1']: { '-': k(1) },
  [M + 'Table']: { apiVersion: 0, kind: 0 },
  [M + 'TableOptions']: { apiVersion: 0, kind: 0, includeObject: 1 },
  [M + 'PartialObjectMetadata']: { apiVersion: 0, kind: 0, metadata: 1 },
  [M + 'PartialObjectMetadataList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [M + 'Condition']: { type: k(1), status: k(2), observedGeneration: 3, lastTransitionTime: 4, reason: k(5), message: k(6) },
  [M + 'WatchEvent']: { type: k(1), object: 2 },
  [M + 'GroupResource']: { group: k(1), resource: k(2) },
  [M + 'GroupVersionResource']: { group: k(1), version: k(2), resource: k(3) },
  [M + 'GroupKind']: { group: k(1), kind: k(2) },
  [M + 'GroupVersionKind']: { group: k(1), version: k(2), kind: k(3) },
  [M + 'GroupVersion']: { group: k(1), version: k(2) },
};
