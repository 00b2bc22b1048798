// scheduling.k8s.io/v1: PriorityClass, and the built-in system classes.
import type { Definitions } from '../../machinery/schema.js';
import { priorityClassDefinitions, priorityClassResource } from './priorityclass.js';
import type { ResourceDefinition } from '../types.js';

export { builtinPriorityClasses, priorityClassResource } from './priorityclass.js';

export const schedulingDefinitions: Definitions = priorityClassDefinitions;

export const schedulingResources: ResourceDefinition[] = [priorityClassResource];
