// core/v1 ConfigMap: ValidateConfigMap(Update) in pkg/apis/core/validation/validation.go,
// pkg/registry/core/configmap/strategy.go, printConfigMap in pkg/printers/internalversion/printers.go.
import { FieldError } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { CORE, dropEmpty, immutableData } from './common.js';
import { byteLength } from '../../machinery/validation.js';
import { ageColumn, base64Len, isConfigMapKey, nameColumn, sortedKeys } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export interface ConfigMap extends KObject {
  immutable?: boolean;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

/** core.MaxSecretSize: the limit on the summed data of a ConfigMap or Secret. */
export const MAX_DATA_SIZE = 1024 * 1024;

export const configMapDefinitions: Definitions = {
  [`${CORE}ConfigMap`]: s.obj(
    {
      ...kindHeader(),
      binaryData: s.map(
        s.bytes(),
        "BinaryData contains binary data (base64 in JSON). Keys must consist of alphanumeric characters, '-', '_' or '.'. Values may hold bytes outside UTF-8. Keys may not also appear in data; validation enforces this.",
      ),
      data: s.strMap(
        "Data contains the configuration data. Keys must consist of alphanumeric characters, '-', '_' or '.'. Values that are not valid UTF-8 must go in binaryData. Keys may not also appear in binaryData; validation enforces this.",
      ),
      immutable: s.bool(
        'Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil.',
      ),
    },
    { description: 'ConfigMap holds configuration data for pods to consume.' },
  ),
  [`${CORE}ConfigMapList`]: listDefinition(`${CORE}ConfigMap`, 'ConfigMapList is a resource containing a list of ConfigMap objects.', 'Items is the list of ConfigMaps.'),
};

function validateConfigMap(cm: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const key of sortedKeys(cm.data)) {
    for (const msg of isConfigMapKey(key)) errs.push(FieldError.invalid(`data[${key}]`, key, msg));
    if (cm.binaryData && Object.prototype.hasOwnProperty.call(cm.binaryData, key))
      errs.push(FieldError.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
    total += byteLength(cm.data?.[key] ?? '');
  }
  for (const key of sortedKeys(cm.binaryData)) {
    for (const msg of isConfigMapKey(key)) errs.push(FieldError.invalid(`binaryData[${key}]`, key, msg));
    total += base64Len(cm.binaryData?.[key] ?? '');
  }
  // Kubernetes reports the size at the empty path: the error is about the whole object.
  if (total > MAX_DATA_SIZE) errs.push(FieldError.tooLong('', '', MAX_DATA_SIZE));
  return errs;
}

export const configMapResource = defineResource<ConfigMap>({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  schemaRef: `${CORE}ConfigMap`,
  definitions: configMapDefinitions,
  columns: [
    nameColumn(),
    {
      name: 'Data',
      type: 'string',
      description: configMapDefinitions[`${CORE}ConfigMap`].properties!.data.description!,
      cell: (o) => Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length,
    },
    ageColumn(),
  ],
  strategy: {
    defaults(cm) {
      dropEmpty(cm, 'data', 'binaryData');
    },
    validate: validateConfigMap,
    // The generic server runs validate on updates too; this adds ValidateConfigMapUpdate's own checks.
    validateUpdate: (cm, old) => immutableData(cm, old, ['data', 'binaryData']),
    allowCreateOnUpdate: false,
  },
});
