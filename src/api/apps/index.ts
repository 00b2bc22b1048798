// The apps/v1 API group: Deployments, ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions, in the order
// kube-apiserver lists them in discovery. Objects are only stored: no controller acts on them yet.
import type { Definitions } from '../../machinery/schema.js';
import { controllerRevisionDefinitions, controllerRevisionResource } from './controllerrevision.js';
import { daemonSetDefinitions, daemonSetResource } from './daemonset/resource.js';
import { deploymentDefinitions, deploymentResource } from './deployment/resource.js';
import { replicaSetDefinitions, replicaSetResource } from './replicaset.js';
import { statefulSetDefinitions, statefulSetResource } from './statefulset/resource.js';
import type { ResourceDefinition } from '../types.js';

export { controllerRevisionResource, type ControllerRevision } from './controllerrevision.js';
export { daemonSetResource, TEMPLATE_GENERATION_ANNOTATION, type DaemonSet } from './daemonset/resource.js';
export { deploymentResource, type Deployment } from './deployment/resource.js';
export { replicaSetResource, type ReplicaSet } from './replicaset.js';
export { statefulSetResource, type StatefulSet } from './statefulset/resource.js';

/** Every definition the apps/v1 kinds need beyond metaDefinitions and core-common (PodSpec and PVC included). */
export const appsDefinitions: Definitions = {
  ...controllerRevisionDefinitions,
  ...daemonSetDefinitions,
  ...deploymentDefinitions,
  ...replicaSetDefinitions,
  ...statefulSetDefinitions,
};

export const appsResources: ResourceDefinition[] = [
  controllerRevisionResource,
  daemonSetResource,
  deploymentResource,
  replicaSetResource,
  statefulSetResource,
];
