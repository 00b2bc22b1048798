// Every built-in resource k1s serves, in discovery order, and the shared schema definitions.
import type { Definitions } from '../machinery/schema.js';
import { appsDefinitions, appsResources } from './apps/index.js';
import { autoscalingDefinitions, autoscalingResources } from './autoscaling/index.js';
import { batchDefinitions, batchResources } from './batch/index.js';
import { nodeDefinitions, nodeResources } from './node/index.js';
import { certificatesDefinitions, certificatesResources } from './certificates/index.js';
import { coreMoreDefinitions, coreMoreResources } from './core/more-kinds.js';
import { rbacDefinitions, rbacResources } from './rbac/index.js';
import { admissionregistrationDefinitions, admissionregistrationResources } from './admissionregistration/index.js';
import { apiregistrationDefinitions, apiregistrationResources } from './apiregistration/index.js';
import { apiextensionsDefinitions, apiextensionsResources, customResourceDefinitionResourceWith, type NamesInUse } from './apiextensions/index.js';
import { authzDefinitions, authzResources, tokenReviewResource, type TokenVerifier } from './auth/index.js';
import { discoveryDefinitions, discoveryResources } from './discovery/index.js';
import { networkingDefinitions, networkingResources } from './networking/index.js';
import { storageDefinitions, storageResources } from './storage/index.js';
import { policyDefinitions, policyResources } from './policy/index.js';
import { schedulingDefinitions, schedulingResources } from './scheduling/index.js';
import { tokenRequestDefinitions } from './auth/tokenrequest.js';
import { coreWorkloadDefinitions, coreWorkloadResources } from './core/workloads.js';
import { coordinationDefinitions, leaseResource } from './coordination/index.js';
import { coreDefinitions, coreResources } from './core/index.js';
import { podResource } from './core/pod/resource.js';
import { eventsV1Definitions, eventsV1Resource } from './events/index.js';
import { metaDefinitions } from './meta.js';
import type { ResourceDefinition } from './types.js';

/** A fresh list per cluster: definitions are data, but the list belongs to whoever builds a registry. */
export function builtinResources(opts: { verifyToken?: TokenVerifier; crdNamesInUse?: NamesInUse } = {}): ResourceDefinition[] {
  const apiextensions = opts.crdNamesInUse ? [customResourceDefinitionResourceWith(opts.crdNamesInUse)] : apiextensionsResources;
  const authz = opts.verifyToken
    ? [...authzResources.filter((r) => r.kind !== 'TokenReview'), tokenReviewResource(opts.verifyToken)]
    : authzResources;
  return [...coreResources, podResource, ...coreMoreResources, ...coreWorkloadResources, eventsV1Resource, leaseResource, ...appsResources, ...batchResources, ...autoscalingResources, ...policyResources, ...schedulingResources, ...nodeResources, ...networkingResources, ...discoveryResources, ...storageResources, ...certificatesResources, ...rbacResources, ...admissionregistrationResources, ...apiextensions, ...apiregistrationResources, ...authz];
}

export function baseDefinitions(): Definitions[] {
  return [metaDefinitions, coreDefinitions, coreMoreDefinitions, coordinationDefinitions, eventsV1Definitions, tokenRequestDefinitions, coreWorkloadDefinitions, appsDefinitions, batchDefinitions, autoscalingDefinitions, policyDefinitions, schedulingDefinitions, nodeDefinitions, networkingDefinitions, discoveryDefinitions, storageDefinitions, certificatesDefinitions, rbacDefinitions, admissionregistrationDefinitions, apiextensionsDefinitions, apiregistrationDefinitions, authzDefinitions];
}
