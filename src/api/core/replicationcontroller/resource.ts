// core/v1 ReplicationController: pkg/registry/core/replicationcontroller/strategy.go (status reset, generation on
// spec changes, orphaning by default for v1), SetDefaults_ReplicationController (selector and labels from the
// template, replicas 1) and printReplicationController.
import { s, type Definitions } from '../../../machinery/schema.js';
import { conditionSchema, conditionsList, isObj, normalizeStatus, num, podNameWarning, SPEC_AND_STATUS, templateColumns, zeroStatus, type StatusShape } from '../../apps/common.js';
import { CORE } from '../common.js';
import { defaultPodTemplateSpec, dropDisabledTemplateFields, podTemplateSpecDefinitions } from '../podtemplate/spec.js';
import { validateReplicationController, validateReplicationControllerStatus, type ReplicationController } from './validation.js';
import { ageColumn, formatLabels, nameColumn } from '../../format.js';
import { kindHeader, listDefinition } from '../../meta.js';
import { defineResource } from '../../types.js';

export type { ReplicationController } from './validation.js';

const RC_DOC = 'https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller';

const spec = {
  minReadySeconds: s.int32('Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0 (available as soon as ready).'),
  replicas: s.int32(`Number of desired pods. Defaults to 1. More info: ${RC_DOC}#what-is-a-replicationcontroller`),
  selector: {
    ...s.strMap(`Labels a pod must carry to count towards replicas. When empty it defaults to the labels of the pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors`),
    mapType: 'atomic' as const,
  },
  template: s.ref(`${CORE}PodTemplateSpec`, `Template of the pods created when there are too few. Its spec.restartPolicy must be "Always". More info: ${RC_DOC}#pod-template`),
};

const status = {
  availableReplicas: s.int32('Number of available pods (ready for at least minReadySeconds) of this replication controller.'),
  conditions: conditionsList(`${CORE}ReplicationControllerCondition`, 'Latest observations of the state of the replication controller.'),
  fullyLabeledReplicas: s.int32('Number of pods whose labels match the labels of the pod template.'),
  observedGeneration: s.int64('The generation of the replication controller most recently observed by its controller.'),
  readyReplicas: s.int32('Number of ready pods of this replication controller.'),
  replicas: s.int32(`Number of pods most recently observed. More info: ${RC_DOC}#what-is-a-replicationcontroller`, { default: 0 }),
};

export const replicationControllerDefinitions: Definitions = {
  ...podTemplateSpecDefinitions,
  [`${CORE}ReplicationController`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${CORE}ReplicationControllerSpec`, `Desired behaviour of the replication controller. More info: ${SPEC_AND_STATUS}`, { default: {} }),
      status: s.ref(`${CORE}ReplicationControllerStatus`, `Most recently observed status; may lag behind. Read-only. More info: ${SPEC_AND_STATUS}`, { default: {} }),
    },
    { description: 'ReplicationController keeps a number of copies of a pod running (superseded by Deployments and ReplicaSets).' },
  ),
  [`${CORE}ReplicationControllerSpec`]: s.obj(spec, { description: 'ReplicationControllerSpec is the specification of a replication controller.' }),
  [`${CORE}ReplicationControllerStatus`]: s.obj(status, { description: 'ReplicationControllerStatus is the most recently observed state of a replication controller.', required: ['replicas'] }),
  [`${CORE}ReplicationControllerCondition`]: conditionSchema('ReplicationController', { lastTransitionTime: 'Last time the condition moved from one status to another.' }),
  [`${CORE}ReplicationControllerList`]: listDefinition(`${CORE}ReplicationController`, 'ReplicationControllerList is a list of replication controllers.', `List of replication controllers. More info: ${RC_DOC}`),
};

const STATUS: StatusShape = { always: ['replicas'], conditionTimes: ['lastTransitionTime'] };

/** SetDefaults_ReplicationController plus the template defaults; runs on every decoded body. */
function defaultRC(rc: ReplicationController): void {
  if (!isObj(rc.spec)) rc.spec = {};
  const sp = rc.spec;
  if (isObj(sp.template)) defaultPodTemplateSpec(sp.template);
  else delete sp.template;
  const labels = sp.template?.metadata?.labels;
  if (labels) {
    if (!Object.keys(sp.selector ?? {}).length) sp.selector = { ...labels };
    if (!Object.keys(rc.metadata.labels ?? {}).length) rc.metadata.labels = { ...labels };
  }
  if (sp.replicas === undefined || sp.replicas === null) sp.replicas = 1;
  if (!sp.minReadySeconds) delete sp.minReadySeconds;
  if (!Object.keys(sp.selector ?? {}).length) delete sp.selector;
}

export const replicationControllerResource = defineResource<ReplicationController>({
  group: '',
  version: 'v1',
  kind: 'ReplicationController',
  plural: 'replicationcontrollers',
  singular: 'replicationcontroller',
  shortNames: ['rc'],
  categories: ['all'],
  namespaced: true,
  schemaRef: `${CORE}ReplicationController`,
  definitions: replicationControllerDefinitions,
  hasGeneration: true,
  // The selector is a label map; autoscaling's Scale reports it as `k=v,...`.
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' } },
  columns: [
    nameColumn(),
    { name: 'Desired', type: 'integer', description: spec.replicas.description!, cell: (o) => num(o.spec?.replicas) },
    { name: 'Current', type: 'integer', description: status.replicas.description!, cell: (o) => num(o.status?.replicas) },
    { name: 'Ready', type: 'integer', description: status.readyReplicas.description!, cell: (o) => num(o.status?.readyReplicas) },
    ageColumn(),
    ...templateColumns<ReplicationController>((o) => o.spec?.template),
    { name: 'Selector', type: 'string', priority: 1, description: spec.selector.description!, cell: (o) => formatLabels(o.spec?.selector) },
  ],
  selectableFields: { 'status.replicas': (o) => String(num(o.status?.replicas)) },
  strategy: {
    defaults: defaultRC,
    prepareForCreate(rc) {
      rc.status = zeroStatus(STATUS);
      dropDisabledTemplateFields(rc.spec?.template);
    },
    prepareForUpdate: (rc, old) => dropDisabledTemplateFields(rc.spec?.template, old.spec?.template),
    validate: validateReplicationController,
    prepareForStatusUpdate(rc) {
      if (!isObj(rc.status)) rc.status = {};
      normalizeStatus(rc.status, STATUS);
    },
    validateStatusUpdate: validateReplicationControllerStatus,
    warnings: (rc, old) => (old ? [] : podNameWarning(rc)),
    // v1 keeps the pre-garbage-collector behaviour: deleting a replication controller orphans its pods.
    defaultGCPolicy: 'OrphanDependents',
    allowCreateOnUpdate: false,
  },
});
