// RBAC privilege-escalation prevention (kube-apiserver's policybased storage of the four RBAC kinds): a Role or
// ClusterRole may only grant what its writer already holds (in the role's namespace; cluster-wide for ClusterRoles)
// unless the writer may `escalate` it; a binding may only bind a role whose rules its writer holds (in the
// binding's namespace) unless the writer may `bind` it. system:masters skips the check. With no authorizer (an
// in-process registry) there is nothing to hold permissions against, so nothing is checked.
import type { KObject } from '../../api/types.js';
import { MASTERS_GROUP } from '../../api/auth/index.js';
import { escalationError } from '../../api/rbac/covers.js';
import { ALL_RULES, RBAC_GROUP, type AccessDecider, type PolicyRule, type RequestAttributes } from '../../api/rbac/rules.js';
import { errors, goQuote, grString, type GroupResource } from '../../machinery/errors.js';
import { deepEqual } from '../../machinery/object.js';
import type { UserInfo } from '../context.js';
import type { ResourceStore } from '../registry/store.js';
import type { AdmissionPlugin } from './chain.js';

interface RbacObject extends KObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: unknown[] | null } | null;
  roleRef?: { apiGroup?: string; kind?: string; name?: string };
}

export interface EscalationDeps {
  /** the API server's authorizer, once there is one */
  authorizer: () => AccessDecider | undefined;
  /** the roles and clusterroles stores: a binding's role is read as stored, not as a cache last saw it */
  lookup: (plural: 'roles' | 'clusterroles') => ResourceStore;
}

const ROLES = new Set(['roles', 'clusterroles']);
const BINDINGS = new Set(['rolebindings', 'clusterrolebindings']);

export function rbacEscalation(deps: EscalationDeps): AdmissionPlugin {
  return {
    name: 'RBACEscalationPrevention',
    admit(a) {
      if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || a.subresource || a.store.def.group !== RBAC_GROUP) return;
      const plural = a.store.def.plural;
      if (!ROLES.has(plural) && !BINDINGS.has(plural)) return;
      const authorizer = deps.authorizer();
      const user = a.ctx.user;
      if (!authorizer || user.groups.includes(MASTERS_GROUP)) return;
      // the garbage collector must be able to drop owner references and finalizers of any role or binding
      if (a.old && onlyGCFieldsChange(a.object, a.old)) return;
      const obj = a.object as RbacObject;
      if (ROLES.has(plural)) return checkRole(authorizer, user, a.store.gr, obj, a.old as RbacObject | undefined, a.namespace, a.operation);
      return checkBinding(deps, authorizer, user, a.store.gr, obj, a.namespace);
    },
  };
}

function checkRole(authorizer: AccessDecider, user: UserInfo, gr: GroupResource, obj: RbacObject, old: RbacObject | undefined, namespace: string, op: string): void {
  // a create's request names no object, so `escalate` limited to names only helps updates (as in kube)
  const name = op === 'UPDATE' ? obj.metadata.name! : '';
  if (allowed(authorizer, user, { verb: 'escalate', apiGroup: RBAC_GROUP, apiVersion: '*', resource: gr.resource, namespace, name })) return;
  const held = resolve(authorizer, user, namespace);
  const err = escalationError(user, held.rules, obj.rules ?? [], held.errors);
  if (err) throw forbidden(gr, obj.metadata.name!, err);
  // an aggregationRule can gather any rule, so setting or changing one takes every permission
  if (gr.resource === 'clusterroles' && (hasAggregation(obj) || hasAggregation(old)) && escalationError(user, held.rules, ALL_RULES)) {
    throw forbidden(gr, obj.metadata.name!, 'must have cluster-admin privileges to use the aggregationRule');
  }
}

async function checkBinding(deps: EscalationDeps, authorizer: AccessDecider, user: UserInfo, gr: GroupResource, obj: RbacObject, namespace: string): Promise<void> {
  const ref = obj.roleRef ?? {};
  if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole') return; // validation refuses it
  const resource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
  if (allowed(authorizer, user, { verb: 'bind', apiGroup: ref.apiGroup ?? '', resource, namespace, name: ref.name ?? '' })) return;
  // a missing role answers 404, as kube's rule resolver does
  const role = (await deps.lookup(resource).get(ref.kind === 'Role' ? namespace : '', ref.name ?? '')) as RbacObject;
  const held = resolve(authorizer, user, namespace);
  const err = escalationError(user, held.rules, role.rules ?? [], held.errors);
  if (err) throw forbidden(gr, obj.metadata.name!, err);
}

function allowed(authorizer: AccessDecider, user: UserInfo, attrs: Omit<RequestAttributes, 'resourceRequest' | 'subresource' | 'path'>): boolean {
  return authorizer.authorize(user, { ...attrs, resourceRequest: true, subresource: '', path: '' }).allowed;
}

function resolve(authorizer: AccessDecider, user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
  return authorizer.resolveRules?.(user, namespace) ?? { rules: authorizer.rulesFor(user, namespace), errors: [] };
}

const hasAggregation = (r: RbacObject | undefined) => !!r?.aggregationRule?.clusterRoleSelectors?.length;

/** kube's NewForbidden text for a named object */
function forbidden(gr: GroupResource, name: string, reason: string) {
  return errors.forbidden(gr, name, name ? `${grString(gr)} ${goQuote(name)} is forbidden: ${reason}` : `${grString(gr)} is forbidden: ${reason}`);
}

/** Whether the update changes nothing but owner references and finalizers (what the garbage collector writes). */
function onlyGCFieldsChange(obj: KObject, old: KObject): boolean {
  const strip = (o: KObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, ...meta } = o.metadata as Record<string, unknown>;
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(obj), strip(old));
}
