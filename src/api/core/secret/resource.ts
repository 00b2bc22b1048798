// core/v1 Secret: ValidateSecret(Update) in pkg/apis/core/validation/validation.go, the stringData merge of
// Convert_v1_Secret_To_core_Secret (pkg/apis/core/v1/conversion.go), SetDefaults_Secret, and
// pkg/registry/core/secret/strategy.go (TLS warnings, selectable field "type").
import { FieldError } from '../../../machinery/errors.js';
import { s, type Definitions } from '../../../machinery/schema.js';
import { validateImmutableField } from '../../../machinery/validation.js';
import { CORE, dropEmpty, immutableData } from '../common.js';
import { MAX_DATA_SIZE } from '../configmap.js';
import { goJSONMapError, x509KeyPairError } from './go-checks.js';
import { ageColumn, base64Len, isConfigMapKey, nameColumn, sortedKeys } from '../../format.js';
import { kindHeader, listDefinition } from '../../meta.js';
import { defineResource, type KObject } from '../../types.js';

export interface Secret extends KObject {
  immutable?: boolean;
  /** base64-encoded values */
  data?: Record<string, string>;
  /** write-only: merged into data on every write */
  stringData?: Record<string, string>;
  type?: string;
}

export const SECRET_TYPES = {
  opaque: 'Opaque',
  serviceAccountToken: 'kubernetes.io/service-account-token',
  dockercfg: 'kubernetes.io/dockercfg',
  dockerConfigJson: 'kubernetes.io/dockerconfigjson',
  basicAuth: 'kubernetes.io/basic-auth',
  sshAuth: 'kubernetes.io/ssh-auth',
  tls: 'kubernetes.io/tls',
  bootstrapToken: 'bootstrap.kubernetes.io/token',
} as const;

export const secretDefinitions: Definitions = {
  [`${CORE}Secret`]: s.obj(
    {
      ...kindHeader(),
      data: s.map(
        s.bytes(),
        "Data contains the secret data. Keys must consist of alphanumeric characters, '-', '_' or '.'. Values are base64-encoded in JSON and may hold arbitrary (also non-string) bytes. Described in https://tools.ietf.org/html/rfc4648#section-4",
      ),
      immutable: s.bool(
        'Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
      ),
      stringData: s.strMap(
        'stringData lets you give non-binary secret data as plain strings. It is a write-only convenience: on write its keys and values are merged into data, overwriting existing values, and it is never returned when reading.',
      ),
      type: s.str(
        'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
      ),
    },
    { description: 'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.' },
  ),
  [`${CORE}SecretList`]: listDefinition(
    `${CORE}Secret`,
    'SecretList is a list of Secret.',
    'Items is a list of secret objects. More info: https://kubernetes.io/docs/concepts/configuration/secret',
  ),
};

/** What the v1→internal conversion does at decode time: stringData overwrites data keys, then disappears. */
export function mergeStringData(secret: Secret): void {
  if (secret.stringData && Object.keys(secret.stringData).length > 0) {
    const data = { ...(secret.data ?? {}) };
    for (const [k, v] of Object.entries(secret.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    secret.data = data;
  }
  delete secret.stringData;
}

const has = (m: Record<string, string> | undefined, k: string) => !!m && Object.prototype.hasOwnProperty.call(m, k);

export function validateSecret(secret: Secret): FieldError[] {
  const errs: FieldError[] = [];
  const data = secret.data;
  let total = 0;
  for (const key of sortedKeys(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(FieldError.invalid(`data[${key}]`, key, msg));
    total += base64Len(data?.[key] ?? '');
  }
  if (total > MAX_DATA_SIZE) errs.push(FieldError.tooLong('data', '', MAX_DATA_SIZE));

  const jsonKey = (key: string) => {
    if (!has(data, key)) return errs.push(FieldError.required(`data[${key}]`));
    const err = goJSONMapError(Buffer.from(data![key], 'base64'));
    if (err) errs.push(FieldError.invalid(`data[${key}]`, '<secret contents redacted>', err));
  };
  switch (secret.type ?? '') {
    case SECRET_TYPES.serviceAccountToken:
      // Only the name annotation is required; the token controller fills in uid and token later.
      if (!secret.metadata.annotations?.['kubernetes.io/service-account.name'])
        errs.push(FieldError.required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    case SECRET_TYPES.dockercfg:
      jsonKey('.dockercfg');
      break;
    case SECRET_TYPES.dockerConfigJson:
      jsonKey('.dockerconfigjson');
      break;
    case SECRET_TYPES.basicAuth:
      // Either may be empty, but at least one key must be present.
      if (!has(data, 'username') && !has(data, 'password'))
        errs.push(FieldError.required('data[username]'), FieldError.required('data[password]'));
      break;
    case SECRET_TYPES.sshAuth:
      if (base64Len(data?.['ssh-privatekey'] ?? '') === 0) errs.push(FieldError.required('data[ssh-privatekey]'));
      break;
    case SECRET_TYPES.tls:
      if (!has(data, 'tls.crt')) errs.push(FieldError.required('data[tls.crt]'));
      if (!has(data, 'tls.key')) errs.push(FieldError.required('data[tls.key]'));
      break;
    default:
    // Opaque, bootstrap tokens and custom types: no server-side checks.
  }
  return errs;
}

function tlsWarnings(secret: Secret): string[] {
  if (secret.type !== SECRET_TYPES.tls) return [];
  const bytes = (k: string) => Buffer.from(secret.data?.[k] ?? '', 'base64');
  const err = x509KeyPairError(bytes('tls.crt'), bytes('tls.key'));
  return err ? [err] : [];
}

export const secretResource = defineResource<Secret>({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  singular: 'secret',
  namespaced: true,
  schemaRef: `${CORE}Secret`,
  definitions: secretDefinitions,
  columns: [
    nameColumn(),
    { name: 'Type', type: 'string', description: secretDefinitions[`${CORE}Secret`].properties!.type.description!, cell: (o) => o.type ?? '' },
    {
      name: 'Data',
      type: 'string',
      description: secretDefinitions[`${CORE}Secret`].properties!.data.description!,
      cell: (o) => Object.keys(o.data ?? {}).length,
    },
    ageColumn(),
  ],
  selectableFields: { type: (o) => o.type ?? '' },
  strategy: {
    defaults(secret) {
      mergeStringData(secret);
      dropEmpty(secret, 'data');
      if (!secret.type) secret.type = SECRET_TYPES.opaque;
    },
    prepareForUpdate(secret, old) {
      // Kept from the days validation did it: an empty type inherits the old one.
      if (!secret.type) secret.type = old.type;
    },
    validate: validateSecret,
    // ValidateSecretUpdate's own checks (validate runs on updates too). stringData needs none: it was merged
    // into data before validation.
    validateUpdate: (secret, old) => [
      ...validateImmutableField(secret.type ?? '', old.type ?? '', 'type'),
      ...immutableData(secret, old, ['data']),
    ],
    warnings: (secret) => tlsWarnings(secret),
    allowCreateOnUpdate: false,
  },
});
