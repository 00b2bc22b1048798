// Bootstrap tokens as kubeadm makes them: `<id>.<secret>` from [a-z0-9], kept as the Secret
// kube-system/bootstrap-token-<id> of type bootstrap.kubernetes.io/token, for authentication (a node's TLS
// bootstrap) in the group the join bindings below name. `k1s token` and the server's own join token use them.
import { randomInt } from 'node:crypto';
import type { KObject } from '../api/types.js';
import { BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE } from '../apiserver/auth/bootstrap-token.js';

/** the group k1s' join tokens add (kubeadm's is system:bootstrappers:kubeadm:default-node-token) */
export const NODE_JOIN_GROUP = 'system:bootstrappers:k1s:default-node-token';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const random = (n: number) => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

export function generateBootstrapToken(): { id: string; secret: string; token: string } {
  const id = random(6);
  const secret = random(16);
  return { id, secret, token: `${id}.${secret}` };
}

export interface BootstrapTokenSpec {
  id: string;
  secret: string;
  description?: string;
  /** absolute expiry; none: the token never expires */
  expires?: Date;
  usages?: string[];
  groups?: string[];
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export function bootstrapTokenSecret(t: BootstrapTokenSpec): KObject {
  const data: Record<string, string> = { 'token-id': b64(t.id), 'token-secret': b64(t.secret) };
  if (t.description) data.description = b64(t.description);
  // kube writes RFC 3339 without fractions
  if (t.expires) data.expiration = b64(t.expires.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  for (const u of t.usages ?? ['authentication', 'signing']) data[`usage-bootstrap-${u}`] = b64('true');
  const groups = t.groups ?? [NODE_JOIN_GROUP];
  if (groups.length) data['auth-extra-groups'] = b64(groups.join(','));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${t.id}`, namespace: 'kube-system' },
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    data,
  } as KObject;
}

const binding = (name: string, role: string, group: string): KObject =>
  ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
  }) as KObject;

/** What kubeadm binds at init so that joining kubelets get certificates: a join token may file CSRs and have its
 *  node-client CSR approved, and nodes may renew their own client certificates. */
export function nodeJoinBindings(): KObject[] {
  return [
    binding('k1s:kubelet-bootstrap', 'system:node-bootstrapper', NODE_JOIN_GROUP),
    binding('k1s:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', NODE_JOIN_GROUP),
    binding('k1s:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'),
  ];
}
