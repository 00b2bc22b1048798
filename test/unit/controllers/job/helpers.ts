// Shared helpers for the Job controller tests: a clock the test moves, jobs, and pods finishing at that clock.
import type { KObject } from '../../../../src/api/types.js';
import type { Job } from '../../../../src/api/batch/types.js';
import type { LocalClient } from '../../../../src/client/local.js';
import { rfc3339 } from '../../../../src/machinery/object.js';
import type { ControllerFactory } from '../../../../src/client/controller.js';
import { controllerCluster, type ControllerCluster } from '../harness.js';

export class TestClock {
  offsetMs = 0;
  readonly now = (): number => Date.now() + this.offsetMs;
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export function job(name: string, spec: Record<string, unknown> = {}, extra: { annotations?: Record<string, string> } = {}): KObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default', ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
      ...spec,
    },
  } as KObject;
}

export async function getJob(client: LocalClient, name: string): Promise<Job> {
  return (await client.resource('batch/v1', 'jobs').get('default', name)) as Job;
}

export async function podsOf(client: LocalClient, jobName: string): Promise<KObject[]> {
  const list = await client.resource('v1', 'pods').list('default', { labelSelector: `batch.kubernetes.io/job-name=${jobName}` });
  return list.items.sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || a.metadata.name!.localeCompare(b.metadata.name!));
}

export const phase = (p: KObject): string => (p as { status?: { phase?: string } }).status?.phase ?? 'Pending';
export const activePods = (pods: KObject[]): KObject[] => pods.filter((p) => !['Succeeded', 'Failed'].includes(phase(p)) && !p.metadata.deletionTimestamp);

/** Finishes a pod as a kubelet would, with its finish times read from `now` (the controller's clock). */
export async function finishPod(
  client: LocalClient,
  pod: KObject,
  opts: { phase: 'Succeeded' | 'Failed'; exitCode?: number; now: number; conditions?: { type: string; status: string; reason?: string }[] },
): Promise<KObject> {
  const rc = client.resource('v1', 'pods');
  const cur = await rc.get('default', pod.metadata.name!);
  const t = rfc3339(opts.now);
  const exitCode = opts.exitCode ?? (opts.phase === 'Succeeded' ? 0 : 1);
  const status = {
    ...(cur.status as object),
    phase: opts.phase,
    containerStatuses: [
      { name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, reason: exitCode ? 'Error' : 'Completed', startedAt: t, finishedAt: t } } },
    ],
    conditions: [
      { type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: t },
      ...(opts.conditions ?? []).map((c) => ({ ...c, lastTransitionTime: t })),
    ],
  };
  return rc.update('default', { ...cur, status } as KObject, { subresource: 'status' });
}

export async function eventsFor(client: LocalClient, name: string): Promise<{ reason: string; message: string; type: string }[]> {
  const list = await client.resource('v1', 'events').list('default');
  return (list.items as unknown as { involvedObject: { name: string }; reason: string; message: string; type: string }[])
    .filter((e) => e.involvedObject.name === name)
    .map((e) => ({ reason: e.reason, message: e.message, type: e.type }));
}

export const condTypes = (j: Job): string[] => (j.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type!);

/** Waits for an event (events are written in the background). */
export async function waitEvent(
  c: { waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T>; client: LocalClient },
  name: string,
  match: { reason: string; message?: string; type?: string },
): Promise<{ reason: string; message: string; type: string }> {
  return c.waitFor(`event ${match.reason} for ${name}`, async () =>
    (await eventsFor(c.client, name)).find((e) => e.reason === match.reason && (match.message === undefined || e.message === match.message) && (match.type === undefined || e.type === match.type)),
  );
}

/** The cluster for batch tests, with the "default" ServiceAccount pods need (no ServiceAccount controller runs). */
export async function batchCluster(controllers: ControllerFactory[], opts: { now?: () => number } = {}): Promise<ControllerCluster> {
  const c = await controllerCluster(controllers, opts);
  await c.client
    .resource('v1', 'serviceaccounts')
    .create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as KObject)
    .catch((e: unknown) => {
      if ((e as { code?: number }).code !== 409) throw e;
    });
  return c;
}
