// Kubernetes' CEL authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go), as admission expressions see it:
// `authorizer.group('apps').resource('deployments').namespace('ns').check('get').allowed()`, `authorizer.path(p)`,
// `authorizer.serviceAccount(ns, name)` and `authorizer.requestResource` (the request's own resource).
import type { LibraryRegistrar } from './env.js';

export interface AuthzUser {
  name: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AuthzAttributes {
  verb: string;
  resourceRequest: boolean;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

export type AuthzDecision = { decision: 'allow' | 'deny' | 'noopinion'; reason: string; error?: string };
export type AuthzFunction = (user: AuthzUser, attrs: AuthzAttributes) => AuthzDecision;

export class CelAuthorizer {
  constructor(
    readonly check: AuthzFunction,
    readonly user: AuthzUser,
    /** the request's resource, for `authorizer.requestResource` */
    readonly requestResource: CelResourceCheck,
  ) {}
}
export class CelPathCheck {
  constructor(readonly authz: CelAuthorizer, readonly path: string) {}
}
export class CelGroupCheck {
  constructor(readonly authz: CelAuthorizer, readonly group: string) {}
}
export class CelResourceCheck {
  constructor(
    readonly authz: CelAuthorizer | undefined,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
  ) {}
  with(f: Partial<Pick<CelResourceCheck, 'subresource' | 'namespace' | 'name'>>): CelResourceCheck {
    return new CelResourceCheck(this.authz, this.group, this.resource, f.subresource ?? this.subresource, f.namespace ?? this.namespace, f.name ?? this.name);
  }
}
export class CelDecision {
  constructor(readonly d: AuthzDecision) {}
}

const AUTHORIZER = 'kubernetes.authorization.Authorizer';
const PATH = 'kubernetes.authorization.PathCheck';
const GROUP = 'kubernetes.authorization.GroupCheck';
const RESOURCE = 'kubernetes.authorization.ResourceCheck';
const DECISION = 'kubernetes.authorization.Decision';

/** An authorizer value for one request's user; `requestResource` is the request's group/resource/namespace/name. */
export function celAuthorizer(check: AuthzFunction, user: AuthzUser, req: { group: string; resource: string; subresource: string; namespace: string; name: string }): CelAuthorizer {
  const rr = new CelResourceCheck(undefined, req.group, req.resource, req.subresource, req.namespace, req.name);
  const a = new CelAuthorizer(check, user, rr);
  (rr as { authz: CelAuthorizer | undefined }).authz = a;
  return a;
}

function decide(a: CelAuthorizer, attrs: AuthzAttributes): CelDecision {
  try {
    return new CelDecision(a.check(a.user, attrs));
  } catch (e) {
    return new CelDecision({ decision: 'noopinion', reason: '', error: (e as Error).message });
  }
}

export function registerAuthz(reg: LibraryRegistrar): void {
  reg.engine.registerType(AUTHORIZER, { ctor: CelAuthorizer, fields: { requestResource: RESOURCE } } as never);
  reg.type(PATH, CelPathCheck);
  reg.type(GROUP, CelGroupCheck);
  reg.type(RESOURCE, CelResourceCheck);
  reg.type(DECISION, CelDecision);
  reg.fn(`${AUTHORIZER}.path(string): ${PATH}`, (a: CelAuthorizer, p: string) => new CelPathCheck(a, p));
  reg.fn(`${AUTHORIZER}.group(string): ${GROUP}`, (a: CelAuthorizer, g: string) => new CelGroupCheck(a, g));
  reg.fn(`${AUTHORIZER}.serviceAccount(string, string): ${AUTHORIZER}`, (a: CelAuthorizer, ns: string, name: string) => {
    const user = { name: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] };
    const rr = a.requestResource;
    return celAuthorizer(a.check, user, rr);
  });
  reg.fn(`${GROUP}.resource(string): ${RESOURCE}`, (g: CelGroupCheck, r: string) => new CelResourceCheck(g.authz, g.group, r));
  reg.fn(`${RESOURCE}.subresource(string): ${RESOURCE}`, (r: CelResourceCheck, s: string) => r.with({ subresource: s }));
  reg.fn(`${RESOURCE}.namespace(string): ${RESOURCE}`, (r: CelResourceCheck, s: string) => r.with({ namespace: s }));
  reg.fn(`${RESOURCE}.name(string): ${RESOURCE}`, (r: CelResourceCheck, s: string) => r.with({ name: s }));
  reg.fn(`${RESOURCE}.check(string): ${DECISION}`, (r: CelResourceCheck, verb: string) =>
    decide(r.authz!, { verb, resourceRequest: true, apiGroup: r.group, resource: r.resource, subresource: r.subresource, namespace: r.namespace, name: r.name, path: '' }));
  reg.fn(`${PATH}.check(string): ${DECISION}`, (p: CelPathCheck, verb: string) =>
    decide(p.authz, { verb, resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path: p.path }));
  reg.fn(`${DECISION}.allowed(): bool`, (d: CelDecision) => d.d.decision === 'allow');
  reg.fn(`${DECISION}.reason(): string`, (d: CelDecision) => d.d.reason);
  reg.fn(`${DECISION}.errored(): bool`, (d: CelDecision) => d.d.error !== undefined);
  reg.fn(`${DECISION}.error(): string`, (d: CelDecision) => d.d.error ?? '');
}

export const AUTHORIZER_TYPE = AUTHORIZER;
