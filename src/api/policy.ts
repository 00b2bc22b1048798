// policy/v1: PodDisruptionBudget (the eviction subresource belongs to pods).
import type { Definitions } from '../machinery/schema.js';
import { pdbDefinitions, pdbResource } from './policy-pdb.js';
import type { ResourceDefinition } from './types.js';

export { pdbResource } from './policy-pdb.js';

export const policyDefinitions: Definitions = pdbDefinitions;

export const policyResources: ResourceDefinition[] = [pdbResource];
