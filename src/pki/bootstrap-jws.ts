// The detached JWS kube's bootstrapsigner puts beside kube-public/cluster-info (k8s.io/cluster-bootstrap token/jws):
// compact serialization with the payload left out (`<protected>..<signature>`), HS256, protected header
// {"alg":"HS256","kid":"<token-id>"} (go-jose writes its keys sorted), keyed by the token secret's bytes. A joining
// node that knows the whole token recomputes it to trust the CA it was served over an unverified connection.
import { createHash, createHmac, timingSafeEqual, X509Certificate } from 'node:crypto';

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** ComputeDetachedSignature(content, tokenID, tokenSecret) */
export function detachedJws(payload: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const signature = createHmac('sha256', Buffer.from(tokenSecret, 'utf8')).update(`${header}.${b64url(payload)}`).digest();
  return `${header}..${b64url(signature)}`;
}

/** DetachedTokenIsValid: the signature is the one this token makes over `payload` (constant-time compare). */
export function detachedJwsValid(jws: string, payload: string, tokenId: string, tokenSecret: string): boolean {
  const want = Buffer.from(detachedJws(payload, tokenId, tokenSecret));
  const got = Buffer.from(jws.trim());
  return want.length === got.length && timingSafeEqual(want, got);
}

/** kubeadm's --discovery-token-ca-cert-hash: sha256 of the CA certificate's SubjectPublicKeyInfo (DER). */
export function caCertHash(caPem: string): string {
  const spki = new X509Certificate(caPem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}
