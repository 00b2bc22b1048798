// kube-apiserver's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), the part users see:
// cluster-admin for system:masters; discovery, self-review and public health/version paths for everyone; the
// user-facing admin/edit/view roles, aggregated from system:aggregate-to-* by label; system:node and friends for
// remote components. Objects carry kube's autoupdate annotation and bootstrapping label.
import type { KObject } from '../types.js';
import { RBAC_GROUP, type PolicyRule, type Subject } from './rules.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const RW = [...READ, ...WRITE];
const AGG = 'rbac.authorization.k8s.io/aggregate-to-';

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule =>
  resourceNames ? { verbs, apiGroups, resources, resourceNames } : { verbs, apiGroups, resources };
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

const meta = (name: string, labels: Record<string, string> = {}) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

function clusterRole(name: string, rules: PolicyRule[], opts: { labels?: Record<string, string>; aggregateFrom?: string } = {}): KObject {
  const role: KObject & Record<string, unknown> = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: meta(name, opts.labels) };
  if (opts.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [`${AGG}${opts.aggregateFrom}`]: 'true' } }] };
  role.rules = rules;
  return role;
}

function clusterRoleBinding(name: string, subjects: Subject[]): KObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: meta(name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    ...(subjects.length ? { subjects } : {}),
  } as KObject;
}

const group = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'Group', name });

const viewRules: PolicyRule[] = [
  rule(READ, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
  rule(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
  rule(READ, [''], ['namespaces']),
  rule(READ, ['discovery.k8s.io'], ['endpointslices']),
  rule(READ, ['apps'], ['controllerrevisions', 'statefulsets', 'statefulsets/status', 'statefulsets/scale', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/status', 'deployments/scale', 'replicasets', 'replicasets/status', 'replicasets/scale']),
  rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale', 'networkpolicies']),
  rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
];

const editRules: PolicyRule[] = [
  rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [''], ['pods/eviction']),
  rule(WRITE, [''], ['configmaps', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
  rule(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
  rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
  rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
  rule(WRITE, ['policy'], ['poddisruptionbudgets']),
  rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
];

const adminRules: PolicyRule[] = [
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
  rule(RW, [RBAC_GROUP], ['rolebindings', 'roles']),
];

/**
 * The kubelet's rules (bootstrappolicy.NodeRules): the Node authorizer applies them to every node, and the
 * system:node ClusterRole holds them, bound to no one (kube stopped binding it to system:nodes in 1.8).
 */
export const NODE_RULES: readonly PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
  rule(READ, [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['patch', 'update'], [''], ['nodes/status']),
  rule(['patch', 'update'], [''], ['nodes']),
  rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  rule(READ, [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(READ, [''], ['configmaps', 'secrets']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get', 'patch', 'update'], [''], ['persistentvolumeclaims/status']),
  rule(['get'], [''], ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['csidrivers']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['storage.k8s.io'], ['csinodes']),
  rule(['get', 'list', 'watch'], ['node.k8s.io'], ['runtimeclasses']),
];

export function bootstrapClusterRoles(): KObject[] {
  return [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('system:discovery', [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])]),
    clusterRole('system:monitoring', [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])]),
    clusterRole('system:basic-user', [rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])]),
    clusterRole('admin', [], { aggregateFrom: 'admin' }),
    clusterRole('edit', [], { labels: { [`${AGG}admin`]: 'true' }, aggregateFrom: 'edit' }),
    clusterRole('view', [], { labels: { [`${AGG}edit`]: 'true' }, aggregateFrom: 'view' }),
    clusterRole('system:aggregate-to-admin', adminRules, { labels: { [`${AGG}admin`]: 'true' } }),
    clusterRole('system:aggregate-to-edit', editRules, { labels: { [`${AGG}edit`]: 'true' } }),
    clusterRole('system:aggregate-to-view', viewRules, { labels: { [`${AGG}view`]: 'true' } }),
    // what kubelets need for TLS bootstrapping and rotation; kube binds none of these by default
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])]),
    ...['kube-apiserver-client', 'kube-apiserver-client-kubelet', 'kubelet-serving', 'legacy-unknown'].map((s) =>
      clusterRole(`system:certificates.k8s.io:${s}-approver`, [rule(['approve'], ['certificates.k8s.io'], ['signers'], [`kubernetes.io/${s}`])]),
    ),
    clusterRole('system:node', [...NODE_RULES]),
    clusterRole('system:auth-delegator', [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])]),
  ];
}

export function bootstrapClusterRoleBindings(): KObject[] {
  return [
    clusterRoleBinding('cluster-admin', [group('system:masters')]),
    clusterRoleBinding('system:discovery', [group('system:authenticated')]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    clusterRoleBinding('system:basic-user', [group('system:authenticated')]),
    clusterRoleBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    clusterRoleBinding('system:node', []),
  ];
}
