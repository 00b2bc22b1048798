import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cronJobController, type CronJobController } from '../../../../src/controllers/cronjob/controller.js';
import { jobController } from '../../../../src/controllers/job/controller.js';
import type { CronJob, Job } from '../../../../src/api/batch/types.js';
import type { KObject } from '../../../../src/api/types.js';
import { rfc3339 } from '../../../../src/machinery/object.js';
import type { ControllerCluster } from '../harness.js';
import { batchCluster, eventsFor, podsOf, TestClock } from '../job/helpers.js';

const cronJob = (name: string, spec: Record<string, unknown> = {}): KObject =>
  ({
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, namespace: 'default' },
    spec: {
      schedule: '* * * * *',
      jobTemplate: { metadata: { labels: { app: name } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } } },
      ...spec,
    },
  }) as KObject;

const poke = (c: ControllerCluster, name: string) => c.manager.controller<CronJobController>('cronjob')!.enqueue(`default/${name}`);
const getCj = async (c: ControllerCluster, name: string) => (await c.client.resource('batch/v1', 'cronjobs').get('default', name)) as CronJob;
const jobsOf = async (c: ControllerCluster, app: string) =>
  ((await c.client.resource('batch/v1', 'jobs').list('default', { labelSelector: `app=${app}` })).items as Job[]).filter((j) => !j.metadata.deletionTimestamp).sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));

/** Moves the clock to `secs` seconds past the `n`-th minute boundary after the CronJob's creation. */
function toMinute(clock: TestClock, cj: CronJob, n: number, secs = 2): number {
  const created = Date.parse(cj.metadata.creationTimestamp!);
  const boundary = (Math.floor(created / 60_000) + n) * 60_000;
  clock.offsetMs = boundary + secs * 1000 - Date.now();
  return boundary;
}

/** Writes a finished status as the job controller would. */
async function finishJob(c: ControllerCluster, job: Job, type: 'Complete' | 'Failed', at: number): Promise<void> {
  const rc = c.client.resource('batch/v1', 'jobs');
  const cur = (await rc.get('default', job.metadata.name!)) as Job;
  const t = rfc3339(at);
  const conds = type === 'Complete'
    ? [{ type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: t, lastTransitionTime: t },
       { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: t, lastTransitionTime: t }]
    : [{ type: 'FailureTarget', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: t, lastTransitionTime: t },
       { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastProbeTime: t, lastTransitionTime: t }];
  const status = { startTime: t, conditions: conds, ...(type === 'Complete' ? { completionTime: t, succeeded: 1 } : { failed: 1 }), uncountedTerminatedPods: {} };
  await rc.update('default', { ...cur, status } as KObject, { subresource: 'status' });
}

