// apps/v1 DaemonSet: schema (types.go, 1.33), SetDefaults_DaemonSet, the daemonset strategy (status reset, template
// generation kept in the deprecated.daemonset.template.generation annotation and bumped on template changes) and
// printDaemonSet (NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE; -o wide adds CONTAINERS
// IMAGES SELECTOR).
import { s, type Definitions } from '../../../machinery/schema.js';
import { APPS, conditionSchema, conditionsList, dropEmpty, isObj, normalizeStatus, num, SPEC_AND_STATUS, templateColumns, zeroStatus, type StatusShape } from '../common.js';
import { validateDaemonSet, validateDaemonSetStatusUpdate, validateDaemonSetUpdate, type DaemonSet } from './validation.js';
import { CORE } from '../../core/common.js';
import { defaultPodTemplateSpec, dropDisabledTemplateFields, podTemplateSpecDefinitions } from '../../core/podtemplate/spec.js';
import { ageColumn, formatLabels, formatLabelSelector, jsonEqual, nameColumn } from '../../format.js';
import { kindHeader, listDefinition, META } from '../../meta.js';
import { defineResource } from '../../types.js';

export type { DaemonSet, DaemonSetSpec } from './validation.js';

/** Where apps/v1 keeps the internal spec.templateGeneration of a DaemonSet. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

const spec = {
  minReadySeconds: s.int32('Seconds a new daemon pod must be ready, with no container crashing, before it counts as available. Defaults to 0 (available as soon as ready).'),
  revisionHistoryLimit: s.int32('Number of old history entries kept to allow rollback. Defaults to 10.'),
  selector: s.ref(META.LabelSelector, "Label query over the pods managed by the daemon set. It must match the template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"),
  template: s.ref(`${CORE}PodTemplateSpec`, "Template of the pods to run: exactly one copy on every node that matches the template's node selector (or every node without one). Its spec.restartPolicy must be \"Always\". More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#pod-template", { default: {} }),
  updateStrategy: s.ref(`${APPS}DaemonSetUpdateStrategy`, 'How existing daemon pods are replaced by new ones.', { default: {} }),
};

const status = {
  collisionCount: s.int32('Count of hash collisions for the DaemonSet; the controller uses it to build a unique name for the newest ControllerRevision.'),
  conditions: conditionsList(`${APPS}DaemonSetCondition`, 'Latest observations of the state of the DaemonSet.'),
  currentNumberScheduled: s.int32('Number of nodes running at least one daemon pod and that are supposed to run it. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/', { default: 0 }),
  desiredNumberScheduled: s.int32('Total number of nodes that should be running the daemon pod, including those correctly running it. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/', { default: 0 }),
  numberAvailable: s.int32('Number of nodes that should run the daemon pod and have at least one of its pods running and available (ready for at least minReadySeconds).'),
  numberMisscheduled: s.int32('Number of nodes running the daemon pod that are not supposed to. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/', { default: 0 }),
  numberReady: s.int32('Number of nodes that should run the daemon pod and have one or more of its pods running with a Ready condition.', { default: 0 }),
  numberUnavailable: s.int32('Number of nodes that should run the daemon pod but have none of its pods running and available (ready for at least minReadySeconds).'),
  observedGeneration: s.int64('The most recent generation observed by the daemon set controller.'),
  updatedNumberScheduled: s.int32('Total number of nodes running the updated daemon pod.'),
};

export const daemonSetDefinitions: Definitions = {
  ...podTemplateSpecDefinitions,
  [`${APPS}DaemonSet`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${APPS}DaemonSetSpec`, `The desired behaviour of this daemon set. More info: ${SPEC_AND_STATUS}`, { default: {} }),
      status: s.ref(`${APPS}DaemonSetStatus`, `The current status of this daemon set; may lag behind. Populated by the system; read-only. More info: ${SPEC_AND_STATUS}`, { default: {} }),
    },
    { description: 'DaemonSet runs a copy of a pod on every (selected) node.' },
  ),
  [`${APPS}DaemonSetSpec`]: s.obj(spec, { description: 'DaemonSetSpec is the specification of a daemon set.', required: ['selector', 'template'] }),
  [`${APPS}DaemonSetUpdateStrategy`]: s.obj(
    {
      rollingUpdate: s.ref(`${APPS}RollingUpdateDaemonSet`, 'Parameters of a rolling update; only allowed when type is RollingUpdate.'),
      type: s.enumOf(['OnDelete', 'RollingUpdate'], 'Type of daemon set update: "RollingUpdate" (default) or "OnDelete" (replace pods only when they are deleted).'),
    },
    { description: 'DaemonSetUpdateStrategy describes how daemon pods are replaced.' },
  ),
  [`${APPS}RollingUpdateDaemonSet`]: s.obj(
    {
      maxSurge: s.intOrString('Maximum number of nodes that may run an updated daemon pod next to the old one during the update: a number or a percentage of desired nodes (rounded up). Must be 0 if maxUnavailable is not 0. Defaults to 0.'),
      maxUnavailable: s.intOrString('Maximum number of daemon pods that may be unavailable during the update: a number or a percentage of desired nodes (rounded up). Cannot be 0 if maxSurge is 0. Defaults to 1.'),
    },
    { description: 'RollingUpdateDaemonSet controls the pace of a daemon set rolling update.' },
  ),
  [`${APPS}DaemonSetStatus`]: s.obj(status, {
    description: 'DaemonSetStatus is the current status of a daemon set.',
    required: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'],
  }),
  [`${APPS}DaemonSetCondition`]: conditionSchema('DaemonSet', { lastTransitionTime: 'Last time the condition moved from one status to another.' }),
  [`${APPS}DaemonSetList`]: listDefinition(`${APPS}DaemonSet`, 'DaemonSetList is a collection of daemon sets.', 'A list of daemon sets.'),
};

const STATUS: StatusShape = {
  always: ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'],
  pointers: ['collisionCount'],
  conditionTimes: ['lastTransitionTime'],
};

function defaultDaemonSet(ds: DaemonSet): void {
  if (!isObj(ds.spec)) ds.spec = {};
  const sp = ds.spec;
  if (!isObj(sp.updateStrategy)) sp.updateStrategy = {};
  const us = sp.updateStrategy;
  if (!us.type) us.type = 'RollingUpdate';
  if (us.type === 'RollingUpdate') {
    if (!isObj(us.rollingUpdate)) us.rollingUpdate = {};
    const ru = us.rollingUpdate;
    if (ru.maxUnavailable === undefined || ru.maxUnavailable === null) ru.maxUnavailable = 1;
    if (ru.maxSurge === undefined || ru.maxSurge === null) ru.maxSurge = 0;
  }
  if (sp.revisionHistoryLimit === undefined || sp.revisionHistoryLimit === null) sp.revisionHistoryLimit = 10;
  if (!isObj(sp.template)) sp.template = {};
  defaultPodTemplateSpec(sp.template);
  dropEmpty(sp, ['minReadySeconds']);
  dropEmpty(us, []);
}

/** The internal spec.templateGeneration, as the v1 conversion reads it from the annotation (0 when absent). */
function templateGeneration(ds: DaemonSet): number {
  const v = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return v !== undefined && /^[+-]?[0-9]+$/.test(v) ? Number.parseInt(v, 10) : 0;
}

