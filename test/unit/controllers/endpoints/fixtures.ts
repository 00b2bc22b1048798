// Services, nodes and running pods for the Endpoints, EndpointSlice and disruption controller tests.
import type { KObject } from '../../../../src/api/types.js';
import type { LocalClient } from '../../../../src/client/local.js';

export const NS = 'default';

export function service(name: string, spec: Record<string, unknown>, labels?: Record<string, string>): KObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: NS, ...(labels ? { labels } : {}) }, spec } as KObject;
}

export async function createNode(client: LocalClient, name: string, zone?: string): Promise<KObject> {
  const labels: Record<string, string> = { 'kubernetes.io/hostname': name };
  if (zone) labels['topology.kubernetes.io/zone'] = zone;
  return client.resource('v1', 'nodes').create('', { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } } as KObject);
}

export interface PodOptions {
  labels?: Record<string, string>;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  hostname?: string;
  subdomain?: string;
  ownerReferences?: unknown[];
}

export async function createPod(client: LocalClient, name: string, opts: PodOptions = {}): Promise<KObject> {
  const spec: Record<string, unknown> = { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', ...(opts.ports ? { ports: opts.ports } : {}) }] };
  if (opts.hostname) spec.hostname = opts.hostname;
  if (opts.subdomain) spec.subdomain = opts.subdomain;
  const metadata: Record<string, unknown> = { name, namespace: NS, labels: opts.labels ?? { app: 'web' } };
  if (opts.ownerReferences) metadata.ownerReferences = opts.ownerReferences;
  return client.resource('v1', 'pods').create(NS, { apiVersion: 'v1', kind: 'Pod', metadata, spec } as KObject);
}

/** Bound to `nodeName` and running with `ip` (podIP and podIPs), ready or not, in one status write as a kubelet would. */
export async function runPod(client: LocalClient, pod: KObject, opts: { ip: string; ready?: boolean; nodeName?: string }): Promise<KObject> {
  const rc = client.resource('v1', 'pods');
  const name = pod.metadata.name!;
  const nodeName = opts.nodeName ?? 'node-a';
  await rc.create(NS, { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: NS }, target: { kind: 'Node', name: nodeName } } as KObject, { subresource: 'binding' });
  const cur = await rc.get(NS, name);
  const t = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const ready = opts.ready ?? true ? 'True' : 'False';
  const status = {
    ...(cur.status as object),
    phase: 'Running',
    startTime: t,
    podIP: opts.ip,
    podIPs: [{ ip: opts.ip }],
    conditions: [
      { type: 'Initialized', status: 'True', lastTransitionTime: t },
      { type: 'Ready', status: ready, lastTransitionTime: t },
      { type: 'ContainersReady', status: ready, lastTransitionTime: t },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: t },
    ],
  };
  return rc.update(NS, { ...cur, status } as KObject, { subresource: 'status' });
}

/** Creates and runs a pod in one step. */
export async function readyPod(client: LocalClient, name: string, ip: string, opts: PodOptions & { ready?: boolean; nodeName?: string } = {}): Promise<KObject> {
  const pod = await createPod(client, name, opts);
  return runPod(client, pod, { ip, ready: opts.ready, nodeName: opts.nodeName });
}

/** Sets the Ready condition of a running pod. */
export async function setReady(client: LocalClient, name: string, ready: boolean): Promise<KObject> {
  const rc = client.resource('v1', 'pods');
  const cur = await rc.get(NS, name);
  const st = cur.status as { conditions: { type: string; status: string; lastTransitionTime?: string }[] };
  const t = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  st.conditions = st.conditions.map((c) => (c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: ready ? 'True' : 'False', lastTransitionTime: t } : c));
  return rc.update(NS, cur, { subresource: 'status' });
}

/** A pod that stays terminating: a finalizer holds it after its delete. */
export async function terminatingPod(client: LocalClient, name: string, ip: string, opts: PodOptions = {}): Promise<KObject> {
  const pod = await readyPod(client, name, ip, opts);
  await client.resource('v1', 'pods').patch(NS, name, 'merge', { metadata: { finalizers: ['example.com/hold'] } });
  // no grace period: once the finalizer goes, so does the pod
  await client.resource('v1', 'pods').delete(NS, name, { gracePeriodSeconds: 0 });
  return pod;
}

export async function releasePod(client: LocalClient, name: string): Promise<void> {
  await client.resource('v1', 'pods').patch(NS, name, 'merge', { metadata: { finalizers: null } });
}
