// admissionregistration.k8s.io/v1: MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
// ValidatingAdmissionPolicy (+ status) and ValidatingAdmissionPolicyBinding. Strategies as
// pkg/registry/admissionregistration/*/strategy.go (generation tracks the webhooks / spec; policy status is
// reset on create and kept on updates), printers as pkg/printers/internalversion/printers.go.
// These objects are stored and validated only: k1s does not call webhooks or evaluate policies (CEL) yet.
import type { Definitions } from '../../machinery/schema.js';
import { policyDefinitions } from './policy-schema.js';
import {
  defaultPolicy,
  defaultPolicyBinding,
  validatePolicy,
  validatePolicyBinding,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
} from './policy-validation.js';
import { AR, webhookDefinitions } from './webhook-schema.js';
import { defaultWebhooks, validateWebhookConfiguration, type WebhookConfiguration } from './webhook-validation.js';
import { compareGoStrings } from '../../machinery/validation.js';
import { ageColumn, nameColumn } from '../format.js';
import { defineResource, type ResourceDefinition, type TableColumn } from '../types.js';

export { AR } from './webhook-schema.js';

export const admissionregistrationDefinitions: Definitions = { ...webhookDefinitions, ...policyDefinitions };

const GROUP = 'admissionregistration.k8s.io';
const CATEGORIES = ['api-extensions'];

function webhookColumns(): TableColumn<WebhookConfiguration>[] {
  return [
    nameColumn(),
    {
      name: 'Webhooks',
      type: 'integer',
      description: 'Webhooks indicates the number of webhooks registered in this configuration',
      cell: (o) => (o.webhooks ?? []).length,
    },
    ageColumn(),
  ];
}

function webhookResource(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration') {
  const mutating = kind === 'MutatingWebhookConfiguration';
  return defineResource<WebhookConfiguration>({
    group: GROUP,
    version: 'v1',
    kind,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    categories: CATEGORIES,
    namespaced: false,
    schemaRef: `${AR}${kind}`,
    definitions: admissionregistrationDefinitions,
    hasGeneration: true,
    columns: webhookColumns(),
    strategy: {
      defaults: (o) => defaultWebhooks(o, mutating),
      validate: (o) => validateWebhookConfiguration(o, mutating),
      allowCreateOnUpdate: false,
    },
  });
}

export const mutatingWebhookConfigurationResource = webhookResource('MutatingWebhookConfiguration');
export const validatingWebhookConfigurationResource = webhookResource('ValidatingWebhookConfiguration');

/** The PARAMREF cell: namespace/name, "*"/name when the namespace is left to the request, or the selector. */
export function paramRefCell(b: ValidatingAdmissionPolicyBinding): string {
  const pr = b.spec?.paramRef;
  if (!pr) return '<unset>';
  if (pr.name) return pr.namespace ? `${pr.namespace}/${pr.name}` : `*/${pr.name}`;
  if (pr.selector) return goLabelSelectorString(pr.selector);
  return '<unset>';
}

/** The protobuf-generated String() of metav1.LabelSelector, which the printer uses for a param selector. */
export function goLabelSelectorString(sel: {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null;
}): string {
  const labels = Object.keys(sel.matchLabels ?? {})
    .sort(compareGoStrings)
    .map((k) => `${k}: ${sel.matchLabels![k]},`)
    .join('');
  const exprs = (sel.matchExpressions ?? [])
    .map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`)
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}

export const validatingAdmissionPolicyResource = defineResource<ValidatingAdmissionPolicy>({
  group: GROUP,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  plural: 'validatingadmissionpolicies',
  singular: 'validatingadmissionpolicy',
  categories: CATEGORIES,
  namespaced: false,
  schemaRef: `${AR}ValidatingAdmissionPolicy`,
  definitions: admissionregistrationDefinitions,
  hasGeneration: true,
  subresources: { status: true },
  columns: [
    nameColumn(),
    {
      name: 'Validations',
      type: 'integer',
      description: 'Validations indicates the number of validation rules defined in this configuration',
      cell: (o) => (o.spec?.validations ?? []).length,
    },
    {
      name: 'ParamKind',
      type: 'string',
      description: 'ParamKind specifies the kind of resources used to parameterize this policy',
      cell: (o) => (o.spec?.paramKind ? `${o.spec.paramKind.apiVersion ?? ''}/${o.spec.paramKind.kind ?? ''}` : '<unset>'),
    },
    ageColumn(),
  ],
  strategy: {
    defaults: defaultPolicy,
    prepareForCreate(p) {
      // The type-checking controller fills status in Kubernetes; k1s has none, so it stays empty.
      p.status = {};
    },
    validate: validatePolicy,
    allowCreateOnUpdate: false,
  },
});

export const validatingAdmissionPolicyBindingResource = defineResource<ValidatingAdmissionPolicyBinding>({
  group: GROUP,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  plural: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding',
  categories: CATEGORIES,
  namespaced: false,
  schemaRef: `${AR}ValidatingAdmissionPolicyBinding`,
  definitions: admissionregistrationDefinitions,
  hasGeneration: true,
  columns: [
    nameColumn(),
    {
      name: 'PolicyName',
      type: 'string',
      description: 'PolicyName indicates the policy definition which the policy binding binded to',
      cell: (o) => o.spec?.policyName ?? '',
    },
    {
      name: 'ParamRef',
      type: 'string',
      description: 'ParamRef indicates the param resource which sets the configration param',
      cell: paramRefCell,
    },
    ageColumn(),
  ],
  strategy: {
    defaults: defaultPolicyBinding,
    validate: validatePolicyBinding,
    allowCreateOnUpdate: false,
  },
});

export const admissionregistrationResources: ResourceDefinition[] = [
  mutatingWebhookConfigurationResource,
  validatingAdmissionPolicyResource,
  validatingAdmissionPolicyBindingResource,
  validatingWebhookConfigurationResource,
];
