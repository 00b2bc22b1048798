// Create-only, never-stored review kinds: authorization.k8s.io/v1 SelfSubjectAccessReview, SubjectAccessReview,
// LocalSubjectAccessReview, SelfSubjectRulesReview and authentication.k8s.io/v1 SelfSubjectReview, TokenReview
// (pkg/registry/authorization/*/rest.go, pkg/registry/authentication/*). RBAC is not enforced by k1s yet, so
// the answers are those of kube's system:masters rule only: members of that group may do everything, everyone
// else is told no, with a reason saying why. `kubectl auth can-i` prints "yes" or "no - <reason>";
// `kubectl auth whoami` prints the SelfSubjectReview's user.
import { errors, isStatusError } from '../machinery/errors.js';
import type { Definitions } from '../machinery/schema.js';
import { rfc3339 } from '../machinery/object.js';
import { AN, AZ, authzDefinitions as schemaDefinitions } from './authz-schema.js';
import {
  validateLocalSubjectAccessReview,
  validateSelfSubjectAccessReview,
  validateSubjectAccessReview,
  type AccessReview,
  type AccessReviewStatus,
} from './authz-validation.js';
import { defineResource, type KObject, type RequestUser, type ResourceDefinition } from './types.js';

export { AN, AZ } from './authz-schema.js';
export * from './authz-validation.js';

export const authzDefinitions: Definitions = schemaDefinitions;

export const MASTERS_GROUP = 'system:masters';
export const NOT_AUTHORIZED_REASON = 'k1s: RBAC authorization is not implemented yet; only system:masters is allowed';

/** The decision for a user with these groups (kube's privileged-group rule; RBAC itself is not evaluated). */
export function decide(groups: readonly string[] | null | undefined): AccessReviewStatus {
  return (groups ?? []).includes(MASTERS_GROUP) ? { allowed: true } : { allowed: false, reason: NOT_AUTHORIZED_REASON };
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
  virtual: { create: (obj, { user }) => answer(obj, { ...decide(user.groups) }) },
});

export const subjectAccessReviewResource = defineResource<AccessReview>({
  ...reviewBase(AUTHZ),
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  namespaced: false,
  schemaRef: `${AZ}SubjectAccessReview`,
  strategy: { validate: validateSubjectAccessReview },
  virtual: { create: (obj) => answer(obj, { ...decide(obj.spec?.groups) }) },
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
    create(obj, { namespace }) {
      const meta = obj.metadata;
      if (meta.namespace && meta.namespace !== namespace)
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const review: AccessReview = { ...obj, metadata: { ...meta, namespace } };
      const errs = validateLocalSubjectAccessReview(review);
      if (errs.length) throw errors.invalid('LocalSubjectAccessReview', 'authorization.k8s.io', meta.name ?? '', errs);
      return answer(review, { ...decide(review.spec?.groups) });
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
    create(obj, { user }) {
      if (!obj.spec?.namespace) throw errors.badRequest('no namespace on request');
      const masters = decide(user.groups).allowed;
      // Kubernetes answers with a new object holding only the status.
      return {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        metadata: { creationTimestamp: null },
        spec: {},
        status: {
          resourceRules: masters ? [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] : [],
          nonResourceRules: masters ? [{ verbs: ['*'], nonResourceURLs: ['*'] }] : [],
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
