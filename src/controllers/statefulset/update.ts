// One pass of the StatefulSet algorithm (defaultStatefulSetControl.updateStatefulSet, 1.33): recreate finished pods,
// create missing ordinals (in order and one at a time for OrderedReady), fix identity/storage/claim owners, delete
// condemned ordinals highest first, then roll the highest ordinal not at the update revision (down to partition).
import type { StatefulSet } from '../../api/apps/statefulset/validation.js';
import { intOrPercentValue, type IntOrString } from '../../api/apps/common.js';
import type { ControllerRevision } from '../framework/revision-history.js';
import { templateFromRevision } from '../framework/revision-history.js';
import type { EventRecorder } from '../../client/events.js';
import type { StatefulPodControl } from './podcontrol.js';
import {
  endOrdinal, identityMatches, inOrdinalRange, isCreated, isRunningAndAvailable, isRunningAndReady, isTerminating, isUnavailable,
  newStatefulSetPod, ordinalOf, phaseOf, podRevision, replicasOf, startOrdinal, storageMatches, type Pod,
} from './pods.js';

export interface StatefulSetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
}

export interface UpdateInput {
  set: StatefulSet;
  pods: Pod[];
  current: ControllerRevision;
  update: ControllerRevision;
  collisionCount: number;
  control: StatefulPodControl;
  recorder: EventRecorder;
  now: number;
}

const MAX_BATCH = 500;

/** computeReplicaStatus over the given pods into `st`. */
export function countReplicas(st: StatefulSetStatus, pods: Pod[], minReadySeconds: number, now: number): void {
  st.replicas = st.readyReplicas = st.availableReplicas = st.currentReplicas = st.updatedReplicas = 0;
  for (const p of pods) {
    if (isCreated(p)) st.replicas++;
    if (isRunningAndReady(p)) {
      st.readyReplicas++;
      if (isRunningAndAvailable(p, minReadySeconds, now)) st.availableReplicas++;
    }
    if (isCreated(p) && !isTerminating(p)) {
      const rev = podRevision(p);
      if (rev === st.currentRevision) st.currentReplicas++;
      if (rev === st.updateRevision) st.updatedReplicas++;
    }
  }
}

/** monotonic: stop at the first step that returns true; burst: slow-start batches (1, 2, 4, ...) run concurrently. */
async function runForAll(n: number, fn: (i: number) => Promise<boolean>, monotonic: boolean): Promise<boolean> {
  if (monotonic) {
    for (let i = 0; i < n; i++) if (await fn(i)) return true;
    return false;
  }
  let next = 0;
  for (let batch = Math.min(n, 1); batch > 0; batch = Math.min(2 * batch, n - next, MAX_BATCH)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, (_, k) => fn(next + k)));
    next += batch;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
  return false;
}

function partitionOf(set: StatefulSet): number {
  return set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
}

/** getStatefulSetMaxUnavailable: int or percent of replicas rounded down, at least 1. */
function maxUnavailableOf(set: StatefulSet): number {
  const mu = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable as IntOrString | null | undefined;
  if (mu === undefined || mu === null) return 1;
  const v = typeof mu === 'string' && mu.endsWith('%') ? Math.floor((intOrPercentValue(mu) * replicasOf(set)) / 100) : intOrPercentValue(mu);
  return Math.max(1, v);
}

