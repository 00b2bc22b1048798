// Service-account tokens: JWTs signed with the cluster's service-account key, shaped like kube-apiserver's
// (issuer, audiences, the "kubernetes.io" private claim) so in-cluster clients and TokenReview read them alike.
import { randomUUID } from 'node:crypto';
import { importPKCS8, importSPKI, jwtVerify, SignJWT, type JWTPayload } from 'jose';

export const defaultIssuer = 'https://kubernetes.default.svc.cluster.local';

export interface TokenSubject {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  /** the object the token is bound to (pod, secret or node), if any */
  bound?: { kind: string; name: string; uid: string };
}

export interface KubernetesClaims extends JWTPayload {
  'kubernetes.io'?: {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod?: { name: string; uid: string };
    secret?: { name: string; uid: string };
    node?: { name: string; uid: string };
  };
}

type Key = Awaited<ReturnType<typeof importPKCS8>>;

export class ServiceAccountTokens {
  private constructor(
    private readonly privateKey: Key,
    private readonly publicKey: Key,
    private readonly alg: string,
    readonly issuer: string,
  ) {}

  static async load(privateKeyPem: string, publicKeyPem: string, issuer = defaultIssuer): Promise<ServiceAccountTokens> {
    // the key pair is ECDSA P-256 when k1s made it; an RSA key (e.g. brought from elsewhere) signs RS256
    const alg = privateKeyPem.includes('BEGIN RSA') ? 'RS256' : 'ES256';
    return new ServiceAccountTokens(await importPKCS8(privateKeyPem, alg), await importSPKI(publicKeyPem, alg), alg, issuer);
  }

  async sign(subject: TokenSubject, opts: { audiences: string[]; expirationSeconds: number; now?: number }): Promise<{ token: string; expiresAt: number }> {
    const now = Math.floor((opts.now ?? Date.now()) / 1000);
    const exp = now + opts.expirationSeconds;
    const priv: NonNullable<KubernetesClaims['kubernetes.io']> = { namespace: subject.namespace, serviceaccount: subject.serviceAccount };
    if (subject.bound) {
      const key = subject.bound.kind.toLowerCase() as 'pod' | 'secret' | 'node';
      priv[key] = { name: subject.bound.name, uid: subject.bound.uid };
    }
    const token = await new SignJWT({ 'kubernetes.io': priv })
      .setProtectedHeader({ alg: this.alg, kid: 'k1s' })
      .setIssuer(this.issuer)
      .setSubject(`system:serviceaccount:${subject.namespace}:${subject.serviceAccount.name}`)
      .setAudience(opts.audiences)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.privateKey);
    return { token, expiresAt: exp * 1000 };
  }

  /** The token's claims when its signature, issuer, audience and times check out; undefined otherwise. */
  async verify(token: string, audiences: string[]): Promise<KubernetesClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.publicKey, { issuer: this.issuer, audience: audiences, algorithms: [this.alg] });
      return payload as KubernetesClaims;
    } catch {
      return undefined;
    }
  }
}
