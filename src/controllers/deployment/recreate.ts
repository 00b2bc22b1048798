// Recreate (pkg/controller/deployment/recreate.go): scale every old ReplicaSet to zero, wait until none of their
// pods is left running, then create or grow the new ReplicaSet to the full count.
import type { KObject } from '../../api/types.js';
import { cleanupOldRSs, newAndOldRSs, scaleRSAndRecord, type DeployEnv } from './sync.js';
import { syncRolloutStatus } from './status.js';
import { activeRSs, deploymentComplete, desired, sumStatus, type Deployment, type RS } from './util.js';
import { podPhase } from '../framework/pod-util.js';

/** `podsByRS` maps a ReplicaSet uid to the pods it controls (terminating ones included). */
export async function rolloutRecreate(env: DeployEnv, d: Deployment, rsList: RS[], podsByRS: Map<string, KObject[]>): Promise<void> {
  let { newRS, oldRSs } = await newAndOldRSs(env, d, rsList, { create: false });
  let allRSs: (RS | undefined)[] = [...oldRSs, newRS];
  let scaledDown = false;
  for (const rs of activeRSs(oldRSs)) if ((await scaleRSAndRecord(env, rs, 0, d)).scaled) scaledDown = true;
  if (scaledDown) return syncRolloutStatus(env, d, allRSs, newRS);
  if (oldPodsRunning(newRS, oldRSs, podsByRS)) return syncRolloutStatus(env, d, allRSs, newRS);
  if (!newRS) {
    ({ newRS, oldRSs } = await newAndOldRSs(env, d, rsList, { create: true }));
    allRSs = [...oldRSs, newRS];
  }
  await scaleRSAndRecord(env, newRS!, desired(d), d);
  if (deploymentComplete(d, d.status ?? {})) await cleanupOldRSs(env, oldRSs, d);
  return syncRolloutStatus(env, d, allRSs, newRS);
}

function oldPodsRunning(newRS: RS | undefined, oldRSs: RS[], podsByRS: Map<string, KObject[]>): boolean {
  if (sumStatus(oldRSs, 'replicas') > 0) return true;
  for (const [uid, pods] of podsByRS) {
    if (newRS && newRS.metadata.uid === uid) continue;
    // terminal pods do not count; Unknown ones might still run
    if (pods.some((p) => podPhase(p) !== 'Failed' && podPhase(p) !== 'Succeeded')) return true;
  }
  return false;
}
