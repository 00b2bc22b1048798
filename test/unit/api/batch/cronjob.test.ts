import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cronParseError, durationError } from '../../../../src/api/batch/cronjob/schedule.js';
import { cronJobResource, validateTimeZone } from '../../../../src/api/batch/cronjob/resource.js';
import type { CronJob } from '../../../../src/api/batch/types.js';
import type { KObject } from '../../../../src/api/types.js';
import { cluster, podTemplate, rejection, type Cluster } from './helpers.js';

const st = cronJobResource.strategy;

function cronJob(spec: Record<string, unknown>, name = 'hello'): CronJob {
  return { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, namespace: 'default' }, spec } as CronJob;
}
const basic = (extra: Record<string, unknown> = {}) => cronJob({ schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate() } }, ...extra });

function created(cj: CronJob): CronJob {
  const o = structuredClone(cj);
  st.defaults!(o);
  st.prepareForCreate!(o);
  return o;
}
const createErrors = (cj: CronJob) => st.validate!(created(cj)).map(String);

describe('cron schedule parsing (robfig/cron v3 ParseStandard)', () => {
  it('accepts five fields, names, steps and descriptors', () => {
    for (const s of ['*/5 * * * *', '0 0 1 jan-mar MON-fri', '? 3 * * 0', '@hourly', '@every 1h30m', 'TZ=UTC 0 * * * *', '0,30 9-17/2 * * 1-5']) {
      assert.equal(cronParseError(s), undefined, s);
    }
  });

  it('reports the library errors', () => {
    assert.equal(cronParseError('* * *'), 'expected exactly 5 fields, found 3: [* * *]');
    assert.equal(cronParseError('61 * * * *'), 'end of range (61) above maximum (59): 61');
    assert.equal(cronParseError('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
    assert.equal(cronParseError('5-2 * * * *'), 'beginning of range (5) beyond end of range (2): 5-2');
    assert.equal(cronParseError('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    assert.equal(cronParseError('*/0 * * * *'), 'step of range should be a positive number: */0');
    assert.equal(cronParseError('1-2-3 * * * *'), 'too many hyphens: 1-2-3');
    assert.equal(cronParseError('@reboot'), 'unrecognized descriptor: @reboot');
    assert.equal(cronParseError('@every 5'), 'failed to parse duration @every 5: time: missing unit in duration "5"');
    assert.equal(cronParseError(''), 'empty spec string');
    assert.equal(durationError('1x'), 'time: unknown unit "x" in duration "1x"');
  });
});

describe('CronJob defaults and validation', () => {
  it('defaults concurrency, suspend and the history limits; the job template gets only pod defaults', () => {
    const o = created(basic());
    assert.equal(o.spec!.concurrencyPolicy, 'Allow');
    assert.equal(o.spec!.suspend, false);
    assert.equal(o.spec!.successfulJobsHistoryLimit, 3);
    assert.equal(o.spec!.failedJobsHistoryLimit, 1);
    assert.deepEqual(o.spec!.jobTemplate!.metadata, { creationTimestamp: null });
    assert.equal(o.spec!.jobTemplate!.spec!.backoffLimit, undefined);
    assert.equal(o.spec!.jobTemplate!.spec!.template!.spec!.schedulerName, 'default-scheduler');
    assert.deepEqual(st.validate!(o), []);
  });

  it('rejects bad schedules, TZ in the schedule and bad time zones', () => {
    assert.deepEqual(createErrors(basic({ schedule: '0 25 * * *' })), ['spec.schedule: Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25']);
    assert.deepEqual(createErrors(basic({ schedule: 'TZ=UTC 0 * * * *' })), [
      'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
    assert.deepEqual(createErrors(basic({ timeZone: 'Mars/Olympus' })), ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']);
    assert.deepEqual(validateTimeZone('Local', 'tz').map(String), ['tz: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']);
    assert.deepEqual(validateTimeZone('', 'tz').map(String), ['tz: Invalid value: "": timeZone must be nil or non-empty string']);
    assert.deepEqual(validateTimeZone('Europe/Berlin', 'tz'), []);
    assert.deepEqual(validateTimeZone('Etc/UTC', 'tz'), []);
  });

  it('checks the concurrency policy, the job template and the name length', () => {
    const errs = createErrors(cronJob({
      schedule: '@daily',
      concurrencyPolicy: 'Sometimes',
      jobTemplate: { spec: { manualSelector: true, template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } },
    }, 'a'.repeat(53)));
    assert.deepEqual(errs, [
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
      'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
      'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
      `metadata.name: Invalid value: "${'a'.repeat(53)}": must be no more than 52 characters`,
    ]);
  });

  it('allows TZ on update when the stored schedule already had it, and warns', () => {
    const old = created(basic({ schedule: 'CRON_TZ=UTC 0 * * * *' }));
    const next = structuredClone(old);
    next.spec!.schedule = 'CRON_TZ=UTC 5 * * * *';
    assert.deepEqual(st.validateUpdate!(next, old), []);
    assert.deepEqual(st.warnings!(next, old), [
      'cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
    ]);
  });

  it('prints NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE', () => {
    const o = created(basic());
    o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
    const now = Date.parse('2024-01-01T01:00:00Z');
    assert.deepEqual(cronJobResource.columns.map((c) => c.name), ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
    assert.deepEqual(cronJobResource.columns.map((c) => c.cell(o, { now })), ['hello', '*/5 * * * *', '<none>', 'False', 0, '<none>', '60m', 'c', 'busybox:1.36', '<none>']);
    o.status = { active: [{ name: 'j' }], lastScheduleTime: '2024-01-01T00:55:00Z' };
    assert.equal(cronJobResource.columns[4].cell(o, { now }), 1);
    assert.equal(cronJobResource.columns[5].cell(o, { now }), '5m');
    assert.deepEqual(cronJobResource.shortNames, ['cj']);
  });
});

describe('CronJob through the API', () => {
  let c: Cluster;
  before(async () => {
    c = await cluster([cronJobResource]);
  });
  after(async () => c.close());

  it('creates, rejects and updates', async () => {
    const cjs = c.client.resource('batch/v1', 'cronjobs');
    const o = (await cjs.create('default', basic() as KObject)) as CronJob;
    assert.equal(o.metadata.generation, 1);
    assert.equal(o.spec!.concurrencyPolicy, 'Allow');
    assert.deepEqual(o.status, {});
    const err = await rejection(cjs.create('default', basic({ schedule: 'nope' }) as KObject));
    assert.equal(err.code, 422);
    assert.equal(err.message, 'CronJob.batch "hello" is invalid: spec.schedule: Invalid value: "nope": expected exactly 5 fields, found 1: [nope]');
    const next = structuredClone(o);
    next.spec!.suspend = true;
    const up = (await cjs.update('default', next)) as CronJob;
    assert.equal(up.spec!.suspend, true);
    assert.equal(up.metadata.generation, 2);
  });
});
