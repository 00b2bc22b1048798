// The remaining core/v1 kinds: Service, Endpoints, Node, PersistentVolume, PersistentVolumeClaim, LimitRange,
// ResourceQuota and ComponentStatus. Their definitions, plus the pod-volume types PersistentVolumes and claims
// reuse (volume sources, PersistentVolumeClaimSpec, NodeSelector), so the set stands without the pod resource.
import type { Definitions, Schema } from '../../machinery/schema.js';
import { componentStatusDefinitions, componentStatusResource } from './componentstatus.js';
import { endpointsDefinitions, endpointsResource } from './endpoints.js';
import { limitRangeDefinitions, limitRangeResource } from './limitrange.js';
import { nodeDefinitions, nodeResource } from './node/resource.js';
import { podDefinitions } from './pod/schema.js';
import { persistentVolumeResource, pvDefinitions } from './persistentvolume/resource.js';
import { persistentVolumeClaimResource, pvcDefinitions } from './persistentvolumeclaim/resource.js';
import { resourceQuotaDefinitions, resourceQuotaResource } from './resourcequota/resource.js';
import { serviceDefinitions, serviceResource } from './service/resource.js';
import type { ResourceDefinition } from '../types.js';

export { kubernetesService, serviceResource, serviceDefinitions } from './service/resource.js';
export { componentStatuses, componentStatusResource, COMPONENTSTATUS_DEPRECATION_WARNING } from './componentstatus.js';
export { endpointsResource, ENDPOINTS_DEPRECATION_WARNING } from './endpoints.js';
export { nodeResource } from './node/resource.js';
export { persistentVolumeResource } from './persistentvolume/resource.js';
export { persistentVolumeClaimResource } from './persistentvolumeclaim/resource.js';
export { limitRangeResource } from './limitrange.js';
export { resourceQuotaResource } from './resourcequota/resource.js';

const own: Definitions = {
  ...serviceDefinitions,
  ...endpointsDefinitions,
  ...nodeDefinitions,
  ...pvDefinitions,
  ...pvcDefinitions,
  ...limitRangeDefinitions,
  ...resourceQuotaDefinitions,
  ...componentStatusDefinitions,
};

/** The pod definitions `defs` refer to, followed transitively. */
function borrowedFromPod(defs: Definitions): Definitions {
  const out: Definitions = {};
  const visit = (sc: Schema | undefined): void => {
    if (!sc) return;
    if (sc.ref && !(sc.ref in defs) && !(sc.ref in out) && podDefinitions[sc.ref]) {
      out[sc.ref] = podDefinitions[sc.ref];
      visit(out[sc.ref]);
    }
    for (const p of Object.values(sc.properties ?? {})) visit(p);
    visit(sc.items);
    visit(sc.additionalProperties);
  };
  for (const sc of Object.values(defs)) visit(sc);
  return out;
}

export const coreMoreDefinitions: Definitions = { ...borrowedFromPod(own), ...own };

export const coreMoreResources: ResourceDefinition[] = [
  serviceResource,
  endpointsResource,
  nodeResource,
  persistentVolumeResource,
  persistentVolumeClaimResource,
  limitRangeResource,
  resourceQuotaResource,
  componentStatusResource,
];
