// admissionregistration.k8s.io/v1 webhook configuration definitions (staging/src/k8s.io/api/admissionregistration/
// v1/types.go). Rule is embedded inline in RuleWithOperations, so its fields appear there, as in Kubernetes' OpenAPI.
import { s, type Definitions, type Schema } from '../../machinery/schema.js';
import { kindHeader, listDefinition, META } from '../meta.js';

export const AR = 'io.k8s.api.admissionregistration.v1.';

const strList = (description: string) => s.arr(s.str(undefined, { default: '' }), { description });
const reqStr = (description: string) => s.str(description, { default: '' });
const item = (name: string) => s.ref(`${AR}${name}`, undefined, { default: {} });

/** The fields of Rule (inlined into RuleWithOperations and NamedRuleWithOperations). */
export function ruleFields(): Record<string, Schema> {
  return {
    apiGroups: strList('APIGroups is the API groups the resources belong to. "*" is all groups; if present, it must be the only entry. Required.'),
    apiVersions: strList('APIVersions is the API versions the resources belong to. "*" is all versions; if present, it must be the only entry. Required.'),
    operations: strList(
      'Operations is the operations the admission hook cares about: CREATE, UPDATE, DELETE, CONNECT or "*" for all of them (and any added later). If "*" is present, it must be the only entry. Required.',
    ),
    resources: strList(
      'Resources is a list of resources this rule applies to, e.g. "pods", "pods/log" for a subresource, "pods/*" for all subresources of pods, "*" for all resources or "*/*" for all resources and subresources. Required.',
    ),
    scope: s.str(
      'scope specifies the scope of this rule: "Cluster" (cluster-scoped resources only), "Namespaced" (namespaced resources only) or "*" (no restriction; the default).',
    ),
  };
}

const selector = (what: string) =>
  s.ref(
    META.LabelSelector,
    `${what} decides, by labels, whether to run the webhook on an object. An empty selector (the default) matches everything.`,
  );

const webhookFields = (kind: 'validating' | 'mutating'): Record<string, Schema> => ({
  admissionReviewVersions: strList(
    'AdmissionReviewVersions is an ordered list of preferred AdmissionReview versions the webhook accepts. The API server sends the first version it supports, and fails the call (per the failure policy) if none is supported.',
  ),
  clientConfig: s.ref(`${AR}WebhookClientConfig`, 'ClientConfig defines how to communicate with the hook. Required', { default: {} }),
  failurePolicy: s.str('FailurePolicy defines how unrecognized errors from the admission endpoint are handled: Ignore or Fail. Defaults to Fail.'),
  matchConditions: s.arr(item('MatchCondition'), {
    mergeKey: 'name',
    description:
      'MatchConditions is a list of CEL conditions that must all hold for the request to be sent to this webhook. At most 64 entries. Stored as given; k1s does not compile or evaluate CEL.',
  }),
  matchPolicy: s.str(
    'matchPolicy defines how the "rules" list is used to match incoming requests: "Exact" or "Equivalent" (also match the same resource through another group or version). Defaults to "Equivalent".',
  ),
  name: reqStr('The name of the admission webhook, fully qualified, e.g. imagepolicy.kubernetes.io. Required.'),
  namespaceSelector: selector('NamespaceSelector'),
  objectSelector: selector('ObjectSelector'),
  ...(kind === 'mutating'
    ? {
        reinvocationPolicy: s.str(
          'reinvocationPolicy says whether the webhook is called again when later admission plugins modify the object: "Never" (the default) or "IfNeeded".',
        ),
      }
    : {}),
  rules: s.arr(item('RuleWithOperations'), {
    description: 'Rules describes what operations on what resources/subresources the webhook cares about. The webhook runs if any rule matches.',
  }),
  sideEffects: s.str(
    'SideEffects states whether this webhook has side effects: None or NoneOnDryRun (the only values allowed in v1). Requests with dryRun set are rejected for webhooks with other values.',
  ),
  timeoutSeconds: s.int32(
    'TimeoutSeconds specifies the timeout for this webhook; on timeout the call is handled per the failure policy. Between 1 and 30 seconds. Default to 10 seconds.',
  ),
});

export const webhookDefinitions: Definitions = {
  [`${AR}RuleWithOperations`]: s.obj(ruleFields(), {
    description: 'RuleWithOperations is a tuple of Operations and Resources. The resources, groups and versions must all match.',
  }),
  [`${AR}WebhookClientConfig`]: s.obj(
    {
      caBundle: s.bytes("`caBundle` is a PEM encoded CA bundle used to validate the webhook's server certificate. Defaults to the API server's trust roots."),
      service: s.ref(`${AR}ServiceReference`, '`service` is a reference to the service for this webhook. Either `service` or `url` must be specified.'),
      url: s.str(
        '`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified. The scheme must be "https"; user info, query parameters and fragments are not allowed.',
      ),
    },
    { description: 'WebhookClientConfig contains the information to make a TLS connection with the webhook' },
  ),
  [`${AR}ServiceReference`]: s.obj(
    {
      name: reqStr('`name` is the name of the service. Required'),
      namespace: reqStr('`namespace` is the namespace of the service. Required'),
      path: s.str('`path` is an optional URL path which will be sent in any request to this service.'),
      port: s.int32('If specified, the port on the service that hosts the webhook (1-65535). Defaults to 443.'),
    },
    { description: 'ServiceReference points to a Service that serves the webhook.', required: ['namespace', 'name'] },
  ),
  [`${AR}MatchCondition`]: s.obj(
    {
      expression: reqStr('Expression is a CEL expression that must evaluate to a bool. Required.'),
      name: reqStr('Name identifies the condition; a qualified name, unique within the list. Required.'),
    },
    { description: 'MatchCondition is a CEL condition a request must satisfy to be sent to a webhook.', required: ['name', 'expression'] },
  ),
  [`${AR}ValidatingWebhook`]: s.obj(webhookFields('validating'), {
    description: 'ValidatingWebhook describes an admission webhook and the resources and operations it applies to.',
    required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'],
  }),
  [`${AR}MutatingWebhook`]: s.obj(webhookFields('mutating'), {
    description: 'MutatingWebhook describes an admission webhook and the resources and operations it applies to.',
    required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'],
  }),
  [`${AR}ValidatingWebhookConfiguration`]: s.obj(
    {
      ...kindHeader(),
      webhooks: s.arr(item('ValidatingWebhook'), { mergeKey: 'name', description: 'Webhooks is a list of webhooks and the affected resources and operations.' }),
    },
    { description: 'ValidatingWebhookConfiguration configures admission webhooks that accept or reject objects without changing them.' },
  ),
  [`${AR}MutatingWebhookConfiguration`]: s.obj(
    {
      ...kindHeader(),
      webhooks: s.arr(item('MutatingWebhook'), { mergeKey: 'name', description: 'Webhooks is a list of webhooks and the affected resources and operations.' }),
    },
    { description: 'MutatingWebhookConfiguration configures admission webhooks that accept or reject objects and may change them.' },
  ),
  [`${AR}ValidatingWebhookConfigurationList`]: listDefinition(
    `${AR}ValidatingWebhookConfiguration`,
    'ValidatingWebhookConfigurationList is a list of ValidatingWebhookConfiguration.',
    'List of ValidatingWebhookConfiguration.',
  ),
  [`${AR}MutatingWebhookConfigurationList`]: listDefinition(
    `${AR}MutatingWebhookConfiguration`,
    'MutatingWebhookConfigurationList is a list of MutatingWebhookConfiguration.',
    'List of MutatingWebhookConfiguration.',
  ),
};
