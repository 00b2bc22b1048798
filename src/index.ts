// The package's entry: `import { startCluster } from 'k1s'` runs a whole cluster (API server, controllers,
// scheduler, optional simulated nodes) inside the calling Node process, for tests. Every call is its own cluster
// with its own store, certificates and port, so several can run side by side in one process.
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { k1sCacheRoot } from './cli/sea-assets.js';
import { Cluster } from './cluster/cluster.js';
import { kubeconfigYaml } from './pki/kubeconfig.js';

export interface StartClusterOptions {
  /** simulated nodes k1s-sim-0… to register (default 0: API, controllers and scheduler only) */
  simulatedNodes?: number;
  /** capacity of each simulated node, as Kubernetes quantities (defaults: cpu 32, memory 256Gi, pods 110) */
  simulatedNodeCapacity?: { cpu?: string; memory?: string; pods?: string };
  /** where state and certificates live; kept on stop (default: a new temp dir, removed on stop) */
  dataDir?: string;
  /** HTTPS port (default 0: a free one) */
  port?: number;
  /** address to listen on (default 127.0.0.1) */
  bindAddress?: string;
  /** run the controllers (default true); without them objects are only stored */
  controllers?: boolean;
  /** run the scheduler (default true) */
  scheduler?: boolean;
  /** the Service cluster-IP range (default 10.43.0.0/16) */
  serviceCIDR?: string;
  /** the pod network nodes get /24s from (default 10.42.0.0/16) */
  clusterCIDR?: string;
  /** fsync every commit (default: true with a given dataDir, false for a throwaway temp dir) */
  durable?: boolean;
  /** receives k1s' log lines (default: discarded) */
  log?: (line: string) => void;
  /**
   * A throwaway cluster (no dataDir) starts with the certificates and service-account key of an earlier one of this
   * user, kept in ~/.cache/k1s (XDG_CACHE_HOME): creating them is most of a first start. Such clusters trust each
   * other's credentials. false: new ones for every cluster. (default true)
   */
  reuseCertificates?: boolean;
}

export interface RunningCluster {
  /** an admin kubeconfig (YAML, credentials embedded, context "k1s") */
  kubeconfig: string;
  /** the same kubeconfig as a file (mode 0600) in the data dir */
  kubeconfigPath: string;
  /** the API server's URL, e.g. https://127.0.0.1:41234 */
  url: string;
  /** the data dir in use */
  dataDir: string;
  /** stops the cluster (and removes its data dir unless one was given); calling it again does nothing */
  stop(): Promise<void>;
}

/** Starts a cluster in this process; resolves once the API is ready and the simulated nodes are registered. */
export async function startCluster(opts: StartClusterOptions = {}): Promise<RunningCluster> {
  const temporary = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'k1s-embedded-'));
  const kubeconfigPath = join(dataDir, 'kubeconfig.yaml');
  const certCache = temporary && opts.reuseCertificates !== false && !opts.bindAddress ? join(k1sCacheRoot(process.env), 'embedded-tls-v1') : undefined;
  const cachedCerts = certCache !== undefined && seedCertificates(certCache, dataDir);
  let cluster: Cluster;
  try {
    cluster = await Cluster.start({
      dataDir,
      port: opts.port ?? 0,
      bindAddress: opts.bindAddress ?? '127.0.0.1',
      writeKubeconfig: kubeconfigPath,
      disableAgent: true,
      durability: (opts.durable ?? !temporary) ? 'full' : 'normal',
      log: opts.log ?? (() => {}),
      serviceCIDR: opts.serviceCIDR,
      clusterCIDR: opts.clusterCIDR,
      disableControllerManager: opts.controllers === false,
      disableScheduler: opts.scheduler === false,
      simulatedNodes: { count: opts.simulatedNodes ?? 0, ...opts.simulatedNodeCapacity },
    });
  } catch (e) {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  // kept when new, or when the cached ones were (partly) re-issued (expiring, another host name)
  if (certCache && (!cachedCerts || cluster.pki.written.length > 0)) keepCertificates(join(dataDir, 'tls'), certCache, { replace: cachedCerts });
  const kubeconfig = kubeconfigYaml({
    server: cluster.url,
    caPem: cluster.pki.ca.certPem,
    clientCertPem: cluster.pki.admin.certPem,
    clientKeyPem: cluster.pki.admin.keyPem,
  });
  let stopping: Promise<void> | undefined;
  return {
    kubeconfig,
    kubeconfigPath,
    url: cluster.url,
    dataDir,
    stop: () =>
      (stopping ??= (async () => {
        try {
          await cluster.stop();
        } finally {
          if (temporary) rmSync(dataDir, { recursive: true, force: true });
        }
      })()),
  };
}

const COMPLETE = '.complete';

/** Copies cached certificates into a new data dir; false when there are none yet. */
function seedCertificates(cache: string, dataDir: string): boolean {
  if (!existsSync(join(cache, COMPLETE))) return false;
  try {
    cpSync(cache, join(dataDir, 'tls'), { recursive: true, filter: (src) => !src.endsWith(COMPLETE) });
    return true;
  } catch {
    return false; // the cluster creates its own
  }
}

/** Keeps a new cluster's certificates for later ones: copied aside, then renamed into place in one step. */
function keepCertificates(tls: string, cache: string, opts: { replace: boolean }): void {
  const tmp = `${cache}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(join(cache, '..'), { recursive: true, mode: 0o700 });
    cpSync(tls, tmp, { recursive: true });
    writeFileSync(join(tmp, COMPLETE), '');
    // (a cluster copying from it meanwhile gets a partial set, which its start completes)
    if (opts.replace) rmSync(cache, { recursive: true, force: true });
    renameSync(tmp, cache); // fails when another process was first: its certificates serve as well
  } catch {
    // only an optimisation
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
