// The on-disk PKI of a k1s data directory, created on first start and reused
// (and repaired or renewed when needed) on later starts, as k3s does.
import { chmod, mkdir } from 'node:fs/promises';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import {
  type CertKeyPem,
  createCa,
  createClientCert,
  createServingCert,
  createSigningKeyPair,
  coversNames,
  isExpired,
  isSignedBy,
  keyMatchesCert,
  needsRenewal,
  publicKeyPemOf,
  subjectOf,
} from './certs.js';
import { CERT_MODE, DIR_MODE, KEY_MODE, readIfExists, writeFileAtomic } from './fsutil.js';

export const ADMIN_COMMON_NAME = 'kubernetes-admin';
export const ADMIN_ORGANIZATIONS: readonly string[] = ['system:masters'];

export interface CertFiles extends CertKeyPem {
  certPath: string;
  keyPath: string;
}

export interface PkiFiles {
  dir: string;
  ca: CertFiles;
  /** TLS serving certificate of the API server. */
  server: CertFiles;
  /** Client certificate for the admin kubeconfig (CN=kubernetes-admin, O=system:masters). */
  admin: CertFiles;
  /** Keypair for signing (private) and verifying (public) ServiceAccount tokens. */
  serviceAccount: { keyPath: string; publicKeyPath: string; keyPem: string; publicKeyPem: string };
  /** Paths (re)written by this call; empty when everything was reused as is. */
  written: string[];
}

export interface ServingNames {
  hostnames: string[];
  ips: string[];
}

/**
 * The SANs kube-apiserver certificates usually carry, for this machine: the names in-cluster clients use
 * (kubernetes.default.svc…) and, given the `kubernetes` Service's cluster IP, that address (what
 * KUBERNETES_SERVICE_HOST holds, so client-go's in-cluster config verifies).
 */
export function defaultServingNames(opts: { serviceIPs?: readonly string[] } = {}): ServingNames {
  const hostnames = [
    'localhost',
    hostname().toLowerCase(),
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
  ];
  return { hostnames: [...new Set(hostnames.filter((h) => h !== ''))], ips: [...new Set(['127.0.0.1', '::1', ...(opts.serviceIPs ?? [])])] };
}

// isIP without its first call compiling node's IPv6 regex (~7 ms of start-up) for the usual inputs: an address
// needs ':' (IPv6) or only digits and dots (IPv4), and the default loopback addresses are valid as written.
const loopback = new Set(['127.0.0.1', '::1']);
const isAddress = (s: string) => loopback.has(s) || ((s.includes(':') || /^[\d.]+$/.test(s)) && isIP(s) !== 0);

/** Moves IPs given as hostnames over to `ips`, lower-cases names, drops duplicates, rejects bad IPs. */
function normalizeNames(opts: ServingNames): ServingNames {
  const hostnames = new Set<string>();
  const ips = new Set<string>();
  for (const h of opts.hostnames) {
    if (isAddress(h)) ips.add(h);
    else if (h !== '') hostnames.add(h.toLowerCase());
  }
  for (const ip of opts.ips) {
    if (!isAddress(ip)) throw new Error(`invalid IP address for the serving certificate: ${JSON.stringify(ip)}`);
    ips.add(ip);
  }
  return { hostnames: [...hostnames], ips: [...ips] };
}

