// The node's pod network on the host: where host-local keeps its state, the bridge and CNI network name, and the
// bridge itself with the gateway address (made before the first pod so services can bind on it).
import path from 'node:path';
import { execa } from 'execa';

/** host-local's state directory, under the data dir (instead of /var/lib/cni/networks) */
export function ipamDir(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'agent', 'cni', 'networks');
}

/** the bridge and CNI network name of a node's pod network: cni0 / k1s-pod-network unless a bridge is named */
export function podNetwork(bridge: string | undefined): { bridge: string; networkName: string } {
  if (!bridge || bridge === 'cni0') return { bridge: 'cni0', networkName: 'k1s-pod-network' };
  return { bridge, networkName: `k1s-pod-network-${bridge}` };
}

/** the bridge with the gateway address, up; what exists already is kept */
export async function ensureBridge(name: string, address: string): Promise<void> {
  await execa('ip', ['link', 'add', 'name', name, 'type', 'bridge'], { reject: false });
  const addr = await execa('ip', ['addr', 'add', address, 'dev', name], { reject: false });
  if (addr.exitCode !== 0 && !/exists|already assigned/i.test(addr.stderr)) throw new Error(`ip addr add ${address} dev ${name}: ${addr.stderr}`);
  const up = await execa('ip', ['link', 'set', name, 'up'], { reject: false });
  if (up.exitCode !== 0) throw new Error(`ip link set ${name} up: ${up.stderr}`);
}
