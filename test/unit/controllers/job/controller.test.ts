import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobController } from '../../../../src/controllers/job/controller.js';
import { markPodRunning } from '../harness.js';
import { activePods, batchCluster, condTypes, finishPod, getJob, job, podsOf, TestClock, waitEvent } from './helpers.js';

describe('job controller: completions, parallelism and indexes', () => {
  it('runs parallelism pods until completions succeed, then SuccessCriteriaMet and Complete', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      const jobs = c.client.resource('batch/v1', 'jobs');
      await jobs.create('default', job('pi', { completions: 3, parallelism: 2 }));
      const pods = await c.waitFor('two pods', async () => ((await podsOf(c.client, 'pi')).length === 2 ? podsOf(c.client, 'pi') : undefined));
      const j0 = await getJob(c.client, 'pi');
      for (const p of pods) {
        assert.match(p.metadata.name!, /^pi-[a-z0-9]{5}$/);
        assert.deepEqual((p.metadata as { finalizers?: string[] }).finalizers, ['batch.kubernetes.io/job-tracking']);
        assert.equal(p.metadata.labels!['batch.kubernetes.io/job-name'], 'pi');
        assert.equal(p.metadata.labels!['job-name'], 'pi');
        assert.equal(p.metadata.labels!['batch.kubernetes.io/controller-uid'], j0.metadata.uid);
        assert.equal(p.metadata.labels!['controller-uid'], j0.metadata.uid);
      }
      for (const p of pods) await markPodRunning(c.client, p);
      await c.waitFor('active 2 ready 2', async () => {
        const j = await getJob(c.client, 'pi');
        return j.status?.active === 2 && j.status?.ready === 2 && j.status.startTime;
      });
      for (const p of pods) await finishPod(c.client, p, { phase: 'Succeeded', now: clock.now() });
      const third = await c.waitFor('a third pod', async () => activePods(await podsOf(c.client, 'pi'))[0]);
      await finishPod(c.client, third, { phase: 'Succeeded', now: clock.now() });
      const done = await c.waitFor('Complete', async () => {
        const j = await getJob(c.client, 'pi');
        return condTypes(j).includes('Complete') ? j : undefined;
      });
      assert.deepEqual(condTypes(done), ['SuccessCriteriaMet', 'Complete']);
      const complete = done.status!.conditions!.find((x) => x.type === 'Complete')!;
      assert.equal(complete.reason, 'CompletionsReached');
      assert.equal(complete.message, 'Reached expected number of succeeded pods');
      assert.equal(done.status!.succeeded, 3);
      assert.equal(done.status!.failed ?? 0, 0);
      assert.equal(done.status!.active ?? 0, 0);
      assert.equal(done.status!.completionTime, complete.lastTransitionTime);
      assert.deepEqual(done.status!.uncountedTerminatedPods, {});
      await c.waitFor('finalizers removed', async () => (await podsOf(c.client, 'pi')).every((p) => !(p.metadata as { finalizers?: string[] }).finalizers?.length));
      await waitEvent(c, 'pi', { reason: 'SuccessfulCreate', message: `Created pod: ${pods[0].metadata.name}`, type: 'Normal' });
      await waitEvent(c, 'pi', { reason: 'Completed', message: 'Job completed', type: 'Normal' });
    } finally {
      await c.close();
    }
  });

  it('a job without completions completes when one pod succeeds and the others finish', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('wq', { parallelism: 2 }));
      const pods = await c.waitFor('two pods', async () => ((await podsOf(c.client, 'wq')).length === 2 ? podsOf(c.client, 'wq') : undefined));
      await finishPod(c.client, pods[0], { phase: 'Succeeded', now: clock.now() });
      await new Promise((r) => setTimeout(r, 150));
      assert.equal((await podsOf(c.client, 'wq')).length, 2, 'no replacement once a pod succeeded');
      assert.ok(!condTypes(await getJob(c.client, 'wq')).includes('Complete'));
      await finishPod(c.client, pods[1], { phase: 'Succeeded', now: clock.now() });
      const done = await c.waitFor('Complete', async () => {
        const j = await getJob(c.client, 'wq');
        return condTypes(j).includes('Complete') ? j : undefined;
      });
      assert.equal(done.status!.succeeded, 2);
    } finally {
      await c.close();
    }
  });

  it('Indexed jobs give each pod an index (annotation, label, env, hostname, name) and track completedIndexes', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
      const pods = await c.waitFor('three pods', async () => ((await podsOf(c.client, 'idx')).length === 3 ? podsOf(c.client, 'idx') : undefined));
      const byIndex = new Map(pods.map((p) => [p.metadata.annotations!['batch.kubernetes.io/job-completion-index'], p]));
      assert.deepEqual([...byIndex.keys()].sort(), ['0', '1', '2']);
      for (const [ix, p] of byIndex) {
        assert.match(p.metadata.name!, new RegExp(`^idx-${ix}-[a-z0-9]{5}$`));
        assert.equal(p.metadata.labels!['batch.kubernetes.io/job-completion-index'], ix);
        const spec = p.spec as { hostname?: string; containers: { env?: { name: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }[] }[] };
        assert.equal(spec.hostname, `idx-${ix}`);
        const env = spec.containers[0].env!.find((e) => e.name === 'JOB_COMPLETION_INDEX')!;
        assert.equal(env.valueFrom!.fieldRef!.fieldPath, "metadata.labels['batch.kubernetes.io/job-completion-index']");
      }
      await finishPod(c.client, byIndex.get('1')!, { phase: 'Succeeded', now: clock.now() });
      await c.waitFor('completedIndexes 1', async () => (await getJob(c.client, 'idx')).status?.completedIndexes === '1');
      await finishPod(c.client, byIndex.get('2')!, { phase: 'Succeeded', now: clock.now() });
      await c.waitFor('completedIndexes 1,2', async () => (await getJob(c.client, 'idx')).status?.completedIndexes === '1,2');
      await finishPod(c.client, byIndex.get('0')!, { phase: 'Succeeded', now: clock.now() });
      const done = await c.waitFor('Complete', async () => {
        const j = await getJob(c.client, 'idx');
        return condTypes(j).includes('Complete') ? j : undefined;
      });
      assert.equal(done.status!.completedIndexes, '0-2');
      assert.equal(done.status!.succeeded, 3);
    } finally {
      await c.close();
    }
  });

  it('a failed Indexed pod is replaced for the same index', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('re', { completions: 2, parallelism: 2, completionMode: 'Indexed' }));
      const pods = await c.waitFor('two pods', async () => ((await podsOf(c.client, 're')).length === 2 ? podsOf(c.client, 're') : undefined));
      const p1 = pods.find((p) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index'] === '1')!;
      await finishPod(c.client, p1, { phase: 'Failed', now: clock.now() });
      await c.waitFor('failed counted', async () => (await getJob(c.client, 're')).status?.failed === 1);
      clock.advance(11_000);
      c.manager.controller<import('../../../../src/controllers/job/controller.js').JobController>('job')!.enqueue('default/re');
      const again = await c.waitFor('replacement for index 1', async () =>
        activePods(await podsOf(c.client, 're')).find((p) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index'] === '1' && p.metadata.uid !== p1.metadata.uid),
      );
      assert.match(again.metadata.name!, /^re-1-/);
    } finally {
      await c.close();
    }
  });

  it('pods of a deleted job lose the tracking finalizer', async () => {
    const c = await batchCluster([jobController()]);
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('orph', { parallelism: 2 }));
      await c.waitFor('two pods', async () => (await podsOf(c.client, 'orph')).length === 2);
      await c.client.resource('batch/v1', 'jobs').delete('default', 'orph', { propagationPolicy: 'Orphan' });
      await c.waitFor('finalizers released', async () => {
        const pods = await podsOf(c.client, 'orph');
        return pods.length === 2 && pods.every((p) => !((p.metadata as { finalizers?: string[] }).finalizers ?? []).length);
      });
    } finally {
      await c.close();
    }
  });

  it('adopts a matching orphan pod instead of creating one', async () => {
    const c = await batchCluster([jobController()]);
    try {
      const pod = await c.client.resource('v1', 'pods').create('default', {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray', namespace: 'default', labels: { app: 'adopt' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
      } as import('../../../../src/api/types.js').KObject);
      await markPodRunning(c.client, pod);
      await c.client.resource('batch/v1', 'jobs').create('default', job('adopt', {
        manualSelector: true, selector: { matchLabels: { app: 'adopt' } },
        template: { metadata: { labels: { app: 'adopt' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
      }));
      const adopted = await c.waitFor('adopted', async () => {
        const p = await c.client.resource('v1', 'pods').get('default', 'stray');
        return (p.metadata as { ownerReferences?: { kind: string; name: string }[] }).ownerReferences?.some((r) => r.kind === 'Job' && r.name === 'adopt') ? p : undefined;
      });
      assert.deepEqual((adopted.metadata as { finalizers?: string[] }).finalizers, ['batch.kubernetes.io/job-tracking']);
      await c.waitFor('active 1', async () => (await getJob(c.client, 'adopt')).status?.active === 1);
      const all = (await c.client.resource('v1', 'pods').list('default', { labelSelector: 'app=adopt' })).items;
      assert.equal(all.length, 1, 'no extra pod');
    } finally {
      await c.close();
    }
  });
});
