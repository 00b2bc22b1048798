// RollingUpdate (pkg/controller/deployment/rolling.go): grow the new ReplicaSet up to replicas + maxSurge pods,
// shrink old ones while at least replicas - maxUnavailable pods stay available, one step per sync.
import { cleanupOldRSs, newAndOldRSs, newRSReplicas, scaleRSAndRecord, type DeployEnv } from './sync.js';
import { syncRolloutStatus } from './status.js';
import { activeRSs, byCreation, deploymentComplete, desired, maxUnavailable, replicasOf, sumSpec, sumStatus, type Deployment, type RS } from './util.js';

export async function rolloutRolling(env: DeployEnv, d: Deployment, rsList: RS[]): Promise<void> {
  const { newRS, oldRSs } = await newAndOldRSs(env, d, rsList, { create: true });
  const allRSs = [...oldRSs, newRS!];
  if (await reconcileNewRS(env, d, allRSs, newRS!)) return syncRolloutStatus(env, d, allRSs, newRS);
  if (await reconcileOldRSs(env, d, allRSs, activeRSs(oldRSs), newRS!)) return syncRolloutStatus(env, d, allRSs, newRS);
  if (deploymentComplete(d, d.status ?? {})) await cleanupOldRSs(env, oldRSs, d);
  return syncRolloutStatus(env, d, allRSs, newRS);
}

async function reconcileNewRS(env: DeployEnv, d: Deployment, allRSs: RS[], newRS: RS): Promise<boolean> {
  if (replicasOf(newRS) === desired(d)) return false;
  if (replicasOf(newRS) > desired(d)) return (await scaleRSAndRecord(env, newRS, desired(d), d)).scaled;
  return (await scaleRSAndRecord(env, newRS, newRSReplicas(d, allRSs, newRS), d)).scaled;
}

async function reconcileOldRSs(env: DeployEnv, d: Deployment, allRSs: RS[], oldRSs: RS[], newRS: RS): Promise<boolean> {
  if (sumSpec(oldRSs) === 0) return false;
  const minAvailable = desired(d) - maxUnavailable(d);
  const newUnavailable = replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = sumSpec(allRSs) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  // unhealthy old pods go first, or they would block the rollout until it times out
  const cleaned = await cleanupUnhealthy(env, d, oldRSs, maxScaledDown);
  const scaled = await scaleDownOld(env, d, [...oldRSs, newRS], oldRSs);
  return cleaned + scaled > 0;
}

async function cleanupUnhealthy(env: DeployEnv, d: Deployment, oldRSs: RS[], maxCleanup: number): Promise<number> {
  oldRSs.sort(byCreation);
  let total = 0;
  for (let i = 0; i < oldRSs.length && total < maxCleanup; i++) {
    const rs = oldRSs[i];
    const available = rs.status?.availableReplicas ?? 0;
    if (replicasOf(rs) === 0 || replicasOf(rs) === available) continue;
    const n = Math.min(maxCleanup - total, replicasOf(rs) - available);
    // a status not yet caught up with a scale-down (more available than wanted) must not scale it back up: kube
    // fails this sync and retries
    if (n < 0) throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata.namespace}/${rs.metadata.name} ${replicasOf(rs)} -> ${replicasOf(rs) - n}`);
    oldRSs[i] = (await scaleRSAndRecord(env, rs, replicasOf(rs) - n, d)).rs;
    total += n;
  }
  return total;
}

async function scaleDownOld(env: DeployEnv, d: Deployment, allRSs: RS[], oldRSs: RS[]): Promise<number> {
  const minAvailable = desired(d) - maxUnavailable(d);
  const available = sumStatus(allRSs, 'availableReplicas');
  if (available <= minAvailable) return 0;
  oldRSs.sort(byCreation);
  const want = available - minAvailable;
  let total = 0;
  for (const rs of oldRSs) {
    if (total >= want) break;
    if (replicasOf(rs) === 0) continue;
    const n = Math.min(replicasOf(rs), want - total);
    await scaleRSAndRecord(env, rs, replicasOf(rs) - n, d);
    total += n;
  }
  return total;
}
