// The clusterrole-aggregation controller (pkg/controller/clusterroleaggregation): a ClusterRole with an
// aggregationRule gets, as its rules, the rules of every other ClusterRole its selectors match (deduplicated, in
// the order of the matched roles' names), so `kubectl get clusterrole view -o yaml` shows what `view` grants.
import type { KObject } from '../api/types.js';
import type { PolicyRule } from '../api/rbac/rules.js';
import { fromLabelSelector, type MetaLabelSelector } from '../machinery/labels.js';
import { clone, deepEqual } from '../machinery/object.js';
import { StatusError } from '../machinery/errors.js';
import { splitKey } from '../client/informer.js';
import { Reconciler, type ControllerFactory } from '../client/controller.js';

const RBAC = 'rbac.authorization.k8s.io/v1';

interface ClusterRole extends KObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: MetaLabelSelector[] } | null;
}

class ClusterRoleAggregation extends Reconciler {
  readonly name = 'clusterrole-aggregation';

  setup(): void {
    // any role's change may change what an aggregated role selects: look at every aggregated role again
    const all = () => {
      for (const r of this.informer(RBAC, 'clusterroles').list() as ClusterRole[]) if (r.aggregationRule) this.enqueue(r.metadata.name!);
    };
    this.informer(RBAC, 'clusterroles').addHandler({ add: all, update: all, delete: all });
  }

  async reconcile(key: string): Promise<void> {
    const roles = this.informer(RBAC, 'clusterroles');
    const role = roles.get('', splitKey(key).name) as ClusterRole | undefined;
    const selectors = role?.aggregationRule?.clusterRoleSelectors;
    if (!role || !selectors) return;
    const matchers = selectors.map((s) => fromLabelSelector(s));
    const sources = (roles.list() as ClusterRole[])
      .filter((r) => r.metadata.name !== role.metadata.name && matchers.some((m) => !m.empty && m.matches(r.metadata.labels)))
      .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
    const rules: PolicyRule[] = [];
    for (const r of sources) for (const rule of r.rules ?? []) if (!rules.some((x) => deepEqual(x, rule))) rules.push(rule);
    if (deepEqual(role.rules ?? [], rules)) return;
    const next = clone(role) as ClusterRole;
    next.rules = rules;
    try {
      await this.ctx.client.resource(RBAC, 'clusterroles').update('', next);
    } catch (e) {
      if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return; // gone, or changed: the event requeues it
      throw e;
    }
  }
}

export function clusterRoleAggregationController(): ControllerFactory {
  return (ctx) => new ClusterRoleAggregation(ctx);
}
