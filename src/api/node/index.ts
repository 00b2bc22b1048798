// node.k8s.io/v1: RuntimeClass.
import type { Definitions } from '../../machinery/schema.js';
import { runtimeClassDefinitions, runtimeClassResource } from './runtimeclass.js';
import type { ResourceDefinition } from '../types.js';

export { runtimeClassResource } from './runtimeclass.js';

/** RuntimeClass definitions and the core ones (Toleration) they refer to. */
export const nodeDefinitions: Definitions = runtimeClassDefinitions;

export const nodeResources: ResourceDefinition[] = [runtimeClassResource];
