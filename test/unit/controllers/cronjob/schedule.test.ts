import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSchedule, rfc3339InZone } from '../../../../src/controllers/cronjob/schedule.js';
import { jobFromTemplate, jobName, mostRecentScheduleTime, nextScheduleDelay } from '../../../../src/controllers/cronjob/util.js';
import type { CronJob } from '../../../../src/api/batch/types.js';

const T = (s: string) => Date.parse(s);
const next = (spec: string, from: string) => new Date(parseSchedule(spec).next(T(from))!).toISOString();

describe('cron schedules', () => {
  it('steps, ranges, lists and names', () => {
    assert.equal(next('*/15 * * * *', '2024-05-01T10:07:00Z'), '2024-05-01T10:15:00.000Z');
    assert.equal(next('*/15 * * * *', '2024-05-01T10:45:00Z'), '2024-05-01T11:00:00.000Z');
    assert.equal(next('5/20 * * * *', '2024-05-01T10:06:00Z'), '2024-05-01T10:25:00.000Z');
    assert.equal(next('0 9 * * 1-5', '2024-05-03T10:00:00Z'), '2024-05-06T09:00:00.000Z'); // Friday → Monday
    assert.equal(next('0 0 1 jan,JUL *', '2024-02-10T00:00:00Z'), '2024-07-01T00:00:00.000Z');
    assert.equal(next('0 12 * * sun', '2024-05-01T00:00:00Z'), '2024-05-05T12:00:00.000Z');
    assert.equal(next('30 2,14 * * *', '2024-05-01T03:00:00Z'), '2024-05-01T14:30:00.000Z');
  });

  it('day of month and day of week are OR-ed unless one is *', () => {
    // 2024-09-06 is a Friday, before the 13th.
    assert.equal(next('0 0 13 * 5', '2024-09-01T00:00:00Z'), '2024-09-06T00:00:00.000Z');
    assert.equal(next('0 0 13 * *', '2024-09-01T00:00:00Z'), '2024-09-13T00:00:00.000Z');
    assert.equal(next('0 0 * * 5', '2024-09-07T00:00:00Z'), '2024-09-13T00:00:00.000Z');
    // A step above 1 drops the star: OR applies ("*/1" still counts as *).
    assert.equal(next('0 0 13 * */2', '2024-09-01T05:00:00Z'), '2024-09-03T00:00:00.000Z');
    assert.equal(next('0 0 13 * */1', '2024-09-01T05:00:00Z'), '2024-09-13T00:00:00.000Z');
  });

  it('macros', () => {
    assert.equal(next('@hourly', '2024-05-01T10:30:00Z'), '2024-05-01T11:00:00.000Z');
    assert.equal(next('@daily', '2024-05-01T10:30:00Z'), '2024-05-02T00:00:00.000Z');
    assert.equal(next('@midnight', '2024-05-01T10:30:00Z'), '2024-05-02T00:00:00.000Z');
    assert.equal(next('@weekly', '2024-05-01T10:30:00Z'), '2024-05-05T00:00:00.000Z');
    assert.equal(next('@monthly', '2024-05-01T10:30:00Z'), '2024-06-01T00:00:00.000Z');
    assert.equal(next('@yearly', '2024-05-01T10:30:00Z'), '2025-01-01T00:00:00.000Z');
    assert.equal(next('@annually', '2024-05-01T10:30:00Z'), '2025-01-01T00:00:00.000Z');
    assert.equal(next('@every 90s', '2024-05-01T10:30:00.500Z'), '2024-05-01T10:31:30.000Z');
  });

  it('time zones, including a DST gap that skips a day', () => {
    assert.equal(next('TZ=Asia/Tokyo 0 9 * * *', '2024-01-01T00:30:00Z'), '2024-01-02T00:00:00.000Z');
    assert.equal(next('CRON_TZ=America/New_York 0 9 * * *', '2024-07-01T00:00:00Z'), '2024-07-01T13:00:00.000Z');
    assert.equal(next('CRON_TZ=America/New_York 0 9 * * *', '2024-01-01T00:00:00Z'), '2024-01-01T14:00:00.000Z');
    // 2024-03-10 02:30 does not exist in New York: the next run is on the 11th (EDT).
    assert.equal(next('TZ=America/New_York 30 2 * * *', '2024-03-10T00:00:00Z'), '2024-03-11T06:30:00.000Z');
    assert.equal(rfc3339InZone(T('2024-01-01T00:00:00Z'), 'Asia/Tokyo'), '2024-01-01T09:00:00+09:00');
    assert.equal(rfc3339InZone(T('2024-01-01T00:00:00Z'), 'America/New_York'), '2023-12-31T19:00:00-05:00');
    assert.equal(rfc3339InZone(T('2024-01-01T00:00:00Z'), ''), '2024-01-01T00:00:00Z');
  });

  it('rejects what the API rejects, with robfig/cron messages', () => {
    assert.throws(() => parseSchedule('* * * *'), /expected exactly 5 fields, found 4/);
    assert.throws(() => parseSchedule('61 * * * *'), /end of range \(61\) above maximum \(59\): 61/);
    assert.throws(() => parseSchedule('@fortnightly'), /unrecognized descriptor: @fortnightly/);
  });

  it('no start time within five years gives none', () => {
    assert.equal(parseSchedule('0 0 30 2 *').next(T('2024-01-01T00:00:00Z')), undefined);
  });
});

