// Kubelet TLS bootstrapping (kubelet's --bootstrap-kubeconfig): a CertificateSigningRequest filed with the bootstrap
// token for a kubernetes.io/kube-apiserver-client-kubelet certificate (CN system:node:<name>, O system:nodes),
// waited on until the controllers approve and sign it; the same for the kubelet's serving certificate
// (kubernetes.io/kubelet-serving) with the node's own credential. The credentials live in the agent's data dir:
// kubelet.kubeconfig (0600, the client certificate and key embedded), addons.kubeconfig (the node's add-ons'
// credential, asked for as the node) and pki/kubelet-serving.{crt,key}.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import { YAML } from '../../machinery/yaml.js';
import { coversNames, isExpired, isSignedBy, keyMatchesCert, needsRenewal, subjectOf } from '../../pki/certs.js';
import { createCertificateRequest, type CertificateRequestOptions } from '../../pki/csr-create.js';
import { CERT_MODE, DIR_MODE, ensureParentDir, KEY_MODE, readIfExists, writeFileAtomic } from '../../pki/fsutil.js';
import { kubeconfigYaml, writeKubeconfig } from '../../pki/kubeconfig.js';
import { NODE_ADDONS_GROUP, NODE_ADDONS_USER_PREFIX, NODES_GROUP, nodeUser } from '../../pki/node-credential.js';
import { JoinError } from './discovery.js';

type CSR = KObject & { status?: { certificate?: string; conditions?: { type: string; status?: string; reason?: string; message?: string }[] } };

export const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

export interface IssuedPair {
  certPem: string;
  keyPem: string;
}

