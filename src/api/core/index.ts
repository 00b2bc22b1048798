// core/v1 kinds served here (Pods live in pod/). Each kind is in its own <kind>.ts or <kind>/; this module
// re-exports them and merges their OpenAPI definitions.
import type { Definitions } from '../../machinery/schema.js';
import { coreCommonDefinitions } from './common.js';
import { configMapDefinitions, configMapResource } from './configmap.js';
import { coreEventDefinitions, coreEventResource } from './event/resource.js';
import { namespaceDefinitions, namespaceResource } from './namespace.js';
import { secretDefinitions, secretResource } from './secret/resource.js';
import { serviceAccountDefinitions, serviceAccountResource } from './serviceaccount.js';
import type { ResourceDefinition } from '../types.js';

export { coreCommonDefinitions } from './common.js';
export { configMapDefinitions, configMapResource } from './configmap.js';
export { coreEventDefinitions, coreEventResource } from './event/resource.js';
export { namespaceDefinitions, namespaceResource } from './namespace.js';
export { secretDefinitions, secretResource } from './secret/resource.js';
export { serviceAccountDefinitions, serviceAccountResource } from './serviceaccount.js';

/** Every definition the core/v1 kinds below need (besides metaDefinitions). */
export const coreDefinitions: Definitions = {
  ...coreCommonDefinitions,
  ...namespaceDefinitions,
  ...configMapDefinitions,
  ...secretDefinitions,
  ...serviceAccountDefinitions,
  ...coreEventDefinitions,
};

export const coreResources: ResourceDefinition[] = [
  namespaceResource,
  configMapResource,
  secretResource,
  serviceAccountResource,
  coreEventResource,
];
