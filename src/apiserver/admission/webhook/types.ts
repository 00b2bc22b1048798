// The shapes admission webhooks work with: the admissionregistration.k8s.io/v1 webhook as stored, and the
// attributes of one request as the dispatcher hands them to matching and to the AdmissionReview it sends.
import type { KObject } from '../../../api/types.js';
import type { MetaLabelSelector } from '../../../machinery/labels.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: 'Cluster' | 'Namespaced' | '*';
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** base64 PEM */
  caBundle?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

/** A ValidatingWebhook or MutatingWebhook (v1), after the API's defaulting. */
export interface Webhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: 'Fail' | 'Ignore';
  matchPolicy?: 'Exact' | 'Equivalent';
  namespaceSelector?: MetaLabelSelector;
  objectSelector?: MetaLabelSelector;
  sideEffects?: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  timeoutSeconds?: number;
  admissionReviewVersions: string[];
  matchConditions?: MatchCondition[];
  /** mutating webhooks only */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** One admission request, as the webhooks see it. */
export interface RequestAttributes {
  uid: string;
  operation: Operation;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource: string;
  /** the request's own kind and resource (differ from kind/resource when matchPolicy Equivalent converted them) */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name: string;
  namespace: string;
  /** whether the resource is namespaced (a rule's `scope`) */
  namespaced: boolean;
  object?: KObject;
  oldObject?: KObject;
  /** CreateOptions / UpdateOptions / DeleteOptions as the request carried them */
  options?: Record<string, unknown>;
  dryRun: boolean;
  userInfo: UserInfo;
}

/** What a webhook answered (AdmissionReview.response), checked and decoded. */
export interface WebhookResponse {
  uid: string;
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string; status?: string; details?: unknown };
  /** the decoded JSONPatch operations, when the webhook sent a patch */
  patch?: unknown[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}
