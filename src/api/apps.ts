// The apps/v1 API group: Deployments, ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions, in the order
// kube-apiserver lists them in discovery. Objects are only stored: no controller acts on them yet.
import type { Definitions } from '../machinery/schema.js';
import { controllerRevisionDefinitions, controllerRevisionResource } from './apps-controllerrevision.js';
import { daemonSetDefinitions, daemonSetResource } from './apps-daemonset.js';
import { deploymentDefinitions, deploymentResource } from './apps-deployment.js';
import { replicaSetDefinitions, replicaSetResource } from './apps-replicaset.js';
import { statefulSetDefinitions, statefulSetResource } from './apps-statefulset.js';
import type { ResourceDefinition } from './types.js';

export { controllerRevisionResource, type ControllerRevision } from './apps-controllerrevision.js';
export { daemonSetResource, TEMPLATE_GENERATION_ANNOTATION, type DaemonSet } from './apps-daemonset.js';
export { deploymentResource, type Deployment } from './apps-deployment.js';
export { replicaSetResource, type ReplicaSet } from './apps-replicaset.js';
export { statefulSetResource, type StatefulSet } from './apps-statefulset.js';

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
