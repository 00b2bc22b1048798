// kubeadm's token discovery (cmd/kubeadm/app/discovery/token): a joining node fetches kube-public/cluster-info over
// a connection it does not verify yet, checks the kubeconfig in it against the jws-kubeconfig-<token-id> signature
// only someone holding the token secret can make, optionally pins the CA by its public key hash, and then fetches it
// again, verifying TLS with that CA, to see the same content. From then on it trusts that CA only.
import { X509Certificate } from 'node:crypto';
import { HttpClient } from '../../client/http.js';
import { StatusError } from '../../machinery/errors.js';
import { YAML } from '../../machinery/yaml.js';
import { caCertHash, detachedJwsValid } from '../../pki/bootstrap-jws.js';
import { CLUSTER_INFO_KEY, CLUSTER_INFO_NAME, CLUSTER_INFO_NAMESPACE, JWS_KEY_PREFIX } from '../../controllers/bootstrap-signer.js';

/** a refusal to join, with the sentence to print */
export class JoinError extends Error {}

type ConfigMap = { data?: Record<string, string> };

async function fetchClusterInfo(server: string, caPem?: string): Promise<ConfigMap> {
  const client = new HttpClient({ server, caPem, insecure: !caPem }, 'k1s-agent');
  try {
    return (await client.resource('v1', 'configmaps').get(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME)) as ConfigMap;
  } catch (e) {
    if (e instanceof StatusError) {
      throw new JoinError(`${server} answered ${e.code} for ${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}: ${e.message} (is it a k1s server with anonymous requests allowed?)`);
    }
    throw new JoinError(`cannot reach ${server}: ${(e as Error).message}`);
  } finally {
    client.close();
  }
}

/** The cluster CA (PEM) the server's signed cluster-info names, or a JoinError saying why it is not trusted. */
export async function discoverClusterCA(opts: { server: string; tokenId: string; tokenSecret: string; caCertHash?: string }): Promise<string> {
  const insecure = await fetchClusterInfo(opts.server);
  const kubeconfig = insecure.data?.[CLUSTER_INFO_KEY];
  if (!kubeconfig) throw new JoinError(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME} on ${opts.server} has no kubeconfig`);
  const jws = insecure.data?.[`${JWS_KEY_PREFIX}${opts.tokenId}`];
  if (!jws) {
    throw new JoinError(`the server has no signature for token "${opts.tokenId}": the token is unknown, expired or deleted (on the server: k1s token list; a new one: k1s token create)`);
  }
  if (!detachedJwsValid(jws, kubeconfig, opts.tokenId, opts.tokenSecret)) {
    throw new JoinError(`the cluster-info signature does not match token "${opts.tokenId}": the token's secret is wrong (or something between this machine and ${opts.server} changed the answer)`);
  }
  const caPem = caOf(kubeconfig);
  if (opts.caCertHash) {
    const got = caCertHash(caPem);
    if (got !== opts.caCertHash.toLowerCase()) throw new JoinError(`the server's CA has public key hash ${got}, not ${opts.caCertHash}: refusing to trust it`);
  }
  // verified now: the same content over a connection checked against that CA
  const secure = await fetchClusterInfo(opts.server, caPem);
  if (secure.data?.[CLUSTER_INFO_KEY] !== kubeconfig) throw new JoinError(`${opts.server} served another cluster-info once TLS was verified: refusing to join`);
  return caPem;
}

function caOf(kubeconfig: string): string {
  let pem: string | undefined;
  try {
    const doc = YAML.parse(kubeconfig) as { clusters?: { cluster?: { 'certificate-authority-data'?: string } }[] };
    const data = doc.clusters?.[0]?.cluster?.['certificate-authority-data'];
    pem = data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
    if (pem) new X509Certificate(pem);
  } catch {
    pem = undefined;
  }
  if (!pem) throw new JoinError('the signed cluster-info holds no CA certificate');
  return pem;
}