function setTemplateGeneration(ds: DaemonSet, gen: number): void {
  const ann = { ...(ds.metadata.annotations ?? {}) };
  if (gen === 0) delete ann[TEMPLATE_GENERATION_ANNOTATION];
  else ann[TEMPLATE_GENERATION_ANNOTATION] = String(gen);
  if (Object.keys(ann).length) ds.metadata.annotations = ann;
  else delete ds.metadata.annotations;
}

export const daemonSetResource = defineResource<DaemonSet>({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  singular: 'daemonset',
  shortNames: ['ds'],
  categories: ['all'],
  namespaced: true,
  schemaRef: `${APPS}DaemonSet`,
  definitions: daemonSetDefinitions,
  hasGeneration: true,
  subresources: { status: true },
  columns: [
    nameColumn(),
    { name: 'Desired', type: 'integer', description: status.desiredNumberScheduled.description!, cell: (o) => num(o.status?.desiredNumberScheduled) },
    { name: 'Current', type: 'integer', description: status.currentNumberScheduled.description!, cell: (o) => num(o.status?.currentNumberScheduled) },
    { name: 'Ready', type: 'integer', description: status.numberReady.description!, cell: (o) => num(o.status?.numberReady) },
    { name: 'Up-to-date', type: 'integer', description: status.updatedNumberScheduled.description!, cell: (o) => num(o.status?.updatedNumberScheduled) },
    { name: 'Available', type: 'integer', description: status.numberAvailable.description!, cell: (o) => num(o.status?.numberAvailable) },
    {
      name: 'Node Selector',
      type: 'string',
      description: 'Labels a node must carry for the daemon pods to be scheduled onto it.',
      cell: (o) => formatLabels(o.spec?.template?.spec?.nodeSelector),
    },
    ageColumn(),
    ...templateColumns<DaemonSet>((o) => o.spec?.template),
    { name: 'Selector', type: 'string', priority: 1, description: spec.selector.description!, cell: (o) => formatLabelSelector(o.spec?.selector) },
  ],
  strategy: {
    defaults: defaultDaemonSet,
    prepareForCreate(ds) {
      ds.status = zeroStatus(STATUS);
      setTemplateGeneration(ds, Math.max(templateGeneration(ds), 1));
      dropDisabledTemplateFields(ds.spec?.template);
    },
    prepareForUpdate(ds, old) {
      dropDisabledTemplateFields(ds.spec?.template, old.spec?.template);
      // The client cannot set the template generation: it is the old one, plus one when the template changed.
      const changed = !jsonEqual(ds.spec?.template ?? null, old.spec?.template ?? null);
      setTemplateGeneration(ds, templateGeneration(old) + (changed ? 1 : 0));
    },
    validate: validateDaemonSet,
    validateUpdate: validateDaemonSetUpdate,
    prepareForStatusUpdate(ds) {
      if (!isObj(ds.status)) ds.status = {};
      normalizeStatus(ds.status, STATUS);
    },
    validateStatusUpdate: validateDaemonSetStatusUpdate,
    allowCreateOnUpdate: false,
  },
});
