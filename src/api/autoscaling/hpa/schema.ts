// OpenAPI schema of autoscaling/v2 HorizontalPodAutoscaler (the stored form) and autoscaling/v1 (the older view
// of the same objects). Fields, required lists, list types and patch metadata follow the Go struct tags and
// markers of k8s.io/api/autoscaling/{v1,v2}/types.go (1.33); descriptions are short summaries.
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';
import { kindHeader, listDefinition, META } from '../../meta.js';

export const H2 = 'io.k8s.api.autoscaling.v2.';
export const H1 = 'io.k8s.api.autoscaling.v1.';
const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
const r2 = (name: string, description?: string, extra: Partial<Schema> = {}): Schema => s.ref(H2 + name, description, extra);
const reqStr = (description: string) => s.str(description, { default: '' });
const item = (ref: string) => s.ref(ref, undefined, { default: {} });

function crossVersionRef(description: string): Schema {
  return s.obj(
    {
      apiVersion: s.str('apiVersion is the API version of the referent'),
      kind: reqStr('kind is the kind of the referent; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds'),
      name: reqStr('name is the name of the referent; More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names'),
    },
    { required: ['kind', 'name'], description },
  );
}

const sourceFields = (what: string): Record<string, Schema> => ({
  type: reqStr(`type is the type of ${what}. One of "ContainerResource", "External", "Object", "Pods" or "Resource", each mapping to the matching field of this object.`),
  object: r2(`Object${what === 'metric source' ? 'MetricSource' : 'MetricStatus'}`, 'object refers to a metric describing a single kubernetes object (for example, hits-per-second on an Ingress object).'),
  pods: r2(`Pods${what === 'metric source' ? 'MetricSource' : 'MetricStatus'}`, 'pods refers to a metric describing each pod in the current scale target (for example, transactions-processed-per-second), averaged across pods.'),
  resource: r2(`Resource${what === 'metric source' ? 'MetricSource' : 'MetricStatus'}`, 'resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing each pod in the current scale target (e.g. CPU or memory).'),
  containerResource: r2(`ContainerResource${what === 'metric source' ? 'MetricSource' : 'MetricStatus'}`, 'containerResource refers to a resource metric of a single container in each pod of the current scale target (e.g. CPU or memory).'),
  external: r2(`External${what === 'metric source' ? 'MetricSource' : 'MetricStatus'}`, 'external refers to a global metric that is not associated with any Kubernetes object, such as the length of a queue in a cloud messaging service.'),
});

