// Several servers on one etcd know each other through the API: each keeps its identity Lease (with the address it
// is reached at) and lists every live server in the `kubernetes` Endpoints. A server that stops deletes its Lease
// and takes itself out of the Endpoints; one that is killed drops out once its Lease runs out.
import { networkInterfaces } from 'node:os';
import type { Client } from '../client/types.js';
import { ApiServerIdentity, formatAddress, liveApiServers, type ApiServerAddress } from '../controllers/apiserver-identity.js';
import { KubernetesEndpoints } from '../controllers/kubernetes-endpoints.js';

const UNSPECIFIC = new Set(['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost']);

/** kube-apiserver's --advertise-address default: the bind address when it is a real one, else the host's first
 *  non-internal IPv4 address (127.0.0.1 when it has none). */
export function defaultAdvertiseAddress(bindAddress: string): string {
  if (!UNSPECIFIC.has(bindAddress)) return bindAddress;
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

export interface PublishOptions {
  client: Client;
  address: ApiServerAddress;
  hostname: string;
  log: (line: string) => void;
}

/** Starts the identity Lease and the Endpoints of every live server; stop() undoes both. */
export async function publishApiServer(opts: PublishOptions): Promise<{ name: string; stop(): Promise<void> }> {
  const identity = new ApiServerIdentity({ client: opts.client, hostname: opts.hostname, address: opts.address, log: opts.log });
  await identity.start();
  const endpoints = new KubernetesEndpoints({ client: opts.client, address: opts.address, log: opts.log, peers: () => liveApiServers(opts.client) });
  try {
    await endpoints.start();
  } catch (e) {
    await identity.stop();
    throw e;
  }
  opts.log(`k1s: API server ${identity.name} published at ${formatAddress(opts.address)} (Lease kube-system/${identity.name}, Endpoints default/kubernetes)`);
  return {
    name: identity.name,
    stop: async () => {
      await endpoints.stop();
      await identity.stop();
      await endpoints.removeSelf().catch((e) => opts.log(`k1s: kubernetes endpoints: ${(e as Error).message}`));
    },
  };
}
