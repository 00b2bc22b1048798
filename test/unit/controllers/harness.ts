// A real in-process k1s (store, registry, admission, in-process client) with chosen controllers running, for
// controller tests. Nothing is faked: controllers see the API exactly as in a running cluster.
import { buildClusterApi, bootstrapClusterObjects, type ClusterApi, type ClusterApiOptions } from '../../../src/cluster/api.js';
import type { LocalClient } from '../../../src/client/local.js';
import type { Registry } from '../../../src/apiserver/registry/registry.js';
import { ControllerManager } from '../../../src/controllers/framework/manager.js';
import type { ControllerFactory } from '../../../src/client/controller.js';
import type { KObject } from '../../../src/api/types.js';
import { rfc3339 } from '../../../src/machinery/object.js';
import { serviceAccountController } from '../../../src/controllers/serviceaccount.js';
import { StatusError } from '../../../src/machinery/errors.js';
import { SqliteStore } from '../../../src/storage/sqlite/store.js';

export interface ControllerCluster {
  client: LocalClient;
  registry: Registry;
  manager: ControllerManager;
  logs: string[];
  /** polls `fn` until it returns a truthy value (default 10 s), else throws with `what` */
  waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function controllerCluster(controllers: ControllerFactory[], opts: {
    now?: () => number;
    /** add admission plugins or actions before the cluster starts */
    configure?: (api: ClusterApi) => void;
    api?: ClusterApiOptions;
    /** run the ServiceAccount controller, as every cluster does (pods need their namespace's default SA); default true */
    serviceAccounts?: boolean;
  } = {}): Promise<ControllerCluster> {
  const store = SqliteStore.open({ path: ':memory:' });
  const api = buildClusterApi(store, opts.api);
  opts.configure?.(api);
  await bootstrapClusterObjects(api);
  await Promise.all([api.customResources.start(), api.webhooks.start(), api.policies.start()]);
  // what the ServiceAccount controller would have made by now: pods in `default` pass ServiceAccount admission
  await api.client
    .resource('v1', 'serviceaccounts')
    .create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } })
    .catch(() => undefined);
  const logs: string[] = [];
  const all = opts.serviceAccounts === false ? controllers : [serviceAccountController(), ...controllers];
  const manager = new ControllerManager({ client: api.client, controllers: all, leaderElection: false, log: (l) => logs.push(l), now: opts.now });
  await manager.start();
  return {
    client: api.client,
    registry: api.registry,
    manager,
    logs,
    waitFor: (what, fn, timeoutMs) => waitFor(what, fn, timeoutMs),
    async close() {
      await manager.stop();
      api.stop();
      store.close();
    },
  };
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Retries a read-modify-write on 409 Conflict (controllers may write the same pod meanwhile). */
async function retryOnConflict<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409) || i >= 10) throw e;
    }
  }
}

/** What a kubelet would write for a running, ready pod (for controller tests without nodes). */
export function markPodRunning(client: LocalClient, pod: KObject, opts: { ready?: boolean; nodeName?: string; readySince?: number } = {}): Promise<KObject> {
  return retryOnConflict(() => writePodRunning(client, pod, opts));
}

async function writePodRunning(client: LocalClient, pod: KObject, opts: { ready?: boolean; nodeName?: string; readySince?: number } = {}): Promise<KObject> {
  const ready = opts.ready ?? true;
  const t = rfc3339(opts.readySince ?? Date.now());
  const rc = client.resource('v1', 'pods');
  const ns = pod.metadata.namespace!;
  const name = pod.metadata.name!;
  if (opts.nodeName && !(pod.spec as { nodeName?: string })?.nodeName) {
    await client.resource('v1', 'pods').create(ns, { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns }, target: { kind: 'Node', name: opts.nodeName } } as KObject, { subresource: 'binding' }).catch(() => undefined);
  }
  const cur = await rc.get(ns, name);
  const status = {
    ...(cur.status as object),
    phase: 'Running',
    startTime: t,
    podIP: '10.42.0.10',
    conditions: [
      { type: 'Initialized', status: 'True', lastTransitionTime: t },
      { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: t },
      { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: t },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: t },
    ],
  };
  return rc.update(ns, { ...cur, status } as KObject, { subresource: 'status' });
}

/** Sets a pod's phase to Succeeded or Failed (containers terminated with the exit code). */
export function markPodFinished(client: LocalClient, pod: KObject, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Succeeded' ? 0 : 1): Promise<KObject> {
  return retryOnConflict(() => writePodFinished(client, pod, phase, exitCode));
}

async function writePodFinished(client: LocalClient, pod: KObject, phase: 'Succeeded' | 'Failed', exitCode: number): Promise<KObject> {
  const rc = client.resource('v1', 'pods');
  const cur = await rc.get(pod.metadata.namespace!, pod.metadata.name!);
  const t = rfc3339();
  const containers = ((cur.spec as { containers?: { name: string; image?: string }[] }).containers ?? []).map((c) => ({
    name: c.name,
    image: c.image ?? '',
    imageID: '',
    ready: false,
    restartCount: 0,
    state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: t, finishedAt: t } },
  }));
  const status = {
    ...(cur.status as object),
    phase,
    containerStatuses: containers,
    conditions: [
      { type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: t },
      { type: 'ContainersReady', status: 'False', reason: 'PodCompleted', lastTransitionTime: t },
    ],
  };
  return rc.update(cur.metadata.namespace!, { ...cur, status } as KObject, { subresource: 'status' });
}

/** Creates a namespace and waits for its default ServiceAccount (what the e2e framework of Kubernetes does too). */
export async function createNamespace(client: LocalClient, name: string): Promise<void> {
  await client.resource('v1', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as KObject);
  await waitFor(`default ServiceAccount in ${name}`, () => client.resource('v1', 'serviceaccounts').get(name, 'default'));
}
