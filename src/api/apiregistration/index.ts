// apiregistration.k8s.io/v1 APIService: the registry side of kube-aggregator (registry/apiservice: strategy and
// table). Status is reset on create, where a Local APIService is available at once; updates keep the status,
// status updates keep the spec. APIServices carry no generation, as in kube.
import type { Definitions } from '../../machinery/schema.js';
import { validatePathSegmentName } from '../../machinery/validation.js';
import { ageColumn, nameColumn } from '../format.js';
import { defineResource, type ResourceDefinition } from '../types.js';
import { APIREG, apiregistrationDefinitions as definitions } from './schema.js';
import {
  availableCondition,
  defaultAPIService,
  localAvailableCondition,
  setCondition,
  validateAPIService,
  validateAPIServiceStatus,
  type APIService,
} from './validation.js';

export * from './validation.js';
export * from './priorities.js';

export const apiregistrationDefinitions: Definitions = definitions;

/** The AVAILABLE cell: True, or the status with its reason ("False (FailedDiscoveryCheck)"). */
export function availableCell(o: APIService): string {
  const c = availableCondition(o);
  if (!c) return 'Unknown';
  if (c.status === 'True' || !c.reason) return c.status;
  return `${c.status} (${c.reason})`;
}

const nowRfc3339 = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export const apiServiceResource = defineResource<APIService>({
  group: 'apiregistration.k8s.io',
  version: 'v1',
  kind: 'APIService',
  plural: 'apiservices',
  singular: 'apiservice',
  categories: ['api-extensions'],
  namespaced: false,
  schemaRef: `${APIREG}APIService`,
  definitions,
  subresources: { status: true },
  columns: [
    nameColumn(),
    {
      name: 'Service',
      type: 'string',
      description: 'The reference to the service that hosts this API endpoint.',
      cell: (o) => (o.spec?.service ? `${o.spec.service.namespace ?? ''}/${o.spec.service.name ?? ''}` : 'Local'),
    },
    { name: 'Available', type: 'string', description: 'Whether this service is available.', cell: availableCell },
    ageColumn(),
  ],
  strategy: {
    defaults: defaultAPIService,
    prepareForCreate(o) {
      o.status = {};
      if (!o.spec?.service) setCondition(o, localAvailableCondition(nowRfc3339()));
    },
    prepareForUpdate(o, old) {
      o.status = old.status;
    },
    validate: validateAPIService,
    validateStatusUpdate: validateAPIServiceStatus,
    validateName: validatePathSegmentName,
    allowCreateOnUpdate: false,
  },
});

export const apiregistrationResources: ResourceDefinition[] = [apiServiceResource];
