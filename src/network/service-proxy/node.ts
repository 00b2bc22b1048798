// The service proxy as a node runs it: one chain prefix per pod network (clusters side by side on one machine each
// have their own bridge, so their rules stay apart), started before pods so Service IPs work from their first packet.
import type { Client } from '../../client/types.js';
import { chainHash } from './rules.js';
import { removeProxyChains } from './iptables.js';
import { ServiceProxy } from './proxy.js';

/** K1S for the default bridge (cni0); K1S<4 hash characters> for another, so names stay within iptables' 28. */
export function proxyChainPrefix(bridge?: string): string {
  return !bridge || bridge === 'cni0' ? 'K1S' : `K1S${chainHash(bridge).slice(0, 4)}`;
}

export interface NodeServiceProxyOptions {
  client: Client;
  nodeName: string;
  /** the cluster's pod network (default 10.42.0.0/16) */
  clusterCIDR?: string;
  bridge?: string;
  log: (line: string) => void;
}

/** Starts the proxy; on hosts where iptables cannot be programmed it logs why and returns undefined. */
export async function startNodeServiceProxy(opts: NodeServiceProxyOptions): Promise<ServiceProxy | undefined> {
  try {
    const proxy = await ServiceProxy.start({ client: opts.client, nodeName: opts.nodeName, clusterCIDR: opts.clusterCIDR, prefix: proxyChainPrefix(opts.bridge), log: opts.log });
    if (proxy.stats.failures > 0) {
      await proxy.stop();
      throw new Error('the first iptables sync failed');
    }
    return proxy;
  } catch (e) {
    opts.log(`k1s: agent: service proxy not started: ${(e as Error).message}; Service IPs are not routed on this node`);
    return undefined;
  }
}

/**
 * The kube-dns Service IP once the proxy routes it (UDP and TCP 53), for pods' resolv.conf; undefined (logged) when it
 * is not routed in time, so the caller keeps pointing pods at the DNS server's own address.
 */
export async function routedClusterDNS(proxy: ServiceProxy, opts: { client: Client; log: (line: string) => void; timeoutMs?: number }): Promise<string | undefined> {
  try {
    const svc = (await opts.client.resource('v1', 'services').get('kube-system', 'kube-dns')) as { spec?: { clusterIP?: string } };
    const ip = svc.spec?.clusterIP;
    if (!ip || ip === 'None') throw new Error('kube-system/kube-dns has no cluster IP');
    const timeoutMs = opts.timeoutMs ?? 5000;
    await Promise.all([proxy.whenRouted(ip, 53, { protocol: 'UDP', timeoutMs }), proxy.whenRouted(ip, 53, { protocol: 'TCP', timeoutMs })]);
    return ip;
  } catch (e) {
    opts.log(`k1s: agent: pods use the DNS server's own address: ${(e as Error).message}`);
    return undefined;
  }
}

/** What `k1s delete` runs: removes the proxy's chains and the jumps into them for that pod network. */
export function removeNodeServiceProxyRules(opts: { bridge?: string } = {}): Promise<string[]> {
  return removeProxyChains({ prefix: proxyChainPrefix(opts.bridge) });
}
