import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { markPodFinished, markPodRunning, type ControllerCluster } from '../harness.js';
import { workloadCluster } from '../workload-cluster.js';

const NS = 'default';

function sts(name: string, spec: Record<string, unknown> = {}): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: NS },
    spec: {
      replicas: 3,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
      ...spec,
    },
  } as KObject;
}

const podNames = async (c: ControllerCluster, app: string) =>
  (await c.client.resource('v1', 'pods').list(NS, { labelSelector: `app=${app}` })).items.map((p) => p.metadata.name!).sort();
const getPod = (c: ControllerCluster, name: string) => c.client.resource('v1', 'pods').get(NS, name);
const getSet = (c: ControllerCluster, name: string) => c.client.resource('apps/v1', 'statefulsets').get(NS, name) as Promise<KObject & { status: Record<string, unknown> }>;
const events = async (c: ControllerCluster) => (await c.client.resource('v1', 'events').list(NS)).items as (KObject & { reason: string; message: string })[];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runReady(c: ControllerCluster, name: string): Promise<void> {
  const pod = await c.waitFor(`pod ${name}`, () => getPod(c, name));
  await markPodRunning(c.client, pod);
}

describe('StatefulSet controller', () => {
  it('creates pods in ordinal order, each after its predecessor is Running and Ready, with identity and status', async () => {
    const c = await workloadCluster();
    try {
      await c.client.resource('apps/v1', 'statefulsets').create(NS, sts('web'));
      const web0 = await c.waitFor('web-0', () => getPod(c, 'web-0'));
      await sleep(150);
      assert.deepEqual(await podNames(c, 'web'), ['web-0'], 'web-1 must wait for web-0 to be ready');
      const labels = web0.metadata.labels!;
      assert.equal(labels['statefulset.kubernetes.io/pod-name'], 'web-0');
      assert.equal(labels['apps.kubernetes.io/pod-index'], '0');
      const set = await getSet(c, 'web');
      assert.match(labels['controller-revision-hash'], /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
      const spec = web0.spec as { hostname?: string; subdomain?: string };
      assert.equal(spec.hostname, 'web-0');
      assert.equal(spec.subdomain, 'web');
      assert.equal(web0.metadata.generateName, 'web-');
      assert.deepEqual(web0.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);

      await markPodRunning(c.client, web0, { ready: false });
      await sleep(150);
      assert.deepEqual(await podNames(c, 'web'), ['web-0'], 'a running but unready pod still blocks');
      await markPodRunning(c.client, web0);
      await runReady(c, 'web-1');
      await runReady(c, 'web-2');
      const st = await c.waitFor('status 3 ready', async () => {
        const s = (await getSet(c, 'web')).status;
        return s.readyReplicas === 3 && s.availableReplicas === 3 ? s : undefined;
      });
      assert.equal(st.replicas, 3);
      assert.equal(st.currentReplicas, 3);
      assert.equal(st.updatedReplicas, 3);
      assert.equal(st.currentRevision, labels['controller-revision-hash']);
      assert.equal(st.updateRevision, st.currentRevision);
      assert.equal(st.collisionCount, 0);
      assert.equal(st.observedGeneration, 1);
      const msgs = (await events(c)).filter((e) => e.reason === 'SuccessfulCreate').map((e) => e.message).sort();
      assert.deepEqual(msgs, ['create Pod web-0 in StatefulSet web successful', 'create Pod web-1 in StatefulSet web successful', 'create Pod web-2 in StatefulSet web successful']);
    } finally {
      await c.close();
    }
  });

  it('scales down from the highest ordinal, one at a time, waiting for each to terminate', async () => {
    const c = await workloadCluster();
    try {
      // a finalizer keeps deleted pods terminating until the test releases them (what a kubelet would do)
      const set = sts('db');
      (set.spec as { template: { metadata: Record<string, unknown> } }).template.metadata.finalizers = ['example.com/hold'];
      await c.client.resource('apps/v1', 'statefulsets').create(NS, set);
      for (const n of ['db-0', 'db-1', 'db-2']) await runReady(c, n);
      await c.waitFor('3 ready', async () => (await getSet(c, 'db')).status.readyReplicas === 3);
      const release = (n: string) => c.client.resource('v1', 'pods').patch(NS, n, 'merge', { metadata: { finalizers: null } });
      await c.client.resource('apps/v1', 'statefulsets').patch(NS, 'db', 'merge', { spec: { replicas: 1 } });
      await c.waitFor('db-2 terminating', async () => !!(await getPod(c, 'db-2')).metadata.deletionTimestamp);
      await sleep(200);
      assert.equal((await getPod(c, 'db-1')).metadata.deletionTimestamp, undefined, 'db-1 waits for db-2 to go');
      await release('db-2');
      await c.waitFor('db-1 terminating', async () => !!(await getPod(c, 'db-1')).metadata.deletionTimestamp);
      assert.equal((await getPod(c, 'db-0')).metadata.deletionTimestamp, undefined);
      await release('db-1');
      await c.waitFor('one pod left', async () => (await podNames(c, 'db')).length === 1);
      assert.deepEqual(await podNames(c, 'db'), ['db-0']);
      const del = (await events(c)).filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.message);
      assert.deepEqual(del.sort(), ['delete Pod db-1 in StatefulSet db successful', 'delete Pod db-2 in StatefulSet db successful']);
      await c.waitFor('status replicas 1', async () => (await getSet(c, 'db')).status.replicas === 1);
      await release('db-0');
    } finally {
      await c.close();
    }
  });

  it('scale-down waits while a remaining pod is unhealthy', async () => {
    const c = await workloadCluster();
    try {
      await c.client.resource('apps/v1', 'statefulsets').create(NS, sts('q'));
      for (const n of ['q-0', 'q-1', 'q-2']) await runReady(c, n);
      await c.waitFor('3 ready', async () => (await getSet(c, 'q')).status.readyReplicas === 3);
      await markPodRunning(c.client, await getPod(c, 'q-0'), { ready: false });
      await c.client.resource('apps/v1', 'statefulsets').patch(NS, 'q', 'merge', { spec: { replicas: 2 } });
      await sleep(200);
      assert.deepEqual(await podNames(c, 'q'), ['q-0', 'q-1', 'q-2']);
      await markPodRunning(c.client, await getPod(c, 'q-0'));
      await c.waitFor('q-2 gone', async () => (await podNames(c, 'q')).length === 2);
    } finally {
      await c.close();
    }
  });

  it('Parallel creates every pod at once and starts at spec.ordinals.start', async () => {
    const c = await workloadCluster();
    try {
      await c.client.resource('apps/v1', 'statefulsets').create(NS, sts('par', { podManagementPolicy: 'Parallel', ordinals: { start: 5 } }));
      await c.waitFor('3 pods', async () => (await podNames(c, 'par')).length === 3);
      assert.deepEqual(await podNames(c, 'par'), ['par-5', 'par-6', 'par-7']);
      assert.equal((await getPod(c, 'par-7')).metadata.labels!['apps.kubernetes.io/pod-index'], '7');
      await c.client.resource('apps/v1', 'statefulsets').patch(NS, 'par', 'merge', { spec: { replicas: 1 } });
      await c.waitFor('scaled to 1 without readiness', async () => (await podNames(c, 'par')).length === 1);
      assert.deepEqual(await podNames(c, 'par'), ['par-5']);
    } finally {
      await c.close();
    }
  });

  it('recreates a failed pod with a RecreatingFailedPod event', async () => {
    const c = await workloadCluster();
    try {
      await c.client.resource('apps/v1', 'statefulsets').create(NS, sts('f', { replicas: 1 }));
      const p = await c.waitFor('f-0', () => getPod(c, 'f-0'));
      await markPodFinished(c.client, p, 'Failed');
      await c.waitFor('a new f-0', async () => {
        const n = await getPod(c, 'f-0').catch(() => undefined);
        return n && n.metadata.uid !== p.metadata.uid;
      });
      const ev = (await events(c)).find((e) => e.reason === 'RecreatingFailedPod');
      assert.equal(ev?.message, 'StatefulSet default/f is recreating failed Pod f-0');
      assert.equal(ev?.type, 'Warning');
    } finally {
      await c.close();
    }
  });
});
