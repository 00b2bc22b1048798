// Back-off before re-creating failed pods (backoff_utils.go): 10 s after the first failure since the last
// success, doubling per further failure, capped at 6 minutes, measured from the last failure's finish time.
import type { KObject } from '../../api/types.js';
import { podStatus } from './failure-policy.js';
import { DEFAULT_POD_FAILURE_BACKOFF_MS, MAX_POD_FAILURE_BACKOFF_MS } from './status.js';

export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime?: number;
}

/** When a pod finished: Ready=False transition, else the last container finish, else deletion, else now. */
export function finishedTime(pod: KObject, now: number): number {
  const st = podStatus(pod);
  const ready = (st.conditions ?? []).find((c) => c.type === 'Ready' && c.status === 'False');
  if (ready?.lastTransitionTime) return Date.parse(ready.lastTransitionTime);
  let last = 0;
  for (const cs of st.containerStatuses ?? []) {
    const f = cs.state?.terminated?.finishedAt;
    if (f) last = Math.max(last, Date.parse(f));
  }
  if (last) return last;
  if (pod.metadata.deletionTimestamp) return Date.parse(pod.metadata.deletionTimestamp);
  return now;
}

/** newBackoffRecord: failures after the newest success in this batch add up; a success resets the count. */
export function nextBackoffRecord(prev: BackoffRecord, succeeded: KObject[], failed: KObject[], now: number): BackoffRecord {
  const byTime = (ps: KObject[]) => ps.map((p) => finishedTime(p, now)).sort((a, b) => a - b);
  const s = byTime(succeeded);
  const f = byTime(failed);
  if (s.length === 0) {
    if (f.length === 0) return prev;
    return { failuresAfterLastSuccess: prev.failuresAfterLastSuccess + f.length, lastFailureTime: f[f.length - 1] };
  }
  const lastSuccess = s[s.length - 1];
  const after = f.filter((t) => t > lastSuccess);
  return after.length ? { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] } : { failuresAfterLastSuccess: 0 };
}

/** How long to wait before creating pods again (getRemainingTimeForFailuresCount). */
export function remainingBackoffMs(failures: number, lastFailureTime: number | undefined, now: number): number {
  if (failures <= 0 || lastFailureTime === undefined) return 0;
  let d = DEFAULT_POD_FAILURE_BACKOFF_MS;
  for (let i = 1; i < failures; i++) {
    d *= 2;
    if (d >= MAX_POD_FAILURE_BACKOFF_MS) {
      d = MAX_POD_FAILURE_BACKOFF_MS;
      break;
    }
  }
  const elapsed = now - lastFailureTime;
  return d < elapsed ? 0 : d - elapsed;
}