/** Runs one pass; returns the status to record (also when a step throws, via `err`). */
export async function updateStatefulSet(inp: UpdateInput): Promise<{ status: StatefulSetStatus; err?: unknown }> {
  const { set, current, update, control, now } = inp;
  const minReady = set.spec?.minReadySeconds ?? 0;
  const currentTemplate = templateFromRevision(current);
  const updateTemplate = templateFromRevision(update);
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata.generation ?? 0,
    replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0,
    currentRevision: current.metadata.name!,
    updateRevision: update.metadata.name!,
    collisionCount: inp.collisionCount,
  };
  countReplicas(status, inp.pods, minReady, now);

  const start = startOrdinal(set);
  const replicas: Pod[] = new Array(Math.max(0, replicasOf(set)));
  const condemned: Pod[] = [];
  for (const p of inp.pods) {
    if (inOrdinalRange(p, set)) replicas[ordinalOf(p) - start] = p;
    else if (ordinalOf(p) >= 0) condemned.push(p);
  }
  // newVersionedStatefulSetPod: ordinals below the partition get the current revision, the rest the update revision.
  const partition = partitionOf(set);
  const isRolling = set.spec?.updateStrategy?.type !== 'OnDelete';
  const ru = set.spec?.updateStrategy?.rollingUpdate;
  const currentBelow = start + (ru ? partition : Number((set.status as { currentReplicas?: number } | undefined)?.currentReplicas ?? 0));
  const newPod = (ord: number): Pod =>
    isRolling && ord < currentBelow
      ? newStatefulSetPod(set, currentTemplate, ord, current.metadata.name!)
      : newStatefulSetPod(set, updateTemplate, ord, update.metadata.name!);
  for (let ord = start; ord <= endOrdinal(set); ord++) replicas[ord - start] ??= newPod(ord);
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));

  let firstUnhealthy: Pod | undefined;
  for (const p of replicas) if (!firstUnhealthy && isUnavailable(p, minReady, now)) firstUnhealthy = p;
  for (let i = condemned.length - 1; i >= 0; i--) if (!firstUnhealthy && isUnavailable(condemned[i], minReady, now)) firstUnhealthy = condemned[i];

  const done = () => {
    countReplicas(status, [...replicas, ...condemned], minReady, now);
    return { status };
  };
  if (set.metadata.deletionTimestamp) return { status };
  const monotonic = set.spec?.podManagementPolicy !== 'Parallel';

  const processReplica = async (i: number): Promise<boolean> => {
    const ns = set.metadata.namespace!;
    if (phaseOf(replicas[i]) === 'Failed' || phaseOf(replicas[i]) === 'Succeeded') {
      const failed = phaseOf(replicas[i]) === 'Failed';
      inp.recorder.event(set, failed ? 'Warning' : 'Normal', failed ? 'RecreatingFailedPod' : 'RecreatingTerminatedPod',
        `StatefulSet ${ns}/${set.metadata.name} is recreating ${failed ? 'failed' : 'terminated'} Pod ${replicas[i].metadata.name}`);
      await control.deletePod(set, replicas[i]);
      replicas[i] = newPod(i + start);
    }
    if (!isCreated(replicas[i])) {
      if (control.claimIsStale(set, replicas[i])) return true;
      await control.createPod(set, replicas[i]);
      if (monotonic) return true;
    }
    if (phaseOf(replicas[i]) === 'Pending') await control.createMissingClaims(set, replicas[i]);
    if (isTerminating(replicas[i]) && monotonic) return true;
    if (!isRunningAndReady(replicas[i]) && monotonic) return true;
    if (!isRunningAndAvailable(replicas[i], minReady, now) && monotonic) return true;
    if (!isCreated(replicas[i])) return false; // created just now in burst mode: nothing to fix yet
    if (identityMatches(set, replicas[i]) && storageMatches(set, replicas[i]) && control.claimsMatchRetentionPolicy(set, replicas[i])) return false;
    await control.updatePod(set, replicas[i]);
    return false;
  };

  try {
    if (await runForAll(replicas.length, processReplica, monotonic)) return done();
    const fixClaims = async (i: number): Promise<boolean> => {
      if (!control.claimsMatchRetentionPolicy(set, condemned[i])) await control.updateClaimsForRetentionPolicy(set, condemned[i]);
      return false;
    };
    if (await runForAll(condemned.length, fixClaims, monotonic)) return done();
    const processCondemned = async (i: number): Promise<boolean> => {
      const p = condemned[i];
      if (isTerminating(p)) return monotonic;
      if (monotonic && p !== firstUnhealthy && !isRunningAndAvailable(p, minReady, now)) return true;
      await control.deletePod(set, p);
      return true;
    };
    if (await runForAll(condemned.length, processCondemned, monotonic)) return done();
  } catch (err) {
    return { ...done(), err };
  }

  countReplicas(status, [...replicas, ...condemned], minReady, now);
  if (!isRolling) return { status };

  // RollingUpdate: delete (up to maxUnavailable, when set) the highest ordinals not at the update revision, down to
  // the partition, waiting while too many pods are unavailable.
  const rollingMaxUnavailable = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable;
  try {
    if (rollingMaxUnavailable === undefined || rollingMaxUnavailable === null) {
      for (let t = replicas.length - 1; t >= partition; t--) {
        const p = replicas[t];
        if (podRevision(p) !== update.metadata.name && !isTerminating(p)) {
          await control.deletePod(set, p);
          status.currentReplicas--;
          return { status };
        }
        if (isUnavailable(p, minReady, now)) return { status };
      }
      return { status };
    }
    const maxUnavailable = maxUnavailableOf(set);
    const unavailable = replicas.filter((p) => isUnavailable(p, minReady, now)).length;
    if (unavailable > maxUnavailable) return { status };
    let budget = maxUnavailable - unavailable;
    for (let t = replicas.length - 1; t >= partition && budget > 0; t--) {
      const p = replicas[t];
      if (podRevision(p) !== update.metadata.name && !isTerminating(p)) {
        await control.deletePod(set, p);
        budget--;
        status.currentReplicas--;
      }
    }
  } catch (err) {
    return { status, err };
  }
  return { status };
}

/** completeRollingUpdate: once every replica is updated and ready, the update revision becomes current. */
export function completeRollingUpdate(set: StatefulSet, st: StatefulSetStatus): void {
  const want = replicasOf(set);
  if (set.spec?.updateStrategy?.type !== 'OnDelete' && st.updatedReplicas === want && st.readyReplicas === want && st.replicas === want) {
    st.currentReplicas = st.updatedReplicas;
    st.currentRevision = st.updateRevision;
  }
}