describe('cronjob controller', () => {
  it('creates a job per start time, named after the minute, with status and events', async () => {
    const clock = new TestClock();
    const c = await batchCluster([cronJobController()], { now: clock.now });
    try {
      const cj = (await c.client.resource('batch/v1', 'cronjobs').create('default', cronJob('hello', { timeZone: 'Asia/Tokyo' }))) as CronJob;
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await jobsOf(c, 'hello')).length, 0, 'nothing before the first start time');
      const t1 = toMinute(clock, cj, 1);
      poke(c, 'hello');
      const [job] = await c.waitFor('first job', async () => ((await jobsOf(c, 'hello')).length === 1 ? jobsOf(c, 'hello') : undefined));
      assert.equal(job.metadata.name, `hello-${t1 / 60_000}`);
      const tokyo = new Date(t1 + 9 * 3_600_000).toISOString().slice(0, 19) + '+09:00';
      assert.equal(job.metadata.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp'], tokyo);
      assert.equal((job.metadata as { ownerReferences?: { kind: string; controller?: boolean }[] }).ownerReferences![0].kind, 'CronJob');
      const st = await c.waitFor('status', async () => {
        const cur = await getCj(c, 'hello');
        return cur.status?.active?.length === 1 ? cur : undefined;
      });
      assert.equal(st.status!.lastScheduleTime, rfc3339(t1));
      assert.deepEqual({ ...st.status!.active![0] }, { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name, namespace: 'default', resourceVersion: st.status!.active![0].resourceVersion, uid: job.metadata.uid });
      const ev = await c.waitFor('event', async () => (await eventsFor(c.client, 'hello')).find((e) => e.reason === 'SuccessfulCreate'));
      assert.equal(ev.message, `Created job ${job.metadata.name}`);
      // A completed job leaves the active list and sets lastSuccessfulTime.
      await finishJob(c, job, 'Complete', t1 + 5000);
      const done = await c.waitFor('job seen completed', async () => {
        const cur = await getCj(c, 'hello');
        return !cur.status?.active?.length && cur.status?.lastSuccessfulTime ? cur : undefined;
      });
      assert.equal(done.status!.lastSuccessfulTime, rfc3339(t1 + 5000));
      const saw = await c.waitFor('SawCompletedJob', async () => (await eventsFor(c.client, 'hello')).find((e) => e.reason === 'SawCompletedJob'));
      assert.equal(saw.message, `Saw completed job: ${job.metadata.name}, condition: Complete`);
      // The next minute makes the next job.
      const t2 = toMinute(clock, cj, 2);
      poke(c, 'hello');
      await c.waitFor('second job', async () => (await jobsOf(c, 'hello')).some((j) => j.metadata.name === `hello-${t2 / 60_000}`));
    } finally {
      await c.close();
    }
  });

  it('Forbid skips a start while a job runs; Replace deletes the running job', async () => {
    const clock = new TestClock();
    const c = await batchCluster([cronJobController()], { now: clock.now });
    try {
      const cjs = c.client.resource('batch/v1', 'cronjobs');
      const cj = (await cjs.create('default', cronJob('fb', { concurrencyPolicy: 'Forbid' }))) as CronJob;
      toMinute(clock, cj, 1);
      poke(c, 'fb');
      await c.waitFor('first job', async () => (await jobsOf(c, 'fb')).length === 1);
      await c.waitFor('active', async () => (await getCj(c, 'fb')).status?.active?.length === 1);
      toMinute(clock, cj, 2);
      poke(c, 'fb');
      const ev = await c.waitFor('JobAlreadyActive', async () => (await eventsFor(c.client, 'fb')).find((e) => e.reason === 'JobAlreadyActive'));
      assert.equal(ev.message, 'Not starting job because prior execution is running and concurrency policy is Forbid');
      assert.equal((await jobsOf(c, 'fb')).length, 1);

      clock.offsetMs = 0;
      const rp = (await cjs.create('default', cronJob('rp', { concurrencyPolicy: 'Replace' }))) as CronJob;
      toMinute(clock, rp, 1);
      poke(c, 'rp');
      const [first] = await c.waitFor('first job', async () => ((await jobsOf(c, 'rp')).length === 1 ? jobsOf(c, 'rp') : undefined));
      await c.waitFor('active', async () => (await getCj(c, 'rp')).status?.active?.length === 1);
      const t2 = toMinute(clock, rp, 2);
      poke(c, 'rp');
      const jobs = await c.waitFor('replaced', async () => {
        const js = await jobsOf(c, 'rp');
        return js.length === 1 && js[0].metadata.name === `rp-${t2 / 60_000}` ? js : undefined;
      });
      assert.notEqual(jobs[0].metadata.uid, first.metadata.uid);
      const del = await c.waitFor('SuccessfulDelete', async () => (await eventsFor(c.client, 'rp')).find((e) => e.reason === 'SuccessfulDelete'));
      assert.equal(del.message, `Deleted job ${first.metadata.name}`);
      const st = await c.waitFor('active is the new job', async () => {
        const cur = await getCj(c, 'rp');
        return cur.status?.active?.length === 1 && cur.status.active[0].uid === jobs[0].metadata.uid ? cur : undefined;
      });
      assert.ok(st);
    } finally {
      await c.close();
    }
  });

  it('keeps successfulJobsHistoryLimit and failedJobsHistoryLimit finished jobs', async () => {
    const clock = new TestClock();
    const c = await batchCluster([cronJobController()], { now: clock.now });
    try {
      const cj = (await c.client.resource('batch/v1', 'cronjobs').create('default', cronJob('hist', { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1 }))) as CronJob;
      const made: Job[] = [];
      for (let n = 1; n <= 4; n++) {
        const t = toMinute(clock, cj, n);
        poke(c, 'hist');
        const j = await c.waitFor(`job ${n}`, async () => (await jobsOf(c, 'hist')).find((x) => x.metadata.name === `hist-${t / 60_000}`));
        made.push(j);
        await c.waitFor('active', async () => (await getCj(c, 'hist')).status?.active?.some((r) => r.uid === j.metadata.uid));
        await finishJob(c, j, n % 2 ? 'Complete' : 'Failed', t + 1000);
      }
      poke(c, 'hist');
      const left = await c.waitFor('two left', async () => {
        const js = await jobsOf(c, 'hist');
        return js.length === 2 ? js : undefined;
      });
      assert.deepEqual(left.map((j) => j.metadata.name), [made[2].metadata.name, made[3].metadata.name]);
      for (const gone of made.slice(0, 2)) {
        await c.waitFor(`SuccessfulDelete ${gone.metadata.name}`, async () => (await eventsFor(c.client, 'hist')).some((e) => e.reason === 'SuccessfulDelete' && e.message === `Deleted job ${gone.metadata.name}`));
      }
    } finally {
      await c.close();
    }
  });

  it('more than 100 missed start times: TooManyMissedTimes, and the most recent one still runs', async () => {
    const clock = new TestClock();
    const c = await batchCluster([cronJobController()], { now: clock.now });
    try {
      const cj = (await c.client.resource('batch/v1', 'cronjobs').create('default', cronJob('late'))) as CronJob;
      const t = toMinute(clock, cj, 150);
      poke(c, 'late');
      const ev = await c.waitFor('TooManyMissedTimes', async () => (await eventsFor(c.client, 'late')).find((e) => e.reason === 'TooManyMissedTimes'));
      assert.equal(ev.type, 'Warning');
      assert.equal(ev.message, 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
      await c.waitFor('job for the latest time', async () => (await jobsOf(c, 'late')).some((j) => j.metadata.name === `late-${t / 60_000}`));
      assert.equal((await jobsOf(c, 'late')).length, 1);
    } finally {
      await c.close();
    }
  });

  it('startingDeadlineSeconds skips a start found too late; suspend stops scheduling', async () => {
    const clock = new TestClock();
    const c = await batchCluster([cronJobController()], { now: clock.now });
    try {
      const cjs = c.client.resource('batch/v1', 'cronjobs');
      const cj = (await cjs.create('default', cronJob('dl', { startingDeadlineSeconds: 10 }))) as CronJob;
      toMinute(clock, cj, 1, 30);
      poke(c, 'dl');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await jobsOf(c, 'dl')).length, 0, '30 s late with a 10 s deadline');
      toMinute(clock, cj, 2, 3);
      poke(c, 'dl');
      await c.waitFor('job within the deadline', async () => (await jobsOf(c, 'dl')).length === 1);

      clock.offsetMs = 0;
      const sus = (await cjs.create('default', cronJob('sus', { suspend: true }))) as CronJob;
      toMinute(clock, sus, 1);
      poke(c, 'sus');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await jobsOf(c, 'sus')).length, 0);
      await cjs.patch('default', 'sus', 'merge', { spec: { suspend: false } });
      await c.waitFor('job after resume', async () => (await jobsOf(c, 'sus')).length === 1);
    } finally {
      await c.close();
    }
  });

  it('a job made with kubectl create job --from=cronjob runs', async () => {
    const c = await batchCluster([cronJobController(), jobController()]);
    try {
      const cj = (await c.client.resource('batch/v1', 'cronjobs').create('default', cronJob('man', { schedule: '0 0 1 1 *' }))) as CronJob;
      await c.client.resource('batch/v1', 'jobs').create('default', {
        apiVersion: 'batch/v1', kind: 'Job',
        metadata: {
          name: 'man-manual', namespace: 'default', annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' }, labels: { app: 'man' },
          ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'man', uid: cj.metadata.uid, controller: true }],
        },
        spec: structuredClone(cj.spec!.jobTemplate!.spec),
      } as KObject);
      await c.waitFor('pod of the manual job', async () => (await podsOf(c.client, 'man-manual')).length === 1);
    } finally {
      await c.close();
    }
  });
});
