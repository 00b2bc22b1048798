// Protobuf field numbers of apps/v1 and batch/v1 types.
// Generated from the Go struct tags (`protobuf:"..."`, `json:"..."`) of k8s.io/api v0.33.13.
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const A = 'io.k8s.api.apps.v1.';
const B = 'io.k8s.api.batch.v1.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });

export const workloadsProtoTags: ProtoTags = {
  [A + 'StatefulSet']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [A + 'StatefulSetUpdateStrategy']: { type: 1, rollingUpdate: 2 },
  [A + 'RollingUpdateStatefulSetStrategy']: { partition: k(1), maxUnavailable: 2 },
  [A + 'StatefulSetPersistentVolumeClaimRetentionPolicy']: { whenDeleted: 1, whenScaled: 2 },
  [A + 'StatefulSetOrdinals']: { start: k(1) },
  [A + 'StatefulSetSpec']: {
    replicas: k(1), selector: 2, template: 3, volumeClaimTemplates: 4, serviceName: k(5), podManagementPolicy: 6,
    updateStrategy: 7, revisionHistoryLimit: k(8), minReadySeconds: 9, persistentVolumeClaimRetentionPolicy: 10, ordinals: 11,
  },
  [A + 'StatefulSetStatus']: {
    observedGeneration: 1, replicas: k(2), readyReplicas: 3, currentReplicas: 4, updatedReplicas: 5, currentRevision: 6,
    updateRevision: 7, collisionCount: k(9), conditions: 10, availableReplicas: k(11),
  },
  [A + 'StatefulSetCondition']: { type: k(1), status: k(2), lastTransitionTime: 3, reason: 4, message: 5 },
  [A + 'StatefulSetList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [A + 'Deployment']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [A + 'DeploymentSpec']: {
    replicas: k(1), selector: 2, template: 3, strategy: 4, minReadySeconds: 5, revisionHistoryLimit: k(6), paused: 7,
    progressDeadlineSeconds: k(9),
  },
  [A + 'DeploymentStrategy']: { type: 1, rollingUpdate: 2 },
  [A + 'RollingUpdateDeployment']: { maxUnavailable: 1, maxSurge: 2 },
  [A + 'DeploymentStatus']: {
    observedGeneration: 1, replicas: 2, updatedReplicas: 3, readyReplicas: 7, availableReplicas: 4, unavailableReplicas: 5,
    terminatingReplicas: k(9), conditions: 6, collisionCount: k(8),
  },
  [A + 'DeploymentCondition']: { type: k(1), status: k(2), lastUpdateTime: 6, lastTransitionTime: 7, reason: 4, message: 5 },
  [A + 'DeploymentList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [A + 'DaemonSetUpdateStrategy']: { type: 1, rollingUpdate: 2 },
  [A + 'RollingUpdateDaemonSet']: { maxUnavailable: 1, maxSurge: 2 },
  [A + 'DaemonSetSpec']: { selector: 1, template: 2, updateStrategy: 3, minReadySeconds: 4, revisionHistoryLimit: k(6) },
  [A + 'DaemonSetStatus']: {
    currentNumberScheduled: k(1), numberMisscheduled: k(2), desiredNumberScheduled: k(3), numberReady: k(4),
    observedGeneration: 5, updatedNumberScheduled: 6, numberAvailable: 7, numberUnavailable: 8, collisionCount: k(9),
    conditions: 10,
  },
  [A + 'DaemonSetCondition']: { type: k(1), status: k(2), lastTransitionTime: 3, reason: 4, message: 5 },
  [A + 'DaemonSet']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [A + 'DaemonSetList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [A + 'ReplicaSet']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [A + 'ReplicaSetList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [A + 'ReplicaSetSpec']: { replicas: k(1), minReadySeconds: 4, selector: 2, template: 3 },
  [A + 'ReplicaSetStatus']: {
    replicas: k(1), fullyLabeledReplicas: 2, readyReplicas: 4, availableReplicas: 5, terminatingReplicas: k(7),
    observedGeneration: 3, conditions: 6,
  },
  [A + 'ReplicaSetCondition']: { type: k(1), status: k(2), lastTransitionTime: 3, reason: 4, message: 5 },
  [A + 'ControllerRevision']: { apiVersion: 0, kind: 0, metadata: 1, data: 2, revision: k(3) },
  [A + 'ControllerRevisionList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [B + 'Job']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [B + 'JobList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [B + 'PodFailurePolicyOnExitCodesRequirement']: { containerName: k(1), operator: k(2), values: 3 },
  [B + 'PodFailurePolicyOnPodConditionsPattern']: { type: k(1), status: k(2) },
  [B + 'PodFailurePolicyRule']: { action: k(1), onExitCodes: 2, onPodConditions: 3 },
  [B + 'PodFailurePolicy']: { rules: 1 },
  [B + 'SuccessPolicy']: { rules: 1 },
  [B + 'SuccessPolicyRule']: { succeededIndexes: k(1), succeededCount: k(2) },
  [B + 'JobSpec']: {
    parallelism: k(1), completions: k(2), activeDeadlineSeconds: k(3), podFailurePolicy: 11, successPolicy: 16,
    backoffLimit: k(7), backoffLimitPerIndex: k(12), maxFailedIndexes: k(13), selector: 4, manualSelector: k(5), template: 6,
    ttlSecondsAfterFinished: k(8), completionMode: k(9), suspend: k(10), podReplacementPolicy: k(14), managedBy: k(15),
  },
  [B + 'JobStatus']: {
    conditions: 1, startTime: 2, completionTime: 3, active: 4, succeeded: 5, failed: 6, terminating: k(11), completedIndexes: 7,
    failedIndexes: k(10), uncountedTerminatedPods: 8, ready: k(9),
  },
  [B + 'UncountedTerminatedPods']: { succeeded: 1, failed: 2 },
  [B + 'JobCondition']: { type: k(1), status: k(2), lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 },
  [B + 'JobTemplateSpec']: { metadata: 1, spec: 2 },
  [B + 'CronJob']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [B + 'CronJobList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [B + 'CronJobSpec']: {
    schedule: k(1), timeZone: k(8), startingDeadlineSeconds: k(2), concurrencyPolicy: 3, suspend: k(4), jobTemplate: 5,
    successfulJobsHistoryLimit: k(6), failedJobsHistoryLimit: k(7),
  },
  [B + 'CronJobStatus']: { active: 1, lastScheduleTime: 4, lastSuccessfulTime: 5 },
};
