// apps/v1 Deployment: schema (k8s.io/api/apps/v1 types.go, 1.33), SetDefaults_Deployment, the deployment strategy
// of pkg/registry/apps/deployment (status reset, selector immutable, name warning) and printDeployment
// (NAME READY UP-TO-DATE AVAILABLE AGE; -o wide adds CONTAINERS IMAGES SELECTOR).
import { deepEqual } from '../../../machinery/object.js';
import { s, type Definitions } from '../../../machinery/schema.js';
import {
  APPS, asSelector, conditionSchema, conditionsList, dropEmpty, dropTerminatingReplicas, isObj, normalizeStatus, num, podNameWarning,
  templateColumns, type StatusShape,
} from '../common.js';
import { validateDeployment, validateDeploymentStatusUpdate, validateDeploymentUpdate, type Deployment } from './validation.js';
import { CORE } from '../../core/common.js';
import { defaultPodTemplateSpec, dropDisabledTemplateFields, podTemplateSpecDefinitions } from '../../core/podtemplate/spec.js';
import { ageColumn, nameColumn } from '../../format.js';
import { kindHeader, listDefinition, META } from '../../meta.js';
import { defineResource } from '../../types.js';

export type { Deployment, DeploymentSpec } from './validation.js';

const spec = {
  minReadySeconds: s.int32('Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0 (available as soon as ready).'),
  paused: s.bool('Whether the deployment is paused: its controller makes no rollout progress while set.'),
  progressDeadlineSeconds: s.int32('Seconds a rollout may go without progress before the deployment controller reports it as failed (reason ProgressDeadlineExceeded in the status). The rollout itself is not stopped. Must be greater than minReadySeconds. Defaults to 600.'),
  replicas: s.int32('Number of desired pods. Unset means 1, which is distinct from an explicit 0.'),
  revisionHistoryLimit: s.int32('Number of old ReplicaSets kept to allow rollback. Unset means 10; 0 keeps none.'),
  selector: s.ref(META.LabelSelector, "Label selector for the pods of this deployment. Pods it matches are managed by the deployment's ReplicaSets. It must match the template's labels and cannot change once created."),
  strategy: s.ref(`${APPS}DeploymentStrategy`, 'How existing pods are replaced by new ones.', { default: {}, patchStrategy: 'retainKeys' }),
  template: s.ref(`${CORE}PodTemplateSpec`, 'Template of the pods to create. Its spec.restartPolicy must be "Always".', { default: {} }),
};

const status = {
  availableReplicas: s.int32('Number of available pods (ready for at least minReadySeconds) of this deployment.'),
  collisionCount: s.int32('Count of hash collisions for the deployment; the controller uses it to build a unique name for the newest ReplicaSet.'),
  conditions: conditionsList(`${APPS}DeploymentCondition`, 'Latest observations of the state of the deployment.'),
  observedGeneration: s.int64('The generation observed by the deployment controller.'),
  readyReplicas: s.int32('Number of pods of this deployment with a Ready condition.'),
  replicas: s.int32('Number of non-terminating pods of this deployment (their labels match the selector).'),
  terminatingReplicas: s.int32('Number of terminating pods of this deployment (deletionTimestamp set, phase not yet Failed or Succeeded). Alpha: needs the DeploymentReplicaSetTerminatingReplicas feature gate.'),
  unavailableReplicas: s.int32('Number of pods still needed for the deployment to be 100% available: pods not yet available or not yet created.'),
  updatedReplicas: s.int32('Number of non-terminating pods of this deployment that have the desired template spec.'),
};