describe('cronjob schedule arithmetic', () => {
  const cj = (extra: Partial<CronJob['spec']> = {}, status: CronJob['status'] = {}): CronJob =>
    ({
      apiVersion: 'batch/v1', kind: 'CronJob',
      metadata: { name: 'hello', namespace: 'default', uid: 'u1', creationTimestamp: '2024-05-01T10:00:30Z' },
      spec: { schedule: '* * * * *', jobTemplate: { metadata: { labels: { a: 'b' } }, spec: { template: { spec: {} } } }, ...extra },
      status,
    }) as CronJob;

  it('finds the most recent unmet time and counts missed ones', () => {
    const s = parseSchedule('* * * * *');
    const r = mostRecentScheduleTime(cj(), T('2024-05-01T10:03:10Z'), s, { withStartingDeadline: false });
    assert.equal(new Date(r.mostRecent!).toISOString(), '2024-05-01T10:03:00.000Z');
    assert.equal(r.missed, 'few');
    const none = mostRecentScheduleTime(cj(), T('2024-05-01T10:00:50Z'), s, { withStartingDeadline: false });
    assert.equal(none.mostRecent, undefined);
    const many = mostRecentScheduleTime(cj(), T('2024-05-01T12:00:10Z'), s, { withStartingDeadline: false });
    assert.equal(many.missed, 'many');
    assert.equal(new Date(many.mostRecent!).toISOString(), '2024-05-01T12:00:00.000Z');
    // startingDeadlineSeconds bounds how far back it looks.
    const bounded = mostRecentScheduleTime(cj({ startingDeadlineSeconds: 20 }), T('2024-05-01T12:00:30Z'), s, { withStartingDeadline: true });
    assert.equal(bounded.mostRecent, undefined);
    assert.equal(nextScheduleDelay(cj({}, { lastScheduleTime: '2024-05-01T10:03:00Z' }), T('2024-05-01T10:03:10Z'), s), 50_100);
  });

  it('names jobs after the scheduled minute and stamps the scheduled time in the zone', () => {
    const t = T('2024-05-01T10:03:00Z');
    assert.equal(jobName(cj(), t), `hello-${t / 60_000}`);
    const job = jobFromTemplate(cj({ timeZone: 'Asia/Tokyo' }), t);
    assert.equal(job.metadata.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2024-05-01T19:03:00+09:00');
    assert.deepEqual(job.metadata.labels, { a: 'b' });
    assert.deepEqual((job.metadata as { ownerReferences?: unknown[] }).ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'hello', uid: 'u1', controller: true, blockOwnerDeletion: true }]);
  });
});
