// networking.k8s.io/v1 kinds served here: Ingress, IngressClass, NetworkPolicy (one module each).
import type { Definitions } from '../../machinery/schema.js';
import { ingressResource } from './ingress/resource.js';
import { ingressDefinitions } from './ingress/schema.js';
import { ingressClassResource } from './ingressclass.js';
import { networkPolicyDefinitions, networkPolicyResource } from './networkpolicy/resource.js';
import type { ResourceDefinition } from '../types.js';

export { formatIngressAddress, formatIngressHosts, ingressResource } from './ingress/resource.js';
export { ANNOTATION_IS_DEFAULT_INGRESS_CLASS, ingressClassResource } from './ingressclass.js';
export { networkPolicyResource } from './networkpolicy/resource.js';

/** Every definition the networking kinds need besides meta's (includes core TypedLocalObjectReference). */
export const networkingDefinitions: Definitions = { ...ingressDefinitions, ...networkPolicyDefinitions };

export const networkingResources: ResourceDefinition[] = [networkPolicyResource, ingressResource, ingressClassResource];
