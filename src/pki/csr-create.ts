// Making a PKCS#10 certificate request and its key, as a kubelet does for TLS bootstrapping: a P-256 key and a
// request for O=system:nodes, CN=system:node:<name>, with DNS/IP subjectAltNames for a serving certificate.
// @peculiar/x509 (loaded on use) builds and signs the DER; the key is handed back as PKCS#8 PEM.
import { KeyObject, webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as X509 from '@peculiar/x509';
// the Reflect metadata functions @peculiar/x509's tsyringe needs, before it loads
import './reflect-shim.js';

export interface CertificateRequestOptions {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
}

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export async function createCertificateRequest(opts: CertificateRequestOptions): Promise<{ csrPem: string; keyPem: string }> {
  const x509 = createRequire(import.meta.url)('@peculiar/x509') as typeof X509;
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
  const name: X509.JsonName = [...(opts.organizations ?? []).map((o) => ({ O: [o] })), { CN: [opts.commonName] }];
  const sans = [...(opts.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(opts.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value }))];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    { name, keys, signingAlgorithm: ALG, extensions: sans.length ? [new x509.SubjectAlternativeNameExtension(sans)] : [] },
    webcrypto as unknown as Crypto,
  );
  const keyPem = KeyObject.from(keys.privateKey as unknown as webcrypto.CryptoKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { csrPem: csr.toString('pem'), keyPem };
}