/** Runs a check on certificate material, treating unparsable PEM as "check failed". */
export function holds(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

export interface Pair {
  certPath: string;
  keyPath: string;
  certPem: string | null;
  keyPem: string | null;
}

/** The pair on disk when it is usable and signed by `ca`, else null (so it gets re-issued). */
export function reusable(pair: Pair, ca: CertKeyPem, extraCheck: (certPem: string) => boolean): CertKeyPem | null {
  const { certPem, keyPem } = pair;
  if (certPem === null || keyPem === null) return null;
  const ok = holds(
    () =>
      keyMatchesCert(certPem, keyPem) &&
      isSignedBy(certPem, ca.certPem) &&
      !needsRenewal(certPem) &&
      extraCheck(certPem),
  );
  return ok ? { certPem, keyPem } : null;
}

export async function writePair(pair: Pair, pem: CertKeyPem, written: string[]): Promise<CertFiles> {
  // Key first: if we crash in between, the old cert no longer matches and both are re-issued.
  await writeFileAtomic(pair.keyPath, pem.keyPem, KEY_MODE);
  await writeFileAtomic(pair.certPath, pem.certPem, CERT_MODE);
  written.push(pair.keyPath, pair.certPath);
  return { certPath: pair.certPath, keyPath: pair.keyPath, ...pem };
}

export async function loadPair(dir: string, base: string): Promise<Pair> {
  const certPath = join(dir, `${base}.crt`);
  const keyPath = join(dir, `${base}.key`);
  const [certPem, keyPem] = await Promise.all([readIfExists(certPath), readIfExists(keyPath)]);
  return { certPath, keyPath, certPem, keyPem };
}

/**
 * Makes sure `dir` holds a CA, a serving certificate covering `opts`, an admin
 * client certificate and a ServiceAccount signing keypair, creating what is
 * missing. Existing files are reused byte for byte unless invalid: a leaf is
 * re-issued when it is missing, does not match its key, was not signed by the
 * CA, expires within 90 days, or (serving cert) lacks a requested SAN. A
 * missing CA, or one expiring within 90 days, is regenerated (re-issuing every
 * leaf); a CA whose key
 * does not match its cert is an error, since replacing it silently would
 * invalidate every kubeconfig handed out.
 */
export async function ensurePki(dir: string, opts: ServingNames): Promise<PkiFiles> {
  const names = normalizeNames(opts);
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  await chmod(dir, DIR_MODE); // mkdir's mode does not apply to an existing dir, nor past the umask
  const written: string[] = [];
  const [caPair, serverPair, adminPair] = await Promise.all(
    ['ca', 'server', 'admin'].map((base) => loadPair(dir, base)),
  );

  let ca: CertFiles;
  // A CA about to expire is replaced too: leaves are capped at the CA's expiry and would otherwise be re-issued on every start.
  const caUsable = (pem: string) => !isExpired(pem) && !needsRenewal(pem);
  if (caPair.certPem !== null && caPair.keyPem !== null && holds(() => caUsable(caPair.certPem!))) {
    if (!holds(() => keyMatchesCert(caPair.certPem!, caPair.keyPem!))) {
      throw new Error(`${caPair.keyPath} does not match ${caPair.certPath}; fix or remove both to create a new CA`);
    }
    ca = { certPath: caPair.certPath, keyPath: caPair.keyPath, certPem: caPair.certPem, keyPem: caPair.keyPem };
  } else {
    ca = await writePair(caPair, await createCa(), written);
  }

  const serverPem = reusable(serverPair, ca, (pem) => coversNames(pem, names.hostnames, names.ips));
  const adminSubject = [...ADMIN_ORGANIZATIONS.map((o) => `O=${o}`), `CN=${ADMIN_COMMON_NAME}`].join('\n');
  const adminPem = reusable(adminPair, ca, (pem) => subjectOf(pem) === adminSubject);
  // Leaves are independent: sign them concurrently.
  const [server, admin] = await Promise.all([
    serverPem
      ? { certPath: serverPair.certPath, keyPath: serverPair.keyPath, ...serverPem }
      : createServingCert(ca, names).then((pem) => writePair(serverPair, pem, written)),
    adminPem
      ? { certPath: adminPair.certPath, keyPath: adminPair.keyPath, ...adminPem }
      : createClientCert(ca, { commonName: ADMIN_COMMON_NAME, organizations: ADMIN_ORGANIZATIONS }).then((pem) =>
          writePair(adminPair, pem, written),
        ),
  ]);

  const serviceAccount = await ensureServiceAccountKeys(dir, written);
  // Existing key files may have been copied in with looser modes.
  await Promise.all([ca.keyPath, server.keyPath, admin.keyPath, serviceAccount.keyPath].map((p) => chmod(p, KEY_MODE)));
  return { dir, ca, server, admin, serviceAccount, written };
}

async function ensureServiceAccountKeys(dir: string, written: string[]): Promise<PkiFiles['serviceAccount']> {
  const keyPath = join(dir, 'service-account.key');
  const publicKeyPath = join(dir, 'service-account.pub');
  let keyPem = await readIfExists(keyPath);
  let expectedPub: string | null = null;
  try {
    if (keyPem !== null) expectedPub = publicKeyPemOf(keyPem);
  } catch {
    // unreadable key: replaced below (tokens signed with it stop validating, as they would anyway)
  }
  if (keyPem === null || expectedPub === null) {
    const pair = createSigningKeyPair();
    keyPem = pair.privateKeyPem;
    expectedPub = pair.publicKeyPem;
    await writeFileAtomic(keyPath, keyPem, KEY_MODE);
    written.push(keyPath);
  }
  // The public half is derived from the key, so a missing or stale .pub is simply rewritten.
  if ((await readIfExists(publicKeyPath)) !== expectedPub) {
    await writeFileAtomic(publicKeyPath, expectedPub, CERT_MODE);
    written.push(publicKeyPath);
  }
  return { keyPath, publicKeyPath, keyPem, publicKeyPem: expectedPub };
}

export interface ClientIdentity {
  commonName: string;
  organizations?: readonly string[];
  days?: number;
}

/** Issues a client certificate signed by the cluster CA (e.g. for kubelets or extra users); not written to disk. */
export function issueClientCertificate(pki: Pick<PkiFiles, 'ca'>, identity: ClientIdentity): Promise<CertKeyPem> {
  return createClientCert(pki.ca, identity);
}
