// Create-only, never-stored review kinds: authorization.k8s.io/v1 SelfSubjectAccessReview, SubjectAccessReview,
// LocalSubjectAccessReview, SelfSubjectRulesReview and authentication.k8s.io/v1 SelfSubjectReview, TokenReview
// (pkg/registry/authorization/*/rest.go, pkg/registry/authentication/*). Access reviews ask the API server's own
// authorizer (RBAC), so `kubectl auth can-i` tells the truth; without one (a bare registry) only system:masters is
// allowed. `kubectl auth whoami` prints the SelfSubjectReview's user.
import { errors, isStatusError } from '../../machinery/errors.js';
import type { Definitions } from '../../machinery/schema.js';
import { rfc3339 } from '../../machinery/object.js';
import { AN, AZ, authzDefinitions as schemaDefinitions } from './schema.js';
import {
  validateLocalSubjectAccessReview,
  validateSelfSubjectAccessReview,
  validateSubjectAccessReview,
  type AccessReview,
  type AccessReviewStatus,
} from './validation.js';
import { defineResource, type KObject, type RequestUser, type ResourceDefinition } from '../types.js';
import { ALL_RULES, type AccessDecider, type RequestAttributes } from '../rbac/rules.js';

export { AN, AZ } from './schema.js';
export * from './validation.js';

export const authzDefinitions: Definitions = schemaDefinitions;

export const MASTERS_GROUP = 'system:masters';

/** A review's attributes as the authorizer sees them (kube's ResourceAttributesFrom / NonResourceAttributesFrom). */
export function reviewAttributes(spec: AccessReview['spec'], namespace?: string): RequestAttributes {
  const r = spec?.resourceAttributes;
  if (r) {
    return {
      verb: r.verb ?? '',
      resourceRequest: true,
      apiGroup: r.group ?? '',
      apiVersion: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      namespace: namespace ?? r.namespace ?? '',
      name: r.name ?? '',
      path: '',
      ...(r.fieldSelector?.rawSelector ? { fieldSelector: r.fieldSelector.rawSelector } : {}),
    };
  }
  const n = spec?.nonResourceAttributes;
  return { verb: n?.verb ?? '', resourceRequest: false, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', path: n?.path ?? '' };
}

/** The review's answer: the authorizer's decision, or kube's privileged-group rule alone without an authorizer. */
export function decide(user: RequestUser, attrs: RequestAttributes, authorizer: AccessDecider | undefined): AccessReviewStatus {
  if (!authorizer) return user.groups?.includes(MASTERS_GROUP) ? { allowed: true } : { allowed: false };
  const d = authorizer.authorize(user, attrs);
  return d.reason ? { allowed: d.allowed, reason: d.reason } : { allowed: d.allowed };
}

/** The user a SubjectAccessReview asks about. */
function reviewedUser(spec: AccessReview['spec']): RequestUser {
  const u: RequestUser = { name: spec?.user ?? '', groups: [...(spec?.groups ?? [])] };
  if (spec?.uid) u.uid = spec.uid;
  if (spec?.extra) u.extra = { ...spec.extra };
  return u;
}

/** A review echoes its request with status filled; an unset creationTimestamp prints as null, as in Go. */
function answer<T extends KObject>(obj: T, status: Record<string, unknown>): T {
  return { ...obj, metadata: { ...obj.metadata, creationTimestamp: obj.metadata.creationTimestamp ?? null }, status };
}

/** The shared part of a review definition (fresh arrays per definition). */
const reviewBase = (group: string) => ({ group, version: 'v1', definitions: schemaDefinitions, verbs: ['create'], columns: [] });
const AUTHZ = 'authorization.k8s.io';
const AUTHN = 'authentication.k8s.io';

export const selfSubjectAccessReviewResource = defineResource<AccessReview>({
  ...reviewBase(AUTHZ),
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  namespaced: false,
  schemaRef: `${AZ}SelfSubjectAccessReview`,
  strategy: { validate: validateSelfSubjectAccessReview },
  virtual: { create: (obj, { user, authorizer }) => answer(obj, { ...decide(user, reviewAttributes(obj.spec), authorizer) }) },
});

export const subjectAccessReviewResource = defineResource<AccessReview>({
  ...reviewBase(AUTHZ),
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  namespaced: false,
  schemaRef: `${AZ}SubjectAccessReview`,
  strategy: { validate: validateSubjectAccessReview },
  virtual: { create: (obj, { authorizer }) => answer(obj, { ...decide(reviewedUser(obj.spec), reviewAttributes(obj.spec), authorizer) }) },
});

export const localSubjectAccessReviewResource = defineResource<AccessReview>({
  ...reviewBase(AUTHZ),
  kind: 'LocalSubjectAccessReview',
  plural: 'localsubjectaccessreviews',
  singular: 'localsubjectaccessreview',
  namespaced: true,
  schemaRef: `${AZ}LocalSubjectAccessReview`,
  strategy: {},
  virtual: {
    // Validation needs the request's namespace, which the create handler puts into metadata first.
    create(obj, { namespace, authorizer }) {
      const meta = obj.metadata;
      if (meta.namespace && meta.namespace !== namespace)
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const review: AccessReview = { ...obj, metadata: { ...meta, namespace } };
      const errs = validateLocalSubjectAccessReview(review);
      if (errs.length) throw errors.invalid('LocalSubjectAccessReview', 'authorization.k8s.io', meta.name ?? '', errs);
      return answer(review, { ...decide(reviewedUser(review.spec), reviewAttributes(review.spec, namespace), authorizer) });
    },
  },
});

interface RulesReview extends KObject {
  spec?: { namespace?: string };
}

export const selfSubjectRulesReviewResource = defineResource<RulesReview>({
  ...reviewBase(AUTHZ),
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  namespaced: false,
  schemaRef: `${AZ}SelfSubjectRulesReview`,
  strategy: {},
  virtual: {
    create(obj, { user, authorizer }) {
      if (!obj.spec?.namespace) throw errors.badRequest('no namespace on request');
      const rules = authorizer
        ? authorizer.rulesFor(user, obj.spec.namespace)
        : user.groups?.includes(MASTERS_GROUP)
          ? ALL_RULES
          : [];
      // Kubernetes answers with a new object holding only the status.
      return {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        metadata: { creationTimestamp: null },
        spec: {},
        status: {
          resourceRules: rules.filter((r) => !r.nonResourceURLs?.length).map((r) => ({ verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) })),
          nonResourceRules: rules.filter((r) => r.nonResourceURLs?.length).map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs })),
          incomplete: false,
        },
      };
    },
  },
});

