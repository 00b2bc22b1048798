// k1s' approval of a joined node's add-on credential: a kubernetes.io/kube-apiserver-client CSR filed by node X
// (system:node:X in system:nodes) for exactly CN k1s:node-addons:X, O k1s:node-addons, no subjectAltNames. That
// identity reads what kube-proxy, CoreDNS and a NetworkPolicy controller read (ClusterRole k1s:node-addons), so the
// kubelet's own credential stays within what the Node authorizer allows (k3s hands its agents such certificates too).
import type { CertificateSigningRequest } from '../../api/certificates/schema.js';
import type { ParsedRequest } from '../../pki/csr-sign.js';
import { NODE_ADDONS_GROUP, NODE_ADDONS_USER_PREFIX, NODE_USER_PREFIX, NODES_GROUP } from '../../pki/node-credential.js';
import { apiServerClientError, KUBE_APISERVER_CLIENT_SIGNER } from './signer-policy.js';

export const ADDONS_APPROVAL_MESSAGE = "Auto approving the node add-ons' client certificate of the requesting node.";

/** whether `csr` is node X asking for its own add-on credential */
export function isNodeAddonsRequest(csr: CertificateSigningRequest, req: ParsedRequest): boolean {
  const spec = csr.spec ?? {};
  if (spec.signerName !== KUBE_APISERVER_CLIENT_SIGNER || apiServerClientError(spec.usages ?? []) !== undefined) return false;
  const user = spec.username ?? '';
  if (!user.startsWith(NODE_USER_PREFIX) || !(spec.groups ?? []).includes(NODES_GROUP)) return false;
  const node = user.slice(NODE_USER_PREFIX.length);
  const noSans = !req.dnsNames.length && !req.ipAddresses.length && !req.emailAddresses.length && !req.uris.length;
  return !!node && noSans && req.commonName === `${NODE_ADDONS_USER_PREFIX}${node}` && req.organizations.length === 1 && req.organizations[0] === NODE_ADDONS_GROUP;
}
