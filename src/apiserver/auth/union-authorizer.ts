// Several authorizers in order (--authorization-mode=Node,RBAC; k8s.io/apiserver's union authorizer): the first
// that allows decides; when none does, the request is denied with every non-empty reason, one per line.
import type { RequestUser } from '../../api/types.js';
import type { PolicyRule, RequestAttributes } from '../../api/rbac/rules.js';
import type { Authorizer, Decision } from './rbac-authorizer.js';

export class UnionAuthorizer implements Authorizer {
  constructor(private readonly authorizers: readonly Authorizer[]) {}

  authorize(user: RequestUser, attrs: RequestAttributes): Decision {
    const reasons: string[] = [];
    for (const a of this.authorizers) {
      const d = a.authorize(user, attrs);
      if (d.allowed) return d;
      if (d.reason) reasons.push(d.reason);
    }
    return { allowed: false, reason: reasons.join('\n') };
  }

  rulesFor(user: RequestUser, namespace: string): PolicyRule[] {
    return this.resolveRules(user, namespace).rules;
  }

  resolveRules(user: RequestUser, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const a of this.authorizers) {
      const r = a.resolveRules ? a.resolveRules(user, namespace) : { rules: a.rulesFor(user, namespace), errors: [] };
      rules.push(...r.rules);
      errors.push(...r.errors);
    }
    return { rules, errors };
  }
}
