// The CronJob controller (pkg/controller/cronjob, ControllerV2): creates one Job per start time, named after the
// time, honouring suspend, startingDeadlineSeconds and the concurrency policy; keeps status.active,
// lastScheduleTime and lastSuccessfulTime; prunes finished jobs beyond the history limits; requeues itself at
// the next start time instead of polling.
import type { CronJob, Job } from '../../api/batch/types.js';
import type { ObjectReference } from '../../api/core/common.js';
import { objectKey, type Informer } from '../../client/informer.js';
import type { ReconcileResult } from '../../client/workqueue.js';
import { StatusError } from '../../machinery/errors.js';
import { rfc3339 } from '../../machinery/object.js';
import { Reconciler, type ControllerContext, type ControllerFactory } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events.js';
import { parseSchedule, validTimeZone, type Schedule } from './schedule.js';
import { byStartTime, jobFromTemplate, jobName, mostRecentScheduleTime, nextScheduleDelay, scheduleWithZone } from './util.js';
import { finishedConditionType } from '../job/status.js';
import { controllerOf, controllerUidIndex } from '../framework/owner.js';

const isCronJobRef = (r: { apiVersion: string; kind: string } | undefined) => r?.kind === 'CronJob' && r.apiVersion === 'batch/v1';
const notFound = (e: unknown) => e instanceof StatusError && e.code === 404;

