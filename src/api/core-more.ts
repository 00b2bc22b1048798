// The remaining core/v1 kinds: Service, Endpoints, Node, PersistentVolume, PersistentVolumeClaim, LimitRange,
// ResourceQuota and ComponentStatus. Their definitions, plus the pod-volume types PersistentVolumes and claims
// reuse (volume sources, PersistentVolumeClaimSpec, NodeSelector), so the set stands without the pod resource.
import type { Definitions, Schema } from '../machinery/schema.js';
import { componentStatusDefinitions, componentStatusResource } from './core-componentstatus.js';
import { endpointsDefinitions, endpointsResource } from './core-endpoints.js';
import { limitRangeDefinitions, limitRangeResource } from './core-limitrange.js';
import { nodeDefinitions, nodeResource } from './core-node.js';
import { podDefinitions } from './core-pod-schema.js';
import { persistentVolumeResource, pvDefinitions } from './core-pv.js';
import { persistentVolumeClaimResource, pvcDefinitions } from './core-pvc.js';
import { resourceQuotaDefinitions, resourceQuotaResource } from './core-resourcequota.js';
import { serviceDefinitions, serviceResource } from './core-service.js';
import type { ResourceDefinition } from './types.js';

export { kubernetesService, serviceResource, serviceDefinitions } from './core-service.js';
export { componentStatuses, componentStatusResource, COMPONENTSTATUS_DEPRECATION_WARNING } from './core-componentstatus.js';
export { endpointsResource, ENDPOINTS_DEPRECATION_WARNING } from './core-endpoints.js';
export { nodeResource } from './core-node.js';
export { persistentVolumeResource } from './core-pv.js';
export { persistentVolumeClaimResource } from './core-pvc.js';
export { limitRangeResource } from './core-limitrange.js';
export { resourceQuotaResource } from './core-resourcequota.js';

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
