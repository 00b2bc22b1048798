// A kubelet's client credential: a certificate for user system:node:<name> in group system:nodes, signed by the
// cluster CA, as kubelet TLS bootstrapping ends with. The Node authorizer and NodeRestriction know the node by it.
// Kept as <dir>/<name>.crt and <name>.key (0600), re-issued when missing, not matching, or due for renewal.
import { chmod, mkdir } from 'node:fs/promises';
import { createClientCert, subjectOf, type CertKeyPem } from './certs.js';
import { DIR_MODE, KEY_MODE } from './fsutil.js';
import { loadPair, reusable, writePair, type CertFiles } from './pki.js';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';
/** the identity a joined node's add-ons (Service proxy, NetworkPolicy, DNS, local-path) run as: k1s:node-addons:<node>
 *  in group k1s:node-addons, kept apart from the kubelet's so the Node authorizer still limits the kubelet */
export const NODE_ADDONS_GROUP = 'k1s:node-addons';
export const NODE_ADDONS_USER_PREFIX = 'k1s:node-addons:';

/** The user a node's kubelet is: system:node:<name>, groups system:nodes and system:authenticated. */
export function nodeUser(nodeName: string): { name: string; groups: string[] } {
  return { name: `${NODE_USER_PREFIX}${nodeName}`, groups: [NODES_GROUP, 'system:authenticated'] };
}

// a node name is a DNS subdomain: it is safe as a file name once it is one
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Makes sure `dir` holds a valid client certificate and key of the node, signed by `ca`. */
export async function ensureNodeCredential(dir: string, ca: CertKeyPem, nodeName: string): Promise<CertFiles> {
  if (!NODE_NAME.test(nodeName) || nodeName.length > 253) throw new Error(`invalid node name for a credential: ${JSON.stringify(nodeName)}`);
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  await chmod(dir, DIR_MODE);
  const pair = await loadPair(dir, nodeName);
  const user = nodeUser(nodeName).name;
  const pem = reusable(pair, ca, (cert) => subjectOf(cert) === `O=${NODES_GROUP}\nCN=${user}`);
  if (pem) {
    await chmod(pair.keyPath, KEY_MODE);
    return { certPath: pair.certPath, keyPath: pair.keyPath, ...pem };
  }
  return writePair(pair, await createClientCert(ca, { commonName: user, organizations: [NODES_GROUP] }), []);
}
