// `k1s certs rotate`: every leaf certificate of a tls dir re-issued in place by the CA that signed it, with the same
// subject, SANs and usage and a new key (as k3s' `certificate rotate` and kubeadm's `certs renew` do: both write new
// private keys). CAs are kept, so every client that trusts them keeps working.
import { X509Certificate } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { type CertKeyPem, EKU, createClientCert, createServingCert, isSignedBy, keyMatchesCert } from './certs.js';
import { holds, loadPair, writePair, type Pair } from './pki.js';

export interface RotatedCertificate {
  name: string;
  certPath: string;
  previous: CertKeyPem;
  current: CertKeyPem;
}

export interface RotationResult {
  rotated: RotatedCertificate[];
  /** leaves left as they were, and why */
  skipped: { name: string; reason: string }[];
  /** the CAs that signed them (kept) */
  cas: string[];
}

interface Loaded extends Pair {
  name: string;
  cert?: X509Certificate;
}

/** Subject "O=a\nO=b\nCN=c" as k1s issues it; undefined when it has attributes k1s does not issue. */
function parseSubject(subject: string): { commonName: string; organizations: string[] } | undefined {
  let commonName: string | undefined;
  const organizations: string[] = [];
  for (const line of subject.split('\n')) {
    const eq = line.indexOf('=');
    const [k, v] = [line.slice(0, eq), line.slice(eq + 1)];
    if (k === 'CN' && commonName === undefined) commonName = v;
    else if (k === 'O') organizations.push(v);
    else return undefined;
  }
  return commonName === undefined ? undefined : { commonName, organizations };
}

/** "DNS:a, IP Address:1.2.3.4" → names and IPs; undefined when other kinds of SAN are present. */
function parseSans(san: string | undefined): { hostnames: string[]; ips: string[] } | undefined {
  const hostnames: string[] = [];
  const ips: string[] = [];
  for (const item of san ? san.split(', ') : []) {
    if (item.startsWith('DNS:')) hostnames.push(item.slice(4));
    else if (item.startsWith('IP Address:')) ips.push(item.slice('IP Address:'.length));
    else return undefined;
  }
  return { hostnames, ips };
}

/** A new certificate and key like `cert`, from `ca`; a reason string when k1s cannot re-issue this kind. */
async function reissue(cert: X509Certificate, ca: CertKeyPem): Promise<CertKeyPem | string> {
  const subject = parseSubject(cert.subject);
  if (!subject) return `subject "${cert.subject.split('\n').join(', ')}" has attributes k1s does not issue`;
  const eku = cert.keyUsage ?? [];
  if (eku.includes(EKU.serverAuth)) {
    const sans = parseSans(cert.subjectAltName);
    if (!sans) return `subjectAltName "${cert.subjectAltName}" has names other than DNS and IP`;
    return createServingCert(ca, { ...sans, ...subject });
  }
  if (eku.includes(EKU.clientAuth)) return createClientCert(ca, subject);
  return 'neither a serving nor a client certificate';
}

/** Re-issues every leaf in `dir` signed by a CA (with its key) in `dir`; CAs and unrelated files are left alone. */
export async function rotateLeafCertificates(dir: string): Promise<RotationResult> {
  const bases = (await readdir(dir)).filter((f) => f.endsWith('.crt')).map((f) => f.slice(0, -4)).sort();
  const loaded: Loaded[] = await Promise.all(
    bases.map(async (name) => {
      const pair = await loadPair(dir, name);
      let cert: X509Certificate | undefined;
      try {
        cert = pair.certPem === null ? undefined : new X509Certificate(pair.certPem);
      } catch {
        cert = undefined;
      }
      return { ...pair, name, cert };
    }),
  );
  const cas = loaded.filter((l) => l.cert?.ca && l.keyPem !== null && holds(() => keyMatchesCert(l.certPem!, l.keyPem!)));
  const result: RotationResult = { rotated: [], skipped: [], cas: cas.map((c) => c.name) };
  for (const leaf of loaded) {
    if (leaf.cert?.ca) continue;
    if (!leaf.cert) {
      result.skipped.push({ name: leaf.name, reason: 'not a readable certificate' });
      continue;
    }
    if (leaf.keyPem === null) {
      result.skipped.push({ name: leaf.name, reason: `no key file ${leaf.keyPath}` });
      continue;
    }
    const ca = cas.find((c) => holds(() => isSignedBy(leaf.certPem!, c.certPem!)));
    if (!ca) {
      result.skipped.push({ name: leaf.name, reason: 'not signed by a CA of this directory' });
      continue;
    }
    const next = await reissue(leaf.cert, { certPem: ca.certPem!, keyPem: ca.keyPem! });
    if (typeof next === 'string') {
      result.skipped.push({ name: leaf.name, reason: next });
      continue;
    }
    await writePair(leaf, next, []);
    result.rotated.push({ name: leaf.name, certPath: leaf.certPath, previous: { certPem: leaf.certPem!, keyPem: leaf.keyPem }, current: next });
  }
  return result;
}
