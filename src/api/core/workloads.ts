// The core/v1 workload kinds: PodTemplate and ReplicationController (apps/v1 kinds are in api/apps/index.ts).
import type { Definitions } from '../../machinery/schema.js';
import { podTemplateDefinitions, podTemplateResource } from './podtemplate/resource.js';
import { replicationControllerDefinitions, replicationControllerResource } from './replicationcontroller/resource.js';
import type { ResourceDefinition } from '../types.js';

export { podTemplateResource, type PodTemplate } from './podtemplate/resource.js';
export { replicationControllerResource, type ReplicationController } from './replicationcontroller/resource.js';

/** Every definition the two kinds need beyond metaDefinitions and core-common (PodSpec and friends included). */
export const coreWorkloadDefinitions: Definitions = {
  ...podTemplateDefinitions,
  ...replicationControllerDefinitions,
};

export const coreWorkloadResources: ResourceDefinition[] = [podTemplateResource, replicationControllerResource];
