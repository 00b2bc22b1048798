// apps/v1 StatefulSet: schema (types.go, 1.33), SetDefaults_StatefulSet (StatefulSetAutoDeletePVC is GA, so the
// claim retention policy is always defaulted), the statefulset strategy (status reset, maxUnavailable dropped while
// the MaxUnavailableStatefulSet gate is off, negative revisionHistoryLimit warning) and printStatefulSet
// (NAME READY AGE; -o wide adds CONTAINERS IMAGES).
import { s, type Definitions } from '../../../machinery/schema.js';
import { nameIsDNSLabel } from '../../../machinery/validation.js';
import { APPS, conditionSchema, conditionsList, dropEmpty, isObj, normalizeStatus, num, templateColumns, zeroStatus, type StatusShape } from '../common.js';
import { claimTemplateDefinitions, defaultClaimTemplate } from './claim-template.js';
import { validateStatefulSet, validateStatefulSetStatusUpdate, validateStatefulSetUpdate, type StatefulSet } from './validation.js';
import { CORE } from '../../core/common.js';
import { defaultPodTemplateSpec, dropDisabledTemplateFields, podTemplateSpecDefinitions } from '../../core/podtemplate/spec.js';
import { ageColumn, nameColumn } from '../../format.js';
import { kindHeader, listDefinition, META } from '../../meta.js';
import { defineResource } from '../../types.js';

export type { StatefulSet, StatefulSetSpec } from './validation.js';

const retention = (when: string) =>
  s.str(`What happens to the claims created from volumeClaimTemplates when ${when}: "Retain" (default) keeps them, "Delete" deletes those no longer needed.`);

const spec = {
  minReadySeconds: s.int32('Seconds a new pod must be ready, with no container crashing, before it counts as available. Defaults to 0 (available as soon as ready).'),
  ordinals: s.ref(`${APPS}StatefulSetOrdinals`, 'Numbering of the replica indices of the StatefulSet.'),
  persistentVolumeClaimRetentionPolicy: s.ref(
    `${APPS}StatefulSetPersistentVolumeClaimRetentionPolicy`,
    'What happens to the claims created from volumeClaimTemplates when the StatefulSet is deleted or scaled down. By default they are retained.',
  ),
  podManagementPolicy: s.enumOf(
    ['OrderedReady', 'Parallel'],
    'How pods are created on scale up and deleted on scale down: "OrderedReady" (default) one at a time in ordinal order, each waiting for its predecessor to be Running and Ready (reverse order when scaling down); "Parallel" all at once. Rolling updates are not affected.',
  ),
  replicas: s.int32('Number of desired replicas of the template. Unset means 1, which is distinct from an explicit 0.'),
  revisionHistoryLimit: s.int32("Maximum number of revisions kept in the StatefulSet's revision history (ControllerRevisions of versions other than the current one). Defaults to 10."),
  selector: s.ref(META.LabelSelector, "Label query over the pods that count towards replicas. It must match the template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"),
  serviceName: s.str('Name of the Service that governs this StatefulSet; pods get DNS names of the form pod-specific-string.serviceName.default.svc.cluster.local. Optional: without it, pods get no such names.', { default: '' }),
  template: s.ref(`${CORE}PodTemplateSpec`, 'Template of the pods created when there are too few. Each pod gets a unique identity from the StatefulSet, but is otherwise identical to the template.', { default: {} }),
  updateStrategy: s.ref(`${APPS}StatefulSetUpdateStrategy`, 'How pods are updated when the template changes.', { default: {} }),
  volumeClaimTemplates: s.arr(s.ref(`${CORE}PersistentVolumeClaim`, undefined, { default: {} }), {
    listType: 'atomic',
    description: 'Claims each pod may reference; the controller creates one claim per pod (with a name unique to the pod) and mounts it. Entries override same-named volumes of the template.',
  }),
};

