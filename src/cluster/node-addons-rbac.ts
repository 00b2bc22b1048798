// What a node's add-ons read: the Service proxy (kube-proxy's system:node-proxier), NetworkPolicy enforcement,
// cluster DNS (CoreDNS' system:coredns) and local-path volume directories. In kube they run under identities of
// their own (k3s hands its agents system:kube-proxy and system:k3s-controller certificates); a k1s agent's run as
// k1s:node-addons:<node> in group k1s:node-addons, a certificate the node asks for with its own credential.
import type { KObject } from '../api/types.js';
import { NODE_ADDONS_GROUP } from '../pki/node-credential.js';

export const NODE_ADDONS_ROLE = 'k1s:node-addons';

const rule = (verbs: string[], apiGroups: string[], resources: string[]) => ({ verbs, apiGroups, resources });
const READ = ['get', 'list', 'watch'];

export function nodeAddonsRbac(): { roles: KObject[]; bindings: KObject[] } {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: NODE_ADDONS_ROLE },
    rules: [
      rule(READ, [''], ['services', 'endpoints', 'namespaces', 'pods', 'nodes']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(READ, ['networking.k8s.io'], ['networkpolicies']),
      rule([...READ, 'patch'], [''], ['persistentvolumes']),
      rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
    ],
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: NODE_ADDONS_ROLE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: NODE_ADDONS_ROLE },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: NODE_ADDONS_GROUP }],
  };
  return { roles: [role as unknown as KObject], bindings: [binding as unknown as KObject] };
}
