// discovery.k8s.io/v1 kinds served here: EndpointSlice.
import type { Definitions } from '../../machinery/schema.js';
import { discoveryDefinitions as endpointSliceDefinitions, endpointSliceResource } from './endpointslice/resource.js';
import type { ResourceDefinition } from '../types.js';

export { endpointSliceResource, formatDiscoveryEndpoints, formatDiscoveryPorts, LABEL_SERVICE_NAME } from './endpointslice/resource.js';

/** Every definition the discovery kinds need besides meta's and core-common's (core ObjectReference). */
export const discoveryDefinitions: Definitions = { ...endpointSliceDefinitions };

export const discoveryResources: ResourceDefinition[] = [endpointSliceResource];