/** Files a CSR and waits for its certificate; `onApproved` is called once it is approved. */
export async function requestCertificate(
  client: Client,
  opts: { signerName: string; usages: string[]; request: CertificateRequestOptions; timeoutMs?: number; onApproved?: () => void },
): Promise<IssuedPair> {
  const { csrPem, keyPem } = await createCertificateRequest(opts.request);
  const name = `node-csr-${randomBytes(8).toString('hex')}`;
  const csrs = client.resource('certificates.k8s.io/v1', 'certificatesigningrequests');
  await csrs.create('', {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: opts.signerName, usages: opts.usages },
  } as KObject);
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  let approved = false;
  for (;;) {
    const csr = (await csrs.get('', name)) as CSR;
    const conds = csr.status?.conditions ?? [];
    const refused = conds.find((c) => (c.type === 'Denied' || c.type === 'Failed') && c.status !== 'False');
    if (refused) throw new JoinError(`certificate request ${name} was ${refused.type.toLowerCase()}: ${refused.reason ?? ''} ${refused.message ?? ''}`.trim());
    if (!approved && conds.some((c) => c.type === 'Approved' && c.status !== 'False')) {
      approved = true;
      opts.onApproved?.();
    }
    if (csr.status?.certificate) return { certPem: Buffer.from(csr.status.certificate, 'base64').toString('utf8'), keyPem };
    if (Date.now() > deadline) {
      throw new JoinError(`certificate request ${name} (${opts.signerName}) was not ${approved ? 'signed' : 'approved'} in ${Math.round((opts.timeoutMs ?? 120_000) / 1000)} s: approve it on the server with kubectl certificate approve ${name}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** the client CSR a kubelet files with its bootstrap token (EC key: no key encipherment) */
export function clientCertificate(client: Client, nodeName: string, onApproved?: () => void): Promise<IssuedPair> {
  return requestCertificate(client, {
    signerName: CLIENT_SIGNER,
    usages: ['digital signature', 'client auth'],
    request: { commonName: nodeUser(nodeName).name, organizations: [NODES_GROUP] },
    onApproved,
  });
}

/** the serving CSR, filed with the node's own credential once its Node has the addresses it names */
export function servingCertificate(client: Client, nodeName: string, ips: string[]): Promise<IssuedPair> {
  return requestCertificate(client, {
    signerName: SERVING_SIGNER,
    usages: ['digital signature', 'server auth'],
    request: { commonName: nodeUser(nodeName).name, organizations: [NODES_GROUP], dnsNames: [nodeName], ipAddresses: ips },
  });
}

export const KUBELET_KUBECONFIG = 'kubelet.kubeconfig';
const servingFiles = (dataDir: string) => ({ cert: join(dataDir, 'pki', 'kubelet-serving.crt'), key: join(dataDir, 'pki', 'kubelet-serving.key') });

/** renewed when less than this is left (kube's certificate manager aims at 70–90 % of the lifetime) */
export const RENEW_WITHIN_DAYS = 30;

/** a pair signed by `caPem`, matching and not expired */
function usable(pair: IssuedPair, caPem: string): boolean {
  try {
    return isSignedBy(pair.certPem, caPem) && keyMatchesCert(pair.certPem, pair.keyPem) && !isExpired(pair.certPem);
  } catch {
    return false;
  }
}

/** due for renewal (or unreadable) */
export function dueForRenewal(certPem: string): boolean {
  try {
    return needsRenewal(certPem, RENEW_WITHIN_DAYS);
  } catch {
    return true;
  }
}

export const ADDONS_KUBECONFIG = 'addons.kubeconfig';

type Credential = IssuedPair & { caPem: string; server: string };

/** A client credential from an earlier run (kubelet.kubeconfig, addons.kubeconfig) when it is still valid for this
 *  subject (perhaps due for renewal). */
export async function loadCredential(dataDir: string, file: string, subject: { commonName: string; organization: string }): Promise<Credential | undefined> {
  const text = await readIfExists(join(dataDir, file));
  if (!text) return undefined;
  try {
    const doc = YAML.parse(text) as { clusters?: { cluster?: Record<string, string> }[]; users?: { user?: Record<string, string> }[] };
    const cluster = doc.clusters?.[0]?.cluster ?? {};
    const user = doc.users?.[0]?.user ?? {};
    const dec = (s?: string) => Buffer.from(s ?? '', 'base64').toString('utf8');
    const cred = { caPem: dec(cluster['certificate-authority-data']), server: cluster.server ?? '', certPem: dec(user['client-certificate-data']), keyPem: dec(user['client-key-data']) };
    if (!usable(cred, cred.caPem) || subjectOf(cred.certPem) !== `O=${subject.organization}\nCN=${subject.commonName}`) return undefined;
    return cred;
  } catch {
    return undefined;
  }
}

/** the kubelet's: system:node:<name> in system:nodes */
export const nodeSubject = (nodeName: string) => ({ commonName: nodeUser(nodeName).name, organization: NODES_GROUP });
/** the add-ons': k1s:node-addons:<name> in k1s:node-addons */
export const addonsSubject = (nodeName: string) => ({ commonName: `${NODE_ADDONS_USER_PREFIX}${nodeName}`, organization: NODE_ADDONS_GROUP });

/** Writes the credential as a kubeconfig (0600, embedded) and the CA beside it (pki/ca.crt); returns the path. */
export async function saveCredential(dataDir: string, file: string, cred: Credential): Promise<string> {
  const path = join(dataDir, file);
  await writeKubeconfig(path, kubeconfigYaml({ server: cred.server, caPem: cred.caPem, clientCertPem: cred.certPem, clientKeyPem: cred.keyPem, name: 'k1s-agent' }));
  const ca = join(dataDir, 'pki', 'ca.crt');
  await ensureParentDir(ca, DIR_MODE);
  await writeFileAtomic(ca, cred.caPem, CERT_MODE);
  return path;
}

/** the add-ons' credential, asked for with the node's own (approved by k1s for the requesting node only) */
export function addonsCertificate(client: Client, nodeName: string): Promise<IssuedPair> {
  const subject = addonsSubject(nodeName);
  return requestCertificate(client, {
    signerName: 'kubernetes.io/kube-apiserver-client',
    usages: ['digital signature', 'client auth'],
    request: { commonName: subject.commonName, organizations: [subject.organization] },
  });
}

/** The serving pair from an earlier run, when it still covers the node's name and addresses. */
export async function loadServingCert(dataDir: string, caPem: string, nodeName: string, ips: string[]): Promise<IssuedPair | undefined> {
  const f = servingFiles(dataDir);
  const [certPem, keyPem] = await Promise.all([readIfExists(f.cert), readIfExists(f.key)]);
  if (!certPem || !keyPem) return undefined;
  const pair = { certPem, keyPem };
  return usable(pair, caPem) && !dueForRenewal(certPem) && coversNames(certPem, [nodeName], ips) ? pair : undefined;
}

export async function saveServingCert(dataDir: string, pair: IssuedPair): Promise<void> {
  const f = servingFiles(dataDir);
  await ensureParentDir(f.cert, DIR_MODE);
  await writeFileAtomic(f.key, pair.keyPem, KEY_MODE);
  await writeFileAtomic(f.cert, pair.certPem, CERT_MODE);
}
