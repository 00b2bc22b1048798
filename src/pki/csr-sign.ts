// Signing a PKCS#10 request with the cluster CA, as kube-controller-manager's local signer does
// (pkg/controller/certificates/authority): the subject and the DNS/IP/email/URI SANs of the request, the key usages
// asked for, no other extension of the request, basic constraints CA:false, a random 128-bit serial, not before
// now - backdate, not after capped at the CA's. The request's signature is checked by the caller (API validation).
import { createRequire } from 'node:module';
import type * as X509 from '@peculiar/x509';
import type * as AsnX509 from '@peculiar/asn1-x509';
import { type Asn, type CertKeyPem, EKU, extension, issuerOf, loadAsn, serialNumber, signCertificate } from './certs.js';
import './reflect-shim.js';

export interface ParsedRequest {
  /** the last CN, as Go's pkix.Name keeps it ('' when none) */
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** subject attributes Go's pkix.Name keeps (OID → values), for re-encoding in its order */
  subject: Map<string, string[]>;
  spkiDer: ArrayBuffer;
}

// the attributes pkix.Name.FillFromRDNSequence keeps, in the order ToRDNSequence writes them
const OIDS = { C: '2.5.4.6', ST: '2.5.4.8', L: '2.5.4.7', STREET: '2.5.4.9', POSTAL: '2.5.4.17', O: '2.5.4.10', OU: '2.5.4.11', CN: '2.5.4.3', SERIAL: '2.5.4.5' };
const GO_ORDER = [OIDS.C, OIDS.ST, OIDS.L, OIDS.STREET, OIDS.POSTAL, OIDS.O, OIDS.OU, OIDS.CN, OIDS.SERIAL];
const SINGLE = new Set([OIDS.CN, OIDS.SERIAL]);
const OID_SAN = '2.5.29.17';

let x509Lib: typeof X509 | undefined;
const loadX509 = () => (x509Lib ??= createRequire(import.meta.url)('@peculiar/x509') as typeof X509);

/** x509.ParseCertificateRequest's view of a request (DER); throws on a malformed one. */
export async function parseCertificateRequest(der: Uint8Array): Promise<ParsedRequest> {
  const a = await loadAsn();
  const csr = new (loadX509().Pkcs10CertificateRequest)(new Uint8Array(der));
  const subject = new Map<string, string[]>();
  const name = a.convert.parse(csr.subjectName.toArrayBuffer(), a.x.Name);
  for (const rdn of name) {
    for (const atv of rdn) {
      if (!GO_ORDER.includes(atv.type)) continue;
      const value = atv.value.toString();
      subject.set(atv.type, SINGLE.has(atv.type) ? [value] : [...(subject.get(atv.type) ?? []), value]);
    }
  }
  const parsed: ParsedRequest = {
    commonName: subject.get(OIDS.CN)?.[0] ?? '',
    organizations: subject.get(OIDS.O) ?? [],
    dnsNames: [],
    ipAddresses: [],
    emailAddresses: [],
    uris: [],
    subject,
    spkiDer: csr.publicKey.rawData,
  };
  for (const ext of csr.extensions) {
    if (ext.type !== OID_SAN) continue;
    for (const n of a.convert.parse(ext.value, a.x.SubjectAlternativeName)) {
      if (n.dNSName !== undefined) parsed.dnsNames.push(n.dNSName);
      else if (n.iPAddress !== undefined) parsed.ipAddresses.push(n.iPAddress);
      else if (n.rfc822Name !== undefined) parsed.emailAddresses.push(n.rfc822Name);
      else if (n.uniformResourceIdentifier !== undefined) parsed.uris.push(n.uniformResourceIdentifier);
    }
  }
  return parsed;
}

// Go's asn1 marshals a string as PrintableString when it can ('*' included), else UTF8String
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?*]*$/;

/** pkix.Name.ToRDNSequence: one RDN per attribute type holding all its values, in Go's order. */
function goSubject(a: Asn, subject: Map<string, string[]>): AsnX509.Name {
  const rdns = GO_ORDER.filter((oid) => subject.get(oid)?.some((v) => !SINGLE.has(oid) || v !== '')).map(
    (oid) =>
      new a.x.RelativeDistinguishedName(
        subject.get(oid)!.map(
          (v) => new a.x.AttributeTypeAndValue({ type: oid, value: new a.x.AttributeValue(PRINTABLE.test(v) ? { printableString: v } : { utf8String: v }) }),
        ),
      ),
  );
  return new a.x.Name(rdns);
}

