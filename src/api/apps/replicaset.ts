// apps/v1 ReplicaSet: schema (types.go, 1.33), SetDefaults_ReplicaSet, ValidateReplicaSet(Spec|Status), the
// replicaset strategy (status reset, selector immutable, status.replicas field selector) and printReplicaSet
// (NAME DESIRED CURRENT READY AGE; -o wide adds CONTAINERS IMAGES SELECTOR).
import type { FieldError } from '../../machinery/errors.js';
import type { MetaLabelSelector } from '../../machinery/labels.js';
import { s, type Definitions } from '../../machinery/schema.js';
import {
  APPS, conditionSchema, conditionsList, dropEmpty, dropTerminatingReplicas, isObj, nonNegative, normalizeStatus, num, podNameWarning,
  replicaCountErrors, SPEC_AND_STATUS, templateColumns, validateImmutableSelector, zeroStatus, type StatusShape,
} from './common.js';
import { validateReplicaSetLike } from './deployment/validation.js';
import { CORE } from '../core/common.js';
import { defaultPodTemplateSpec, dropDisabledTemplateFields, podTemplateSpecDefinitions, type PodTemplateSpec } from '../core/podtemplate/spec.js';
import { ageColumn, formatLabelSelector, nameColumn } from '../format.js';
import { kindHeader, listDefinition, META } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export interface ReplicaSet extends KObject {
  spec?: { replicas?: number; minReadySeconds?: number; selector?: MetaLabelSelector | null; template?: PodTemplateSpec; [k: string]: unknown };
  status?: Record<string, unknown>;
}

const RS_DOC = 'https://kubernetes.io/docs/concepts/workloads/controllers/replicaset';

const spec = {
  minReadySeconds: s.int32('Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0 (available as soon as ready).'),
  replicas: s.int32(`Number of desired pods. Unset means 1, which is distinct from an explicit 0. More info: ${RS_DOC}/#replicaset-as-a-horizontal-pod-autoscaler-target`),
  selector: s.ref(META.LabelSelector, `Label query over the pods that count towards replicas. It must match the template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors`),
  template: s.ref(`${CORE}PodTemplateSpec`, `Template of the pods created when there are too few. More info: ${RS_DOC}/#pod-template`, { default: {} }),
};

const status = {
  availableReplicas: s.int32('Number of available pods (ready for at least minReadySeconds) of this replica set.'),
  conditions: conditionsList(`${APPS}ReplicaSetCondition`, 'Latest observations of the state of the replica set.'),
  fullyLabeledReplicas: s.int32('Number of non-terminating pods whose labels match the labels of the pod template.'),
  observedGeneration: s.int64('The generation of the ReplicaSet most recently observed by its controller.'),
  readyReplicas: s.int32('Number of non-terminating pods of this replica set with a Ready condition.'),
  replicas: s.int32(`Number of non-terminating pods most recently observed. More info: ${RS_DOC}/#how-a-replicaset-works`, { default: 0 }),
  terminatingReplicas: s.int32('Number of terminating pods of this replica set (deletionTimestamp set, phase not yet Failed or Succeeded). Alpha: needs the DeploymentReplicaSetTerminatingReplicas feature gate.'),
};

