// The control loops of a cluster, started once its API is ready (they are its clients, as in Kubernetes): the
// controller manager and the scheduler, each under its Lease (with several servers on one etcd, one server runs
// them and another takes over when its Lease runs out), and the simulated nodes.
import { join } from 'node:path';
import type { LocalClient } from '../client/local.js';
import type { Registry } from '../apiserver/registry/registry.js';
import { ControllerManager } from '../controllers/framework/manager.js';
import { defaultControllers } from '../controllers/index.js';
import { DEFAULT_SIM_CAPACITY } from '../kubelet/simulated/nodes.js';
import { componentUserAgent } from '../machinery/version.js';
import type { Metrics } from '../metrics/metrics.js';
import type { CertFiles } from '../pki/pki.js';
import { schedulerFactory } from '../scheduler/scheduler.js';
import { SimulatedNodesRunner } from './simulated-leader.js';

export interface ControlPlaneOptions {
  client: LocalClient;
  registry: Registry;
  ca: CertFiles;
  dataDir: string;
  log: (line: string) => void;
  metrics?: Metrics;
  clusterCIDR?: string;
  disableControllerManager?: boolean;
  disableScheduler?: boolean;
  simulatedNodes?: { count: number; cpu?: string; memory?: string; pods?: string };
  /** the store may be shared with other servers (etcd): the simulated nodes run under a Lease too */
  sharedStore: boolean;
}

/** Starts them; returns their stoppers (the last started first) and whether the simulated nodes run here. */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<{ stoppers: (() => Promise<void>)[]; simulatedHere: boolean }> {
  const stoppers: (() => Promise<void>)[] = [];
  const { client, log } = opts;
  if (!opts.disableControllerManager) {
    const controllers = new ControllerManager({
      client: client.withUserAgent(componentUserAgent('kube-controller-manager')),
      log,
      metrics: opts.metrics,
      controllers: defaultControllers({
        definitions: opts.registry.definitions,
        caPem: opts.ca.certPem,
        clusterSigning: { certPem: opts.ca.certPem, keyPem: opts.ca.keyPem },
        clusterCIDR: opts.clusterCIDR,
        localPathStorageRoot: join(opts.dataDir, 'storage'),
      }),
    });
    await controllers.start();
    stoppers.unshift(() => controllers.stop());
  }
  if (!opts.disableScheduler) {
    const scheduler = new ControllerManager({
      client: client.withUserAgent(componentUserAgent('kube-scheduler')),
      log,
      metrics: opts.metrics,
      leaseName: 'kube-scheduler',
      controllers: [schedulerFactory()],
    });
    await scheduler.start();
    stoppers.unshift(() => scheduler.stop());
  }
  const sim = opts.simulatedNodes;
  // simulated nodes act with the system user; the real node with its own identity, when the Node authorizer knows it
  const simulated = new SimulatedNodesRunner({
    client: client.withUserAgent(componentUserAgent('kubelet')),
    log,
    count: sim?.count ?? 0,
    leaderElection: opts.sharedStore,
    capacity: { cpu: sim?.cpu ?? DEFAULT_SIM_CAPACITY.cpu, memory: sim?.memory ?? DEFAULT_SIM_CAPACITY.memory, pods: sim?.pods ?? DEFAULT_SIM_CAPACITY.pods },
  });
  await simulated.start();
  stoppers.unshift(() => simulated.stop());
  return { stoppers, simulatedHere: simulated.running };
}
