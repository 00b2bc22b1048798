// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding: pkg/registry/rbac/*/strategy.go
// (no status, no generation, create on update allowed), defaults from pkg/apis/rbac/v1/defaults.go, printers
// in pkg/printers/internalversion/printers.go (roles have none: the default NAME / CREATED AT table).
// Enforced elsewhere: authorization (apiserver/auth), the escalation check on role and binding writes
// (apiserver/admission/rbac-escalation.ts), and the aggregation controller that fills aggregated ClusterRoles.
import type { Definitions } from '../../machinery/schema.js';
import { ageColumn, nameColumn } from '../format.js';
import { RBAC, rbacDefinitions as schemaDefinitions } from './schema.js';
import {
  defaultBinding,
  rbacNameErrors,
  RBAC_GROUP,
  validateBinding,
  validateClusterRole,
  validateRole,
  validateRoleRefUnchanged,
  type ClusterRole,
  type Role,
  type RoleBinding,
} from './validation.js';
import { defineResource, type ResourceDefinition, type TableColumn } from '../types.js';

export { RBAC } from './schema.js';
export * from './validation.js';

export const rbacDefinitions: Definitions = schemaDefinitions;

/** rbac.SubjectsStrings: users, groups and "namespace/name" service accounts, for the wide columns. */
export function subjectsStrings(rb: RoleBinding): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of rb.subjects ?? []) {
    if (s?.kind === 'ServiceAccount') out.serviceAccounts.push(`${s.namespace ?? ''}/${s.name ?? ''}`);
    else if (s?.kind === 'User') out.users.push(s.name ?? '');
    else if (s?.kind === 'Group') out.groups.push(s.name ?? '');
  }
  return out;
}

function bindingColumns(): TableColumn<RoleBinding>[] {
  const wide = (name: string, description: string, pick: (x: ReturnType<typeof subjectsStrings>) => string[]): TableColumn<RoleBinding> => ({
    name,
    type: 'string',
    priority: 1,
    description,
    cell: (o) => pick(subjectsStrings(o)).join(', '),
  });
  return [
    nameColumn(),
    {
      name: 'Role',
      type: 'string',
      description: schemaDefinitions[`${RBAC}RoleBinding`].properties!.roleRef.description!,
      cell: (o) => `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}`,
    },
    ageColumn(),
    wide('Users', 'Users in the roleBinding', (x) => x.users),
    wide('Groups', 'Groups in the roleBinding', (x) => x.groups),
    wide('ServiceAccounts', 'ServiceAccounts in the roleBinding', (x) => x.serviceAccounts),
  ];
}

const common = { group: RBAC_GROUP, version: 'v1', definitions: schemaDefinitions };

export const roleResource = defineResource<Role>({
  ...common,
  kind: 'Role',
  plural: 'roles',
  singular: 'role',
  namespaced: true,
  schemaRef: `${RBAC}Role`,
  columns: [],
  strategy: { validate: validateRole, validateName: rbacNameErrors, allowCreateOnUpdate: true },
});

export const clusterRoleResource = defineResource<ClusterRole>({
  ...common,
  kind: 'ClusterRole',
  plural: 'clusterroles',
  singular: 'clusterrole',
  namespaced: false,
  schemaRef: `${RBAC}ClusterRole`,
  columns: [],
  strategy: { validate: validateClusterRole, validateName: rbacNameErrors, allowCreateOnUpdate: true },
});

export const roleBindingResource = defineResource<RoleBinding>({
  ...common,
  kind: 'RoleBinding',
  plural: 'rolebindings',
  singular: 'rolebinding',
  namespaced: true,
  schemaRef: `${RBAC}RoleBinding`,
  columns: bindingColumns(),
  strategy: {
    defaults: defaultBinding,
    validate: (rb) => validateBinding(rb, true),
    validateUpdate: validateRoleRefUnchanged,
    validateName: rbacNameErrors,
    allowCreateOnUpdate: true,
  },
});

export const clusterRoleBindingResource = defineResource<RoleBinding>({
  ...common,
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  namespaced: false,
  schemaRef: `${RBAC}ClusterRoleBinding`,
  columns: bindingColumns(),
  strategy: {
    defaults: defaultBinding,
    validate: (rb) => validateBinding(rb, false),
    validateUpdate: validateRoleRefUnchanged,
    validateName: rbacNameErrors,
    allowCreateOnUpdate: true,
  },
});

export const rbacResources: ResourceDefinition[] = [
  clusterRoleBindingResource,
  clusterRoleResource,
  roleBindingResource,
  roleResource,
];
