// kube-public/cluster-info as kubeadm publishes it (phases/bootstraptoken/clusterinfo): a kubeconfig holding only
// the cluster (CA data and server URL), readable by system:anonymous through the Role
// k1s:bootstrap-signer-clusterinfo, so a joining node can fetch it before it trusts the server. The bootstrapsigner
// controller adds the jws-kubeconfig-<token-id> signatures that let the node check what it fetched.
import type { KObject } from '../api/types.js';
import type { LocalClient } from '../client/local.js';
import { StatusError } from '../machinery/errors.js';
import { YAML } from '../machinery/yaml.js';
import { CLUSTER_INFO_KEY, CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE } from '../controllers/bootstrap-signer.js';
import { ensureObjects } from './bootstrap.js';

const ROLE = 'k1s:bootstrap-signer-clusterinfo';

/** the kubeconfig text: clientcmdapi.Config with one unnamed cluster, as kubeadm writes it */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return YAML.stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem).toString('base64'), server }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  });
}

function rbac(): KObject[] {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: ROLE, namespace: CLUSTER_INFO_NAMESPACE },
    rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_NAME], verbs: ['get'] }],
  };
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: ROLE, namespace: CLUSTER_INFO_NAMESPACE },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ROLE },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }],
  };
  return [role, binding] as unknown as KObject[];
}

/** Writes (or brings up to date) the ConfigMap's kubeconfig, keeping the signatures beside it, and its RBAC. */
export async function publishClusterInfo(client: LocalClient, opts: { server: string; caPem: string }): Promise<void> {
  await ensureObjects(client, rbac(), (o) => (o.kind === 'Role' ? 'roles' : 'rolebindings'));
  const kubeconfig = clusterInfoKubeconfig(opts.server, opts.caPem);
  const cms = client.resource('v1', 'configmaps');
  let current: (KObject & { data?: Record<string, string> }) | undefined;
  try {
    current = (await cms.get(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME)) as KObject & { data?: Record<string, string> };
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 404)) throw e;
  }
  if (!current) {
    await cms.create(CLUSTER_INFO_NAMESPACE, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO_NAME, namespace: CLUSTER_INFO_NAMESPACE }, data: { [CLUSTER_INFO_KEY]: kubeconfig } } as KObject);
  } else if (caOf(current.data?.[CLUSTER_INFO_KEY]) !== caOf(kubeconfig)) {
    // as kubeadm, written once: servers of one cluster (docs/ha.md) share the CA and keep the first one's URL (a
    // joining node uses its own --server); a new CA replaces it, and the bootstrapsigner signs the new text
    await cms.patch(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME, 'merge', { data: { [CLUSTER_INFO_KEY]: kubeconfig } });
  }
}

function caOf(kubeconfig: string | undefined): string | undefined {
  try {
    return (YAML.parse(kubeconfig ?? '') as { clusters?: { cluster?: Record<string, string> }[] })?.clusters?.[0]?.cluster?.['certificate-authority-data'];
  } catch {
    return undefined;
  }
}
