// Certificate generation (ASN.1 via @peculiar/asn1-x509, keys and signatures via node:crypto) and inspection
// (via node:crypto).
//
// Start-up time matters: a fresh data dir creates a CA and three leaves before the API server can listen. The
// certificate structures are built with @peculiar/asn1-x509's schema classes and serialized once; keys are made
// and the TBSCertificate signed by node:crypto directly (synchronous, native), which is several times cheaper than
// @peculiar/x509's generator (it re-parses every extension and the result, and signs through WebCrypto). The
// schema library is loaded lazily, only when something must be signed: every check done on a normal restart
// (expiry, SANs, issuer, key match) uses node's native X509Certificate. Keys are ECDSA P-256: generation takes
// well under a millisecond (RSA 2048 takes tens to hundreds), and every Kubernetes client accepts it.
import { KeyObject, X509Certificate, createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type * as AsnX509 from '@peculiar/asn1-x509';
import type * as AsnSchema from '@peculiar/asn1-schema';

/** A certificate and its private key, PEM encoded (key: PKCS#8 "PRIVATE KEY"). */
export interface CertKeyPem {
  certPem: string;
  keyPem: string;
}

export const CA_VALIDITY_DAYS = 3650;
export const LEAF_VALIDITY_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;
const BACKDATE_MS = 5 * 60 * 1000;

// OIDs (RFC 5280, RFC 5758, RFC 4055)
const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const OID_ECDSA_SHA384 = '1.2.840.10045.4.3.3';
const OID_RSA_SHA256 = '1.2.840.113549.1.1.11';

export interface Asn {
  x: typeof AsnX509;
  convert: typeof AsnSchema.AsnConvert;
  OctetString: typeof AsnSchema.OctetString;
}

let asn: Asn | undefined;

/**
 * Lazily loads the ASN.1 schema classes. import() rather than require() so the single-file build bundles them as
 * lazily evaluated modules covered by the V8 code cache; the packages are CommonJS, so their exports may sit on
 * the namespace's default.
 */
export async function loadAsn(): Promise<Asn> {
  if (asn) return asn;
  const [xm, sm] = await Promise.all([import('@peculiar/asn1-x509'), import('@peculiar/asn1-schema')]);
  const x = cjsExports<typeof AsnX509>(xm, 'Certificate');
  const s = cjsExports<typeof AsnSchema>(sm, 'AsnConvert');
  asn = { x, convert: s.AsnConvert, OctetString: s.OctetString };
  return asn;
}

/** A CommonJS package's exports from its import() namespace (on `default`, or the namespace itself). */
function cjsExports<T>(ns: unknown, probe: string): T {
  const d = (ns as { default?: Record<string, unknown> }).default;
  return (d && probe in d ? d : ns) as T;
}

// X.520 PrintableString's alphabet; anything else is encoded as UTF8String (as Go's crypto/x509 does)
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** Subject in Go's crypto/x509 order (O before CN), one RDN per value. */
function subjectName(a: Asn, commonName: string, organizations: readonly string[] = []): AsnX509.Name {
  const rdn = (type: string, value: string) =>
    new a.x.RelativeDistinguishedName([
      new a.x.AttributeTypeAndValue({
        type,
        value: new a.x.AttributeValue(PRINTABLE.test(value) ? { printableString: value } : { utf8String: value }),
      }),
    ]);
  return new a.x.Name([...organizations.map((o) => rdn(OID_O, o)), rdn(OID_CN, commonName)]);
}

function validity(days: number, now: Date, notAfterCap?: Date): { notBefore: Date; notAfter: Date } {
  const notBefore = new Date(now.getTime() - BACKDATE_MS);
  let notAfter = new Date(now.getTime() + days * DAY_MS);
  if (notAfterCap && notAfter > notAfterCap) notAfter = notAfterCap;
  return { notBefore, notAfter };
}

/**
 * A random positive serial number as DER INTEGER content: 16 bytes whose first is 0x01-0x7f, so the encoding is
 * minimal (a leading 0x00 byte, or a 0x00 before a byte < 0x80, is invalid DER that OpenSSL refuses) and positive.
 */
export function serialNumber(): ArrayBuffer {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  if (bytes[0] === 0) bytes[0] = 1;
  return new Uint8Array(bytes).buffer;
}

/** RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING's bytes. */
export function keyIdentifier(spki: AsnX509.SubjectPublicKeyInfo): ArrayBuffer {
  return new Uint8Array(createHash('sha1').update(new Uint8Array(spki.subjectPublicKey)).digest()).buffer;
}

export interface SigningKey {
  key: KeyObject;
  hash: 'sha256' | 'sha384';
  algorithm: string;
}

/** A CA private key (any PEM form node understands) with the matching signature algorithm. */
function signingKey(keyPem: string): SigningKey {
  const key = createPrivateKey(keyPem);
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') return { key, hash: 'sha256', algorithm: OID_ECDSA_SHA256 };
  if (key.asymmetricKeyType === 'ec' && curve === 'secp384r1') return { key, hash: 'sha384', algorithm: OID_ECDSA_SHA384 };
  if (key.asymmetricKeyType === 'rsa') return { key, hash: 'sha256', algorithm: OID_RSA_SHA256 };
  throw new Error(`unsupported CA key type: ${key.asymmetricKeyType} ${String(curve ?? '')}`);
}

export function extension(a: Asn, extnID: string, critical: boolean, value: object): AsnX509.Extension {
  return new a.x.Extension({ extnID, critical, extnValue: new a.OctetString(a.convert.serialize(value)) });
}

/** Signs the TBSCertificate and returns the certificate as PEM. */
export function signCertificate(a: Asn, tbs: AsnX509.TBSCertificate, signer: SigningKey): string {
  const algorithm = new a.x.AlgorithmIdentifier({ algorithm: signer.algorithm, parameters: signer.algorithm === OID_RSA_SHA256 ? NULL_DER : undefined });
  tbs.signature = algorithm;
  // ECDSA signatures come DER encoded (Ecdsa-Sig-Value), as X.509 carries them
  const signature = sign(signer.hash, Buffer.from(a.convert.serialize(tbs)), signer.key);
  const cert = new a.x.Certificate({ tbsCertificate: tbs, signatureAlgorithm: algorithm, signatureValue: new Uint8Array(signature).buffer });
  return new X509Certificate(Buffer.from(a.convert.serialize(cert))).toString();
}

const NULL_DER = new Uint8Array([0x05, 0x00]).buffer;

function newEcKeyPair(a: Asn): { privateKey: KeyObject; spki: AsnX509.SubjectPublicKeyInfo } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privateKey, spki: a.convert.parse(publicKey.export({ type: 'spki', format: 'der' }), a.x.SubjectPublicKeyInfo) };
}

