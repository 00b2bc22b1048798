// Certificate generation (via @peculiar/x509) and inspection (via node:crypto).
//
// Start-up time matters: importing @peculiar/x509 costs ~100+ ms, so it is
// loaded lazily and only when something must be signed. Every check done on a
// normal restart (expiry, SANs, issuer, key match) uses node's native
// X509Certificate instead. Keys are ECDSA P-256: generation takes well under a
// millisecond (RSA 2048 takes tens to hundreds), and every Kubernetes client
// accepts it.
import { KeyObject, X509Certificate, createPrivateKey, createPublicKey, generateKeyPairSync, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';

/** A certificate and its private key, PEM encoded (key: PKCS#8 "PRIVATE KEY"). */
export interface CertKeyPem {
  certPem: string;
  keyPem: string;
}

export const CA_VALIDITY_DAYS = 3650;
export const LEAF_VALIDITY_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;
// Tolerate small clock skew between k1s and its clients (kubeadm backdates 5 min).
const BACKDATE_MS = 5 * 60 * 1000;

const EC_KEYGEN = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

// node's webcrypto is the standard Crypto; the cast only bridges @types/node vs lib.dom typings.
const subtleCrypto = webcrypto as unknown as Crypto;

/**
 * Lazily loads @peculiar/x509 (after the Reflect polyfill it requires). import() rather than require() so the
 * single-file build bundles it as a lazily evaluated module covered by the V8 code cache (fresh data dirs spend
 * most of their start-up here); the package is CommonJS, so its exports are the namespace's default.
 */
async function loadX509(): Promise<typeof X509> {
  await import('./reflect-shim.js');
  const mod = (await import('@peculiar/x509')) as typeof X509 & { default?: typeof X509 };
  const x509 = mod.default?.cryptoProvider ? mod.default : mod;
  x509.cryptoProvider.set(subtleCrypto); // idempotent: always the same provider
  return x509;
}

type NameSpec = Record<string, string[]>[];

/** Subject in Go's crypto/x509 order (O before CN), one RDN per value. */
function subjectName(commonName: string, organizations: readonly string[] = []): NameSpec {
  return [...organizations.map((o) => ({ O: [o] })), { CN: [commonName] }];
}

function validity(days: number, now: Date, notAfterCap?: Date): { notBefore: Date; notAfter: Date } {
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  let notAfter = new Date(now.getTime() + days * DAY_MS);
  // A leaf must not outlive its CA, or clients reject it near the CA's end of life.
  if (notAfterCap && notAfter > notAfterCap) notAfter = notAfterCap;
  return { notBefore, notAfter };
}

async function newEcKeyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC_KEYGEN, true, ['sign', 'verify'])) as CryptoKeyPair;
}

function privateKeyPem(key: CryptoKey): string {
  return KeyObject.from(key as Parameters<typeof KeyObject.from>[0])
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();
}

/** Imports a CA private key (any PEM form node understands) for signing, with a matching algorithm. */
async function importSigningKey(keyPem: string): Promise<{ key: CryptoKey; alg: Algorithm }> {
  const keyObject = createPrivateKey(keyPem);
  const der = keyObject.export({ type: 'pkcs8', format: 'der' });
  const details = keyObject.asymmetricKeyDetails ?? {};
  let importAlg: Algorithm & Record<string, unknown>;
  let signAlg: Algorithm & Record<string, unknown>;
  if (keyObject.asymmetricKeyType === 'ec' && details.namedCurve === 'prime256v1') {
    importAlg = EC_KEYGEN;
    signAlg = ECDSA_SHA256;
  } else if (keyObject.asymmetricKeyType === 'ec' && details.namedCurve === 'secp384r1') {
    importAlg = { name: 'ECDSA', namedCurve: 'P-384' };
    signAlg = { name: 'ECDSA', hash: 'SHA-384' };
  } else if (keyObject.asymmetricKeyType === 'rsa') {
    // Lets a user-provided (kubeadm-style RSA) CA be used as well.
    importAlg = signAlg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  } else {
    throw new Error(`unsupported CA key type: ${keyObject.asymmetricKeyType} ${String(details.namedCurve ?? '')}`);
  }
  const key = await webcrypto.subtle.importKey('pkcs8', der, importAlg, false, ['sign']);
  return { key: key as CryptoKey, alg: signAlg };
}

export interface CaOptions {
  commonName?: string;
  days?: number;
  now?: Date;
}

