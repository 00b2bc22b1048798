// authorization.k8s.io/v1 and authentication.k8s.io/v1 review definitions (staging/src/k8s.io/api/
// authorization/v1/types.go, authentication/v1/types.go). These kinds are create-only and never stored.
import { s, type Definitions } from '../../machinery/schema.js';
import { kindHeader, META } from '../meta.js';

export const AZ = 'io.k8s.api.authorization.v1.';
export const AN = 'io.k8s.api.authentication.v1.';
const FIELD_SELECTOR_REQUIREMENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldSelectorRequirement';

const strList = (description: string) => s.arr(s.str(undefined, { default: '' }), { description });
const reqStr = (description: string) => s.str(description, { default: '' });
const extra = (description: string) => s.map(s.arr(s.str(undefined, { default: '' })), description);

function review(spec: string, status: string, description: string, specDescription: string, statusDescription: string) {
  return s.obj(
    {
      ...kindHeader(),
      spec: s.ref(spec, specDescription, { default: {} }),
      status: s.ref(status, statusDescription, { default: {} }),
    },
    { description, required: ['spec'] },
  );
}

export const authzDefinitions: Definitions = {
  [FIELD_SELECTOR_REQUIREMENT]: s.obj(
    {
      key: reqStr('key is the field selector key that the requirement applies to.'),
      operator: reqStr("operator represents a key's relationship to a set of values: In, NotIn, Exists or DoesNotExist."),
      values: strList('values is an array of string values. For In and NotIn it must be non-empty; for Exists and DoesNotExist it must be empty.'),
    },
    {
      description: 'FieldSelectorRequirement is one term of a field selector: a key, an operator and values.',
      required: ['key', 'operator'],
    },
  ),
  [`${AZ}FieldSelectorAttributes`]: s.obj(
    {
      rawSelector: s.str('rawSelector is the field selector as it would appear in a query parameter. Set either this or requirements, not both.'),
      requirements: s.arr(s.ref(FIELD_SELECTOR_REQUIREMENT, undefined, { default: {} }), { description: 'requirements is the parsed interpretation of a field selector.' }),
    },
    { description: 'FieldSelectorAttributes narrows the checked access to objects matching a field selector.' },
  ),
  [`${AZ}LabelSelectorAttributes`]: s.obj(
    {
      rawSelector: s.str('rawSelector is the label selector as it would appear in a query parameter. Set either this or requirements, not both.'),
      requirements: s.arr(s.ref(META.LabelSelectorRequirement, undefined, { default: {} }), { description: 'requirements is the parsed interpretation of a label selector.' }),
    },
    { description: 'LabelSelectorAttributes narrows the checked access to objects matching a label selector.' },
  ),
  [`${AZ}ResourceAttributes`]: s.obj(
    {
      fieldSelector: s.ref(`${AZ}FieldSelectorAttributes`, 'fieldSelector limits the checked access to objects matching a field selector; it can only narrow access.'),
      group: s.str('Group is the API Group of the Resource. "*" means all.'),
      labelSelector: s.ref(`${AZ}LabelSelectorAttributes`, 'labelSelector limits the checked access to objects matching a label selector; it can only narrow access.'),
      name: s.str('Name is the name of the object the action is on. "" (empty) means all.'),
      namespace: s.str(
        'Namespace is the namespace of the action being requested. "" (empty) means all namespaces for namespaced resources, and is required empty for cluster-scoped ones.',
      ),
      resource: s.str('Resource is one of the existing resource types. "*" means all.'),
      subresource: s.str('Subresource is the subresource the action is on. "" means none.'),
      verb: s.str('Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete, proxy. "*" means all.'),
      version: s.str('Version is the API Version of the Resource. "*" means all.'),
    },
    { description: 'ResourceAttributes describes an action on an API resource, as an authorizer sees it.' },
  ),
  [`${AZ}NonResourceAttributes`]: s.obj(
    {
      path: s.str('Path is the URL path of the request'),
      verb: s.str('Verb is the standard HTTP verb'),
    },
    { description: 'NonResourceAttributes describes a request to a non-resource URL, as an authorizer sees it.' },
  ),
  [`${AZ}SubjectAccessReviewSpec`]: s.obj(
    {
      extra: extra('Extra holds the extra attributes of the user being checked, as an authenticator would report them.'),
      groups: strList("Groups is the groups you're testing for."),
      nonResourceAttributes: s.ref(`${AZ}NonResourceAttributes`, 'nonResourceAttributes describes a request to a non-resource URL.'),
      resourceAttributes: s.ref(`${AZ}ResourceAttributes`, 'resourceAttributes describes an action on an API resource.'),
      uid: s.str('UID information about the requesting user.'),
      user: s.str('User is the user being checked. Given without groups, the check is for that user as a member of no groups.'),
    },
    {
      description:
        'SubjectAccessReviewSpec describes the access being checked and for whom. Exactly one of resourceAttributes and nonResourceAttributes must be set.',
    },
  ),
  [`${AZ}SelfSubjectAccessReviewSpec`]: s.obj(
    {
      nonResourceAttributes: s.ref(`${AZ}NonResourceAttributes`, 'nonResourceAttributes describes a request to a non-resource URL.'),
      resourceAttributes: s.ref(`${AZ}ResourceAttributes`, 'resourceAttributes describes an action on an API resource.'),
    },
    {
      description:
        'SelfSubjectAccessReviewSpec describes the access being checked for the requesting user. Exactly one of resourceAttributes and nonResourceAttributes must be set.',
    },
  ),
  [`${AZ}SubjectAccessReviewStatus`]: s.obj(
    {
      allowed: s.bool('Allowed is required. True if the action would be allowed, false otherwise.', { default: false }),
      denied: s.bool('Denied is true if the action would be denied outright. With allowed and denied both false, no authorizer had an opinion.'),
      evaluationError: s.str('EvaluationError reports an error met during the check; the answer may still be usable.'),
      reason: s.str('Reason is optional. It indicates why a request was allowed or denied.'),
    },
    { description: 'SubjectAccessReviewStatus is the answer to an access review.', required: ['allowed'] },
  ),
  [`${AZ}SubjectAccessReview`]: review(
    `${AZ}SubjectAccessReviewSpec`,
    `${AZ}SubjectAccessReviewStatus`,
    'SubjectAccessReview checks whether or not a user or group can perform an action.',
    'Spec holds information about the request being evaluated',
    'Status is filled in by the server and indicates whether the request is allowed or not',
  ),
  [`${AZ}SelfSubjectAccessReview`]: review(
    `${AZ}SelfSubjectAccessReviewSpec`,
    `${AZ}SubjectAccessReviewStatus`,
    'SelfSubjectAccessReview checks whether the requesting user can perform an action. An empty spec.resourceAttributes.namespace means all namespaces.',
    'Spec holds information about the request being evaluated. user and groups must be empty',
    'Status is filled in by the server and indicates whether the request is allowed or not',
  ),
  [`${AZ}LocalSubjectAccessReview`]: review(
    `${AZ}SubjectAccessReviewSpec`,
    `${AZ}SubjectAccessReviewStatus`,
    'LocalSubjectAccessReview checks whether a user or group can perform an action in the namespace of the request.',
    'Spec holds the access being checked; spec.resourceAttributes.namespace must equal the namespace of the request.',
    'Status is filled in by the server and indicates whether the request is allowed or not',
  ),
  [`${AZ}SelfSubjectRulesReviewSpec`]: s.obj(
    { namespace: s.str('Namespace to evaluate rules for. Required.') },
    { description: 'SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview.' },
  ),
  [`${AZ}ResourceRule`]: s.obj(
    {
      apiGroups: strList('APIGroups is the name of the APIGroup that contains the resources. "*" means all.'),
      resourceNames: strList('ResourceNames optionally limits the rule to these object names. Empty or "*" means all.'),
      resources: strList('Resources is a list of resources this rule applies to. "*" means all in the specified apiGroups; "*/foo" means the subresource foo of all resources.'),
      verbs: strList('Verb is a list of kubernetes resource API verbs, like: get, list, watch, create, update, delete, proxy. "*" means all.'),
    },
    {
      description:
        'ResourceRule is a set of actions the subject may perform on resources.',
      required: ['verbs'],
    },
  ),
  [`${AZ}NonResourceRule`]: s.obj(
    {
      nonResourceURLs: strList('NonResourceURLs are the URL paths the rule covers; a trailing "*" matches any suffix, and "*" means all.'),
      verbs: strList('Verb is a list of kubernetes non-resource API verbs, like: get, post, put, delete, patch, head, options. "*" means all.'),
    },
    { description: 'NonResourceRule is a set of actions the subject may perform on non-resource URLs.', required: ['verbs'] },
  ),
  [`${AZ}SubjectRulesReviewStatus`]: s.obj(
    {
      evaluationError: s.str('EvaluationError reports an error met while listing rules; the rules may then be incomplete.'),
      incomplete: s.bool('Incomplete is true when some authorizer could not list its rules, so the lists may miss permissions.', { default: false }),
      nonResourceRules: s.arr(s.ref(`${AZ}NonResourceRule`, undefined, { default: {} }), {
        description: 'NonResourceRules lists what the subject may do on non-resource URLs, in no particular order.',
      }),
      resourceRules: s.arr(s.ref(`${AZ}ResourceRule`, undefined, { default: {} }), {
        description: 'ResourceRules lists what the subject may do on resources, in no particular order.',
      }),
    },
    {
      description:
        'SubjectRulesReviewStatus is the result of a rules review.',
      required: ['resourceRules', 'nonResourceRules', 'incomplete'],
    },
  ),
  [`${AZ}SelfSubjectRulesReview`]: review(
    `${AZ}SelfSubjectRulesReviewSpec`,
    `${AZ}SubjectRulesReviewStatus`,
    'SelfSubjectRulesReview lists the actions the requesting user can perform in a namespace. It is meant for user interfaces; authorization decisions should use SubjectAccessReview instead.',
    'Spec holds information about the request being evaluated.',
    'Status is filled in by the server and indicates the set of actions a user can perform.',
  ),
  [`${AN}UserInfo`]: s.obj(
    {
      extra: extra('Any additional information provided by the authenticator.'),
      groups: strList('The names of groups this user is a part of.'),
      uid: s.str('A value that identifies this user across time, unlike the name, which may be reused.'),
      username: s.str('The name that uniquely identifies this user among all active users.'),
    },
    { description: 'UserInfo holds the information about the user needed to implement the user.Info interface.' },
  ),
  [`${AN}TokenReviewSpec`]: s.obj(
    {
      audiences: strList('Audiences are the audiences the token must be valid for (at least one of them). Defaults to the API server\'s own audiences.'),
      token: s.str('Token is the opaque bearer token.'),
    },
    { description: 'TokenReviewSpec is a description of the token authentication request.' },
  ),
  [`${AN}TokenReviewStatus`]: s.obj(
    {
      audiences: strList('Audiences are the requested audiences the token is valid for.'),
      authenticated: s.bool('Authenticated indicates that the token was associated with a known user.'),
      error: s.str("Error indicates that the token couldn't be checked"),
      user: s.ref(`${AN}UserInfo`, 'User is the UserInfo associated with the provided token.', { default: {} }),
    },
    { description: 'TokenReviewStatus is the result of the token authentication request.' },
  ),
  [`${AN}TokenReview`]: review(
    `${AN}TokenReviewSpec`,
    `${AN}TokenReviewStatus`,
    'TokenReview asks the API server which user, if any, a bearer token authenticates as.',
    'Spec holds information about the request being evaluated',
    'Status is filled in by the server and indicates whether the request can be authenticated.',
  ),
  [`${AN}SelfSubjectReviewStatus`]: s.obj(
    { userInfo: s.ref(`${AN}UserInfo`, 'User attributes of the user making this request.', { default: {} }) },
    { description: 'SelfSubjectReviewStatus is filled by the kube-apiserver and sent back to a user.' },
  ),
  [`${AN}SelfSubjectReview`]: s.obj(
    {
      ...kindHeader(),
      status: s.ref(`${AN}SelfSubjectReviewStatus`, 'Status is filled in by the server with the user attributes.', { default: {} }),
    },
    {
      description:
        'SelfSubjectReview returns what the API server knows about the user making the request (the impersonated user, when impersonating). `kubectl auth whoami` prints it.',
    },
  ),
};
