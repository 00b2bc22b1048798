// Protobuf field numbers of authorization.k8s.io/v1, authentication.k8s.io/v1 and rbac.authorization.k8s.io/v1 types.
// Generated from the Go struct tags (`protobuf:"..."`, `json:"..."`) of k8s.io/api v0.33.13.
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const AZ = 'io.k8s.api.authorization.v1.';
const AN = 'io.k8s.api.authentication.v1.';
const R = 'io.k8s.api.rbac.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });

export const authProtoTags: ProtoTags = {
  [AZ + 'SubjectAccessReview']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [AZ + 'SelfSubjectAccessReview']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [AZ + 'LocalSubjectAccessReview']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [AZ + 'ResourceAttributes']: {
    namespace: 1, verb: 2, group: 3, version: 4, resource: 5, subresource: 6, name: 7, fieldSelector: 8, labelSelector: 9,
  },
  [AZ + 'LabelSelectorAttributes']: { rawSelector: 1, requirements: 2 },
  [AZ + 'FieldSelectorAttributes']: { rawSelector: 1, requirements: 2 },
  [AZ + 'NonResourceAttributes']: { path: 1, verb: 2 },
  [AZ + 'SubjectAccessReviewSpec']: { resourceAttributes: 1, nonResourceAttributes: 2, user: 3, groups: 4, extra: 5, uid: 6 },
  [AZ + 'SelfSubjectAccessReviewSpec']: { resourceAttributes: 1, nonResourceAttributes: 2 },
  [AZ + 'SubjectAccessReviewStatus']: { allowed: k(1), denied: 4, reason: 2, evaluationError: 3 },
  [AZ + 'SelfSubjectRulesReview']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [AZ + 'SelfSubjectRulesReviewSpec']: { namespace: 1 },
  [AZ + 'SubjectRulesReviewStatus']: { resourceRules: 1, nonResourceRules: 2, incomplete: k(3), evaluationError: 4 },
  [AZ + 'ResourceRule']: { verbs: 1, apiGroups: 2, resources: 3, resourceNames: 4 },
  [AZ + 'NonResourceRule']: { verbs: 1, nonResourceURLs: 2 },
  [AN + 'TokenReview']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [AN + 'TokenReviewSpec']: { token: 1, audiences: 2 },
  [AN + 'TokenReviewStatus']: { authenticated: 1, user: 2, audiences: 4, error: 3 },
  [AN + 'UserInfo']: { username: 1, uid: 2, groups: 3, extra: 4 },
  [AN + 'TokenRequest']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [AN + 'TokenRequestSpec']: { audiences: 1, expirationSeconds: k(4), boundObjectRef: 3 },
  [AN + 'TokenRequestStatus']: { token: k(1), expirationTimestamp: 2 },
  [AN + 'BoundObjectReference']: { kind: 1, apiVersion: 2, name: 3, uid: 4 },
  [AN + 'SelfSubjectReview']: { apiVersion: 0, kind: 0, metadata: 1, status: 2 },
  [AN + 'SelfSubjectReviewStatus']: { userInfo: 1 },
  [R + 'PolicyRule']: { verbs: 1, apiGroups: 2, resources: 3, resourceNames: 4, nonResourceURLs: 5 },
  [R + 'Subject']: { kind: k(1), apiGroup: 2, name: k(3), namespace: 4 },
  [R + 'RoleRef']: { apiGroup: k(1), kind: k(2), name: k(3) },
  [R + 'Role']: { apiVersion: 0, kind: 0, metadata: 1, rules: 2 },
  [R + 'RoleBinding']: { apiVersion: 0, kind: 0, metadata: 1, subjects: 2, roleRef: 3 },
  [R + 'RoleBindingList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [R + 'RoleList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [R + 'ClusterRole']: { apiVersion: 0, kind: 0, metadata: 1, rules: 2, aggregationRule: 3 },
  [R + 'AggregationRule']: { clusterRoleSelectors: 1 },
  [R + 'ClusterRoleBinding']: { apiVersion: 0, kind: 0, metadata: 1, subjects: 2, roleRef: 3 },
  [R + 'ClusterRoleBindingList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [R + 'ClusterRoleList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
};
