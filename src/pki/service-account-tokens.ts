// Service-account tokens: JWTs signed with the cluster's service-account key, shaped like kube-apiserver's
// (issuer, audiences, the "kubernetes.io" private claim) so in-cluster clients and TokenReview read them alike.
import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import type { JWTPayload } from 'jose';

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

type Jose = typeof import('jose');
type Key = Awaited<ReturnType<Jose['importPKCS8']>>;

export class ServiceAccountTokens {
  // jose costs ~60 ms of module loading: it and the imported keys are loaded on the first sign or verify.
  private loaded?: Promise<{ jose: Jose; privateKey: Key; publicKey: Key }>;

  private constructor(
    private readonly privateKeyPem: string,
    private readonly publicKeyPem: string,
    private readonly alg: string,
    readonly issuer: string,
  ) {}

  static async load(privateKeyPem: string, publicKeyPem: string, issuer = defaultIssuer): Promise<ServiceAccountTokens> {
    // the key pair is ECDSA P-256 when k1s made it; an RSA key (e.g. brought from elsewhere) signs RS256
    const alg = privateKeyPem.includes('BEGIN RSA') ? 'RS256' : 'ES256';
    // Unusable keys still fail here, at start-up, with jose's own messages for the PEM forms it refuses.
    if (!privateKeyPem.startsWith('-----BEGIN PRIVATE KEY-----')) throw new TypeError('"pkcs8" must be PKCS#8 formatted string');
    if (!publicKeyPem.startsWith('-----BEGIN PUBLIC KEY-----')) throw new TypeError('"spki" must be SPKI formatted string');
    for (const key of [createPrivateKey(privateKeyPem), createPublicKey(publicKeyPem)]) {
      const ok = alg === 'ES256' ? key.asymmetricKeyDetails?.namedCurve === 'prime256v1' : key.asymmetricKeyType === 'rsa';
      if (!ok) throw new TypeError(`the service-account key is not usable for ${alg}`);
    }
    return new ServiceAccountTokens(privateKeyPem, publicKeyPem, alg, issuer);
  }

  private keys(): Promise<{ jose: Jose; privateKey: Key; publicKey: Key }> {
    this.loaded ??= (async () => {
      const jose = await import('jose');
      const [privateKey, publicKey] = await Promise.all([jose.importPKCS8(this.privateKeyPem, this.alg), jose.importSPKI(this.publicKeyPem, this.alg)]);
      return { jose, privateKey, publicKey };
    })();
    return this.loaded;
  }

  async sign(subject: TokenSubject, opts: { audiences: string[]; expirationSeconds: number; now?: number }): Promise<{ token: string; expiresAt: number }> {
    const now = Math.floor((opts.now ?? Date.now()) / 1000);
    const exp = now + opts.expirationSeconds;
    const priv: NonNullable<KubernetesClaims['kubernetes.io']> = { namespace: subject.namespace, serviceaccount: subject.serviceAccount };
    if (subject.bound) {
      const key = subject.bound.kind.toLowerCase() as 'pod' | 'secret' | 'node';
      priv[key] = { name: subject.bound.name, uid: subject.bound.uid };
    }
    const { jose, privateKey } = await this.keys();
    const token = await new jose.SignJWT({ 'kubernetes.io': priv })
      .setProtectedHeader({ alg: this.alg, kid: 'k1s' })
      .setIssuer(this.issuer)
      .setSubject(`system:serviceaccount:${subject.namespace}:${subject.serviceAccount.name}`)
      .setAudience(opts.audiences)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(privateKey);
    return { token, expiresAt: exp * 1000 };
  }

  /** The token's claims when its signature, issuer, audience and times check out; undefined otherwise. */
  async verify(token: string, audiences: string[]): Promise<KubernetesClaims | undefined> {
    const { jose, publicKey } = await this.keys();
    try {
      const { payload } = await jose.jwtVerify(token, publicKey, { issuer: this.issuer, audience: audiences, algorithms: [this.alg] });
      return payload as KubernetesClaims;
    } catch {
      return undefined;
    }
  }
}