/** Creates a self-signed CA. The default CN carries a timestamp, as k3s does, so successive CAs are distinguishable. */
export async function createCa(opts: CaOptions = {}): Promise<CertKeyPem> {
  const x509 = await loadX509();
  const now = opts.now ?? new Date();
  const keys = await newEcKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: subjectName(opts.commonName ?? `k1s-ca@${Math.floor(now.getTime() / 1000)}`),
      keys,
      signingAlgorithm: ECDSA_SHA256,
      ...validity(opts.days ?? CA_VALIDITY_DAYS, now),
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, subtleCrypto),
      ],
    },
    subtleCrypto,
  );
  return { certPem: cert.toString('pem') + '\n', keyPem: privateKeyPem(keys.privateKey) };
}

interface LeafSpec {
  commonName: string;
  organizations?: readonly string[];
  usage: 'serverAuth' | 'clientAuth';
  hostnames?: readonly string[];
  ips?: readonly string[];
  days?: number;
  now?: Date;
}

async function createLeaf(ca: CertKeyPem, spec: LeafSpec): Promise<CertKeyPem> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const { key: caKey, alg } = await importSigningKey(ca.keyPem);
  const keys = await newEcKeyPair();
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage[spec.usage]]),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey, false, subtleCrypto),
  ];
  const names = [
    ...(spec.hostnames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(spec.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const cert = await x509.X509CertificateGenerator.create(
    {
      subject: subjectName(spec.commonName, spec.organizations),
      issuer: caCert.subjectName, // the CA's exact encoded name, so chain building matches byte for byte
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: alg,
      ...validity(spec.days ?? LEAF_VALIDITY_DAYS, spec.now ?? new Date(), caCert.notAfter),
      extensions,
    },
    subtleCrypto,
  );
  return { certPem: cert.toString('pem') + '\n', keyPem: privateKeyPem(keys.privateKey) };
}

export interface ServingCertOptions {
  hostnames: readonly string[];
  ips: readonly string[];
  commonName?: string;
  days?: number;
  now?: Date;
}

/** A TLS serving certificate (extKeyUsage serverAuth) for the given DNS and IP SANs. */
export function createServingCert(ca: CertKeyPem, opts: ServingCertOptions): Promise<CertKeyPem> {
  return createLeaf(ca, { ...opts, commonName: opts.commonName ?? 'kube-apiserver', usage: 'serverAuth' });
}

export interface ClientCertOptions {
  commonName: string;
  organizations?: readonly string[];
  days?: number;
  now?: Date;
}

/** A client certificate (extKeyUsage clientAuth); Kubernetes reads CN as the user and O as the groups. */
export function createClientCert(ca: CertKeyPem, opts: ClientCertOptions): Promise<CertKeyPem> {
  return createLeaf(ca, { ...opts, usage: 'clientAuth' });
}

/** An ECDSA P-256 keypair (PKCS#8 / SPKI PEM), e.g. for signing ServiceAccount tokens with ES256. */
export function createSigningKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** The SPKI public key PEM matching a private key PEM. */
export function publicKeyPemOf(privateKeyPem: string): string {
  return createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString();
}

// ---- inspection (node:crypto only, no x509 import) ----

/** True when the certificate expires within `withinDays` days of `now` (or already has). */
export function needsRenewal(certPem: string, withinDays = 90, now: Date = new Date()): boolean {
  const notAfter = new Date(new X509Certificate(certPem).validTo).getTime();
  return notAfter - now.getTime() < withinDays * DAY_MS;
}

/** True when the certificate is not yet valid or has expired at `now`. */
export function isExpired(certPem: string, now: Date = new Date()): boolean {
  const cert = new X509Certificate(certPem);
  return now < new Date(cert.validFrom) || now >= new Date(cert.validTo);
}

/** True when every hostname and IP is among the certificate's SANs (CN is never consulted). */
export function coversNames(certPem: string, hostnames: readonly string[], ips: readonly string[]): boolean {
  const cert = new X509Certificate(certPem);
  return (
    hostnames.every((h) => cert.checkHost(h, { subject: 'never', wildcards: false }) !== undefined) &&
    ips.every((ip) => cert.checkIP(ip) !== undefined)
  );
}

/** True when `certPem` was signed by the CA in `caCertPem`. */
export function isSignedBy(certPem: string, caCertPem: string): boolean {
  const cert = new X509Certificate(certPem);
  const ca = new X509Certificate(caCertPem);
  return cert.checkIssued(ca) && cert.verify(ca.publicKey);
}

/** True when the private key belongs to the certificate. */
export function keyMatchesCert(certPem: string, keyPem: string): boolean {
  return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
}

/** The subject as node prints it, one "KEY=value" per line, e.g. "O=system:masters\nCN=kubernetes-admin". */
export function subjectOf(certPem: string): string {
  return new X509Certificate(certPem).subject;
}
