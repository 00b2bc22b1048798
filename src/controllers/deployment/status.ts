// Deployment status (pkg/controller/deployment/sync.go and progress.go): replica counts summed over the
// ReplicaSets, the Available condition, and the Progressing condition with its deadline.
import { deepEqual } from '../../machinery/object.js';
import { updateDeploymentStatus, type DeployEnv } from './sync.js';
import {
  deploymentComplete, deploymentProgressing, deploymentTimedOut, desired, getCondition, hasProgressDeadline, maxUnavailable, newCondition,
  removeCondition, setCondition, sumSpec, sumStatus, type Condition, type Deployment, type DeploymentStatus, type RS,
} from './util.js';

/** calculateStatus. */
export function calculateStatus(d: Deployment, allRSs: (RS | undefined)[], newRS: RS | undefined, now: number): DeploymentStatus {
  const available = sumStatus(allRSs, 'availableReplicas');
  const st: DeploymentStatus = {
    observedGeneration: d.metadata.generation,
    replicas: sumStatus(allRSs, 'replicas'),
    updatedReplicas: sumStatus([newRS], 'replicas'),
    readyReplicas: sumStatus(allRSs, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, sumSpec(allRSs) - available),
  };
  if (d.status?.collisionCount !== undefined) st.collisionCount = d.status.collisionCount;
  if (d.status?.conditions) st.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (available >= desired(d) - maxUnavailable(d)) {
    setCondition(st, newCondition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now));
  } else {
    setCondition(st, newCondition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', now));
  }
  return st;
}

/** syncDeploymentStatus: counts and Available only (scaling and paused Deployments). */
export async function syncDeploymentStatus(env: DeployEnv, d: Deployment, allRSs: (RS | undefined)[], newRS: RS | undefined): Promise<void> {
  const st = calculateStatus(d, allRSs, newRS, env.now());
  if (sameStatus(d.status, st)) return;
  d.status = st;
  await updateDeploymentStatus(env, d);
}

/** syncRolloutStatus: counts plus Progressing (complete, progressing, or timed out) and ReplicaFailure. */
export async function syncRolloutStatus(env: DeployEnv, d: Deployment, allRSs: (RS | undefined)[], newRS: RS | undefined): Promise<void> {
  const now = env.now();
  const st = calculateStatus(d, allRSs, newRS, now);
  if (!hasProgressDeadline(d)) removeCondition(st, 'Progressing');
  const cur = getCondition(d.status, 'Progressing');
  const complete = st.replicas === st.updatedReplicas && cur?.reason === 'NewReplicaSetAvailable';
  if (hasProgressDeadline(d) && !complete) {
    if (deploymentComplete(d, st)) {
      const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" has successfully progressed.` : `Deployment "${d.metadata.name}" has successfully progressed.`;
      setCondition(st, newCondition('Progressing', 'True', 'NewReplicaSetAvailable', msg, now));
    } else if (deploymentProgressing(d, st)) {
      const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" is progressing.` : `Deployment "${d.metadata.name}" is progressing.`;
      const c = newCondition('Progressing', 'True', 'ReplicaSetUpdated', msg, now);
      // progress refreshes lastUpdateTime even when the reason stays the same
      if (cur) {
        if (cur.status === 'True') c.lastTransitionTime = cur.lastTransitionTime;
        removeCondition(st, 'Progressing');
      }
      setCondition(st, c);
    } else if (deploymentTimedOut(d, st, now)) {
      const msg = newRS ? `ReplicaSet "${newRS.metadata.name}" has timed out progressing.` : `Deployment "${d.metadata.name}" has timed out progressing.`;
      setCondition(st, newCondition('Progressing', 'False', 'ProgressDeadlineExceeded', msg, now));
    }
  }
  const failure = replicaFailure(allRSs, newRS);
  if (failure) setCondition(st, failure);
  else removeCondition(st, 'ReplicaFailure');
  if (sameStatus(d.status, st)) {
    requeueStuck(env, d, st);
    return;
  }
  d.status = st;
  await updateDeploymentStatus(env, d);
}

/** getReplicaFailures: the new ReplicaSet's ReplicaFailure condition, else any ReplicaSet's. */
function replicaFailure(allRSs: (RS | undefined)[], newRS: RS | undefined): Condition | undefined {
  for (const group of [[newRS], allRSs]) {
    for (const rs of group) {
      const c = rs?.status?.conditions?.find((x) => x.type === 'ReplicaFailure');
      if (c) return { type: 'ReplicaFailure', status: c.status, lastUpdateTime: c.lastTransitionTime, lastTransitionTime: c.lastTransitionTime, reason: c.reason, message: c.message };
    }
  }
  return undefined;
}

/** A rollout without progress has no event to wake it: check again when the deadline passes. */
function requeueStuck(env: DeployEnv, d: Deployment, st: DeploymentStatus): void {
  const cur = getCondition(d.status, 'Progressing');
  if (!hasProgressDeadline(d) || !cur) return;
  if (deploymentComplete(d, st) || cur.reason === 'ProgressDeadlineExceeded') return;
  const after = (Date.parse(cur.lastUpdateTime ?? '') || 0) + d.spec.progressDeadlineSeconds! * 1000 - env.now();
  env.requeueAfter(after < 1000 ? 100 : after + 1000);
}

function sameStatus(a: DeploymentStatus | undefined, b: DeploymentStatus): boolean {
  const norm = (s: DeploymentStatus | undefined) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s ?? {})) if (v !== undefined && v !== 0 && !(Array.isArray(v) && !v.length)) o[k] = v;
    return o;
  };
  return deepEqual(norm(a), norm(b));
}
