// Shared set-up for the kubelet tests: a real in-process k1s with the node IPAM controller and simulated nodes.
import { controllerCluster, type ControllerCluster } from '../controllers/harness.js';
import { nodeIpamController } from '../../../src/controllers/node-ipam.js';
import { SimulatedNodes, type SimulatedNodesOptions } from '../../../src/kubelet/simulated/nodes.js';
import type { Pod } from '../../../src/api/core/pod/types.js';
import type { KObject } from '../../../src/api/types.js';

export interface SimCluster extends ControllerCluster {
  nodes: SimulatedNodes;
  logs: string[];
}

export async function simCluster(opts: { count?: number } & Partial<Omit<SimulatedNodesOptions, 'client'>> = {}): Promise<SimCluster> {
  const c = await controllerCluster([nodeIpamController()]);
  // the service account controller is not part of this cluster; pods need their namespace's default account
  await c.client
    .resource('v1', 'serviceaccounts')
    .create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as KObject)
    .catch(() => undefined);
  const nodes = new SimulatedNodes({ client: c.client, log: (l) => c.logs.push(l), ...opts });
  await nodes.start({ count: opts.count ?? 1 });
  const close = c.close.bind(c);
  return Object.assign(c, {
    nodes,
    async close() {
      await nodes.stop();
      await close();
    },
  });
}

export function pod(name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...meta },
    spec: { nodeName: 'k1s-sim-0', containers: [{ name: 'app', image: 'nginx' }], ...spec },
  } as Pod;
}

export async function getPod(c: ControllerCluster, name: string): Promise<Pod> {
  return (await c.client.resource('v1', 'pods').get('default', name)) as Pod;
}

export async function createPod(c: ControllerCluster, p: Pod): Promise<Pod> {
  return (await c.client.resource('v1', 'pods').create('default', p as KObject)) as Pod;
}

export const condition = (p: Pod, type: string) => p.status?.conditions?.find((x) => x.type === type);
