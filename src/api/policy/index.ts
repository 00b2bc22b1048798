// policy/v1: PodDisruptionBudget, and Eviction, the body of the pods/eviction subresource (implemented in
// src/apiserver/pods/eviction.ts).
import { s, type Definitions } from '../../machinery/schema.js';
import { kindHeader, META } from '../meta.js';
import { P, pdbDefinitions, pdbResource } from './poddisruptionbudget/resource.js';
import type { ResourceDefinition } from '../types.js';

export { pdbResource } from './poddisruptionbudget/resource.js';

export const evictionDefinitions: Definitions = {
  [P + 'Eviction']: s.obj(
    {
      ...kindHeader(),
      metadata: s.ref(META.ObjectMeta, 'ObjectMeta describes the pod that is being evicted.', { default: {} }),
      deleteOptions: s.ref(META.DeleteOptions, 'DeleteOptions may be provided'),
    },
    {
      description:
        'Eviction evicts a pod from its node subject to certain policies and safety constraints. This is a subresource of Pod.  A request to cause such an eviction is created by POSTing to .../pods/<pod name>/evictions.',
    },
  ),
};

export const policyDefinitions: Definitions = { ...pdbDefinitions, ...evictionDefinitions };

export const policyResources: ResourceDefinition[] = [pdbResource];
