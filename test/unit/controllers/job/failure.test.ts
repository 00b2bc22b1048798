import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobController, type JobController } from '../../../../src/controllers/job/controller.js';
import { markPodRunning, type ControllerCluster } from '../harness.js';
import { activePods, batchCluster, condTypes, eventsFor, finishPod, getJob, job, podsOf, TestClock, waitEvent } from './helpers.js';
import type { Job } from '../../../../src/api/batch/types.js';

const poke = (c: ControllerCluster, name: string) => c.manager.controller<JobController>('job')!.enqueue(`default/${name}`);
const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));

async function waitCondition(c: ControllerCluster, name: string, type: string): Promise<Job> {
  return c.waitFor(`${name} ${type}`, async () => {
    const j = await getJob(c.client, name);
    return condTypes(j).includes(type) ? j : undefined;
  });
}

describe('job controller: failures', () => {
  it('backs off 10 s then 20 s before re-creating failed pods and fails at backoffLimit', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('bo', { backoffLimit: 2 }));
      const first = await c.waitFor('pod', async () => activePods(await podsOf(c.client, 'bo'))[0]);
      await finishPod(c.client, first, { phase: 'Failed', now: clock.now() });
      await c.waitFor('failed 1', async () => (await getJob(c.client, 'bo')).status?.failed === 1);
      // Finish times have second precision: 8 s leaves a margin below the 10 s step.
      clock.advance(8_000);
      poke(c, 'bo');
      await settle();
      assert.equal(activePods(await podsOf(c.client, 'bo')).length, 0, 'still backing off after 8 s');
      clock.advance(3_000);
      poke(c, 'bo');
      const second = await c.waitFor('second pod after 10 s', async () => activePods(await podsOf(c.client, 'bo'))[0]);
      await finishPod(c.client, second, { phase: 'Failed', now: clock.now() });
      await c.waitFor('failed 2', async () => (await getJob(c.client, 'bo')).status?.failed === 2);
      clock.advance(15_000);
      poke(c, 'bo');
      await settle();
      assert.equal(activePods(await podsOf(c.client, 'bo')).length, 0, 'the second back-off is 20 s');
      clock.advance(6_000);
      poke(c, 'bo');
      const third = await c.waitFor('third pod after 20 s', async () => activePods(await podsOf(c.client, 'bo'))[0]);
      await finishPod(c.client, third, { phase: 'Failed', now: clock.now() });
      const failed = await waitCondition(c, 'bo', 'Failed');
      assert.deepEqual(condTypes(failed), ['FailureTarget', 'Failed']);
      for (const cond of failed.status!.conditions!) {
        assert.equal(cond.reason, 'BackoffLimitExceeded');
        assert.equal(cond.message, 'Job has reached the specified backoff limit');
      }
      assert.equal(failed.status!.failed, 3);
      assert.equal(failed.status!.completionTime ?? undefined, undefined);
      const ev = await c.waitFor('event', async () => (await eventsFor(c.client, 'bo')).find((e) => e.reason === 'BackoffLimitExceeded'));
      assert.equal(ev.type, 'Warning');
      assert.equal(ev.message, 'Job has reached the specified backoff limit');
    } finally {
      await c.close();
    }
  });

  it('podFailurePolicy: FailJob on an exit code fails the job; Ignore on DisruptionTarget does not count', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      const podFailurePolicy = {
        rules: [
          { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
        ],
      };
      await c.client.resource('batch/v1', 'jobs').create('default', job('pfp', { backoffLimit: 0, podFailurePolicy }));
      const first = await c.waitFor('pod', async () => activePods(await podsOf(c.client, 'pfp'))[0]);
      await finishPod(c.client, first, { phase: 'Failed', exitCode: 1, now: clock.now(), conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }] });
      clock.advance(11_000);
      poke(c, 'pfp');
      const second = await c.waitFor('replacement', async () => activePods(await podsOf(c.client, 'pfp'))[0]);
      const afterIgnore = await getJob(c.client, 'pfp');
      assert.equal(afterIgnore.status?.failed ?? 0, 0, 'ignored failures are not counted');
      assert.deepEqual(condTypes(afterIgnore), []);
      await finishPod(c.client, second, { phase: 'Failed', exitCode: 42, now: clock.now() });
      const failed = await waitCondition(c, 'pfp', 'Failed');
      const msg = `Container main for pod default/${second.metadata.name} failed with exit code 42 matching FailJob rule at index 0`;
      assert.deepEqual(
        failed.status!.conditions!.map((x) => [x.type, x.reason, x.message]),
        [['FailureTarget', 'PodFailurePolicy', msg], ['Failed', 'PodFailurePolicy', msg]],
      );
      assert.equal(failed.status!.failed, 1);
    } finally {
      await c.close();
    }
  });

  it('activeDeadlineSeconds deletes the running pods and fails the job with DeadlineExceeded', async () => {
    // A test clock, not a 1 s deadline: on a slow machine a real 1 s deadline could pass before the pods are running.
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      const jobs = c.client.resource('batch/v1', 'jobs');
      await jobs.create('default', job('dl', { activeDeadlineSeconds: 60, parallelism: 2 }));
      const pods = await c.waitFor('pods', async () => ((await podsOf(c.client, 'dl')).length === 2 ? podsOf(c.client, 'dl') : undefined));
      for (const p of pods) await markPodRunning(c.client, p);
      assert.equal((await getJob(c.client, 'dl')).status?.conditions?.some((x) => x.type === 'Failed') ?? false, false);
      clock.advance(61_000);
      await jobs.patch('default', 'dl', 'merge', { metadata: { labels: { nudge: '1' } } });
      const failed = await waitCondition(c, 'dl', 'Failed');
      assert.deepEqual(failed.status!.conditions!.map((x) => [x.type, x.reason, x.message]), [
        ['FailureTarget', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
        ['Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
      ]);
      assert.equal(failed.status!.active ?? 0, 0);
      assert.equal(failed.status!.failed, 2);
      await c.waitFor('pods gone', async () => (await podsOf(c.client, 'dl')).length === 0);
      await waitEvent(c, 'dl', { reason: 'SuccessfulDelete', message: `Deleted pod: ${pods[0].metadata.name}` });
      await c.waitFor('DeadlineExceeded event', async () => (await eventsFor(c.client, 'dl')).some((e) => e.reason === 'DeadlineExceeded' && e.type === 'Warning'));
    } finally {
      await c.close();
    }
  });

  it('suspend: no pods while suspended, Suspended condition, resume creates pods, suspending again deletes them', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      const jobs = c.client.resource('batch/v1', 'jobs');
      await jobs.create('default', job('sus', { suspend: true, parallelism: 2, completions: 4 }));
      const s = await waitCondition(c, 'sus', 'Suspended');
      const cond = s.status!.conditions!.find((x) => x.type === 'Suspended')!;
      assert.deepEqual([cond.reason, cond.message], ['JobSuspended', 'Job suspended']);
      assert.equal(s.status!.startTime ?? undefined, undefined);
      assert.equal((await podsOf(c.client, 'sus')).length, 0);
      await jobs.patch('default', 'sus', 'merge', { spec: { suspend: false } });
      await c.waitFor('pods after resume', async () => activePods(await podsOf(c.client, 'sus')).length === 2);
      const resumed = await c.waitFor('resumed', async () => {
        const j = await getJob(c.client, 'sus');
        const sc = j.status?.conditions?.find((x) => x.type === 'Suspended');
        return sc?.status === 'False' && j.status?.startTime ? j : undefined;
      });
      assert.equal(resumed.status!.conditions!.find((x) => x.type === 'Suspended')!.reason, 'JobResumed');
      await jobs.patch('default', 'sus', 'merge', { spec: { suspend: true } });
      await c.waitFor('pods deleted', async () => (await podsOf(c.client, 'sus')).length === 0);
      const again = await c.waitFor('suspended, startTime reset', async () => {
        const j = await getJob(c.client, 'sus');
        return condTypes(j).includes('Suspended') && !j.status?.startTime && (j.status?.active ?? 0) === 0 ? j : undefined;
      });
      assert.ok(!condTypes(again).includes('Failed'));
      await waitEvent(c, 'sus', { reason: 'Suspended', message: 'Job suspended', type: 'Normal' });
      await waitEvent(c, 'sus', { reason: 'Resumed', message: 'Job resumed', type: 'Normal' });
    } finally {
      await c.close();
    }
  });

  it('backoffLimitPerIndex fails an index, keeps the others running, and ends with FailedIndexes', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('pi', { completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 1 }));
      const pods = await c.waitFor('pods', async () => ((await podsOf(c.client, 'pi')).length === 2 ? podsOf(c.client, 'pi') : undefined));
      const ix = (p: { metadata: { annotations?: Record<string, string> } }) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index'];
      const p0 = pods.find((p) => ix(p) === '0')!;
      assert.equal(p0.metadata.annotations!['batch.kubernetes.io/job-index-failure-count'], '0');
      await finishPod(c.client, p0, { phase: 'Failed', now: clock.now() });
      clock.advance(11_000);
      poke(c, 'pi');
      const retry = await c.waitFor('index 0 retried', async () => activePods(await podsOf(c.client, 'pi')).find((p) => ix(p) === '0'));
      assert.equal(retry.metadata.annotations!['batch.kubernetes.io/job-index-failure-count'], '1');
      await finishPod(c.client, retry, { phase: 'Failed', now: clock.now() });
      await c.waitFor('failedIndexes 0', async () => (await getJob(c.client, 'pi')).status?.failedIndexes === '0');
      clock.advance(30_000);
      poke(c, 'pi');
      await settle();
      assert.equal(activePods(await podsOf(c.client, 'pi')).filter((p) => ix(p) === '0').length, 0, 'a failed index is not retried');
      await finishPod(c.client, pods.find((p) => ix(p) === '1')!, { phase: 'Succeeded', now: clock.now() });
      const failed = await waitCondition(c, 'pi', 'Failed');
      assert.equal(failed.status!.conditions!.find((x) => x.type === 'Failed')!.reason, 'FailedIndexes');
      assert.equal(failed.status!.conditions!.find((x) => x.type === 'Failed')!.message, 'Job has failed indexes');
      assert.equal(failed.status!.completedIndexes, '1');
      assert.equal(failed.status!.failed, 2);
    } finally {
      await c.close();
    }
  });

  it('maxFailedIndexes exceeded fails the job', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('mf', { completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 0, maxFailedIndexes: 0 }));
      const pods = await c.waitFor('pods', async () => ((await podsOf(c.client, 'mf')).length === 3 ? podsOf(c.client, 'mf') : undefined));
      await finishPod(c.client, pods[0], { phase: 'Failed', now: clock.now() });
      const failed = await waitCondition(c, 'mf', 'Failed');
      assert.deepEqual(failed.status!.conditions!.map((x) => [x.type, x.reason, x.message]), [
        ['FailureTarget', 'MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes'],
        ['Failed', 'MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes'],
      ]);
      await c.waitFor('only the failed pod is left', async () => (await podsOf(c.client, 'mf')).length === 1);
    } finally {
      await c.close();
    }
  });

  it('successPolicy: SuccessCriteriaMet once the named indexes succeed, the rest are deleted, then Complete', async () => {
    const clock = new TestClock();
    const c = await batchCluster([jobController()], { now: clock.now });
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('sp', { completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0' }] } }));
      const pods = await c.waitFor('pods', async () => ((await podsOf(c.client, 'sp')).length === 3 ? podsOf(c.client, 'sp') : undefined));
      const p0 = pods.find((p) => p.metadata.annotations!['batch.kubernetes.io/job-completion-index'] === '0')!;
      await finishPod(c.client, p0, { phase: 'Succeeded', now: clock.now() });
      const done = await waitCondition(c, 'sp', 'Complete');
      assert.deepEqual(done.status!.conditions!.map((x) => [x.type, x.reason, x.message]), [
        ['SuccessCriteriaMet', 'SuccessPolicy', 'Matched rules at index 0'],
        ['Complete', 'SuccessPolicy', 'Matched rules at index 0'],
      ]);
      assert.equal(done.status!.completedIndexes, '0');
      assert.equal(done.status!.succeeded, 1);
      await c.waitFor('other pods deleted', async () => (await podsOf(c.client, 'sp')).length === 1);
    } finally {
      await c.close();
    }
  });
});