// capi.KeyUsage → x509.KeyUsage bits / ExtKeyUsage OIDs (authority/policies.go); EKUs sorted by Go's enum order
const KEY_USAGE_BITS: Record<string, number> = {
  signing: 1, 'digital signature': 1, 'content commitment': 2, 'key encipherment': 4, 'key agreement': 16,
  'data encipherment': 8, 'cert sign': 32, 'crl sign': 64, 'encipher only': 128, 'decipher only': 256,
};
const EXT_KEY_USAGES: [string, string][] = [
  ['any', '2.5.29.37.0'],
  ['server auth', EKU.serverAuth],
  ['client auth', EKU.clientAuth],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];

/** Go's time.Time String() of a UTC time: "2006-01-02 15:04:05 +0000 UTC". */
const goTime = (d: Date) => `${d.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;

export interface SigningPolicy {
  usages: readonly string[];
  ttlMs: number;
  /** how far notBefore lies before now (kube: 5 minutes) */
  backdateMs: number;
  /** below this TTL notAfter is not backdated too (kube: 8 hours) */
  shortMs: number;
  now?: Date;
}

/** PermissiveSigningPolicy.apply + CertificateAuthority.Sign: the certificate PEM, or an Error in kube's words. */
export async function signCertificateRequest(ca: CertKeyPem, req: ParsedRequest, policy: SigningPolicy): Promise<string> {
  const a = await loadAsn();
  const unrecognized = policy.usages.filter((u) => KEY_USAGE_BITS[u] === undefined && !EXT_KEY_USAGES.some(([n]) => n === u));
  if (unrecognized.length) throw new Error(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  const bits = policy.usages.reduce((b, u) => b | (KEY_USAGE_BITS[u] ?? 0), 0);
  const ekus = [...new Set(EXT_KEY_USAGES.filter(([n]) => policy.usages.includes(n)).map(([, oid]) => oid))];

  const issuer = issuerOf(a, ca);
  const now = policy.now ?? new Date();
  const notBefore = new Date(now.getTime() - policy.backdateMs);
  let notAfter = new Date(now.getTime() + policy.ttlMs - (policy.ttlMs < policy.shortMs ? 0 : policy.backdateMs));
  if (notAfter >= issuer.notAfter) notAfter = issuer.notAfter;
  if (notBefore >= issuer.notAfter) throw new Error(`the signer has expired: NotAfter=${goTime(issuer.notAfter)}`);
  if (now >= issuer.notAfter) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(issuer.notAfter)}`);

  // Go's buildCertExtensions order: key usage, extended key usage, basic constraints, authority key id, SANs
  const extensions: AsnX509.Extension[] = [];
  if (bits) extensions.push(extension(a, a.x.id_ce_keyUsage, true, new a.x.KeyUsage(bits)));
  if (ekus.length) extensions.push(extension(a, a.x.id_ce_extKeyUsage, false, new a.x.ExtendedKeyUsage(ekus)));
  extensions.push(extension(a, a.x.id_ce_basicConstraints, true, new a.x.BasicConstraints({ cA: false })));
  extensions.push(extension(a, a.x.id_ce_authorityKeyIdentifier, false, new a.x.AuthorityKeyIdentifier({ keyIdentifier: new a.x.KeyIdentifier(issuer.keyId) })));
  const subject = goSubject(a, req.subject);
  const names = [
    ...req.dnsNames.map((dNSName) => new a.x.GeneralName({ dNSName })),
    ...req.emailAddresses.map((rfc822Name) => new a.x.GeneralName({ rfc822Name })),
    ...req.ipAddresses.map((iPAddress) => new a.x.GeneralName({ iPAddress })),
    ...req.uris.map((uniformResourceIdentifier) => new a.x.GeneralName({ uniformResourceIdentifier })),
  ];
  // critical when the subject is empty (RFC 5280 4.2.1.6), as Go marks it
  if (names.length) extensions.push(extension(a, a.x.id_ce_subjectAltName, subject.length === 0, new a.x.SubjectAlternativeName(names)));

  const tbs = new a.x.TBSCertificate({
    version: a.x.Version.v3,
    serialNumber: serialNumber(),
    issuer: issuer.subject,
    subject,
    validity: new a.x.Validity({ notBefore, notAfter }),
    subjectPublicKeyInfo: a.convert.parse(req.spkiDer, a.x.SubjectPublicKeyInfo),
    extensions: new a.x.Extensions(extensions),
  });
  return signCertificate(a, tbs, issuer.signer);
}
