// k1s' approval of kubelet serving certificates (signer kubernetes.io/kubelet-serving). kube-controller-manager
// approves none of them (clusters add kubelet-csr-approver or approve by hand; kubeadm documents
// serverTLSBootstrap with manual approval): k1s approves a node's own request, and only when every name it asks for
// is that node's: CN system:node:<requester's node>, DNS names its name or the Node's host names, IPs the Node's
// addresses. Anything else is left for a person (kubectl certificate approve).
import type { CertificateSigningRequest } from '../../api/certificates/schema.js';
import type { ParsedRequest } from '../../pki/csr-sign.js';
import { KUBELET_SERVING_SIGNER, kubeletServingError } from './signer-policy.js';

export const SERVING_APPROVAL_MESSAGE = 'Auto approving kubelet serving certificate: the requesting node asks for its own names and addresses only.';

interface NodeAddresses {
  status?: { addresses?: { type?: string; address?: string }[] };
}

/** the node a kubelet-serving CSR is for, when it is one k1s may look at (else undefined) */
export function servingRequestNode(csr: CertificateSigningRequest, req: ParsedRequest): string | undefined {
  if (csr.spec?.signerName !== KUBELET_SERVING_SIGNER || kubeletServingError(req, csr.spec?.usages ?? []) !== undefined) return undefined;
  if (csr.spec?.username !== req.commonName || !(csr.spec?.groups ?? []).includes('system:nodes')) return undefined;
  return req.commonName.slice('system:node:'.length) || undefined;
}

/** whether the request names only what the Node is (its name, host names and addresses) */
export function servingNamesAreNodes(req: ParsedRequest, nodeName: string, node: NodeAddresses): boolean {
  const addrs = node.status?.addresses ?? [];
  const hostnames = new Set([nodeName, ...addrs.filter((a) => /DNS$|^Hostname$/.test(a.type ?? '')).map((a) => a.address ?? '')]);
  const ips = new Set(addrs.filter((a) => /IP$/.test(a.type ?? '')).map((a) => a.address ?? ''));
  return req.dnsNames.every((d) => hostnames.has(d)) && req.ipAddresses.every((ip) => ips.has(ip));
}
