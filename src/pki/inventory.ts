// What certificates a k1s data directory holds and when they expire (kubeadm's `certs check-expiration`): every
// *.crt of the tls dir, so certificates added later (kubelet, others) are listed without a table to keep in sync.
import { X509Certificate } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const DAY_MS = 24 * 60 * 60 * 1000;
/** `k1s status`, `k1s certs check` and the server's log warn this long before a certificate expires */
export const EXPIRY_WARNING_DAYS = 30;

/** What the well-known files are for; anything else is described by its usage. */
const ROLES: Record<string, string> = {
  ca: 'cluster CA (signs the serving, client and kubelet certificates)',
  server: 'API server serving certificate',
  admin: 'admin client certificate (kubeconfig)',
  'front-proxy-ca': 'front-proxy CA (aggregation layer)',
  'front-proxy-client': 'front-proxy client certificate (aggregation layer)',
};

export interface CertificateInfo {
  /** the file's base name: "server" for server.crt */
  name: string;
  path: string;
  role: string;
  isCA: boolean;
  subject: string;
  issuer: string;
  serial: string;
  notBefore: Date;
  notAfter: Date;
  /** whole days from `now` to notAfter, negative once expired */
  daysLeft: number;
  expired: boolean;
  /** DNS and IP SANs, as "DNS:x" / "IP Address:y" */
  subjectAltNames: string[];
}

/** "O=system:masters\nCN=kubernetes-admin" as one line, the way openssl prints it: "O=system:masters, CN=…". */
const oneLine = (dn: string) => dn.split('\n').join(', ');

function roleOf(name: string, cert: X509Certificate): string {
  if (ROLES[name]) return ROLES[name];
  if (cert.ca) return 'CA';
  const eku = cert.keyUsage ?? [];
  if (eku.includes('1.3.6.1.5.5.7.3.1')) return 'serving certificate';
  if (eku.includes('1.3.6.1.5.5.7.3.2')) return 'client certificate';
  return 'certificate';
}

/** One certificate's facts as of `now`; throws when the PEM is not a certificate. */
export function describeCertificate(name: string, path: string, pem: string, now: Date = new Date()): CertificateInfo {
  const cert = new X509Certificate(pem);
  const notBefore = new Date(cert.validFrom);
  const notAfter = new Date(cert.validTo);
  return {
    name,
    path,
    role: roleOf(name, cert),
    isCA: cert.ca,
    subject: oneLine(cert.subject),
    issuer: oneLine(cert.issuer),
    serial: cert.serialNumber.toLowerCase(),
    notBefore,
    notAfter,
    daysLeft: Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS),
    expired: now >= notAfter || now < notBefore,
    subjectAltNames: cert.subjectAltName ? cert.subjectAltName.split(', ') : [],
  };
}

export interface Inventory {
  certificates: CertificateInfo[];
  /** files that end in .crt but hold no certificate node can read */
  unreadable: { path: string; error: string }[];
}

/** CAs first (as kubeadm lists them after the leaves, but a CA is what a reader looks for first), then by name. */
const order = (a: CertificateInfo, b: CertificateInfo) => Number(b.isCA) - Number(a.isCA) || a.name.localeCompare(b.name);

/** Every certificate in `dir` (empty when the dir does not exist yet). */
export async function readInventory(dir: string, now: Date = new Date()): Promise<Inventory> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => f.endsWith('.crt')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { certificates: [], unreadable: [] };
    throw e;
  }
  const certificates: CertificateInfo[] = [];
  const unreadable: Inventory['unreadable'] = [];
  for (const f of files) {
    const path = join(dir, f);
    try {
      certificates.push(describeCertificate(f.slice(0, -'.crt'.length), path, await readFile(path, 'utf8'), now));
    } catch (e) {
      unreadable.push({ path, error: (e as Error).message });
    }
  }
  return { certificates: certificates.sort(order), unreadable };
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * What to tell the user about certificates that expired or expire within `withinDays`: one line each, saying what
 * to do. A CA is not rotated by `k1s certs rotate` (out of scope); its line says what happens instead.
 */
export function expiryWarnings(certs: readonly CertificateInfo[], withinDays = EXPIRY_WARNING_DAYS): string[] {
  const out: string[] = [];
  for (const c of certs) {
    if (!c.expired && c.daysLeft >= withinDays) continue;
    const when = c.expired ? `expired on ${day(c.notAfter)}` : `expires in ${c.daysLeft} day${c.daysLeft === 1 ? '' : 's'} (${day(c.notAfter)})`;
    if (c.isCA) {
      out.push(
        `CA certificate "${c.name}" ${when}: "k1s certs rotate" renews only the certificates it signed, not the CA itself; ` +
          'a server restart replaces a CA within 90 days of expiry with a new one (and re-issues every certificate), after which ' +
          'kubeconfigs and client certificates from the old CA must be handed out again',
      );
    } else {
      out.push(`certificate "${c.name}" (${c.role}) ${when}: run "k1s certs rotate" to renew it`);
    }
  }
  return out;
}
