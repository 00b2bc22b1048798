// CronJob scheduling arithmetic (pkg/controller/cronjob/utils.go): the most recent unmet start time, the
// "too many missed start times" rule, when to look again, and the Job a CronJob makes for one start time.
import type { CronJob, Job } from '../../api/batch/types.js';
import { clone } from '../../machinery/object.js';
import { rfc3339InZone, type Schedule } from './schedule.js';
import { controllerRef } from '../framework/owner.js';

export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** A little past the start time, so the sync sees it as due (nextScheduleDelta). */
export const NEXT_SCHEDULE_DELTA_MS = 100;
const MANY_MISSED = 100;

export type Missed = 'none' | 'few' | 'many';

export interface RecentSchedule {
  earliest: number;
  mostRecent?: number;
  missed: Missed;
}

const parse = (t: string | null | undefined): number | undefined => (t ? Date.parse(t) : undefined);

/** mostRecentScheduleTime: the latest start time in (earliest, now], estimating how many were missed. */
export function mostRecentScheduleTime(cj: CronJob, now: number, sched: Schedule, opts: { withStartingDeadline: boolean }): RecentSchedule {
  let earliest = parse(cj.status?.lastScheduleTime) ?? parse(cj.metadata.creationTimestamp) ?? now;
  const deadline = cj.spec?.startingDeadlineSeconds;
  if (opts.withStartingDeadline && deadline != null) earliest = Math.max(earliest, now - deadline * 1000);
  const t1 = sched.next(earliest);
  if (t1 === undefined || now < t1) return { earliest, missed: 'none' };
  const t2 = sched.next(t1);
  if (t2 === undefined || now < t2) return { earliest, mostRecent: t1, missed: 'none' };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) throw new Error('time difference between two schedules is less than 1 second');
  const elapsed = Math.floor((now - t1) / 1000);
  const missedCount = Math.floor(elapsed / between) + 1;
  let mostRecent: number | undefined;
  // Jump close to now, then let the schedule walk the last stretch (irregular schedules need the walk).
  const from = t1 + (missedCount - 2) * between * 1000;
  for (let t = sched.next(from); t !== undefined && t <= now; t = sched.next(t)) mostRecent = t;
  return { earliest, mostRecent, missed: missedCount > MANY_MISSED ? 'many' : missedCount > 0 ? 'few' : 'none' };
}

/** How long until the next start time is due (nextScheduleTimeDuration). */
export function nextScheduleDelay(cj: CronJob, now: number, sched: Schedule): number | undefined {
  let r: RecentSchedule;
  try {
    r = mostRecentScheduleTime(cj, now, sched, { withStartingDeadline: false });
  } catch {
    return undefined;
  }
  const base = r.mostRecent ?? r.earliest;
  const next = sched.next(base);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
}

/** getJobName: "<cronjob>-<scheduled time in minutes since the epoch>". */
export function jobName(cj: CronJob, scheduled: number): string {
  return `${cj.metadata.name}-${Math.floor(scheduled / 60_000)}`;
}

/** getJobFromTemplate2: the template's labels and annotations, the scheduled-timestamp annotation, the owner. */
export function jobFromTemplate(cj: CronJob, scheduled: number): Job {
  const tpl = cj.spec?.jobTemplate ?? {};
  const annotations: Record<string, string> = { ...((tpl.metadata?.annotations as Record<string, string> | undefined) ?? {}) };
  annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = rfc3339InZone(scheduled, cj.spec?.timeZone ?? '');
  const labels = { ...((tpl.metadata?.labels as Record<string, string> | undefined) ?? {}) };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj, scheduled),
      namespace: cj.metadata.namespace,
      labels,
      annotations,
      ownerReferences: [controllerRef(cj)],
    },
    spec: clone(tpl.spec ?? {}),
  } as Job;
}

/** formatSchedule: the timeZone field becomes a TZ= prefix unless the schedule names a zone itself. */
export function scheduleWithZone(cj: CronJob, validZone: (tz: string) => boolean): string {
  const schedule = cj.spec?.schedule ?? '';
  if (schedule.includes('TZ')) return schedule;
  const tz = cj.spec?.timeZone;
  if (tz != null && validZone(tz)) return `TZ=${tz} ${schedule}`;
  return schedule;
}

/** byJobStartTime: oldest start first, jobs without a start time last, then by name. */
export function byStartTime(a: Job, b: Job): number {
  const sa = parse(a.status?.startTime);
  const sb = parse(b.status?.startTime);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb) return (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
  return sa! - sb!;
}
