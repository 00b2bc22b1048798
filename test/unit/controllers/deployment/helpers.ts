// Shared helpers of the deployment controller tests.
import type { KObject } from '../../../../src/api/types.js';
import { isPodReady } from '../../../../src/controllers/framework/pod-util.js';
import type { ControllerFactory } from '../../../../src/client/controller.js';
import { controllerCluster, markPodRunning, type ControllerCluster } from '../harness.js';

export const NS = 'default';

export interface TestRS extends KObject {
  spec: { replicas: number; template: { metadata: { labels: Record<string, string> }; spec: { containers: { image: string }[] } }; selector: { matchLabels: Record<string, string> } };
  status?: { replicas?: number; availableReplicas?: number };
}

export interface TestDeployment extends KObject {
  spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
  status?: {
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    observedGeneration?: number;
    collisionCount?: number;
    conditions?: { type: string; status: string; reason: string; message: string; lastUpdateTime: string; lastTransitionTime: string }[];
  };
}

export function deploymentBody(name: string, replicas: number, image: string, spec: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
      ...spec,
    },
  } as KObject;
}

export async function getDeployment(c: ControllerCluster, name: string): Promise<TestDeployment> {
  return (await c.client.resource('apps/v1', 'deployments').get(NS, name)) as TestDeployment;
}

export async function replicaSetsOf(c: ControllerCluster, d: KObject): Promise<TestRS[]> {
  const list = await c.client.resource('apps/v1', 'replicasets').list(NS);
  return list.items.filter((rs) => rs.metadata.ownerReferences?.some((r) => r.uid === d.metadata.uid)) as TestRS[];
}

/** Non-terminating pods of the deployment `app`. */
export async function livePods(c: ControllerCluster, app: string): Promise<KObject[]> {
  const list = await c.client.resource('v1', 'pods').list(NS, { labelSelector: `app=${app}` });
  return list.items.filter((p) => !p.metadata.deletionTimestamp);
}

/** Marks every not-yet-ready live pod of `app` running and ready; returns how many. */
export async function readyAll(c: ControllerCluster, app: string, limit = Infinity): Promise<number> {
  let n = 0;
  for (const p of await livePods(c, app)) {
    if (n >= limit) break;
    if (isPodReady(p)) continue;
    await markPodRunning(c.client, p, { nodeName: 'n1' });
    n++;
  }
  return n;
}

export function condition(d: TestDeployment, type: string) {
  return d.status?.conditions?.find((x) => x.type === type);
}

export async function eventMessages(c: ControllerCluster, name: string, reason: string): Promise<string[]> {
  const list = await c.client.resource('v1', 'events').list(NS);
  return list.items
    .map((e) => e as unknown as { involvedObject: { name: string; kind: string }; reason: string; message: string; lastTimestamp: string })
    .filter((e) => e.involvedObject.kind === 'Deployment' && e.involvedObject.name === name && e.reason === reason)
    .sort((a, b) => a.lastTimestamp.localeCompare(b.lastTimestamp))
    .map((e) => e.message);
}

/** Marks pods ready one by one until the rollout of `name` completes, calling `check` before each step. */
export async function driveRollout(c: ControllerCluster, name: string, check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    await new Promise((r) => setTimeout(r, 60));
    await check();
    const d = await getDeployment(c, name);
    const st = d.status ?? {};
    if (st.observedGeneration === d.metadata.generation && st.updatedReplicas === d.spec.replicas && st.replicas === d.spec.replicas && st.availableReplicas === d.spec.replicas) return;
    if (Date.now() > end) throw new Error(`rollout of ${name} did not finish: ${JSON.stringify(st)}`);
    await readyAll(c, name, 1);
  }
}

/** The workload controllers' cluster, with the default ServiceAccount pods need (no token controller runs here). */
export async function workloadCluster(factories: ControllerFactory[], opts: Parameters<typeof controllerCluster>[1] = {}): Promise<ControllerCluster> {
  const c = await controllerCluster(factories, opts);
  await c.client
    .resource('v1', 'serviceaccounts')
    .create(NS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } } as KObject)
    .catch(() => undefined);
  return c;
}
