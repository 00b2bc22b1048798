// Shared set-up of the pod subresource tests: an in-memory registry serving pods and PodDisruptionBudgets with the
// pod actions registered, a raw POST through the real handlers, and pod/PDB fixtures.
import { namespaceResource } from '../../../../../src/api/core/namespace.js';
import { podResource, type Pod } from '../../../../../src/api/core/pod/resource.js';
import { coreDefinitions } from '../../../../../src/api/core/index.js';
import { metaDefinitions } from '../../../../../src/api/meta.js';
import { policyDefinitions, pdbResource } from '../../../../../src/api/policy/index.js';
import type { KObject } from '../../../../../src/api/types.js';
import { handleResource } from '../../../../../src/apiserver/handlers/rest.js';
import { registerPodActions } from '../../../../../src/apiserver/pods/actions.js';
import { Registry } from '../../../../../src/apiserver/registry/registry.js';
import { parseRequestInfo } from '../../../../../src/apiserver/handlers/request-info.js';
import { LocalClient, systemUser } from '../../../../../src/client/local.js';
import { StatusError } from '../../../../../src/machinery/errors.js';
import { SqliteStore } from '../../../../../src/storage/sqlite/store.js';

export type Obj = Record<string, unknown>;

export interface Cluster {
  registry: Registry;
  client: LocalClient;
  pods: ReturnType<LocalClient['resource']>;
  pdbs: ReturnType<LocalClient['resource']>;
  /** POST `body` to an API path; resolves to the status code and body (errors reject with a StatusError). */
  post(path: string, body: unknown, query?: Record<string, string>): Promise<{ code: number; body: Obj }>;
  /** POST a Kubernetes protobuf body (as kubectl's typed clients may send). */
  postProtobuf(path: string, body: Buffer): Promise<{ code: number; body: Obj }>;
  close(): void;
}

export async function cluster(): Promise<Cluster> {
  const store = SqliteStore.open({ path: ':memory:' });
  const registry = new Registry(store, [namespaceResource, podResource, pdbResource], [metaDefinitions, coreDefinitions, policyDefinitions]);
  registerPodActions(registry);
  const client = new LocalClient(registry);
  await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const send = async (path: string, contentType: string, body: string, rawBody?: Buffer, query: Record<string, string> = {}) => {
    const q = new URLSearchParams(query);
    const res = await handleResource(registry, {
      info: parseRequestInfo('POST', path, q),
      query: q,
      headers: { 'content-type': contentType, 'user-agent': 'test' },
      body,
      rawBody,
      user: systemUser,
    });
    return { code: res.code, body: res.body as Obj };
  };
  const post = (path: string, body: unknown, query: Record<string, string> = {}) => send(path, 'application/json', JSON.stringify(body), undefined, query);
  const postProtobuf = (path: string, body: Buffer) => send(path, 'application/vnd.kubernetes.protobuf', '', body);
  return {
    registry,
    client,
    pods: client.resource('v1', 'pods'),
    pdbs: client.resource('policy/v1', 'poddisruptionbudgets'),
    post,
    postProtobuf,
    close: () => store.close(),
  };
}

/** The StatusError a promise rejects with. */
export async function rejection(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

export function podObject(name: string, extra: { labels?: Record<string, string>; spec?: Obj; meta?: Obj } = {}): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: extra.labels, ...extra.meta },
    spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...extra.spec },
  };
}

export async function createPod(c: Cluster, name: string, extra: Parameters<typeof podObject>[1] = {}): Promise<Pod> {
  return (await c.pods.create('default', podObject(name, extra))) as Pod;
}

/** Makes a pod look like a kubelet runs it: bound to a node, Running, and Ready (or not). */
export async function runPod(c: Cluster, name: string, ready = true, extra: Parameters<typeof podObject>[1] = {}): Promise<Pod> {
  await createPod(c, name, extra);
  await c.post(`/api/v1/namespaces/default/pods/${name}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: 'n1' } });
  const conditions = [{ type: 'Ready', status: ready ? 'True' : 'False' }];
  return (await c.pods.patch('default', name, 'merge', { status: { phase: 'Running', conditions } }, { subresource: 'status' })) as Pod;
}

/** A PDB over app=<app>, with the status a disruption controller would have written. */
export async function createPDB(c: Cluster, name: string, app: string, status: Obj, spec: Obj = {}): Promise<KObject> {
  await c.pdbs.create('default', {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec: { minAvailable: 1, selector: { matchLabels: { app } }, ...spec },
  });
  return c.pdbs.patch('default', name, 'merge', { status: { observedGeneration: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, ...status } }, { subresource: 'status' });
}

export const evictionPath = (name: string) => `/api/v1/namespaces/default/pods/${name}/eviction`;
export const eviction = (name: string, deleteOptions?: Obj) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, deleteOptions });