export const replicaSetDefinitions: Definitions = {
  ...podTemplateSpecDefinitions,
  [`${APPS}ReplicaSet`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${APPS}ReplicaSetSpec`, `Specification of the desired behaviour of the ReplicaSet. More info: ${SPEC_AND_STATUS}`, { default: {} }),
      status: s.ref(`${APPS}ReplicaSetStatus`, `Most recently observed status of the ReplicaSet; may lag behind. Read-only. More info: ${SPEC_AND_STATUS}`, { default: {} }),
    },
    { description: 'ReplicaSet keeps a given number of pod replicas running at any time.' },
  ),
  [`${APPS}ReplicaSetSpec`]: s.obj(spec, { description: 'ReplicaSetSpec is the specification of a ReplicaSet.', required: ['selector'] }),
  [`${APPS}ReplicaSetStatus`]: s.obj(status, { description: 'ReplicaSetStatus is the most recently observed state of a ReplicaSet.', required: ['replicas'] }),
  [`${APPS}ReplicaSetCondition`]: conditionSchema('ReplicaSet', { lastTransitionTime: 'Last time the condition moved from one status to another.' }),
  [`${APPS}ReplicaSetList`]: listDefinition(`${APPS}ReplicaSet`, 'ReplicaSetList is a collection of ReplicaSets.', `List of ReplicaSets. More info: ${RS_DOC}`),
};

const STATUS: StatusShape = { always: ['replicas'], pointers: ['terminatingReplicas'], conditionTimes: ['lastTransitionTime'] };

function defaultReplicaSet(rs: ReplicaSet): void {
  if (!isObj(rs.spec)) rs.spec = {};
  const sp = rs.spec;
  if (sp.replicas === undefined || sp.replicas === null) sp.replicas = 1;
  if (!isObj(sp.template)) sp.template = {};
  defaultPodTemplateSpec(sp.template);
  dropEmpty(sp, ['minReadySeconds']);
}

/** ValidateReplicaSetSpec (metadata is the registry's). */
function validateReplicaSet(rs: ReplicaSet): FieldError[] {
  const sp = rs.spec ?? {};
  return [...nonNegative(sp.replicas ?? 0, 'spec.replicas'), ...nonNegative(sp.minReadySeconds ?? 0, 'spec.minReadySeconds'), ...validateReplicaSetLike(sp)];
}

/** ValidateReplicaSetStatus. */
function validateReplicaSetStatus(rs: ReplicaSet): FieldError[] {
  return replicaCountErrors(
    rs.status ?? {},
    ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'terminatingReplicas', 'observedGeneration'],
    ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
  );
}

export const replicaSetResource = defineResource<ReplicaSet>({
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  plural: 'replicasets',
  singular: 'replicaset',
  shortNames: ['rs'],
  categories: ['all'],
  namespaced: true,
  schemaRef: `${APPS}ReplicaSet`,
  definitions: replicaSetDefinitions,
  hasGeneration: true,
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' } },
  columns: [
    nameColumn(),
    { name: 'Desired', type: 'integer', description: spec.replicas.description!, cell: (o) => num(o.spec?.replicas) },
    { name: 'Current', type: 'integer', description: status.replicas.description!, cell: (o) => num(o.status?.replicas) },
    { name: 'Ready', type: 'integer', description: status.readyReplicas.description!, cell: (o) => num(o.status?.readyReplicas) },
    ageColumn(),
    ...templateColumns<ReplicaSet>((o) => o.spec?.template),
    { name: 'Selector', type: 'string', priority: 1, description: spec.selector.description!, cell: (o) => formatLabelSelector(o.spec?.selector) },
  ],
  selectableFields: { 'status.replicas': (o) => String(num(o.status?.replicas)) },
  strategy: {
    defaults: defaultReplicaSet,
    prepareForCreate(rs) {
      rs.status = zeroStatus(STATUS);
      dropDisabledTemplateFields(rs.spec?.template);
    },
    prepareForUpdate: (rs, old) => dropDisabledTemplateFields(rs.spec?.template, old.spec?.template),
    validate: validateReplicaSet,
    validateUpdate: (rs, old) => validateImmutableSelector(rs.spec?.selector, old.spec?.selector),
    prepareForStatusUpdate(rs, old) {
      if (!isObj(rs.status)) rs.status = {};
      dropTerminatingReplicas(rs.status, old.status);
      normalizeStatus(rs.status, STATUS);
    },
    validateStatusUpdate: validateReplicaSetStatus,
    warnings: (rs, old) => (old ? [] : podNameWarning(rs)),
    allowCreateOnUpdate: false,
  },
});
