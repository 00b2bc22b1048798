// The cluster's registry: served over the node's containerd store on loopback, made containerd's mirror of the
// public registries, and advertised the way KEP-1755 says (ConfigMap kube-public/local-registry-hosting) so that
// tools such as Tilt or Skaffold find where to push.
import path from 'node:path';
import type { Client } from '../client/types.js';
import type { ContainerdPaths } from '../runtime/containerd-config.js';
import { ContainerdStore } from '../runtime/containerd-store.js';
import { registryConfigDir, unreachableUpstreams, writeRegistryHosts } from '../runtime/registry-hosts.js';
import { ImageRegistry } from '../registry/server.js';

/** how often the upstreams are probed: going offline can cost one pull containerd's 30 s dial timeout, once */
const PROBE_INTERVAL_MS = 30_000;

/** kind's and KEP-1755's customary port; a second cluster on the machine gets a free one */
export const DEFAULT_REGISTRY_PORT = 5000;
export const REGISTRY_HELP = 'https://github.com/kubernetes/enhancements/tree/master/keps/sig-cluster-lifecycle/generic/1755-communicating-a-local-registry';

export interface ClusterRegistryOptions {
  containerd: ContainerdPaths;
  dataDir: string;
  /** default 5000; 0: any free port */
  port?: number;
  client: Client;
  log: (line: string) => void;
  probeIntervalMs?: number;
}

/** The KEP-1755 ConfigMap: host is what a developer pushes to, and what the container runtime pulls from. */
export function localRegistryHostingConfigMap(host: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'local-registry-hosting', namespace: 'kube-public' },
    data: {
      'localRegistryHosting.v1': `host: "${host}"\nhostFromContainerRuntime: "${host}"\nhelp: "${REGISTRY_HELP}"\n`,
    },
  };
}

export async function startClusterRegistry(opts: ClusterRegistryOptions): Promise<{ port: number; stop: () => Promise<void> }> {
  const store = new ContainerdStore({ address: opts.containerd.address, root: opts.containerd.root });
  const mk = (port: number) =>
    new ImageRegistry({ store, port, uploadDir: path.join(opts.dataDir, 'agent', 'registry', 'uploads'), log: opts.log, trace: (process.env.K1S_TRACE ?? '').split(',').includes('registry') });
  const wanted = opts.port ?? DEFAULT_REGISTRY_PORT;
  let registry = mk(wanted);
  let port: number;
  try {
    port = await registry.start();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    // another cluster (or a registry) has it: the ConfigMap and the mirror config say where this one is
    registry = mk(0);
    port = await registry.start();
    opts.log(`k1s: registry: port ${wanted} is in use, serving on ${port} instead (--registry-port)`);
  }
  const dir = registryConfigDir(opts.containerd.dir);
  let unreachable = await unreachableUpstreams();
  await writeRegistryHosts(dir, port, unreachable);
  if (unreachable.size) opts.log(`k1s: registry: no answer from ${[...unreachable].join(', ')}: their pulls go to the local registry only`);
  let probing = false;
  const timer = setInterval(() => {
    if (probing) return;
    probing = true;
    void unreachableUpstreams()
      .then(async (now) => {
        const same = now.size === unreachable.size && [...now].every((h) => unreachable.has(h));
        if (same) return;
        unreachable = now;
        await writeRegistryHosts(dir, port, now);
        opts.log(`k1s: registry: upstreams not answering now: ${now.size ? [...now].join(', ') : 'none'}`);
      })
      .catch((e) => opts.log(`k1s: registry: probing upstreams: ${(e as Error).message}`))
      .finally(() => (probing = false));
  }, opts.probeIntervalMs ?? PROBE_INTERVAL_MS);
  timer.unref();
  const cm = localRegistryHostingConfigMap(registry.self);
  await opts.client.resource('v1', 'configmaps').patch('kube-public', 'local-registry-hosting', 'apply', cm, { fieldManager: 'k1s-registry', force: true });
  opts.log(`k1s: registry serving ${registry.self} (mirror of docker.io, registry.k8s.io, quay.io, ghcr.io)`);
  return {
    port,
    stop: async () => {
      clearInterval(timer);
      await registry.stop();
      store.close();
    },
  };
}
