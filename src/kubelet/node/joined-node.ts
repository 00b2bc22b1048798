// A node on another machine (`k1s agent`): joins the cluster by token discovery and TLS bootstrapping (unless an
// earlier run's credential is still good), then runs the NodeAgent over HTTPS with the node's own client
// certificate, its add-ons (Service proxy, NetworkPolicy, DNS) with a certificate of their own, asked for as the
// node. Its serving certificate comes from a kubelet-serving CSR filed once the Node is registered with its
// addresses; until it is issued the kubelet API serves a stand-in the API server does not trust (as a kubelet with
// serverTLSBootstrap waits for its certificate).
import { HttpClient } from '../../client/http.js';
import { createCa } from '../../pki/certs.js';
import { componentUserAgent } from '../../machinery/version.js';
import { issueKubeletServingCert } from '../server.js';
import { NodeAgent, type NodeAgentOptions } from './agent.js';
import { discoverClusterCA } from './discovery.js';
import { ADDONS_KUBECONFIG, addonsCertificate, addonsSubject, clientCertificate, dueForRenewal, KUBELET_KUBECONFIG, loadCredential, loadServingCert, nodeSubject, saveCredential, saveServingCert, servingCertificate } from './tls-bootstrap.js';

export interface JoinedNodeOptions extends Omit<NodeAgentOptions, 'client' | 'addonClient' | 'ca' | 'servingCert' | 'nodeName'> {
  server: string;
  /** `<id>.<secret>`; may be undefined when an earlier join's credential is still good */
  token?: string;
  caCertHash?: string;
  nodeName: string;
  nodeIP: string;
  log: (line: string) => void;
}

export interface JoinedNode {
  agent: NodeAgent;
  /** resolves once the Node reports Ready (true), or false after `timeoutMs` */
  ready(timeoutMs?: number): Promise<boolean>;
  stop(): Promise<void>;
}

type NodeStatus = { status?: { conditions?: { type?: string; status?: string }[] } };

export async function startJoinedNode(opts: JoinedNodeOptions): Promise<JoinedNode> {
  const { log } = opts;
  let cred = await loadCredential(opts.dataDir, KUBELET_KUBECONFIG, nodeSubject(opts.nodeName));
  if (cred && dueForRenewal(cred.certPem)) {
    // renewed with the credential itself: system:nodes may have their own client CSRs approved (selfnodeclient)
    const own = new HttpClient({ server: opts.server, caPem: cred.caPem, certPem: cred.certPem, keyPem: cred.keyPem }, componentUserAgent('kubelet'));
    try {
      cred = { ...(await clientCertificate(own, opts.nodeName)), caPem: cred.caPem, server: opts.server };
    } finally {
      own.close();
    }
    log(`k1s agent: client certificate renewed; wrote ${await saveCredential(opts.dataDir, KUBELET_KUBECONFIG, cred)}`);
  } else if (cred) {
    log(`k1s agent: using the node credential in ${opts.dataDir}/kubelet.kubeconfig (no bootstrap)`);
  } else {
    if (!opts.token) throw new Error(`no node credential in ${opts.dataDir} yet: give --token to join`);
    const [tokenId, tokenSecret] = opts.token.split('.') as [string, string];
    log(`k1s agent: joining ${opts.server} as node ${opts.nodeName} with token ${tokenId}`);
    const caPem = await discoverClusterCA({ server: opts.server, tokenId, tokenSecret, caCertHash: opts.caCertHash });
    log('k1s agent: cluster CA verified with the token (cluster-info signature)');
    const bootstrap = new HttpClient({ server: opts.server, caPem, token: opts.token }, componentUserAgent('kubelet'));
    try {
      const pair = await clientCertificate(bootstrap, opts.nodeName, () => log('k1s agent: client certificate request approved'));
      cred = { ...pair, caPem, server: opts.server };
    } finally {
      bootstrap.close();
    }
    const file = await saveCredential(opts.dataDir, KUBELET_KUBECONFIG, cred);
    log(`k1s agent: certificate issued for system:node:${opts.nodeName}; wrote ${file}`);
  }
  const client = new HttpClient({ server: opts.server, caPem: cred.caPem, certPem: cred.certPem, keyPem: cred.keyPem }, componentUserAgent('kubelet'));
  let addons: HttpClient;
  try {
    addons = await addonsClient(opts, client, cred);
  } catch (e) {
    client.close();
    throw e;
  }
  const ips = [opts.nodeIP];
  const serving = await loadServingCert(opts.dataDir, cred.caPem, opts.nodeName, ips);
  // a stand-in from a throwaway CA: the kubelet API listens (its port is in the Node) but is not trusted yet
  const standIn = serving ?? (await issueKubeletServingCert(await createCa({ commonName: 'k1s-agent-stand-in' }), { name: opts.nodeName, ips }));
  let agent: NodeAgent;
  try {
    agent = await NodeAgent.start({ ...opts, client, addonClient: addons, controlPlane: false, servingCert: { ...standIn, caPem: cred.caPem } });
  } catch (e) {
    client.close();
    addons.close();
    throw e;
  }
  const { CriStatsProvider } = await import('../stats/provider.js');
  agent.server?.setStats(new CriStatsProvider({ cri: agent.runtime.cri, nodeName: agent.nodeName }));
  if (!serving) {
    try {
      const pair = await servingCertificate(client, opts.nodeName, ips);
      await saveServingCert(opts.dataDir, pair);
      agent.server?.setTls(pair);
      log(`k1s agent: kubelet serving certificate issued for ${opts.nodeName} (${ips.join(', ')})`);
    } catch (e) {
      log(`k1s agent: no kubelet serving certificate: ${(e as Error).message}; logs, exec and port-forward from the server fail until one is approved`);
    }
  }
  return {
    agent,
    ready: async (timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const node = (await client.resource('v1', 'nodes').get('', opts.nodeName).catch(() => undefined)) as NodeStatus | undefined;
        if (node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return true;
        await new Promise((r) => setTimeout(r, 250));
      }
      return false;
    },
    stop: async () => {
      await agent.stop();
      client.close();
      addons.close();
    },
  };
}

/** the add-ons' client: from addons.kubeconfig, else a certificate asked for with the node's credential */
async function addonsClient(opts: JoinedNodeOptions, node: HttpClient, cred: { caPem: string }): Promise<HttpClient> {
  let addons = await loadCredential(opts.dataDir, ADDONS_KUBECONFIG, addonsSubject(opts.nodeName));
  if (!addons || dueForRenewal(addons.certPem) || addons.caPem !== cred.caPem) {
    addons = { ...(await addonsCertificate(node, opts.nodeName)), caPem: cred.caPem, server: opts.server };
    await saveCredential(opts.dataDir, ADDONS_KUBECONFIG, addons);
    opts.log(`k1s agent: add-ons certificate issued for ${addonsSubject(opts.nodeName).commonName}`);
  }
  return new HttpClient({ server: opts.server, caPem: addons.caPem, certPem: addons.certPem, keyPem: addons.keyPem }, componentUserAgent('kube-proxy'));
}