export const deploymentDefinitions: Definitions = {
  ...podTemplateSpecDefinitions,
  [`${APPS}Deployment`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${APPS}DeploymentSpec`, 'Specification of the desired behaviour of the Deployment.', { default: {} }),
      status: s.ref(`${APPS}DeploymentStatus`, 'Most recently observed status of the Deployment.', { default: {} }),
    },
    { description: 'Deployment declares the desired state of a set of identical pods and rolls out changes through ReplicaSets.' },
  ),
  [`${APPS}DeploymentSpec`]: s.obj(spec, { description: 'DeploymentSpec is the specification of the desired behaviour of a Deployment.', required: ['selector', 'template'] }),
  [`${APPS}DeploymentStrategy`]: s.obj(
    {
      rollingUpdate: s.ref(`${APPS}RollingUpdateDeployment`, 'Parameters of a rolling update; only allowed when type is RollingUpdate.'),
      type: s.enumOf(['Recreate', 'RollingUpdate'], 'Type of deployment: "Recreate" (kill all existing pods before creating new ones) or "RollingUpdate" (replace them gradually). Default is RollingUpdate.'),
    },
    { description: 'DeploymentStrategy describes how to replace existing pods with new ones.' },
  ),
  [`${APPS}RollingUpdateDeployment`]: s.obj(
    {
      maxSurge: s.intOrString('Maximum number of pods that may exist above the desired replicas during the update: a number or a percentage of desired pods (rounded up). Cannot be 0 if maxUnavailable is 0. Defaults to 25%.'),
      maxUnavailable: s.intOrString('Maximum number of pods that may be unavailable during the update: a number or a percentage of desired pods (rounded down). Cannot be 0 if maxSurge is 0. Defaults to 25%.'),
    },
    { description: 'RollingUpdateDeployment controls the pace of a rolling update.' },
  ),
  [`${APPS}DeploymentStatus`]: s.obj(status, { description: 'DeploymentStatus is the most recently observed status of a Deployment.' }),
  [`${APPS}DeploymentCondition`]: conditionSchema('Deployment', {
    lastTransitionTime: 'Last time the condition moved from one status to another.',
    lastUpdateTime: 'The last time this condition was updated.',
  }),
  [`${APPS}DeploymentList`]: listDefinition(`${APPS}Deployment`, 'DeploymentList is a list of Deployments.', 'Items is the list of Deployments.'),
};

const STATUS: StatusShape = { always: [], pointers: ['terminatingReplicas', 'collisionCount'], conditionTimes: ['lastUpdateTime', 'lastTransitionTime'] };

/** SetDefaults_Deployment plus the template defaults; runs on every decoded body. */
function defaultDeployment(d: Deployment): void {
  if (!isObj(d.spec)) d.spec = {};
  const sp = d.spec;
  if (sp.replicas === undefined || sp.replicas === null) sp.replicas = 1;
  if (!isObj(sp.strategy)) sp.strategy = {};
  const st = sp.strategy;
  if (!st.type) st.type = 'RollingUpdate';
  if (st.type === 'RollingUpdate') {
    if (!isObj(st.rollingUpdate)) st.rollingUpdate = {};
    const ru = st.rollingUpdate;
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = '25%';
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = '25%';
  }
  if (sp.revisionHistoryLimit === undefined || sp.revisionHistoryLimit === null) sp.revisionHistoryLimit = 10;
  if (sp.progressDeadlineSeconds === undefined || sp.progressDeadlineSeconds === null) sp.progressDeadlineSeconds = 600;
  if (!isObj(sp.template)) sp.template = {};
  defaultPodTemplateSpec(sp.template);
  dropEmpty(sp, ['minReadySeconds', 'paused']);
  dropEmpty(st, []);
}

export const deploymentResource = defineResource<Deployment>({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  singular: 'deployment',
  shortNames: ['deploy'],
  categories: ['all'],
  namespaced: true,
  schemaRef: `${APPS}Deployment`,
  definitions: deploymentDefinitions,
  hasGeneration: true,
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' } },
  columns: [
    nameColumn(),
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', cell: (o) => `${num(o.status?.readyReplicas)}/${num(o.spec?.replicas)}` },
    { name: 'Up-to-date', type: 'string', description: status.updatedReplicas.description!, cell: (o) => num(o.status?.updatedReplicas) },
    { name: 'Available', type: 'string', description: status.availableReplicas.description!, cell: (o) => num(o.status?.availableReplicas) },
    ageColumn(),
    ...templateColumns<Deployment>((o) => o.spec?.template),
    {
      name: 'Selector',
      type: 'string',
      priority: 1,
      description: spec.selector.description!,
      // LabelSelectorAsSelector(...).String(): "" for no selector, <invalid> when it cannot be parsed.
      cell: (o) => asSelector(o.spec?.selector)?.toString() ?? '<invalid>',
    },
  ],
  strategy: {
    defaults: defaultDeployment,
    // kube bumps a Deployment's generation for annotation changes too (rollback and pause annotations)
    generationChanged: (d, old) => !deepEqual(d.spec, old.spec) || !deepEqual(d.metadata.annotations ?? {}, old.metadata.annotations ?? {}),
    prepareForCreate(d) {
      d.status = {};
      dropDisabledTemplateFields(d.spec?.template);
    },
    // Kubernetes also bumps the generation when only annotations change; the registry decides generation here.
    prepareForUpdate: (d, old) => dropDisabledTemplateFields(d.spec?.template, old.spec?.template),
    validate: validateDeployment,
    validateUpdate: validateDeploymentUpdate,
    prepareForStatusUpdate(d, old) {
      if (!isObj(d.status)) d.status = {};
      dropTerminatingReplicas(d.status, old.status);
      normalizeStatus(d.status, STATUS);
    },
    validateStatusUpdate: validateDeploymentStatusUpdate,
    warnings: (d, old) => (old ? [] : podNameWarning(d)),
    allowCreateOnUpdate: false,
  },
});