/** Go's time.RFC1123Z of a UTC instant: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000');
}

function jobRef(job: Job): ObjectReference {
  return { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name, namespace: job.metadata.namespace, resourceVersion: job.metadata.resourceVersion, uid: job.metadata.uid } as ObjectReference;
}

interface SyncResult {
  requeueAfterMs?: number;
  updateStatus: boolean;
  error?: unknown;
}

export class CronJobController extends Reconciler {
  readonly name = 'cronjob';
  private cronJobs!: Informer;
  private jobs!: Informer;
  private recorder!: EventRecorder;

  constructor(ctx: ControllerContext) {
    super(ctx, { workers: 5 });
  }

  setup(): void {
    this.recorder = this.ctx.recorder('cronjob-controller');
    this.cronJobs = this.informer('batch/v1', 'cronjobs');
    this.jobs = this.informer('batch/v1', 'jobs');
    this.jobs.addIndex('controllerUid', controllerUidIndex);
    this.cronJobs.addHandler({
      add: (o) => this.enqueueObject(o),
      update: (old, cur) => this.cronJobUpdated(old as CronJob, cur as CronJob),
      delete: (o) => this.enqueueObject(o),
    });
    const jobChanged = (j: Job) => {
      const ref = controllerOf(j);
      if (isCronJobRef(ref)) this.enqueue(`${j.metadata.namespace}/${ref!.name}`);
    };
    this.jobs.addHandler({ add: jobChanged, update: (_, j) => jobChanged(j), delete: jobChanged });
  }

  /** A new schedule or zone moves the wake-up time; any other change is looked at now. */
  private cronJobUpdated(old: CronJob, cur: CronJob): void {
    if (old.spec?.schedule !== cur.spec?.schedule || (old.spec?.timeZone ?? null) !== (cur.spec?.timeZone ?? null)) {
      let sched: Schedule;
      try {
        sched = parseSchedule(scheduleWithZone(cur, validTimeZone));
      } catch {
        return;
      }
      const d = nextScheduleDelay(cur, this.ctx.now(), sched);
      if (d !== undefined) this.enqueueAfter(objectKey(cur), Math.max(0, d));
      return;
    }
    this.enqueueObject(cur);
  }

  async reconcile(key: string): Promise<ReconcileResult | void> {
    const cached = this.cronJobs.getByKey(key) as CronJob | undefined;
    if (!cached) return;
    const jobs = this.jobs.byIndex('controllerUid', cached.metadata.uid!) as Job[];
    const cj = structuredClone(cached);
    cj.status ??= {};
    const cleaned = await this.cleanupFinishedJobs(cj, jobs);
    const r = await this.syncCronJob(cj, jobs);
    if (cleaned || r.updateStatus) {
      if (cj.status.active && cj.status.active.length === 0) delete cj.status.active;
      await this.ctx.client.resource('batch/v1', 'cronjobs').update(cj.metadata.namespace!, cj, { subresource: 'status' });
    }
    if (r.requeueAfterMs !== undefined) return { requeueAfterMs: Math.max(0, r.requeueAfterMs) };
    if (r.error) throw r.error;
  }

  private async deleteJob(cj: CronJob, job: Job): Promise<boolean> {
    try {
      await this.ctx.client.resource('batch/v1', 'jobs').delete(job.metadata.namespace!, job.metadata.name!, { propagationPolicy: 'Background' });
    } catch (e) {
      if (!notFound(e)) {
        this.recorder.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(e as Error).message}`);
        return false;
      }
    }
    cj.status!.active = (cj.status!.active ?? []).filter((r) => r.uid !== job.metadata.uid);
    this.recorder.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
    return true;
  }

  /** cleanupFinishedJobs: keep the newest successful/failed jobs up to their history limits. */
  private async cleanupFinishedJobs(cj: CronJob, jobs: Job[]): Promise<boolean> {
    const spec = cj.spec ?? {};
    if (spec.successfulJobsHistoryLimit == null && spec.failedJobsHistoryLimit == null) return false;
    const live = jobs.filter((j) => !j.metadata.deletionTimestamp);
    let changed = false;
    const prune = async (list: Job[], limit: number | null | undefined) => {
      if (limit == null || list.length <= limit) return;
      for (const j of [...list].sort(byStartTime).slice(0, list.length - limit)) if (await this.deleteJob(cj, j)) changed = true;
    };
    await prune(live.filter((j) => finishedConditionType(j) === 'Complete'), spec.successfulJobsHistoryLimit);
    await prune(live.filter((j) => finishedConditionType(j) === 'Failed'), spec.failedJobsHistoryLimit);
    return changed;
  }

  private async syncCronJob(cj: CronJob, jobs: Job[]): Promise<SyncResult> {
    const status = cj.status!;
    const inActive = (uid: string | undefined) => (status.active ?? []).some((r) => r.uid === uid);
    const dropActive = (uid: string | undefined) => (status.active = (status.active ?? []).filter((r) => r.uid !== uid));
    let updateStatus = false;
    const now = this.ctx.now();
    const children = new Set<string>();
    for (const j of jobs) {
      children.add(j.metadata.uid!);
      const finished = finishedConditionType(j);
      const found = inActive(j.metadata.uid);
      if (!found && !finished) {
        // Possibly created just before a status write that is not cached yet: ask the API server.
        const fresh = (await this.ctx.client.resource('batch/v1', 'cronjobs').get(cj.metadata.namespace!, cj.metadata.name!).catch(() => undefined)) as CronJob | undefined;
        if ((fresh?.status?.active ?? []).some((r) => r.uid === j.metadata.uid)) {
          status.active = fresh!.status!.active;
          continue;
        }
        this.recorder.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata.name}`);
      } else if (found && finished) {
        dropActive(j.metadata.uid);
        this.recorder.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata.name}, condition: ${finished}`);
        updateStatus = true;
      }
      if (finished === 'Complete' && j.status?.completionTime) {
        const last = status.lastSuccessfulTime ? Date.parse(status.lastSuccessfulTime) : undefined;
        if (last === undefined || Date.parse(j.status.completionTime) > last) {
          status.lastSuccessfulTime = j.status.completionTime;
          updateStatus = true;
        }
      }
    }
    for (const ref of [...(status.active ?? [])]) {
      if (children.has(ref.uid!)) continue;
      try {
        await this.ctx.client.resource('batch/v1', 'jobs').get(ref.namespace ?? cj.metadata.namespace!, ref.name!);
      } catch (e) {
        if (!notFound(e)) return { updateStatus, error: e };
        this.recorder.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        dropActive(ref.uid);
        updateStatus = true;
      }
    }
    if (cj.metadata.deletionTimestamp) return { updateStatus };
    const tz = cj.spec?.timeZone;
    if (tz != null && !validTimeZone(tz)) {
      this.recorder.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(tz)}: unknown time zone ${tz}`);
      return { updateStatus };
    }
    if (cj.spec?.suspend) return { updateStatus };
    const schedule = cj.spec?.schedule ?? '';
    if (schedule.includes('TZ')) {
      this.recorder.event(cj, 'Warning', 'UnsupportedSchedule', `CRON_TZ or TZ used in schedule ${JSON.stringify(schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    }
    let sched: Schedule;
    try {
      sched = parseSchedule(scheduleWithZone(cj, validTimeZone));
    } catch (e) {
      this.recorder.event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(schedule)} : ${(e as Error).message}`);
      return { updateStatus };
    }
    let scheduled: number | undefined;
    try {
      const r = mostRecentScheduleTime(cj, now, sched, { withStartingDeadline: true });
      scheduled = r.mostRecent !== undefined && r.mostRecent <= now ? r.mostRecent : undefined;
      if (scheduled !== undefined && r.missed === 'many') {
        this.recorder.event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
      }
    } catch (e) {
      this.recorder.event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${schedule} : ${(e as Error).message}`);
      return { updateStatus };
    }
    const next = () => nextScheduleDelay(cj, now, sched);
    if (scheduled === undefined) return { updateStatus, requeueAfterMs: next() };
    const deadline = cj.spec?.startingDeadlineSeconds;
    if (deadline != null && scheduled + deadline * 1000 < now) {
      this.recorder.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`);
      return { updateStatus, requeueAfterMs: next() };
    }
    const name = jobName(cj, scheduled);
    if ((status.active ?? []).some((r) => r.name === name) || (status.lastScheduleTime && Date.parse(status.lastScheduleTime) === scheduled)) {
      return { updateStatus, requeueAfterMs: next() };
    }
    const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && (status.active ?? []).length > 0) {
      this.recorder.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { updateStatus, requeueAfterMs: next() };
    }
    if (policy === 'Replace') {
      for (const ref of [...(status.active ?? [])]) {
        let job: Job;
        try {
          job = (await this.ctx.client.resource('batch/v1', 'jobs').get(ref.namespace ?? cj.metadata.namespace!, ref.name!)) as Job;
        } catch (e) {
          this.recorder.event(cj, 'Warning', 'FailedGet', `Get job: ${(e as Error).message}`);
          return { updateStatus, error: e };
        }
        if (!(await this.deleteJob(cj, job))) return { updateStatus, error: new Error(`could not replace job ${job.metadata.namespace}/${job.metadata.name}`) };
        updateStatus = true;
      }
    }
    let created: Job;
    const jobs$ = this.ctx.client.resource('batch/v1', 'jobs');
    try {
      created = (await jobs$.create(cj.metadata.namespace!, jobFromTemplate(cj, scheduled))) as Job;
      this.recorder.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409 && e.reason === 'AlreadyExists')) {
        if (!(e instanceof StatusError && e.code === 403 && e.message.includes('being terminated'))) {
          this.recorder.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(e as Error).message}`);
        }
        return { updateStatus, error: e };
      }
      // Someone (or an earlier sync whose status write was lost) made it: adopt it only if it is ours.
      created = (await jobs$.get(cj.metadata.namespace!, name)) as Job;
      if (controllerOf(created)?.uid !== cj.metadata.uid || inActive(created.metadata.uid)) return { updateStatus };
    }
    status.active = [...(status.active ?? []), jobRef(created)];
    status.lastScheduleTime = rfc3339(scheduled);
    return { updateStatus: true, requeueAfterMs: next() };
  }
}

export function cronJobController(): ControllerFactory {
  return (ctx) => new CronJobController(ctx);
}

