// node.k8s.io/v1: RuntimeClass.
import type { Definitions } from '../machinery/schema.js';
import { runtimeClassDefinitions, runtimeClassResource } from './node-runtimeclass.js';
import type { ResourceDefinition } from './types.js';

export { runtimeClassResource } from './node-runtimeclass.js';

/** RuntimeClass definitions and the core ones (Toleration) they refer to. */
export const nodeDefinitions: Definitions = runtimeClassDefinitions;

export const nodeResources: ResourceDefinition[] = [runtimeClassResource];
