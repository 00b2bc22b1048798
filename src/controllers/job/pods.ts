// The pods a Job makes and removes: template with the tracking finalizer, completion index annotation, label,
// env var and hostname for Indexed Jobs, generated names, and which active pods go first when scaling down.
import type { Job } from '../../api/batch/types.js';
import type { KObject } from '../../api/types.js';
import { clone } from '../../machinery/object.js';
import { completionIndex } from './indexes.js';
import { COMPLETION_INDEX, COMPLETION_INDEX_ENV, INDEX_FAILURE_COUNT, INDEX_IGNORED_FAILURE_COUNT, JOB_TRACKING_FINALIZER } from './status.js';
import { podFromTemplate, type PodTemplate } from '../framework/pod-util.js';
import { isPodReady, nodeNameOf, podPhase } from '../framework/pod-util.js';

const MAX_GENERATED_NAME_LENGTH = 58;

export function hasTrackingFinalizer(pod: KObject): boolean {
  return ((pod.metadata as { finalizers?: string[] }).finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

/** podGenerateNameWithIndex: "<job>-<index>-", the job name cut so the random suffix still fits. */
export function generateNameWithIndex(jobName: string, index: number): string {
  const append = `-${index}-`;
  const base = jobName.length + append.length > MAX_GENERATED_NAME_LENGTH ? jobName.slice(0, MAX_GENERATED_NAME_LENGTH - append.length) : jobName;
  return base + append;
}

interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
}

function addIndexEnv(containers: Container[] | undefined): void {
  for (const c of containers ?? []) {
    if ((c.env ?? []).some((e) => e.name === COMPLETION_INDEX_ENV)) continue;
    (c.env ??= []).push({ name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${COMPLETION_INDEX}']` } } });
  }
}

export interface IndexFailureCounts {
  failures: number;
  ignored: number;
}

/** The pod to create for `job`, optionally for one completion index. */
export function jobPod(job: Job, opts: { index?: number; failureCounts?: IndexFailureCounts } = {}): KObject {
  const tpl = clone(job.spec?.template ?? {}) as PodTemplate & { spec?: { containers?: Container[]; initContainers?: Container[]; hostname?: string } };
  const meta = (tpl.metadata ??= {});
  const fins = (meta.finalizers ??= []);
  if (!fins.includes(JOB_TRACKING_FINALIZER)) fins.push(JOB_TRACKING_FINALIZER);
  let generateName: string | undefined;
  if (opts.index !== undefined) {
    const spec = (tpl.spec ??= {});
    addIndexEnv(spec.initContainers);
    addIndexEnv(spec.containers);
    const ix = String(opts.index);
    meta.annotations = { ...(meta.annotations ?? {}), [COMPLETION_INDEX]: ix };
    meta.labels = { ...(meta.labels ?? {}), [COMPLETION_INDEX]: ix };
    spec.hostname = `${job.metadata.name}-${ix}`;
    generateName = generateNameWithIndex(job.metadata.name!, opts.index);
    if (opts.failureCounts) {
      meta.annotations[INDEX_FAILURE_COUNT] = String(opts.failureCounts.failures);
      if (opts.failureCounts.ignored > 0) meta.annotations[INDEX_IGNORED_FAILURE_COUNT] = String(opts.failureCounts.ignored);
    }
  }
  return podFromTemplate(tpl, job, { generateName });
}

export function indexFailureCount(pod: KObject): number {
  const n = Number(pod.metadata.annotations?.[INDEX_FAILURE_COUNT] ?? 0);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

export function indexIgnoredFailureCount(pod: KObject): number {
  const n = Number(pod.metadata.annotations?.[INDEX_IGNORED_FAILURE_COUNT] ?? 0);
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

const phaseRank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** controller.ActivePods ordering: unscheduled, pending, not ready and newer pods go first. */
function removalOrder(a: KObject, b: KObject): number {
  const sa = nodeNameOf(a) ? 1 : 0;
  const sb = nodeNameOf(b) ? 1 : 0;
  if (sa !== sb) return sa - sb;
  const pa = phaseRank[podPhase(a)] ?? 1;
  const pb = phaseRank[podPhase(b)] ?? 1;
  if (pa !== pb) return pa - pb;
  const ra = isPodReady(a) ? 1 : 0;
  const rb = isPodReady(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  return tb - ta;
}

/**
 * activePodsForRemoval: for Indexed Jobs, pods with a bad, out-of-range or duplicated index first; then at least
 * `rmAtLeast` more in removal order.
 */
export function activePodsForRemoval(job: Job, active: KObject[], rmAtLeast: number): KObject[] {
  let rest = active;
  const rm: KObject[] = [];
  if (job.spec?.completionMode === 'Indexed') {
    const completions = job.spec.completions ?? 0;
    const seen = new Set<number>();
    rest = [];
    for (const p of [...active].sort((a, b) => -removalOrder(a, b))) {
      const ix = completionIndex(p);
      if (ix < 0 || ix >= completions || seen.has(ix)) rm.push(p);
      else {
        seen.add(ix);
        rest.push(p);
      }
    }
  }
  if (rmAtLeast > rm.length) rm.push(...[...rest].sort(removalOrder).slice(0, rmAtLeast - rm.length));
  return rm;
}

/** Pods being deleted that have not finished yet (countTerminatingPods). */
export function countTerminating(pods: KObject[]): number {
  return pods.filter((p) => p.metadata.deletionTimestamp && podPhase(p) !== 'Failed' && podPhase(p) !== 'Succeeded').length;
}
