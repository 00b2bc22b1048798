// Protobuf field numbers of policy/v1, scheduling.k8s.io/v1, autoscaling/v1 and autoscaling/v2 types.
// Generated from the Go struct tags (`protobuf:"..."`, `json:"..."`) of k8s.io/api v0.33.13.
import type { ProtoTags } from '../../machinery/protobuf/decode.js';

const P = 'io.k8s.api.policy.v1.';
const S = 'io.k8s.api.scheduling.v1.';
const H1 = 'io.k8s.api.autoscaling.v1.';
const H2 = 'io.k8s.api.autoscaling.v2.';
/** A scalar whose zero value is still serialised (a pointer, or a JSON field without omitempty). */
const k = (tag: number) => ({ tag, keep: true });

export const policyProtoTags: ProtoTags = {
  [P + 'PodDisruptionBudgetSpec']: { minAvailable: 1, selector: 2, maxUnavailable: 3, unhealthyPodEvictionPolicy: k(4) },
  [P + 'PodDisruptionBudgetStatus']: {
    observedGeneration: 1, disruptedPods: 2, disruptionsAllowed: k(3), currentHealthy: k(4), desiredHealthy: k(5),
    expectedPods: k(6), conditions: 7,
  },
  [P + 'PodDisruptionBudget']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [P + 'PodDisruptionBudgetList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [P + 'Eviction']: { apiVersion: 0, kind: 0, metadata: 1, deleteOptions: 2 },
  [S + 'PriorityClass']: {
    apiVersion: 0, kind: 0, metadata: 1, value: k(2), globalDefault: 3, description: 4, preemptionPolicy: k(5),
  },
  [S + 'PriorityClassList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [H1 + 'CrossVersionObjectReference']: { kind: k(1), name: k(2), apiVersion: 3 },
  [H1 + 'HorizontalPodAutoscalerSpec']: {
    scaleTargetRef: 1, minReplicas: k(2), maxReplicas: k(3), targetCPUUtilizationPercentage: k(4),
  },
  [H1 + 'HorizontalPodAutoscalerStatus']: {
    observedGeneration: k(1), lastScaleTime: 2, currentReplicas: k(3), desiredReplicas: k(4),
    currentCPUUtilizationPercentage: k(5),
  },
  [H1 + 'HorizontalPodAutoscaler']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [H1 + 'HorizontalPodAutoscalerList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
  [H1 + 'Scale']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [H1 + 'ScaleSpec']: { replicas: 1 },
  [H1 + 'ScaleStatus']: { replicas: k(1), selector: 2 },
  [H1 + 'MetricSpec']: { type: k(1), object: 2, pods: 3, resource: 4, containerResource: 7, external: 5 },
  [H1 + 'ObjectMetricSource']: { target: 1, metricName: k(2), targetValue: 3, selector: 4, averageValue: 5 },
  [H1 + 'PodsMetricSource']: { metricName: k(1), targetAverageValue: 2, selector: 3 },
  [H1 + 'ResourceMetricSource']: { name: k(1), targetAverageUtilization: k(2), targetAverageValue: 3 },
  [H1 + 'ContainerResourceMetricSource']: { name: k(1), targetAverageUtilization: k(2), targetAverageValue: 3, container: k(5) },
  [H1 + 'ExternalMetricSource']: { metricName: k(1), metricSelector: 2, targetValue: 3, targetAverageValue: 4 },
  [H1 + 'MetricStatus']: { type: k(1), object: 2, pods: 3, resource: 4, containerResource: 7, external: 5 },
  [H1 + 'HorizontalPodAutoscalerCondition']: { type: k(1), status: k(2), lastTransitionTime: 3, reason: 4, message: 5 },
  [H1 + 'ObjectMetricStatus']: { target: 1, metricName: k(2), currentValue: 3, selector: 4, averageValue: 5 },
  [H1 + 'PodsMetricStatus']: { metricName: k(1), currentAverageValue: 2, selector: 3 },
  [H1 + 'ResourceMetricStatus']: { name: k(1), currentAverageUtilization: k(2), currentAverageValue: 3 },
  [H1 + 'ContainerResourceMetricStatus']: {
    name: k(1), currentAverageUtilization: k(2), currentAverageValue: 3, container: k(4),
  },
  [H1 + 'ExternalMetricStatus']: { metricName: k(1), metricSelector: 2, currentValue: 3, currentAverageValue: 4 },
  [H2 + 'HorizontalPodAutoscaler']: { apiVersion: 0, kind: 0, metadata: 1, spec: 2, status: 3 },
  [H2 + 'HorizontalPodAutoscalerSpec']: { scaleTargetRef: 1, minReplicas: k(2), maxReplicas: k(3), metrics: 4, behavior: 5 },
  [H2 + 'CrossVersionObjectReference']: { kind: k(1), name: k(2), apiVersion: 3 },
  [H2 + 'MetricSpec']: { type: k(1), object: 2, pods: 3, resource: 4, containerResource: 7, external: 5 },
  [H2 + 'HorizontalPodAutoscalerBehavior']: { scaleUp: 1, scaleDown: 2 },
  [H2 + 'HPAScalingRules']: { stabilizationWindowSeconds: k(3), selectPolicy: k(1), policies: 2, tolerance: 4 },
  [H2 + 'HPAScalingPolicy']: { type: k(1), value: k(2), periodSeconds: k(3) },
  [H2 + 'ObjectMetricSource']: { describedObject: 1, target: 2, metric: 3 },
  [H2 + 'PodsMetricSource']: { metric: 1, target: 2 },
  [H2 + 'ResourceMetricSource']: { name: k(1), target: 2 },
  [H2 + 'ContainerResourceMetricSource']: { name: k(1), target: 2, container: k(3) },
  [H2 + 'ExternalMetricSource']: { metric: 1, target: 2 },
  [H2 + 'MetricIdentifier']: { name: k(1), selector: 2 },
  [H2 + 'MetricTarget']: { type: k(1), value: 2, averageValue: 3, averageUtilization: k(4) },
  [H2 + 'HorizontalPodAutoscalerStatus']: {
    observedGeneration: k(1), lastScaleTime: 2, currentReplicas: 3, desiredReplicas: k(4), currentMetrics: 5, conditions: 6,
  },
  [H2 + 'HorizontalPodAutoscalerCondition']: { type: k(1), status: k(2), lastTransitionTime: 3, reason: 4, message: 5 },
  [H2 + 'MetricStatus']: { type: k(1), object: 2, pods: 3, resource: 4, containerResource: 7, external: 5 },
  [H2 + 'ObjectMetricStatus']: { metric: 1, current: 2, describedObject: 3 },
  [H2 + 'PodsMetricStatus']: { metric: 1, current: 2 },
  [H2 + 'ResourceMetricStatus']: { name: k(1), current: 2 },
  [H2 + 'ContainerResourceMetricStatus']: { name: k(1), current: 2, container: k(3) },
  [H2 + 'ExternalMetricStatus']: { metric: 1, current: 2 },
  [H2 + 'MetricValueStatus']: { value: 1, averageValue: 2, averageUtilization: k(3) },
  [H2 + 'HorizontalPodAutoscalerList']: { apiVersion: 0, kind: 0, metadata: 1, items: 2 },
};
