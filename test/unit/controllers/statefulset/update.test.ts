import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { markPodRunning, type ControllerCluster } from '../harness.js';
import { workloadCluster } from '../workload-cluster.js';

const NS = 'default';
type Sts = KObject & { status: Record<string, unknown> };

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

const pods = (c: ControllerCluster) => c.client.resource('v1', 'pods');
const sets = (c: ControllerCluster) => c.client.resource('apps/v1', 'statefulsets');
const getSet = async (c: ControllerCluster, name: string) => (await sets(c).get(NS, name)) as Sts;
const image = (p: KObject) => (p.spec as { containers: { image: string }[] }).containers[0].image;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Plays kubelet: every pod of the app that is Pending gets Running and Ready. */
function autoReady(c: ControllerCluster, app: string): { stop(): void } {
  let on = true;
  void (async () => {
    while (on) {
      for (const p of (await pods(c).list(NS, { labelSelector: `app=${app}` }).catch(() => ({ items: [] as KObject[] }))).items) {
        if ((p.status as { phase?: string })?.phase === 'Pending' && !p.metadata.deletionTimestamp) await markPodRunning(c.client, p).catch(() => undefined);
      }
      await sleep(20);
    }
  })();
  return { stop: () => (on = false) };
}

async function images(c: ControllerCluster, app: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of (await pods(c).list(NS, { labelSelector: `app=${app}` })).items) out[p.metadata.name!] = image(p);
  return out;
}

describe('StatefulSet updates', () => {
  it('rolls pods from the highest ordinal down to the partition, then completes when the partition drops', async () => {
    const c = await workloadCluster();
    const kubelet = autoReady(c, 'web');
    try {
      await sets(c).create(NS, sts('web', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } }));
      const first = await c.waitFor('3 ready', async () => {
        const s = await getSet(c, 'web');
        return s.status.readyReplicas === 3 ? s : undefined;
      });
      const rev1 = first.status.currentRevision as string;
      await sets(c).patch(NS, 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
      const st = await c.waitFor('partitioned update done', async () => {
        const s = await getSet(c, 'web');
        return s.status.updatedReplicas === 2 && s.status.readyReplicas === 3 ? s : undefined;
      });
      assert.deepEqual(await images(c, 'web'), { 'web-0': 'nginx:1', 'web-1': 'nginx:2', 'web-2': 'nginx:2' });
      assert.equal(st.status.currentRevision, rev1, 'below the partition the current revision stays');
      assert.notEqual(st.status.updateRevision, rev1);
      assert.equal(st.status.currentReplicas, 1);
      const p1 = await pods(c).get(NS, 'web-1');
      assert.equal(p1.metadata.labels!['controller-revision-hash'], st.status.updateRevision);
      // web-2 was replaced before web-1: its pod is older
      const p2 = await pods(c).get(NS, 'web-2');
      assert.ok(p2.metadata.creationTimestamp! <= p1.metadata.creationTimestamp!);

      await sets(c).patch(NS, 'web', 'merge', { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
      const done = await c.waitFor('update complete', async () => {
        const s = await getSet(c, 'web');
        return s.status.currentRevision === s.status.updateRevision && s.status.updatedReplicas === 3 && s.status.readyReplicas === 3 ? s : undefined;
      });
      assert.deepEqual(await images(c, 'web'), { 'web-0': 'nginx:2', 'web-1': 'nginx:2', 'web-2': 'nginx:2' });
      assert.equal(done.status.currentReplicas, 3);
    } finally {
      kubelet.stop();
      await c.close();
    }
  });

  it('a rolling update waits for the replaced pod to be ready before the next', async () => {
    const c = await workloadCluster();
    try {
      await sets(c).create(NS, sts('slow', { replicas: 2 }));
      for (const n of ['slow-0', 'slow-1']) await markPodRunning(c.client, await c.waitFor(n, () => pods(c).get(NS, n)));
      await c.waitFor('2 ready', async () => (await getSet(c, 'slow')).status.readyReplicas === 2);
      await sets(c).patch(NS, 'slow', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
      await c.waitFor('slow-1 replaced', async () => image(await pods(c).get(NS, 'slow-1')) === 'nginx:2');
      await sleep(200);
      assert.equal(image(await pods(c).get(NS, 'slow-0')), 'nginx:1', 'slow-0 waits while slow-1 is not ready');
      await markPodRunning(c.client, await pods(c).get(NS, 'slow-1'));
      await c.waitFor('slow-0 replaced', async () => image(await pods(c).get(NS, 'slow-0').catch(() => ({ spec: { containers: [{ image: '' }] } }) as unknown as KObject)) === 'nginx:2');
    } finally {
      await c.close();
    }
  });

  it('OnDelete leaves pods alone until they are deleted', async () => {
    const c = await workloadCluster();
    const kubelet = autoReady(c, 'od');
    try {
      await sets(c).create(NS, sts('od', { replicas: 2, updateStrategy: { type: 'OnDelete' } }));
      await c.waitFor('2 ready', async () => (await getSet(c, 'od')).status.readyReplicas === 2);
      await sets(c).patch(NS, 'od', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } });
      await c.waitFor('update revision moves', async () => {
        const s = await getSet(c, 'od');
        return s.status.updateRevision !== s.status.currentRevision;
      });
      await sleep(200);
      assert.deepEqual(await images(c, 'od'), { 'od-0': 'nginx:1', 'od-1': 'nginx:1' });
      await pods(c).delete(NS, 'od-0');
      await c.waitFor('od-0 recreated at the new revision', async () => (await images(c, 'od'))['od-0'] === 'nginx:2');
      assert.equal((await images(c, 'od'))['od-1'], 'nginx:1');
      const s = await c.waitFor('counts', async () => {
        const x = await getSet(c, 'od');
        return x.status.updatedReplicas === 1 && x.status.currentReplicas === 1 ? x : undefined;
      });
      assert.notEqual(s.status.currentRevision, s.status.updateRevision);
    } finally {
      kubelet.stop();
      await c.close();
    }
  });
});
