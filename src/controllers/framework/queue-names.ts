// The names kube-controller-manager gives its controllers' work queues (workqueue_*{name}), where they differ from
// the controller's own name, so dashboards written for kube find k1s' queues.
const KUBE_QUEUE_NAMES: Record<string, string> = {
  'deployment-controller': 'deployment',
  'replicaset-controller': 'replicaset',
  'replication-controller': 'replicationmanager',
  endpoints: 'endpoint',
  endpointslice: 'endpoint_slice',
  endpointslicemirroring: 'endpoint_slice_mirroring',
  'root-ca-cert-publisher': 'root_ca_cert_publisher',
  'clusterrole-aggregation': 'ClusterRoleAggregator',
  'garbage-collector': 'garbage_collector_attempt_to_delete',
  resourcequota: 'resource_quota_primary',
  horizontalpodautoscaling: 'horizontalpodautoscaler',
  'ttl-after-finished': 'ttl_jobs_to_delete',
  'pvc-protection': 'pvcprotection',
  'pv-protection': 'pvprotection',
  'ephemeral-volume': 'ephemeral_volume',
  'volume-resizer': 'volume_expand',
  'node-lifecycle': 'node_lifecycle_controller',
};

/** the work queue's name in kube's metrics for the controller called `controller` */
export function kubeQueueName(controller: string): string {
  return KUBE_QUEUE_NAMES[controller] ?? controller;
}
