import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ttlAfterFinishedController, type TtlAfterFinishedController } from '../../../src/controllers/ttl-after-finished.js';
import { jobController } from '../../../src/controllers/job/controller.js';
import type { Job } from '../../../src/api/batch/types.js';
import type { KObject } from '../../../src/api/types.js';
import { rfc3339 } from '../../../src/machinery/object.js';
import type { ControllerCluster } from './harness.js';
import { batchCluster, finishPod, job, podsOf, TestClock } from './job/helpers.js';

async function complete(c: ControllerCluster, name: string, at: number): Promise<void> {
  const rc = c.client.resource('batch/v1', 'jobs');
  const cur = await rc.get('default', name);
  const t = rfc3339(at);
  const cond = (type: string) => ({ type, status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: t, lastTransitionTime: t });
  await rc.update('default', { ...cur, status: { startTime: t, completionTime: t, succeeded: 1, conditions: [cond('SuccessCriteriaMet'), cond('Complete')] } } as KObject, { subresource: 'status' });
}

const gone = async (c: ControllerCluster, name: string) => !(await c.client.resource('batch/v1', 'jobs').get('default', name).catch(() => undefined));

describe('ttl-after-finished controller', () => {
  it('deletes a finished job once ttlSecondsAfterFinished has passed, not before', async () => {
    const clock = new TestClock();
    const c = await batchCluster([ttlAfterFinishedController({ propagationPolicy: 'Background' })], { now: clock.now });
    try {
      const jobs = c.client.resource('batch/v1', 'jobs');
      await jobs.create('default', job('t30', { ttlSecondsAfterFinished: 30 }));
      await jobs.create('default', job('keep'));
      await complete(c, 't30', clock.now());
      await complete(c, 'keep', clock.now());
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(!(await gone(c, 't30')), 'not before its TTL');
      clock.advance(31_000);
      c.manager.controller<TtlAfterFinishedController>('ttl-after-finished')!.enqueue('default/t30');
      await c.waitFor('t30 deleted', () => gone(c, 't30'));
      assert.ok(!(await gone(c, 'keep')), 'jobs without a TTL stay');
    } finally {
      await c.close();
    }
  });

  it('by default deletes in the foreground, as Kubernetes does', async () => {
    const c = await batchCluster([ttlAfterFinishedController()]);
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('fg', { ttlSecondsAfterFinished: 0 }));
      await complete(c, 'fg', Date.now());
      // No garbage collector runs here, so the job waits in the foreground-deletion state.
      const j = await c.waitFor('deletion started', async () => {
        const cur = (await c.client.resource('batch/v1', 'jobs').get('default', 'fg')) as Job;
        return cur.metadata.deletionTimestamp ? cur : undefined;
      });
      assert.deepEqual((j.metadata as { finalizers?: string[] }).finalizers, ['foregroundDeletion']);
    } finally {
      await c.close();
    }
  });

  it('with the job controller: a job with ttlSecondsAfterFinished: 0 disappears once it completes', async () => {
    const c = await batchCluster([jobController(), ttlAfterFinishedController({ propagationPolicy: 'Background' })]);
    try {
      await c.client.resource('batch/v1', 'jobs').create('default', job('quick', { ttlSecondsAfterFinished: 0 }));
      const pod = await c.waitFor('pod', async () => (await podsOf(c.client, 'quick'))[0]);
      await finishPod(c.client, pod, { phase: 'Succeeded', now: Date.now() });
      await c.waitFor('job deleted', () => gone(c, 'quick'));
    } finally {
      await c.close();
    }
  });
});