const privateKeyPem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();

export interface CaOptions {
  commonName?: string;
  days?: number;
  now?: Date;
}

/** Creates a self-signed CA. The default CN carries a timestamp, as k3s does, so successive CAs are distinguishable. */
export async function createCa(opts: CaOptions = {}): Promise<CertKeyPem> {
  const a = await loadAsn();
  const now = opts.now ?? new Date();
  const keys = newEcKeyPair(a);
  const name = subjectName(a, opts.commonName ?? `k1s-ca@${Math.floor(now.getTime() / 1000)}`);
  const { KeyUsageFlags } = a.x;
  const tbs = new a.x.TBSCertificate({
    version: a.x.Version.v3,
    serialNumber: serialNumber(),
    issuer: name,
    subject: name,
    validity: new a.x.Validity(validity(opts.days ?? CA_VALIDITY_DAYS, now)),
    subjectPublicKeyInfo: keys.spki,
    extensions: new a.x.Extensions([
      extension(a, a.x.id_ce_basicConstraints, true, new a.x.BasicConstraints({ cA: true })),
      extension(a, a.x.id_ce_keyUsage, true, new a.x.KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature)),
      extension(a, a.x.id_ce_subjectKeyIdentifier, false, new a.x.SubjectKeyIdentifier(keyIdentifier(keys.spki))),
    ]),
  });
  const signer: SigningKey = { key: keys.privateKey, hash: 'sha256', algorithm: OID_ECDSA_SHA256 };
  return { certPem: signCertificate(a, tbs, signer), keyPem: privateKeyPem(keys.privateKey) };
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

export const EKU = { serverAuth: '1.3.6.1.5.5.7.3.1', clientAuth: '1.3.6.1.5.5.7.3.2' } as const;

/** What a leaf needs of its CA, parsed once per CA. */
export interface Issuer {
  subject: AsnX509.Name;
  keyId: ArrayBuffer;
  notAfter: Date;
  signer: SigningKey;
}

const issuers = new Map<string, Issuer>();

export function issuerOf(a: Asn, ca: CertKeyPem): Issuer {
  const cacheKey = ca.certPem + ca.keyPem;
  let issuer = issuers.get(cacheKey);
  if (!issuer) {
    const caCert = new X509Certificate(ca.certPem);
    const parsed = a.convert.parse(caCert.raw, a.x.Certificate).tbsCertificate;
    issuer = {
      subject: parsed.subject, // the CA's exact encoded name, so chain building matches byte for byte
      keyId: keyIdentifier(parsed.subjectPublicKeyInfo),
      notAfter: new Date(caCert.validTo),
      signer: signingKey(ca.keyPem),
    };
    if (issuers.size > 16) issuers.clear();
    issuers.set(cacheKey, issuer);
  }
  return issuer;
}

async function createLeaf(ca: CertKeyPem, spec: LeafSpec): Promise<CertKeyPem> {
  const a = await loadAsn();
  const issuer = issuerOf(a, ca);
  const keys = newEcKeyPair(a);
  const { KeyUsageFlags } = a.x;
  const extensions = [
    extension(a, a.x.id_ce_basicConstraints, true, new a.x.BasicConstraints({ cA: false })),
    extension(a, a.x.id_ce_keyUsage, true, new a.x.KeyUsage(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment)),
    extension(a, a.x.id_ce_extKeyUsage, false, new a.x.ExtendedKeyUsage([EKU[spec.usage]])),
    extension(a, a.x.id_ce_authorityKeyIdentifier, false, new a.x.AuthorityKeyIdentifier({ keyIdentifier: new a.x.KeyIdentifier(issuer.keyId) })),
  ];
  const names = [
    ...(spec.hostnames ?? []).map((dNSName) => new a.x.GeneralName({ dNSName })),
    ...(spec.ips ?? []).map((iPAddress) => new a.x.GeneralName({ iPAddress })),
  ];
  if (names.length > 0) extensions.push(extension(a, a.x.id_ce_subjectAltName, false, new a.x.SubjectAlternativeName(names)));
  const tbs = new a.x.TBSCertificate({
    version: a.x.Version.v3,
    serialNumber: serialNumber(),
    issuer: issuer.subject,
    subject: subjectName(a, spec.commonName, spec.organizations),
    validity: new a.x.Validity(validity(spec.days ?? LEAF_VALIDITY_DAYS, spec.now ?? new Date(), issuer.notAfter)),
    subjectPublicKeyInfo: keys.spki,
    extensions: new a.x.Extensions(extensions),
  });
  return { certPem: signCertificate(a, tbs, issuer.signer), keyPem: privateKeyPem(keys.privateKey) };
}

export interface ServingCertOptions {
  hostnames: readonly string[];
  organizations?: readonly string[];
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
