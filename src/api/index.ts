// Every built-in resource k1s serves, in discovery order, and the shared schema definitions.
import type { Definitions } from '../machinery/schema.js';
import { appsDefinitions, appsResources } from './apps.js';
import { autoscalingDefinitions, autoscalingResources } from './autoscaling.js';
import { batchDefinitions, batchResources } from './batch.js';
import { nodeDefinitions, nodeResources } from './node.js';
import { certificatesDefinitions, certificatesResources } from './certificates.js';
import { discoveryDefinitions, discoveryResources } from './discovery.js';
import { networkingDefinitions, networkingResources } from './networking.js';
import { storageDefinitions, storageResources } from './storage.js';
import { policyDefinitions, policyResources } from './policy.js';
import { schedulingDefinitions, schedulingResources } from './scheduling.js';
import { tokenRequestDefinitions } from './authn-tokenrequest.js';
import { coreWorkloadDefinitions, coreWorkloadResources } from './core-workloads.js';
import { coordinationDefinitions, leaseResource } from './coordination.js';
import { coreDefinitions, coreResources } from './core.js';
import { podResource } from './core-pod.js';
import { eventsV1Definitions, eventsV1Resource } from './events.js';
import { metaDefinitions } from './meta.js';
import type { ResourceDefinition } from './types.js';

/** A fresh list per cluster: definitions are data, but the list belongs to whoever builds a registry. */
export function builtinResources(): ResourceDefinition[] {
  return [...coreResources, podResource, ...coreWorkloadResources, eventsV1Resource, leaseResource, ...appsResources, ...batchResources, ...autoscalingResources, ...policyResources, ...schedulingResources, ...nodeResources, ...networkingResources, ...discoveryResources, ...storageResources, ...certificatesResources];
}

export function baseDefinitions(): Definitions[] {
  return [metaDefinitions, coreDefinitions, coordinationDefinitions, eventsV1Definitions, tokenRequestDefinitions, coreWorkloadDefinitions, appsDefinitions, batchDefinitions, autoscalingDefinitions, policyDefinitions, schedulingDefinitions, nodeDefinitions, networkingDefinitions, discoveryDefinitions, storageDefinitions, certificatesDefinitions];
}