/** authentication.k8s.io/v1 UserInfo of a user (empty extra is left out, as omitempty does). */
export function userInfo(user: RequestUser): Record<string, unknown> {
  const info: Record<string, unknown> = { username: user.name };
  if (user.uid) info.uid = user.uid;
  if (user.groups?.length) info.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) info.extra = { ...user.extra };
  return info;
}

export const selfSubjectReviewResource = defineResource<KObject>({
  ...reviewBase(AUTHN),
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  namespaced: false,
  schemaRef: `${AN}SelfSubjectReview`,
  strategy: {},
  virtual: {
    create: (obj, { user }) => ({
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      metadata: { creationTimestamp: rfc3339() },
      status: { userInfo: userInfo(user) },
    }),
  },
});

/** What a token verifier found: the user, and the audiences the token is valid for (if it is audience-bound). */
export interface VerifiedToken {
  user: RequestUser;
  audiences?: string[];
}

/** Authenticates a bearer token for the given audiences (empty: the server's own); undefined when it does not. */
export type TokenVerifier = (token: string, audiences: string[]) => Promise<VerifiedToken | undefined>;

/** The default verifier: k1s has no token authentication to ask yet, so no token is accepted. */
export const rejectAllTokens: TokenVerifier = async () => undefined;

interface TokenReview extends KObject {
  spec?: { token?: string; audiences?: string[] | null };
}

export function tokenReviewResource(verify: TokenVerifier = rejectAllTokens): ResourceDefinition {
  return defineResource<TokenReview>({
    ...reviewBase(AUTHN),
    kind: 'TokenReview',
    plural: 'tokenreviews',
    singular: 'tokenreview',
    namespaced: false,
    schemaRef: `${AN}TokenReview`,
    strategy: {},
    virtual: {
      async create(obj) {
        const token = obj.spec?.token ?? '';
        if (!token) throw errors.badRequest('token is required for TokenReview in authentication');
        const audiences = obj.spec?.audiences ?? [];
        // status.user is a struct value in Go, so it is printed even when empty.
        const status: Record<string, unknown> = { user: {} };
        try {
          const res = await verify(token, audiences);
          if (res) {
            if (audiences.length && res.audiences && !res.audiences.some((a) => audiences.includes(a)))
              throw errors.internal('error validating audiences');
            status.authenticated = true;
            status.user = userInfo(res.user);
            if (res.audiences?.length) status.audiences = [...res.audiences];
          }
        } catch (e) {
          if (isStatusError(e)) throw e;
          status.error = e instanceof Error ? e.message : String(e);
        }
        return answer(obj, status);
      },
    },
  });
}

export const authzResources: ResourceDefinition[] = [
  localSubjectAccessReviewResource,
  selfSubjectAccessReviewResource,
  selfSubjectRulesReviewResource,
  subjectAccessReviewResource,
  selfSubjectReviewResource,
  tokenReviewResource(),
];
