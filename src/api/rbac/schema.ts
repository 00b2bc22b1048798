// rbac.authorization.k8s.io/v1 schema definitions (staging/src/k8s.io/api/rbac/v1/types.go): every list is
// +listType=atomic, Subject and RoleRef are +structType=atomic.
import { s, type Definitions } from '../../machinery/schema.js';
import { kindHeader, listDefinition, META } from '../meta.js';

export const RBAC = 'io.k8s.api.rbac.v1.';

const strList = (description: string) => s.arr(s.str(undefined, { default: '' }), { description });
const reqStr = (description: string) => s.str(description, { default: '' });

const rules = s.arr(s.ref(`${RBAC}PolicyRule`, undefined, { default: {} }), {
  description: 'Rules holds all the PolicyRules for this role.',
});

const roleRef = s.ref(
  `${RBAC}RoleRef`,
  'RoleRef can only reference a ClusterRole in the global namespace, or (for a RoleBinding) a Role in its own namespace. It cannot be changed once set: delete and recreate the binding instead.',
  { default: {} },
);

const subjects = (what: string) =>
  s.arr(s.ref(`${RBAC}Subject`, undefined, { default: {} }), { description: `Subjects holds references to the objects ${what} applies to.` });

export const rbacDefinitions: Definitions = {
  [`${RBAC}PolicyRule`]: s.obj(
    {
      apiGroups: strList(
        'APIGroups names the API groups of the resources. "" is the core group; "*" matches every group. Required unless nonResourceURLs is set.',
      ),
      nonResourceURLs: strList(
        'NonResourceURLs is a set of partial URLs (e.g. "/healthz", or "/api/*" with a trailing wildcard) a user may access. Only allowed in ClusterRoles bound through a ClusterRoleBinding, and not together with resource rules.',
      ),
      resourceNames: strList('ResourceNames is an optional allow-list of object names the rule applies to. Empty means all names.'),
      resources: strList('Resources is a list of resources the rule applies to; "*" means all resources in the listed groups.'),
      verbs: strList('Verbs lists the allowed verbs (get, list, create, ...) for the resources and URLs of this rule. "*" means all verbs.'),
    },
    {
      description:
        'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
      required: ['verbs'],
    },
  ),
  [`${RBAC}Subject`]: s.obj(
    {
      apiGroup: s.str(
        'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects and to "rbac.authorization.k8s.io" for User and Group subjects.',
      ),
      kind: reqStr('Kind of object being referenced: "User", "Group" or "ServiceAccount". Other values make validation fail.'),
      name: reqStr('Name of the object being referenced.'),
      namespace: s.str(
        'Namespace of the referenced object. Required for a ServiceAccount in a ClusterRoleBinding; must be empty for User and Group subjects.',
      ),
    },
    {
      description:
        'Subject contains a reference to the object or user identities a role binding applies to. This can either hold a direct API object reference, or a value for non-objects such as user and group names.',
      required: ['kind', 'name'],
      mapType: 'atomic',
    },
  ),
  [`${RBAC}RoleRef`]: s.obj(
    {
      apiGroup: reqStr('APIGroup is the group for the resource being referenced.'),
      kind: reqStr('Kind is the type of resource being referenced: Role or ClusterRole.'),
      name: reqStr('Name is the name of resource being referenced.'),
    },
    { description: 'RoleRef contains information that points to the role being used', required: ['apiGroup', 'kind', 'name'], mapType: 'atomic' },
  ),
  [`${RBAC}AggregationRule`]: s.obj(
    {
      clusterRoleSelectors: s.arr(s.ref(META.LabelSelector, undefined, { default: {} }), {
        description:
          "ClusterRoleSelectors holds a list of selectors used to find ClusterRoles and create the rules. If any selector matches, the ClusterRole's permissions are added.",
      }),
    },
    { description: 'AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole' },
  ),
  [`${RBAC}Role`]: s.obj(
    { ...kindHeader(), rules },
    { description: 'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.' },
  ),
  [`${RBAC}ClusterRole`]: s.obj(
    {
      ...kindHeader(),
      aggregationRule: s.ref(
        `${RBAC}AggregationRule`,
        'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If set, the rules are controller-managed: direct changes to them are overwritten by the aggregation controller.',
      ),
      rules,
    },
    {
      description:
        'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
    },
  ),
  [`${RBAC}RoleBinding`]: s.obj(
    { ...kindHeader(), roleRef, subjects: subjects('the role') },
    {
      description:
        'RoleBinding grants the permissions of a Role in its own namespace, or of a ClusterRole, to its subjects. It refers to the role rather than containing it, and only has effect in the namespace it lives in.',
      required: ['roleRef'],
    },
  ),
  [`${RBAC}ClusterRoleBinding`]: s.obj(
    { ...kindHeader(), roleRef, subjects: subjects('the role') },
    {
      description:
        'ClusterRoleBinding grants the permissions of a referenced ClusterRole to its subjects across the whole cluster. It refers to the role rather than containing it.',
      required: ['roleRef'],
    },
  ),
  [`${RBAC}RoleList`]: listDefinition(`${RBAC}Role`, 'RoleList is a collection of Roles', 'Items is a list of Roles'),
  [`${RBAC}ClusterRoleList`]: listDefinition(`${RBAC}ClusterRole`, 'ClusterRoleList is a collection of ClusterRoles', 'Items is a list of ClusterRoles'),
  [`${RBAC}RoleBindingList`]: listDefinition(`${RBAC}RoleBinding`, 'RoleBindingList is a collection of RoleBindings', 'Items is a list of RoleBindings'),
  [`${RBAC}ClusterRoleBindingList`]: listDefinition(
    `${RBAC}ClusterRoleBinding`,
    'ClusterRoleBindingList is a collection of ClusterRoleBindings',
    'Items is a list of ClusterRoleBindings',
  ),
};
