// core/v1 ServiceAccount: pkg/registry/core/serviceaccount/strategy.go (secret references trimmed to names,
// warning for the deprecated enforce-mountable-secrets annotation); ValidateServiceAccount checks metadata only.
import { tokenRequestAction } from '../auth/tokenrequest.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { CORE, type LocalObjectReference, type ObjectReference } from './common.js';
import { ageColumn, nameColumn } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export interface ServiceAccount extends KObject {
  secrets?: ObjectReference[];
  imagePullSecrets?: LocalObjectReference[];
  automountServiceAccountToken?: boolean;
}

export const ENFORCE_MOUNTABLE_SECRETS = 'kubernetes.io/enforce-mountable-secrets';

export const serviceAccountDefinitions: Definitions = {
  [`${CORE}ServiceAccount`]: s.obj(
    {
      ...kindHeader(),
      automountServiceAccountToken: s.bool(
        'AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted. Can be overridden at the pod level.',
      ),
      imagePullSecrets: s.arr(s.ref(`${CORE}LocalObjectReference`, undefined, { default: {} }), {
        description:
          'ImagePullSecrets lists secrets in the same namespace used to pull images for pods that use this ServiceAccount. Unlike secrets, which can be mounted into pods, these are only read by the kubelet. More info: https://kubernetes.io/docs/concepts/containers/images/#specifying-imagepullsecrets-on-a-pod',
      }),
      secrets: s.arr(s.ref(`${CORE}ObjectReference`, undefined, { default: {} }), {
        mergeKey: 'name',
        description:
          'Secrets lists the secrets in the same namespace that pods running as this ServiceAccount may use. Pods are limited to this list only when the ServiceAccount has the "kubernetes.io/enforce-mountable-secrets" annotation set to "true"; that annotation is deprecated since v1.32 in favour of separate namespaces. Do not use this field to find auto-generated token secrets for use outside pods; request tokens with the TokenRequest API or create token secrets yourself. More info: https://kubernetes.io/docs/concepts/configuration/secret',
      }),
    },
    {
      description:
        'ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets',
    },
  ),
  [`${CORE}ServiceAccountList`]: listDefinition(
    `${CORE}ServiceAccount`,
    'ServiceAccountList is a list of ServiceAccount objects',
    'List of ServiceAccounts. More info: https://kubernetes.io/docs/tasks/configure-pod-container/configure-service-account/',
  ),
};

/** cleanSecretReferences: a secret reference keeps only its name. */
function cleanSecretReferences(sa: ServiceAccount): void {
  if (sa.secrets) sa.secrets = sa.secrets.map((r) => (r.name ? { name: r.name } : {}));
}

function hasEnforceAnnotation(sa: ServiceAccount | undefined): boolean {
  return !!sa?.metadata.annotations && Object.prototype.hasOwnProperty.call(sa.metadata.annotations, ENFORCE_MOUNTABLE_SECRETS);
}

export const serviceAccountResource = defineResource<ServiceAccount>({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  shortNames: ['sa'],
  namespaced: true,
  schemaRef: `${CORE}ServiceAccount`,
  definitions: serviceAccountDefinitions,
  subresources: { actions: [tokenRequestAction] },
  columns: [
    nameColumn(),
    {
      name: 'Secrets',
      type: 'string',
      description: serviceAccountDefinitions[`${CORE}ServiceAccount`].properties!.secrets.description!,
      cell: (o) => (o.secrets ?? []).length,
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: cleanSecretReferences,
    prepareForUpdate: (sa) => cleanSecretReferences(sa),
    // Only when a request newly sets the deprecated annotation.
    warnings: (sa, old) =>
      hasEnforceAnnotation(sa) && !hasEnforceAnnotation(old)
        ? [`metadata.annotations[${ENFORCE_MOUNTABLE_SECRETS}]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets`]
        : [],
    allowCreateOnUpdate: false,
  },
});
