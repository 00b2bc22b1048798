// scheduling.k8s.io/v1: PriorityClass, the built-in system classes and the Priority admission rule for them.
import type { Definitions } from '../../machinery/schema.js';
import { priorityClassDefinitions, priorityClassResource } from './priorityclass.js';
import type { ResourceDefinition } from '../types.js';

export { builtinPriorityClasses, priorityClassAdmission, priorityClassResource } from './priorityclass.js';

export const schedulingDefinitions: Definitions = priorityClassDefinitions;

export const schedulingResources: ResourceDefinition[] = [priorityClassResource];
