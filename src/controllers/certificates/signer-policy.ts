// Which requests the kubernetes.io signers of kube-controller-manager sign (pkg/controller/certificates/signer and
// pkg/apis/certificates/helpers.go), with their error texts, and how long the certificates live.
import type { ParsedRequest } from '../../pki/csr-sign.js';

export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const SIGNERS = [KUBE_APISERVER_CLIENT_SIGNER, KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBELET_SERVING_SIGNER] as const;

/** --cluster-signing-duration's default: 8760h */
export const DEFAULT_SIGNING_DURATION_MS = 8760 * 3600_000;
/** the shortest certificate the signers issue: twice the 5 minute backdate */
const MIN_DURATION_MS = 10 * 60_000;

const sameSet = (a: readonly string[], b: readonly string[]) => new Set(a).size === b.length && b.every((x) => a.includes(x));
const isSystemNodes = (o: readonly string[]) => o.length === 1 && o[0] === 'system:nodes';

const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];
const CLIENT_USAGES = ['client auth', 'digital signature', 'key encipherment'];
const CLIENT_USAGES_NO_RSA = ['digital signature', 'client auth'];

/** ValidateKubeletServingCSR; undefined when valid. */
export function kubeletServingError(req: ParsedRequest, usages: readonly string[]): string | undefined {
  if (!isSystemNodes(req.organizations)) return 'subject organization is not system:nodes';
  if (!req.dnsNames.length && !req.ipAddresses.length) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, SERVING_USAGES) && !sameSet(usages, SERVING_USAGES_NO_RSA)) return `usages did not match [${SERVING_USAGES.join(' ')}]`;
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** ValidateKubeletClientCSR; undefined when valid. */
export function kubeletClientError(req: ParsedRequest, usages: readonly string[]): string | undefined {
  if (!isSystemNodes(req.organizations)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (req.uris.length) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, CLIENT_USAGES) && !sameSet(usages, CLIENT_USAGES_NO_RSA)) return `usages did not match [${CLIENT_USAGES.join(' ')}]`;
  return undefined;
}

/** validAPIServerClientUsages: client auth required, digital signature and key encipherment allowed. */
export function apiServerClientError(usages: readonly string[]): string | undefined {
  for (const u of usages) {
    if (u !== 'digital signature' && u !== 'key encipherment' && u !== 'client auth') return `invalid usage for client certificate: ${u}`;
  }
  return usages.includes('client auth') ? undefined : 'missing required usage for client certificate: client auth';
}

/** Why `signer` refuses the request (its SignerValidationFailure message); undefined when it signs it. */
export function signerValidationError(signer: string, req: ParsedRequest, usages: readonly string[]): string | undefined {
  if (signer === KUBELET_SERVING_SIGNER) return kubeletServingError(req, usages);
  if (signer === KUBE_APISERVER_CLIENT_KUBELET_SIGNER) return kubeletClientError(req, usages);
  return apiServerClientError(usages);
}

/** signer.duration: spec.expirationSeconds, at most the signer's duration and at least 10 minutes. */
export function certificateDurationMs(expirationSeconds: number | null | undefined, signerDurationMs = DEFAULT_SIGNING_DURATION_MS): number {
  if (expirationSeconds == null) return signerDurationMs;
  const requested = expirationSeconds * 1000;
  if (requested > signerDurationMs) return signerDurationMs;
  return Math.max(requested, MIN_DURATION_MS);
}
