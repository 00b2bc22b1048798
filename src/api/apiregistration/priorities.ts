// The priorities kube-apiserver gives the APIServices of its built-in group versions (pkg/controlplane/apiserver/
// aggregator.go DefaultGenericAPIServicePriorities merged with cmd/kube-apiserver/app/aggregator.go), the ones
// CRD group versions get (crdregistration: 1000/100) and, for metrics.k8s.io, what metrics-server registers.

export interface APIServicePriority {
  group: number;
  version: number;
}

const TABLE: Record<string, [number, number]> = {
  v1: [18000, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'events.k8s.io/v1beta1': [17750, 5],
  'authentication.k8s.io/v1': [17700, 15],
  'authentication.k8s.io/v1beta1': [17700, 9],
  'authentication.k8s.io/v1alpha1': [17700, 1],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'autoscaling/v2beta1': [17500, 9],
  'autoscaling/v2beta2': [17500, 1],
  'batch/v1': [17400, 15],
  'batch/v1beta1': [17400, 9],
  'certificates.k8s.io/v1': [17300, 15],
  'certificates.k8s.io/v1beta1': [17300, 9],
  'certificates.k8s.io/v1alpha1': [17300, 1],
  'networking.k8s.io/v1': [17200, 15],
  'networking.k8s.io/v1beta1': [17200, 9],
  'policy/v1': [17100, 15],
  'policy/v1beta1': [17100, 9],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'storage.k8s.io/v1beta1': [16800, 9],
  'storage.k8s.io/v1alpha1': [16800, 1],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1beta1': [16700, 12],
  'admissionregistration.k8s.io/v1alpha1': [16700, 9],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'coordination.k8s.io/v1beta1': [16500, 13],
  'coordination.k8s.io/v1alpha2': [16500, 12],
  'node.k8s.io/v1': [16300, 15],
  'node.k8s.io/v1beta1': [16300, 9],
  'node.k8s.io/v1alpha1': [16300, 1],
  'discovery.k8s.io/v1': [16200, 15],
  'discovery.k8s.io/v1beta1': [16200, 12],
  'resource.k8s.io/v1beta2': [16200, 15],
  'resource.k8s.io/v1beta1': [16200, 9],
  'resource.k8s.io/v1alpha3': [16200, 1],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
  'flowcontrol.apiserver.k8s.io/v1beta3': [16100, 18],
  'internal.apiserver.k8s.io/v1alpha1': [16000, 9],
  'storagemigration.k8s.io/v1alpha1': [15800, 9],
  // served in process by k1s; metrics-server's own APIService asks for these
  'metrics.k8s.io/v1beta1': [100, 100],
};

/** The priority of a built-in group version, or undefined when kube would not register one (it skips unknown ones). */
export function builtinPriority(group: string, version: string): APIServicePriority | undefined {
  const p = TABLE[group ? `${group}/${version}` : version];
  return p && { group: p[0], version: p[1] };
}

export const CRD_PRIORITY: APIServicePriority = { group: 1000, version: 100 };

/** kube-aggregator.kubernetes.io/automanaged: "onstart" for built-ins (synced once per start), "true" for CRDs. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
