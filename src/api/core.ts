// core/v1 kinds served here (Pods live in core-pod*.ts). Each kind is in its own core-<kind>.ts; this module
// re-exports them and merges their OpenAPI definitions.
import type { Definitions } from '../machinery/schema.js';
import { coreCommonDefinitions } from './core-common.js';
import { configMapDefinitions, configMapResource } from './core-configmap.js';
import { coreEventDefinitions, coreEventResource } from './core-event.js';
import { namespaceDefinitions, namespaceResource } from './core-namespace.js';
import { secretDefinitions, secretResource } from './core-secret.js';
import { serviceAccountDefinitions, serviceAccountResource } from './core-serviceaccount.js';
import type { ResourceDefinition } from './types.js';

export { coreCommonDefinitions } from './core-common.js';
export { configMapDefinitions, configMapResource } from './core-configmap.js';
export { coreEventDefinitions, coreEventResource } from './core-event.js';
export { namespaceDefinitions, namespaceResource } from './core-namespace.js';
export { secretDefinitions, secretResource } from './core-secret.js';
export { serviceAccountDefinitions, serviceAccountResource } from './core-serviceaccount.js';

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
