// The core/v1 workload kinds: PodTemplate and ReplicationController (apps/v1 kinds are in apps.ts).
import type { Definitions } from '../machinery/schema.js';
import { podTemplateDefinitions, podTemplateResource } from './core-podtemplate.js';
import { replicationControllerDefinitions, replicationControllerResource } from './core-replicationcontroller.js';
import type { ResourceDefinition } from './types.js';

export { podTemplateResource, type PodTemplate } from './core-podtemplate.js';
export { replicationControllerResource, type ReplicationController } from './core-replicationcontroller.js';

/** Every definition the two kinds need beyond metaDefinitions and core-common (PodSpec and friends included). */
export const coreWorkloadDefinitions: Definitions = {
  ...podTemplateDefinitions,
  ...replicationControllerDefinitions,
};

export const coreWorkloadResources: ResourceDefinition[] = [podTemplateResource, replicationControllerResource];