const v2: Definitions = {
  [H2 + 'HorizontalPodAutoscaler']: s.obj(
    {
      ...kindHeader(),
      spec: r2('HorizontalPodAutoscalerSpec', `spec is the specification for the behaviour of the autoscaler. More info: ${CONVENTIONS}#spec-and-status.`, { default: {} }),
      status: r2('HorizontalPodAutoscalerStatus', 'status is the current information about the autoscaler.', { default: {} }),
    },
    { description: 'HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.' },
  ),
  [H2 + 'HorizontalPodAutoscalerList']: listDefinition(H2 + 'HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList is a list of horizontal pod autoscaler objects.', 'items is the list of horizontal pod autoscaler objects.'),
  [H2 + 'HorizontalPodAutoscalerSpec']: s.obj(
    {
      scaleTargetRef: r2('CrossVersionObjectReference', 'scaleTargetRef points to the target resource to scale; its metrics are collected and its replica count set.', { default: {} }),
      minReplicas: s.int32('minReplicas is the lower limit for the number of replicas. Defaults to 1; 0 is allowed only with the HPAScaleToZero gate and an Object or External metric.'),
      maxReplicas: s.int32('maxReplicas is the upper limit for the number of replicas. It cannot be less that minReplicas.', { default: 0 }),
      metrics: s.arr(item(H2 + 'MetricSpec'), { description: 'metrics contains the specifications used to calculate the desired replica count (the maximum across all metrics is used). Defaults to 80% average CPU utilization.' }),
      behavior: r2('HorizontalPodAutoscalerBehavior', 'behavior configures the scaling behavior of the target in both Up and Down directions. Unset uses the default scaling rules.'),
    },
    { required: ['scaleTargetRef', 'maxReplicas'], description: 'HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler.' },
  ),
  [H2 + 'CrossVersionObjectReference']: crossVersionRef('CrossVersionObjectReference contains enough information to let you identify the referred resource.'),
  [H2 + 'MetricSpec']: s.obj(sourceFields('metric source'), { required: ['type'], description: 'MetricSpec specifies how to scale based on a single metric (only `type` and one matching field should be set at once).' }),
  [H2 + 'ObjectMetricSource']: s.obj(
    {
      describedObject: r2('CrossVersionObjectReference', 'describedObject specifies the descriptions of a object,such as kind,name apiVersion', { default: {} }),
      target: r2('MetricTarget', 'target specifies the target value for the given metric', { default: {} }),
      metric: r2('MetricIdentifier', 'metric identifies the target metric by name and selector', { default: {} }),
    },
    { required: ['describedObject', 'target', 'metric'], description: 'ObjectMetricSource indicates how to scale on a metric describing a kubernetes object (for example, hits-per-second on an Ingress object).' },
  ),
  [H2 + 'PodsMetricSource']: s.obj(
    {
      metric: r2('MetricIdentifier', 'metric identifies the target metric by name and selector', { default: {} }),
      target: r2('MetricTarget', 'target specifies the target value for the given metric', { default: {} }),
    },
    { required: ['metric', 'target'], description: 'PodsMetricSource indicates how to scale on a metric describing each pod in the current scale target; only averageValue targets are supported.' },
  ),
  [H2 + 'ResourceMetricSource']: s.obj(
    {
      name: reqStr('name is the name of the resource in question.'),
      target: r2('MetricTarget', 'target specifies the target value for the given metric', { default: {} }),
    },
    { required: ['name', 'target'], description: 'ResourceMetricSource indicates how to scale on a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).' },
  ),
  [H2 + 'ContainerResourceMetricSource']: s.obj(
    {
      name: reqStr('name is the name of the resource in question.'),
      target: r2('MetricTarget', 'target specifies the target value for the given metric', { default: {} }),
      container: reqStr('container is the name of the container in the pods of the scaling target'),
    },
    { required: ['name', 'target', 'container'], description: 'ContainerResourceMetricSource indicates how to scale on a resource metric of one container in each pod of the current scale target.' },
  ),
  [H2 + 'ExternalMetricSource']: s.obj(
    {
      metric: r2('MetricIdentifier', 'metric identifies the target metric by name and selector', { default: {} }),
      target: r2('MetricTarget', 'target specifies the target value for the given metric', { default: {} }),
    },
    { required: ['metric', 'target'], description: 'ExternalMetricSource indicates how to scale on a metric not associated with any Kubernetes object (for example length of queue in cloud messaging service).' },
  ),
  [H2 + 'MetricIdentifier']: s.obj(
    {
      name: reqStr('name is the name of the given metric'),
      selector: s.ref(META.LabelSelector, 'selector is the string-encoded form of a standard kubernetes label selector for the given metric; unset uses only the metric name.'),
    },
    { required: ['name'], description: 'MetricIdentifier defines the name and optionally selector for a metric' },
  ),
  [H2 + 'MetricTarget']: s.obj(
    {
      type: reqStr('type represents whether the metric type is Utilization, Value, or AverageValue'),
      value: s.quantity('value is the target value of the metric (as a quantity).'),
      averageValue: s.quantity('averageValue is the target value of the average of the metric across all relevant pods (as a quantity)'),
      averageUtilization: s.int32('averageUtilization is the target value of the average of the resource metric across all relevant pods, as a percentage of the requested value. Only valid for Resource metric source type'),
    },
    { required: ['type'], description: 'MetricTarget defines the target value, average value, or average utilization of a specific metric' },
  ),
  [H2 + 'HorizontalPodAutoscalerBehavior']: s.obj(
    {
      scaleUp: r2('HPAScalingRules', 'scaleUp is scaling policy for scaling Up. Unset defaults to the larger of 4 pods or 100% per 15 seconds, with no stabilization window.'),
      scaleDown: r2('HPAScalingRules', 'scaleDown is scaling policy for scaling Down. Unset allows removing up to 100% of the replicas per 15 seconds, after a 300 second stabilization window.'),
    },
    { description: 'HorizontalPodAutoscalerBehavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively).' },
  ),
  [H2 + 'HPAScalingRules']: s.obj(
    {
      stabilizationWindowSeconds: s.int32('stabilizationWindowSeconds is the number of seconds for which past recommendations are considered while scaling. 0 to 3600.'),
      selectPolicy: s.str('selectPolicy is used to specify which policy should be used: Max (default), Min or Disabled.'),
      policies: s.arr(item(H2 + 'HPAScalingPolicy'), { description: 'policies is a list of potential scaling polices which can be used during scaling. At least one policy must be specified.' }),
      tolerance: s.quantity('tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made (alpha: HPAConfigurableTolerance).'),
    },
    { description: 'HPAScalingRules configures the scaling behavior for one direction via scaling policies, a selection rule, a stabilization window and a tolerance.' },
  ),
  [H2 + 'HPAScalingPolicy']: s.obj(
    {
      type: reqStr('type is used to specify the scaling policy: Pods or Percent.'),
      value: s.int32('value contains the amount of change which is permitted by the policy. It must be greater than zero', { default: 0 }),
      periodSeconds: s.int32('periodSeconds specifies the window of time for which the policy should hold true. Greater than zero and at most 1800 (30 min).', { default: 0 }),
    },
    { required: ['type', 'value', 'periodSeconds'], description: 'HPAScalingPolicy is a single policy which must hold true for a specified past interval.' },
  ),
  [H2 + 'HorizontalPodAutoscalerStatus']: s.obj(
    {
      observedGeneration: s.int64('observedGeneration is the most recent generation observed by this autoscaler.'),
      lastScaleTime: s.time('lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods, used by the autoscaler to control how often the number of pods is changed.'),
      currentReplicas: s.int32('currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
      desiredReplicas: s.int32('desiredReplicas is the desired number of replicas of pods managed by this autoscaler, as last calculated by the autoscaler.', { default: 0 }),
      currentMetrics: s.arr(item(H2 + 'MetricStatus'), { description: 'currentMetrics is the last read state of the metrics used by this autoscaler.' }),
      conditions: s.arr(item(H2 + 'HorizontalPodAutoscalerCondition'), {
        mergeKey: 'type',
        description: 'conditions is the set of conditions required for this autoscaler to scale its target, and indicates whether or not those conditions are met.',
      }),
    },
    { required: ['desiredReplicas'], description: 'HorizontalPodAutoscalerStatus describes the current status of a horizontal pod autoscaler.' },
  ),
  [H2 + 'HorizontalPodAutoscalerCondition']: s.obj(
    {
      type: reqStr('type describes the current condition'),
      status: reqStr('status is the status of the condition (True, False, Unknown)'),
      lastTransitionTime: s.time('lastTransitionTime is the last time the condition transitioned from one status to another'),
      reason: s.str("reason is the reason for the condition's last transition."),
      message: s.str('message is a human-readable explanation containing details about the transition'),
    },
    { required: ['type', 'status'], description: 'HorizontalPodAutoscalerCondition describes the state of a HorizontalPodAutoscaler at a certain point.' },
  ),
  [H2 + 'MetricStatus']: s.obj(sourceFields('metric status'), { required: ['type'], description: 'MetricStatus describes the last-read state of a single metric.' }),
  [H2 + 'ObjectMetricStatus']: s.obj(
    {
      metric: r2('MetricIdentifier', 'metric identifies the target metric by name and selector', { default: {} }),
      current: r2('MetricValueStatus', 'current contains the current value for the given metric', { default: {} }),
      describedObject: r2('CrossVersionObjectReference', 'DescribedObject specifies the descriptions of a object,such as kind,name apiVersion', { default: {} }),
    },
    { required: ['metric', 'current', 'describedObject'], description: 'ObjectMetricStatus indicates the current value of a metric describing a kubernetes object (for example, hits-per-second on an Ingress object).' },
  ),
  [H2 + 'PodsMetricStatus']: s.obj(
    {
      metric: r2('MetricIdentifier', 'metric identifies the target metric by name and selector', { default: {} }),
      current: r2('MetricValueStatus', 'current contains the current value for the given metric', { default: {} }),
    },
    { required: ['metric', 'current'], description: 'PodsMetricStatus indicates the current value of a metric describing each pod in the current scale target (for example, transactions-processed-per-second).' },
  ),
  [H2 + 'ResourceMetricStatus']: s.obj(
    {
      name: reqStr('name is the name of the resource in question.'),
      current: r2('MetricValueStatus', 'current contains the current value for the given metric', { default: {} }),
    },
    { required: ['name', 'current'], description: 'ResourceMetricStatus indicates the current value of a resource metric known to Kubernetes, as specified in requests and limits, describing each pod in the current scale target (e.g. CPU or memory).' },
  ),
  [H2 + 'ContainerResourceMetricStatus']: s.obj(
    {
      name: reqStr('name is the name of the resource in question.'),
      current: r2('MetricValueStatus', 'current contains the current value for the given metric', { default: {} }),
      container: reqStr('container is the name of the container in the pods of the scaling target'),
    },
    { required: ['name', 'current', 'container'], description: 'ContainerResourceMetricStatus indicates the current value of a resource metric of one container in each pod of the current scale target.' },
  ),
  [H2 + 'ExternalMetricStatus']: s.obj(
    {
      metric: r2('MetricIdentifier', 'metric identifies the target metric by name and selector', { default: {} }),
      current: r2('MetricValueStatus', 'current contains the current value for the given metric', { default: {} }),
    },
    { required: ['metric', 'current'], description: 'ExternalMetricStatus indicates the current value of a global metric not associated with any Kubernetes object.' },
  ),
  [H2 + 'MetricValueStatus']: s.obj(
    {
      value: s.quantity('value is the current value of the metric (as a quantity).'),
      averageValue: s.quantity('averageValue is the current value of the average of the metric across all relevant pods (as a quantity)'),
      averageUtilization: s.int32('currentAverageUtilization is the current value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods.'),
    },
    { description: 'MetricValueStatus holds the current value for a metric' },
  ),
};

const v1: Definitions = {
  [H1 + 'HorizontalPodAutoscaler']: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(H1 + 'HorizontalPodAutoscalerSpec', `spec defines the behaviour of autoscaler. More info: ${CONVENTIONS}#spec-and-status.`),
      status: s.ref(H1 + 'HorizontalPodAutoscalerStatus', 'status is the current information about the autoscaler.'),
    },
    { description: 'configuration of a horizontal pod autoscaler.' },
  ),
  [H1 + 'HorizontalPodAutoscalerList']: listDefinition(H1 + 'HorizontalPodAutoscaler', 'list of horizontal pod autoscaler objects.', 'items is the list of horizontal pod autoscaler objects.'),
  [H1 + 'HorizontalPodAutoscalerSpec']: s.obj(
    {
      scaleTargetRef: s.ref(H1 + 'CrossVersionObjectReference', 'reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource.', { default: {} }),
      minReplicas: s.int32('minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down. It defaults to 1 pod.'),
      maxReplicas: s.int32('maxReplicas is the upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.', { default: 0 }),
      targetCPUUtilizationPercentage: s.int32('targetCPUUtilizationPercentage is the target average CPU utilization (represented as a percentage of requested CPU) over all the pods; if not specified the default autoscaling policy will be used.'),
    },
    { required: ['scaleTargetRef', 'maxReplicas'], description: 'specification of a horizontal pod autoscaler.' },
  ),
  [H1 + 'CrossVersionObjectReference']: { ...crossVersionRef('CrossVersionObjectReference contains enough information to let you identify the referred resource.'), mapType: 'atomic' },
  [H1 + 'HorizontalPodAutoscalerStatus']: s.obj(
    {
      observedGeneration: s.int64('observedGeneration is the most recent generation observed by this autoscaler.'),
      lastScaleTime: s.time('lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods; used by the autoscaler to control how often the number of pods is changed.'),
      currentReplicas: s.int32('currentReplicas is the current number of replicas of pods managed by this autoscaler.', { default: 0 }),
      desiredReplicas: s.int32('desiredReplicas is the  desired number of replicas of pods managed by this autoscaler.', { default: 0 }),
      currentCPUUtilizationPercentage: s.int32('currentCPUUtilizationPercentage is the current average CPU utilization over all pods, represented as a percentage of requested CPU, e.g. 70 means that an average pod is using now 70% of its requested CPU.'),
    },
    { required: ['currentReplicas', 'desiredReplicas'], description: 'current status of a horizontal pod autoscaler' },
  ),
};

export const autoscalingV2Definitions: Definitions = v2;
export const autoscalingV1Definitions: Definitions = v1;