const status = {
  availableReplicas: s.int32('Number of pods of this StatefulSet ready for at least minReadySeconds.', { default: 0 }),
  collisionCount: s.int32('Count of hash collisions for the StatefulSet; the controller uses it to build a unique name for the newest ControllerRevision.'),
  conditions: conditionsList(`${APPS}StatefulSetCondition`, 'Latest observations of the state of the StatefulSet.'),
  currentReplicas: s.int32('Number of pods created from the StatefulSet version given by currentRevision.'),
  currentRevision: s.str('Version of the StatefulSet used for the pods in the sequence [0, currentReplicas) when not empty.'),
  observedGeneration: s.int64('The most recent generation observed for this StatefulSet; it corresponds to the generation of the StatefulSet updated by the API server.'),
  readyReplicas: s.int32('Number of pods of this StatefulSet with a Ready condition.'),
  replicas: s.int32('Number of pods created by the StatefulSet controller.', { default: 0 }),
  updateRevision: s.str('Version of the StatefulSet used for the pods in the sequence [replicas-updatedReplicas, replicas) when not empty.'),
  updatedReplicas: s.int32('Number of pods created from the StatefulSet version given by updateRevision.'),
};

export const statefulSetDefinitions: Definitions = {
  ...podTemplateSpecDefinitions,
  ...claimTemplateDefinitions,
  [`${APPS}StatefulSet`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${APPS}StatefulSetSpec`, 'Desired identities of the pods in this set.', { default: {} }),
      status: s.ref(`${APPS}StatefulSetStatus`, 'Current status of the pods in this StatefulSet; may lag behind the spec.', { default: {} }),
    },
    { description: 'StatefulSet manages pods with stable identities: a stable hostname per pod and stable storage (a claim per pod from volumeClaimTemplates) that stays with the identity.' },
  ),
  [`${APPS}StatefulSetSpec`]: s.obj(spec, { description: 'A StatefulSetSpec is the specification of a StatefulSet.', required: ['selector', 'template'] }),
  [`${APPS}StatefulSetUpdateStrategy`]: s.obj(
    {
      rollingUpdate: s.ref(`${APPS}RollingUpdateStatefulSetStrategy`, 'Parameters of a RollingUpdate; only allowed when type is RollingUpdate.'),
      type: s.enumOf(['OnDelete', 'RollingUpdate'], 'Type of update: "RollingUpdate" (default) replaces pods automatically, "OnDelete" only when they are deleted.'),
    },
    { description: 'StatefulSetUpdateStrategy tells the StatefulSet controller how to perform updates.' },
  ),
  [`${APPS}RollingUpdateStatefulSetStrategy`]: s.obj(
    {
      maxUnavailable: s.intOrString('Maximum number of pods that may be unavailable during the update: a number or a percentage of desired pods (rounded up), at least 1. Defaults to 1. Alpha: needs the MaxUnavailableStatefulSet feature gate.'),
      partition: s.int32('Only pods with an ordinal at or above the partition are updated. Defaults to 0.'),
    },
    { description: 'RollingUpdateStatefulSetStrategy holds the parameters of a RollingUpdate.' },
  ),
  [`${APPS}StatefulSetPersistentVolumeClaimRetentionPolicy`]: s.obj(
    { whenDeleted: retention('the StatefulSet is deleted'), whenScaled: retention('the StatefulSet is scaled down') },
    { description: 'StatefulSetPersistentVolumeClaimRetentionPolicy says what happens to the claims created from volumeClaimTemplates.' },
  ),
  [`${APPS}StatefulSetOrdinals`]: s.obj(
    { start: s.int32('Number given to the first replica; replicas are numbered start to start+replicas-1. Defaults to 0.', { default: 0 }) },
    { description: 'StatefulSetOrdinals describes how replica ordinals are assigned.' },
  ),
  [`${APPS}StatefulSetStatus`]: s.obj(status, { description: 'StatefulSetStatus is the current state of a StatefulSet.', required: ['replicas'] }),
  [`${APPS}StatefulSetCondition`]: conditionSchema('StatefulSet', { lastTransitionTime: 'Last time the condition moved from one status to another.' }),
  [`${APPS}StatefulSetList`]: listDefinition(`${APPS}StatefulSet`, 'StatefulSetList is a collection of StatefulSets.', 'Items is the list of stateful sets.'),
};

const STATUS: StatusShape = { always: ['replicas', 'availableReplicas'], pointers: ['collisionCount'], conditionTimes: ['lastTransitionTime'] };

/** SetDefaults_StatefulSet plus the template and claim template defaults; runs on every decoded body. */
function defaultStatefulSet(ss: StatefulSet): void {
  if (!isObj(ss.spec)) ss.spec = {};
  const sp = ss.spec;
  if (!sp.podManagementPolicy) sp.podManagementPolicy = 'OrderedReady';
  if (!isObj(sp.updateStrategy)) sp.updateStrategy = {};
  const us = sp.updateStrategy;
  if (!us.type) {
    us.type = 'RollingUpdate';
    if (!isObj(us.rollingUpdate)) us.rollingUpdate = {};
  }
  if (us.type === 'RollingUpdate' && isObj(us.rollingUpdate) && (us.rollingUpdate.partition === undefined || us.rollingUpdate.partition === null)) {
    us.rollingUpdate.partition = 0;
  }
  if (!isObj(sp.persistentVolumeClaimRetentionPolicy)) sp.persistentVolumeClaimRetentionPolicy = {};
  const pr = sp.persistentVolumeClaimRetentionPolicy;
  if (!pr.whenDeleted) pr.whenDeleted = 'Retain';
  if (!pr.whenScaled) pr.whenScaled = 'Retain';
  if (sp.replicas === undefined || sp.replicas === null) sp.replicas = 1;
  if (sp.revisionHistoryLimit === undefined || sp.revisionHistoryLimit === null) sp.revisionHistoryLimit = 10;
  if (!isObj(sp.template)) sp.template = {};
  defaultPodTemplateSpec(sp.template);
  for (const pvc of Array.isArray(sp.volumeClaimTemplates) ? sp.volumeClaimTemplates : []) if (isObj(pvc)) defaultClaimTemplate(pvc);
  // serviceName and ordinals.start have no omitempty: Go always writes them.
  if (typeof sp.serviceName !== 'string') sp.serviceName = '';
  if (isObj(sp.ordinals) && typeof sp.ordinals.start !== 'number') sp.ordinals.start = 0;
  dropEmpty(sp, ['minReadySeconds', 'volumeClaimTemplates']);
  dropEmpty(us, []);
}

/** dropStatefulSetDisabledFields: maxUnavailable needs MaxUnavailableStatefulSet (alpha, off) unless already in use. */
function dropDisabledFields(ss: StatefulSet, old?: StatefulSet): void {
  const ru = ss.spec?.updateStrategy?.rollingUpdate;
  const inUse = old?.spec?.updateStrategy?.rollingUpdate?.maxUnavailable;
  if (isObj(ru) && (inUse === undefined || inUse === null)) delete ru.maxUnavailable;
  dropDisabledTemplateFields(ss.spec?.template, old?.spec?.template);
}

const HISTORY_WARNING = 'spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended';

export const statefulSetResource = defineResource<StatefulSet>({
  group: 'apps',
  version: 'v1',
  kind: 'StatefulSet',
  plural: 'statefulsets',
  singular: 'statefulset',
  shortNames: ['sts'],
  categories: ['all'],
  namespaced: true,
  schemaRef: `${APPS}StatefulSet`,
  definitions: statefulSetDefinitions,
  hasGeneration: true,
  subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.spec.selector' } },
  columns: [
    nameColumn(),
    { name: 'Ready', type: 'string', description: 'Number of the pod with ready state', cell: (o) => `${num(o.status?.readyReplicas)}/${num(o.spec?.replicas)}` },
    ageColumn(),
    ...templateColumns<StatefulSet>((o) => o.spec?.template),
  ],
  strategy: {
    defaults: defaultStatefulSet,
    prepareForCreate(ss) {
      ss.status = zeroStatus(STATUS);
      dropDisabledFields(ss);
    },
    prepareForUpdate: (ss, old) => dropDisabledFields(ss, old),
    validate: validateStatefulSet,
    validateUpdate: validateStatefulSetUpdate,
    // StatefulSet pods are named <name>-<ordinal> and used as hostnames, so the name must be a DNS label.
    validateName: nameIsDNSLabel,
    prepareForStatusUpdate(ss) {
      if (!isObj(ss.status)) ss.status = {};
      normalizeStatus(ss.status, STATUS);
    },
    validateStatusUpdate: validateStatefulSetStatusUpdate,
    warnings: (ss) => ((ss.spec?.revisionHistoryLimit ?? 0) < 0 ? [HISTORY_WARNING] : []),
    allowCreateOnUpdate: false,
  },
});
