// networking.k8s.io/v1 kinds served here: Ingress, IngressClass, NetworkPolicy (one module each).
import type { Definitions } from '../machinery/schema.js';
import { ingressResource } from './networking-ingress.js';
import { ingressDefinitions } from './networking-ingress-schema.js';
import { ingressClassResource } from './networking-ingressclass.js';
import { networkPolicyDefinitions, networkPolicyResource } from './networking-netpol.js';
import type { ResourceDefinition } from './types.js';

export { formatIngressAddress, formatIngressHosts, ingressResource } from './networking-ingress.js';
export { ANNOTATION_IS_DEFAULT_INGRESS_CLASS, ingressClassResource } from './networking-ingressclass.js';
export { networkPolicyResource } from './networking-netpol.js';

/** Every definition the networking kinds need besides meta's (includes core TypedLocalObjectReference). */
export const networkingDefinitions: Definitions = { ...ingressDefinitions, ...networkPolicyDefinitions };

export const networkingResources: ResourceDefinition[] = [networkPolicyResource, ingressResource, ingressClassResource];
