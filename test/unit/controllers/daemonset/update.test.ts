import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { markPodRunning, type ControllerCluster } from '../harness.js';
import { workloadCluster } from '../workload-cluster.js';
import { ds, node } from './fixtures.js';

const NS = 'default';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const podsOf = async (c: ControllerCluster, app: string) => (await c.client.resource('v1', 'pods').list(NS, { labelSelector: `app=${app}` })).items;
const image = (p: KObject) => (p.spec as { containers: { image: string }[] }).containers[0].image;
const isReady = (p: KObject) => (p.status as { phase?: string }).phase === 'Running';
const getStatus = async (c: ControllerCluster, name: string) => ((await c.client.resource('apps/v1', 'daemonsets').get(NS, name)).status ?? {}) as Record<string, number>;

async function setup(c: ControllerCluster, name: string, nodes: number, strategy: Record<string, unknown>): Promise<void> {
  for (let i = 0; i < nodes; i++) await c.client.resource('v1', 'nodes').create('', node(`${name}-n${i}`));
  await c.client.resource('apps/v1', 'daemonsets').create(NS, ds(name, {}, { updateStrategy: strategy }));
  await c.waitFor(`${nodes} pods`, async () => (await podsOf(c, name)).length === nodes);
  await readyAll(c, name);
  await c.waitFor('all available', async () => (await getStatus(c, name)).numberAvailable === nodes);
}

/** Plays kubelet for every pending pod (left unbound so deletes are immediate). */
async function readyAll(c: ControllerCluster, app: string): Promise<void> {
  for (const p of await podsOf(c, app)) if (!isReady(p) && !p.metadata.deletionTimestamp) await markPodRunning(c.client, p);
}

const setImage = (c: ControllerCluster, name: string, img: string) =>
  c.client.resource('apps/v1', 'daemonsets').patch(NS, name, 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: img }] } } } });

describe('DaemonSet updates', () => {
  it('RollingUpdate replaces at most maxUnavailable pods at a time', async () => {
    const c = await workloadCluster();
    try {
      await setup(c, 'ru', 4, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } });
      await setImage(c, 'ru', 'agent:2');
      await c.waitFor('two new pods', async () => (await podsOf(c, 'ru')).filter((p) => image(p) === 'agent:2').length === 2);
      await sleep(200);
      let pods = await podsOf(c, 'ru');
      assert.equal(pods.length, 4);
      assert.equal(pods.filter((p) => image(p) === 'agent:1').length, 2, 'the other two wait while two are unavailable');
      assert.equal((await getStatus(c, 'ru')).updatedNumberScheduled, 2);
      await readyAll(c, 'ru');
      await c.waitFor('rest replaced', async () => (await podsOf(c, 'ru')).filter((p) => image(p) === 'agent:2').length === 4);
      await readyAll(c, 'ru');
      const st = await c.waitFor('done', async () => { const s = await getStatus(c, 'ru'); return s.updatedNumberScheduled === 4 && s.numberAvailable === 4 ? s : undefined; });
      assert.equal(st.observedGeneration, 2);
      pods = await podsOf(c, 'ru');
      assert.ok(pods.every((p) => p.metadata.labels!['pod-template-generation'] === '2'));
      const revs = (await c.client.resource('apps/v1', 'controllerrevisions').list(NS, { labelSelector: 'app=ru' })).items as (KObject & { revision: number })[];
      assert.deepEqual(revs.map((r) => r.revision).sort(), [1, 2]);
      const newest = revs.find((r) => r.revision === 2)!;
      assert.equal(newest.metadata.labels!['controller-revision-hash'], pods[0].metadata.labels!['controller-revision-hash']);
    } finally {
      await c.close();
    }
  });

  it('maxSurge starts the new pod next to the old one and removes the old once the new is available', async () => {
    const c = await workloadCluster();
    try {
      await setup(c, 'sg', 2, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
      await setImage(c, 'sg', 'agent:2');
      await c.waitFor('one surge pod', async () => (await podsOf(c, 'sg')).length === 3);
      await sleep(200);
      let pods = await podsOf(c, 'sg');
      assert.equal(pods.length, 3, 'only one surge pod at a time');
      assert.equal(pods.filter((p) => image(p) === 'agent:1').length, 2, 'no old pod removed before its replacement is available');
      await readyAll(c, 'sg');
      await c.waitFor('second node surges', async () => {
        pods = await podsOf(c, 'sg');
        return pods.filter((p) => image(p) === 'agent:2').length === 2 && pods.filter((p) => image(p) === 'agent:1').length === 1;
      });
      await readyAll(c, 'sg');
      await c.waitFor('all new', async () => { const x = await podsOf(c, 'sg'); return x.length === 2 && x.every((p) => image(p) === 'agent:2'); });
    } finally {
      await c.close();
    }
  });

  it('OnDelete only replaces pods that are deleted', async () => {
    const c = await workloadCluster();
    try {
      await setup(c, 'od', 2, { type: 'OnDelete' });
      await setImage(c, 'od', 'agent:2');
      await c.waitFor('generation observed', async () => (await getStatus(c, 'od')).observedGeneration === 2);
      await sleep(150);
      assert.ok((await podsOf(c, 'od')).every((p) => image(p) === 'agent:1'));
      assert.equal((await getStatus(c, 'od')).updatedNumberScheduled ?? 0, 0);
      const victim = (await podsOf(c, 'od'))[0];
      await c.client.resource('v1', 'pods').delete(NS, victim.metadata.name!);
      await c.waitFor('replacement at the new template', async () => (await podsOf(c, 'od')).filter((p) => image(p) === 'agent:2').length === 1);
      await c.waitFor('status counts it', async () => (await getStatus(c, 'od')).updatedNumberScheduled === 1);
    } finally {
      await c.close();
    }
  });
});
