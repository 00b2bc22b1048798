// `k1s delete [NAME]`: stops the cluster and removes everything it left: the node's network leftovers, mounts
// under its data dir, the data dir, and its kubeconfig entries.
import { readFileSync, rmSync } from 'node:fs';
import { execa } from 'execa';
import { clusterInfo, contextName, type ClusterPaths } from './clusters.js';
import { removeKubeconfigEntries, userKubeconfigPath } from './kubeconfig-merge.js';
import { parseDuration, stopCluster } from './stop.js';
import { parseClusterArgs } from './command-args.js';
import { readDatastoreMarker } from '../cluster/datastore.js';

/** Mount points at or under dir, deepest first (octal escapes of /proc/mounts decoded). */
export function mountsUnder(dir: string, mountsText?: string): string[] {
  let text = mountsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/mounts', 'utf8');
    } catch {
      return [];
    }
  }
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const raw = line.split(' ')[1];
    if (!raw) continue;
    const mp = raw.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (mp === dir || mp.startsWith(dir + '/')) out.push(mp);
  }
  return out.sort((a, b) => b.length - a.length);
}

/** Removes a stopped cluster's host state and data dir; returns what it did, for the user. */
export async function deleteClusterData(paths: ClusterPaths, serverArgs: string[]): Promise<string[]> {
  const done: string[] = [];
  if (!serverArgs.includes('--disable-agent') && process.getuid?.() === 0) {
    // a real node ran: its pods (they outlive the server), then its CNI leftovers (netns, iptables chains, IPAM
    // state, the bridge when unused)
    const { removeAllPods } = await import('../kubelet/node/teardown.js');
    const { ipamDir, podNetwork, DEFAULT_PAUSE_IMAGE } = await import('../kubelet/node/agent.js');
    const pods = await removeAllPods(paths.dir, { sandboxImage: DEFAULT_PAUSE_IMAGE }).catch((e) => {
      done.push(`could not remove the node's pods: ${(e as Error).message}`);
      return 0;
    });
    if (pods) done.push(`${pods} pod sandbox${pods === 1 ? '' : 'es'} stopped and removed`);
    const { cleanupNodeNetwork } = await import('../network/host-cleanup.js');
    const bridgeArg = serverArgs.indexOf('--cni-bridge');
    const net = podNetwork(bridgeArg >= 0 ? serverArgs[bridgeArg + 1] : undefined);
    const removed = await cleanupNodeNetwork({ ipamDataDir: ipamDir(paths.dir), ...net }).catch(() => [] as string[]);
    // the service proxy's chains (a server killed hard never removed them)
    const { removeNodeServiceProxyRules } = await import('../network/service-proxy/node.js');
    await removeNodeServiceProxyRules({ bridge: net.bridge === 'cni0' ? undefined : net.bridge }).catch(() => undefined);
    const { removeNetworkPolicyChains } = await import('../network/network-policy/enforcer.js');
    await removeNetworkPolicyChains({ bridge: net.bridge }).catch(() => undefined);
    if (removed.length) done.push(`${removed.length} network leftovers removed`);
  }
  // never let rm descend into a mount (a container's rootfs, a hostPath bind): unmount first
  for (const mp of mountsUnder(paths.dir)) {
    await execa('umount', ['-l', mp], { reject: false });
  }
  const left = mountsUnder(paths.dir);
  if (left.length) throw new Error(`cannot unmount ${left.join(', ')}: unmount them, then run k1s delete again`);
  rmSync(paths.dir, { recursive: true, force: true });
  done.push(`${paths.dir} removed`);
  return done;
}

const help = `Usage: k1s delete [NAME] [flags]

Deletes the cluster NAME (default "k1s"): stops it, removes its containers, network state, data dir (objects,
certificates, logs) and its kubeconfig entries. This cannot be undone; "k1s snapshot save" first to keep a copy.

Examples:
  k1s delete
  k1s delete dev

Flags:
  --name NAME      the cluster (same as the NAME argument)
  --timeout D      how long to wait for a graceful stop before killing the server (default 60s)
  -h, --help       show this help`;

export async function deleteCommand(args: string[]): Promise<number> {
  const parsed = parseClusterArgs('delete', args, { timeout: { type: 'string' } }, help);
  if ('exit' in parsed) return parsed.exit;
  const { values } = parsed;
  const r = { name: parsed.name };
  const timeoutMs = parseDuration((values.timeout as string | undefined) ?? '60s');
  if (timeoutMs === undefined) {
    console.error(`k1s delete: --timeout must be a duration such as 30s, got "${values.timeout}"`);
    return 2;
  }
  const info = clusterInfo(r.name);
  const kubeconfig = userKubeconfigPath();
  let removedEntries = false;
  try {
    removedEntries = removeKubeconfigEntries(kubeconfig, contextName(r.name));
  } catch (e) {
    console.error(`k1s delete: could not edit ${kubeconfig}: ${(e as Error).message}`);
  }
  if (!info.state) {
    if (removedEntries) console.log(`kubeconfig entries "${contextName(r.name)}" removed from ${kubeconfig}`);
    else console.log(`no cluster named "${r.name}"; nothing to delete`);
    return 0;
  }
  // the data dir goes, but not what the cluster keeps in an etcd it does not own (k3s leaves an external datastore too)
  const etcd = readDatastoreMarker(info.paths.dir);
  try {
    const stopped = await stopCluster(info.paths, { timeoutMs });
    if (stopped.wasRunning) console.log(`cluster "${r.name}" stopped${stopped.killed ? ' (killed after the timeout)' : ''}`);
    for (const line of await deleteClusterData(info.paths, info.state.serverArgs)) console.log(line);
  } catch (e) {
    console.error(`k1s delete: ${(e as Error).message}`);
    return 1;
  }
  if (removedEntries) console.log(`kubeconfig entries "${contextName(r.name)}" removed from ${kubeconfig}`);
  console.log(`cluster "${r.name}" deleted`);
  if (etcd) {
    const prefix = etcd.prefix ?? '/registry';
    console.log(`its objects stay in etcd under ${prefix}/; to remove them: ETCDCTL_API=3 etcdctl --endpoints=${etcd.endpoints.join(',')} del --prefix ${prefix}/`);
  }
  return 0;
}
