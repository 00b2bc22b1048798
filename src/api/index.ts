// Every built-in resource k1s serves, in discovery order, and the shared schema definitions.
import type { Definitions } from '../machinery/schema.js';
import { appsDefinitions, appsResources } from './apps.js';
import { autoscalingDefinitions, autoscalingResources } from './autoscaling.js';
import { batchDefinitions, batchResources } from './batch.js';
import { nodeDefinitions, nodeResources } from './node.js';
import { certificatesDefinitions, certificatesResources } from './certificates.js';
import { coreMoreDefinitions, coreMoreResources } from './core-more.js';
import { rbacDefinitions, rbacResources } from './rbac.js';
import { admissionregistrationDefinitions, admissionregistrationResources } from './admissionregistration.js';
import { apiextensionsDefinitions, apiextensionsResources } from './apiextensions.js';
import { authzDefinitions, authzResources, tokenReviewResource, type TokenVerifier } from './authz.js';
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
export function builtinResources(opts: { verifyToken?: TokenVerifier } = {}): ResourceDefinition[] {
  const authz = opts.verifyToken
    ? [...authzResources.filter((r) => r.kind !== 'TokenReview'), tokenReviewResource(opts.verifyToken)]
    : authzResources;
  return [...coreResources, podResource, ...coreMoreResources, ...coreWorkloadResources, eventsV1Resource, leaseResource, ...appsResources, ...batchResources, ...autoscalingResources, ...policyResources, ...schedulingResources, ...nodeResources, ...networkingResources, ...discoveryResources, ...storageResources, ...certificatesResources, ...rbacResources, ...admissionregistrationResources, ...apiextensionsResources, ...authz];
}

export function baseDefinitions(): Definitions[] {
  return [metaDefinitions, coreDefinitions, coreMoreDefinitions, coordinationDefinitions, eventsV1Definitions, tokenRequestDefinitions, coreWorkloadDefinitions, appsDefinitions, batchDefinitions, autoscalingDefinitions, policyDefinitions, schedulingDefinitions, nodeDefinitions, networkingDefinitions, discoveryDefinitions, storageDefinitions, certificatesDefinitions, rbacDefinitions, admissionregistrationDefinitions, apiextensionsDefinitions, authzDefinitions];
}
