// Which Node labels a kubelet may set on its own Node under NodeRestriction (k8s.io/kubelet/pkg/apis
// well_known_labels.go IsKubeletLabel, and the admission plugin's kubernetes.io / k8s.io rule): any label outside
// the kubernetes.io and k8s.io namespaces, a fixed list of well-known ones, and the kubelet.kubernetes.io and
// node.kubernetes.io namespaces; never node-restriction.kubernetes.io.

const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
export const NODE_RESTRICTION_LABEL_NAMESPACE = 'node-restriction.kubernetes.io';

const labelNamespace = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const within = (ns: string, domain: string) => ns === domain || ns.endsWith(`.${domain}`);

/** Whether a kubelet may add, change or remove this label of its Node. */
export function kubeletMaySetLabel(key: string): boolean {
  const ns = labelNamespace(key);
  if (within(ns, NODE_RESTRICTION_LABEL_NAMESPACE)) return false;
  if (!within(ns, 'kubernetes.io') && !within(ns, 'k8s.io')) return true;
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((d) => within(ns, d));
}

/** The label keys that differ between two label sets, sorted (sets.String.List). */
export function modifiedLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): string[] {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(a ?? {})) if (b?.[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(b ?? {})) if (a?.[k] !== v) out.add(k);
  return [...out].sort();
}
