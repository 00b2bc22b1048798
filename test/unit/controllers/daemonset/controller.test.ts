import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KObject } from '../../../../src/api/types.js';
import { markPodFinished, markPodRunning, type ControllerCluster } from '../harness.js';
import { workloadCluster } from '../workload-cluster.js';
import { ds, node } from './fixtures.js';

const NS = 'default';
type Ds = KObject & { status: Record<string, number> };

const podsOf = async (c: ControllerCluster, app: string) => (await c.client.resource('v1', 'pods').list(NS, { labelSelector: `app=${app}` })).items;
type Aff = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: { matchFields: { key: string; operator: string; values: string[] }[] }[] } } };
const pinnedTo = (p: KObject) => (p.spec as { affinity: Aff }).affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0];
const byNode = async (c: ControllerCluster, app: string) => (await podsOf(c, app)).map(pinnedTo).sort();
const getDs = async (c: ControllerCluster, name: string) => (await c.client.resource('apps/v1', 'daemonsets').get(NS, name)) as Ds;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DaemonSet controller', () => {
  it('runs one pod per node, pinned by node affinity, with daemon tolerations and labels, and counts status', async () => {
    const c = await workloadCluster();
    try {
      for (const n of ['n1', 'n2']) await c.client.resource('v1', 'nodes').create('', node(n));
      const created = await c.client.resource('apps/v1', 'daemonsets').create(NS, ds('agent'));
      await c.waitFor('2 pods', async () => (await podsOf(c, 'agent')).length === 2);
      assert.deepEqual(await byNode(c, 'agent'), ['n1', 'n2']);
      const [p] = await podsOf(c, 'agent');
      assert.match(p.metadata.name!, /^agent-[a-z0-9]{5}$/);
      assert.equal(p.metadata.generateName, 'agent-');
      assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      assert.deepEqual((p.spec as { affinity: Aff }).affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0], { key: 'metadata.name', operator: 'In', values: [pinnedTo(p)] });
      const tol = (p.spec as { tolerations: { key: string; operator: string; effect: string }[] }).tolerations.map((t) => `${t.key}:${t.operator}:${t.effect}`);
      assert.deepEqual(tol, [
        'node.kubernetes.io/not-ready:Exists:NoExecute', 'node.kubernetes.io/unreachable:Exists:NoExecute', 'node.kubernetes.io/disk-pressure:Exists:NoSchedule',
        'node.kubernetes.io/memory-pressure:Exists:NoSchedule', 'node.kubernetes.io/pid-pressure:Exists:NoSchedule', 'node.kubernetes.io/unschedulable:Exists:NoSchedule',
      ]);
      assert.equal(p.metadata.labels!['pod-template-generation'], '1');
      const revs = (await c.client.resource('apps/v1', 'controllerrevisions').list(NS)).items;
      assert.equal(revs.length, 1);
      assert.equal(revs[0].metadata.name, `agent-${p.metadata.labels!['controller-revision-hash']}`);

      let st = await c.waitFor('desired 2', async () => { const s = (await getDs(c, 'agent')).status; return s.desiredNumberScheduled === 2 && s.currentNumberScheduled === 2 ? s : undefined; });
      assert.equal(st.numberReady, 0);
      assert.equal(st.numberUnavailable, 2);
      assert.equal(st.updatedNumberScheduled, 2);
      for (const x of await podsOf(c, 'agent')) await markPodRunning(c.client, x, { nodeName: pinnedTo(x) });
      st = await c.waitFor('2 ready', async () => { const s = (await getDs(c, 'agent')).status; return s.numberReady === 2 && s.numberAvailable === 2 ? s : undefined; });
      assert.equal(st.numberMisscheduled, 0);
      assert.equal(st.observedGeneration, 1);
      assert.equal(st.numberUnavailable ?? 0, 0);
      const ev = ((await c.client.resource('v1', 'events').list(NS)).items as (KObject & { reason: string; message: string })[]).filter((e) => e.reason === 'SuccessfulCreate');
      assert.ok(ev.some((e) => e.message === `Created pod: ${p.metadata.name}`));

      // a new node gets a pod; a node going away takes its unscheduled pod with it
      await c.client.resource('v1', 'nodes').create('', node('n3'));
      await c.waitFor('pod on n3', async () => (await byNode(c, 'agent')).includes('n3'));
      await c.client.resource('v1', 'nodes').delete('', 'n3');
      await c.waitFor('n3 pod removed', async () => !(await byNode(c, 'agent')).includes('n3'));
      await c.waitFor('desired back to 2', async () => (await getDs(c, 'agent')).status.desiredNumberScheduled === 2);
    } finally {
      await c.close();
    }
  });

  it('follows node selectors and relabelling, and skips tainted nodes unless tolerated', async () => {
    const c = await workloadCluster();
    try {
      await c.client.resource('v1', 'nodes').create('', node('a', { labels: { disk: 'ssd' } }));
      await c.client.resource('v1', 'nodes').create('', node('b'));
      await c.client.resource('v1', 'nodes').create('', node('t', { labels: { disk: 'ssd' }, taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }));
      await c.client.resource('apps/v1', 'daemonsets').create(NS, ds('ssd', { nodeSelector: { disk: 'ssd' } }));
      await c.client.resource('apps/v1', 'daemonsets').create(NS, ds('tol', { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }] }));
      await c.waitFor('ssd on a', async () => (await byNode(c, 'ssd')).join() === 'a');
      await c.waitFor('tol everywhere', async () => (await byNode(c, 'tol')).join() === 'a,b,t');
      await sleep(100);
      assert.deepEqual(await byNode(c, 'ssd'), ['a'], 'not on b (no label) nor t (untolerated taint)');

      await c.client.resource('v1', 'nodes').patch('', 'b', 'merge', { metadata: { labels: { disk: 'ssd' } } });
      await c.waitFor('ssd on b after relabel', async () => (await byNode(c, 'ssd')).join() === 'a,b');
      await c.client.resource('v1', 'nodes').patch('', 'a', 'merge', { metadata: { labels: { disk: null } } });
      await c.waitFor('ssd gone from a', async () => (await byNode(c, 'ssd')).join() === 'b');

      // a NoExecute taint evicts a daemon pod that does not tolerate it
      await c.client.resource('v1', 'nodes').patch('', 'b', 'merge', { spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] } });
      await c.waitFor('ssd off b', async () => (await byNode(c, 'ssd')).length === 0);
      const st = await c.waitFor('status', async () => { const s = (await getDs(c, 'ssd')).status; return s.desiredNumberScheduled === 0 ? s : undefined; });
      assert.equal(st.currentNumberScheduled, 0);
    } finally {
      await c.close();
    }
  });

  it('replaces a failed daemon pod', async () => {
    const c = await workloadCluster();
    try {
      await c.client.resource('v1', 'nodes').create('', node('n1'));
      await c.client.resource('apps/v1', 'daemonsets').create(NS, ds('f'));
      const [p] = await c.waitFor('pod', async () => { const x = await podsOf(c, 'f'); return x.length === 1 ? x : undefined; });
      await markPodRunning(c.client, p, { nodeName: 'n1' });
      await markPodFinished(c.client, p, 'Failed');
      await c.waitFor('replacement', async () => { const x = await podsOf(c, 'f'); return x.length === 1 && x[0].metadata.uid !== p.metadata.uid; });
      const ev = ((await c.client.resource('v1', 'events').list(NS)).items as (KObject & { reason: string; message: string })[]).find((e) => e.reason === 'FailedDaemonPod');
      assert.equal(ev?.message, `Found failed daemon pod default/${p.metadata.name} on node n1, will try to kill it`);
    } finally {
      await c.close();
    }
  });
});
