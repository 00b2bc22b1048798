// The RBAC authorizer (kube-apiserver --authorization-mode=RBAC): allows a request when a ClusterRoleBinding, or a
// RoleBinding in the request's namespace, binds a subject matching the user to a role with a rule that covers it.
// system:masters is always allowed (kube's privileged-group authorizer runs first). Roles and bindings are read
// from watch-fed caches, never from the store per request: this runs before every request. Aggregated ClusterRoles
// (admin, edit, view) count with the rules the clusterrole-aggregation controller wrote into them, as in kube.
import type { KObject, RequestUser } from '../../api/types.js';
import { MASTERS_GROUP } from '../../api/auth/index.js';
import { ALL_RULES, describeSubject, rulesAllow, subjectMatches, type PolicyRule, type RequestAttributes, type Subject } from '../../api/rbac/rules.js';
import { goQuote } from '../../machinery/errors.js';
import { AdmissionCache } from '../admission/cache.js';
import type { ResourceStore } from '../registry/store.js';

export interface Decision {
  allowed: boolean;
  /** why, when allowed by a binding (kube's "RBAC: allowed by …"); empty on deny, as RBAC gives none */
  reason: string;
}

export interface Authorizer {
  authorize(user: RequestUser, attrs: RequestAttributes): Decision;
  /** the rules that apply to the user in a namespace (SelfSubjectRulesReview) */
  rulesFor(user: RequestUser, namespace: string): PolicyRule[];
  resolveRules?(user: RequestUser, namespace: string): { rules: PolicyRule[]; errors: string[] };
}

interface Binding extends KObject {
  roleRef?: { kind?: string; name?: string };
  subjects?: Subject[];
}
interface Role extends KObject {
  rules?: PolicyRule[];
}

/** Every request allowed (--authorization-mode=AlwaysAllow). */
export const alwaysAllow: Authorizer = {
  authorize: () => ({ allowed: true, reason: '' }),
  rulesFor: () => [...ALL_RULES],
};

/** Most decisions remembered; all are forgotten at once beyond that (they are cheap to make again). */
const MAX_DECISIONS = 4096;
/** users with more groups are decided afresh: an impersonated list of thousands would make every key huge */
const MAX_CACHED_GROUPS = 64;

export class RbacAuthorizer implements Authorizer {
  private readonly clusterRoles: AdmissionCache;
  private readonly clusterRoleBindings: AdmissionCache;
  private readonly roles: AdmissionCache;
  private readonly roleBindings: AdmissionCache;
  /**
   * Decisions by user and attributes, valid while no role or binding changes: a request otherwise matches the
   * user against every ClusterRoleBinding (dozens in the bootstrap policy) before it does anything else.
   */
  private readonly decisions = new Map<string, Decision>();
  private decidedAt = '';

  constructor(lookup: (plural: string) => ResourceStore) {
    this.clusterRoles = new AdmissionCache(() => lookup('clusterroles'));
    this.clusterRoleBindings = new AdmissionCache(() => lookup('clusterrolebindings'));
    this.roles = new AdmissionCache(() => lookup('roles'));
    this.roleBindings = new AdmissionCache(() => lookup('rolebindings'));
  }

  /** Resolves once every cache follows the store; requests before then are denied (fail closed). */
  async start(): Promise<void> {
    await Promise.all([this.clusterRoles.start(), this.clusterRoleBindings.start(), this.roles.start(), this.roleBindings.start()]);
  }

  stop(): void {
    for (const c of [this.clusterRoles, this.clusterRoleBindings, this.roles, this.roleBindings]) c.stop();
  }

