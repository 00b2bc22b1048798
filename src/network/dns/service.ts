// The node's cluster DNS: the in-process server on the node address, published as kube-system/kube-dns (a Service
// without selector, like kubeadm's, plus an EndpointSlice k1s manages) so clients find it as they would CoreDNS.
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import { StatusError } from '../../machinery/errors.js';
import { startClusterDNS, type ClusterDNS } from './server.js';

export interface NodeDNSOptions {
  client: Client;
  nodeName: string;
  /** where the server listens (the node's InternalIP: EndpointSlices refuse loopback) */
  address: string;
  port?: number;
  clusterDomain?: string;
  /** the kube-dns Service's cluster IP (default 10.43.0.10, the 10th address of the default service range) */
  serviceIP?: string;
  /** publish kube-system/kube-dns (default true); a joined node serves its own pods only and may not create it */
  publish?: boolean;
  log?: (line: string) => void;
}

/** Starts the server and publishes it; resolves once it answers. */
export async function startNodeDNS(opts: NodeDNSOptions): Promise<ClusterDNS> {
  const port = opts.port ?? 53;
  const dns = startClusterDNS({ client: opts.client, listen: [{ address: opts.address, port }], clusterDomain: opts.clusterDomain, log: opts.log });
  try {
    await dns.ready;
  } catch (e) {
    await dns.stop().catch(() => undefined);
    throw e;
  }
  if (opts.publish !== false) await publishKubeDns(opts, dns.addresses()[0]?.port ?? port).catch((e) => opts.log?.(`k1s: cluster DNS: publishing kube-system/kube-dns: ${(e as Error).message}`));
  return dns;
}

const LABELS = { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' };
const PORTS = [
  { name: 'dns', protocol: 'UDP' },
  { name: 'dns-tcp', protocol: 'TCP' },
];

/** kube-dns' cluster IP in the default service range (10.43.0.0/16): its 10th address, kubeadm's convention */
export const DEFAULT_CLUSTER_DNS_IP = '10.43.0.10';

async function publishKubeDns(opts: NodeDNSOptions, port: number): Promise<void> {
  const ip = opts.serviceIP ?? DEFAULT_CLUSTER_DNS_IP;
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kube-dns', namespace: 'kube-system', labels: LABELS },
    spec: { clusterIP: ip, clusterIPs: [ip], ports: PORTS.map((p) => ({ ...p, port: 53, targetPort: port })) },
  } as KObject;
  await createIfMissing(opts.client, 'v1', 'services', service);
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `kube-dns-${opts.nodeName}`, namespace: 'kube-system', labels: { 'kubernetes.io/service-name': 'kube-dns', 'endpointslice.kubernetes.io/managed-by': 'k1s' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [opts.address], conditions: { ready: true, serving: true, terminating: false }, nodeName: opts.nodeName }],
    ports: PORTS.map((p) => ({ ...p, port })),
  } as unknown as KObject;
  const rc = opts.client.resource('discovery.k8s.io/v1', 'endpointslices');
  try {
    const cur = await rc.get('kube-system', slice.metadata.name!);
    await rc.update('kube-system', { ...slice, metadata: { ...slice.metadata, resourceVersion: cur.metadata.resourceVersion } });
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 404)) throw e;
    await rc.create('kube-system', slice);
  }
}

async function createIfMissing(client: Client, apiVersion: string, plural: string, obj: KObject): Promise<void> {
  try {
    await client.resource(apiVersion, plural).create(obj.metadata.namespace ?? '', obj);
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  }
}