  authorize(user: RequestUser, attrs: RequestAttributes): Decision {
    if ((user.groups ?? []).includes(MASTERS_GROUP)) return { allowed: true, reason: '' };
    if ((user.groups?.length ?? 0) > MAX_CACHED_GROUPS) return this.decide(user, attrs);
    const stamp = `${this.clusterRoles.version},${this.clusterRoleBindings.version},${this.roles.version},${this.roleBindings.version}`;
    if (stamp !== this.decidedAt || this.decisions.size >= MAX_DECISIONS) {
      this.decisions.clear();
      this.decidedAt = stamp;
    }
    // RBAC reads the user's name and groups only (JSON: no two different users or requests share a key)
    const key = JSON.stringify([user.name, user.groups ?? [], attrs.verb, attrs.resourceRequest, attrs.apiGroup, attrs.resource, attrs.subresource, attrs.namespace, attrs.name, attrs.path]);
    let d = this.decisions.get(key);
    if (!d) this.decisions.set(key, (d = this.decide(user, attrs)));
    return { ...d };
  }

  private decide(user: RequestUser, attrs: RequestAttributes): Decision {
    for (const { binding, namespace, subject } of this.bindingsOf(user, attrs.resourceRequest ? attrs.namespace : '')) {
      if (!rulesAllow(attrs, this.roleRules(binding, namespace))) continue;
      const where = namespace ? `RoleBinding "${binding.metadata.name}/${namespace}"` : `ClusterRoleBinding "${binding.metadata.name}"`;
      return { allowed: true, reason: `RBAC: allowed by ${where} of ${binding.roleRef?.kind} "${binding.roleRef?.name}" to ${describeSubject(subject, namespace)}` };
    }
    return { allowed: false, reason: '' };
  }

  rulesFor(user: RequestUser, namespace: string): PolicyRule[] {
    return this.resolveRules(user, namespace).rules;
  }

  resolveRules(user: RequestUser, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    if ((user.groups ?? []).includes(MASTERS_GROUP)) return { rules: [...ALL_RULES], errors: [] };
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const { binding, namespace: ns } of this.bindingsOf(user, namespace)) {
      const role = this.roleOf(binding, ns);
      if (role) rules.push(...((role.rules ?? []) as PolicyRule[]));
      else errors.push(missingRole(binding));
    }
    return { rules, errors };
  }

  /** ClusterRoleBindings first, then the namespace's RoleBindings, each with the subject that matched */
  private *bindingsOf(user: RequestUser, namespace: string): Generator<{ binding: Binding; namespace: string; subject: Subject }> {
    const scopes: [AdmissionCache, string][] = [[this.clusterRoleBindings, '']];
    if (namespace) scopes.push([this.roleBindings, namespace]);
    for (const [cache, ns] of scopes) {
      for (const b of (cache.inNamespace(ns)?.values() ?? []) as Iterable<Binding>) {
        const subject = (b.subjects ?? []).find((s) => subjectMatches(s, user, ns));
        if (subject) yield { binding: b, namespace: ns, subject };
      }
    }
  }

  private roleRules(binding: Binding, namespace: string): PolicyRule[] {
    return (this.roleOf(binding, namespace)?.rules ?? []) as PolicyRule[];
  }

  private roleOf(binding: Binding, namespace: string): Role | undefined {
    const ref = binding.roleRef ?? {};
    // a RoleBinding may name a Role of its namespace or a ClusterRole; a ClusterRoleBinding only a ClusterRole
    const cache = ref.kind === 'Role' && namespace ? this.roles.inNamespace(namespace) : ref.kind === 'ClusterRole' ? this.clusterRoles.inNamespace('') : undefined;
    return cache?.get(ref.name ?? '') as Role | undefined;
  }
}

/** the NotFound text of a binding's missing role, as kube's rule resolver reports it */
function missingRole(binding: Binding): string {
  const ref = binding.roleRef ?? {};
  if (ref.kind !== 'Role' && ref.kind !== 'ClusterRole') return `unsupported role reference kind: ${goQuote(ref.kind ?? '')}`;
  return `${ref.kind === 'Role' ? 'roles' : 'clusterroles'}.rbac.authorization.k8s.io ${goQuote(ref.name ?? '')} not found`;
}
