// The Deployment controller's steps on ReplicaSets (pkg/controller/deployment/sync.go): find or create the new
// ReplicaSet and sync revisions, scale one ReplicaSet with its event, proportional scaling, history cleanup.
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import { StatusError } from '../../machinery/errors.js';
import { clone } from '../../machinery/object.js';
import { computeHash } from './hash.js';
import {
  activeRSs, byCreation, byRevision, bySize, desired, equalIgnoreHash, findNewRS, getCondition, HASH_LABEL, hasProgressDeadline,
  isRollingUpdate, maxRevision, maxSurge, newCondition, replicasAnnotationsNeedUpdate, replicasOf, REVISION, setCondition,
  setNewRSAnnotations, setReplicasAnnotations, sumSpec, type Deployment, type RS,
} from './util.js';
import type { EventRecorder } from '../../client/events.js';
import { controllerOf, controllerRef } from '../framework/owner.js';

export interface DeployEnv {
  client: Client;
  recorder: EventRecorder;
  now(): number;
  requeueAfter(ms: number): void;
}

const rsClient = (env: DeployEnv) => env.client.resource('apps/v1', 'replicasets');

/** Writes d.status (and the revision annotation the controller keeps on the Deployment) and refreshes d's version. */
export async function updateDeploymentStatus(env: DeployEnv, d: Deployment): Promise<void> {
  const dc = env.client.resource('apps/v1', 'deployments');
  const res = await dc.update(d.metadata.namespace!, d as KObject, { subresource: 'status' });
  d.metadata.resourceVersion = res.metadata.resourceVersion;
  const want = d.metadata.annotations?.[REVISION];
  if (want !== undefined && res.metadata.annotations?.[REVISION] !== want) {
    // Kubernetes keeps annotation changes made through deployments/status; where the status subresource drops
    // metadata, write the revision through the main resource instead.
    const patched = await dc.patch(d.metadata.namespace!, d.metadata.name!, 'merge', { metadata: { annotations: { [REVISION]: want } } });
    d.metadata.resourceVersion = patched.metadata.resourceVersion;
  }
}

/** SetDeploymentRevision. */
function setDeploymentRevision(d: Deployment, revision: string): boolean {
  const a = (d.metadata.annotations ??= {});
  if (a[REVISION] === revision) return false;
  a[REVISION] = revision;
  return true;
}

/** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when asked) and all the old ones. */
export async function newAndOldRSs(env: DeployEnv, d: Deployment, rsList: RS[], opts: { create: boolean }): Promise<{ newRS?: RS; oldRSs: RS[] }> {
  const current = findNewRS(d, rsList);
  const oldRSs = rsList.filter((rs) => rs.metadata.uid !== current?.metadata.uid);
  const newRS = await getNewRS(env, d, rsList, oldRSs, opts);
  return { newRS, oldRSs };
}

async function getNewRS(env: DeployEnv, d: Deployment, rsList: RS[], oldRSs: RS[], opts: { create: boolean }): Promise<RS | undefined> {
  const existing = findNewRS(d, rsList);
  const newRevision = maxRevision(oldRSs) + 1;
  const now = env.now();
  if (existing) {
    const copy = clone(existing);
    const annotationsUpdated = setNewRSAnnotations(d, copy, newRevision, { exists: true });
    const minReadyChanged = (copy.spec.minReadySeconds ?? 0) !== (d.spec.minReadySeconds ?? 0);
    if (annotationsUpdated || minReadyChanged) {
      copy.spec.minReadySeconds = d.spec.minReadySeconds ?? 0;
      // later steps of this sync work on the same list: keep it current
      return Object.assign(existing, await rsClient(env).update(copy.metadata.namespace!, copy)) as RS;
    }
    let needsUpdate = setDeploymentRevision(d, copy.metadata.annotations?.[REVISION] ?? '');
    if (hasProgressDeadline(d) && !getCondition(d.status, 'Progressing')) {
      setCondition((d.status ??= {}), newCondition('Progressing', 'True', 'FoundNewReplicaSet', `Found new replica set "${copy.metadata.name}"`, now));
      needsUpdate = true;
    }
    if (needsUpdate) await updateDeploymentStatus(env, d);
    return copy;
  }
  if (!opts.create) return undefined;

  const template = clone(d.spec.template ?? {});
  const hash = computeHash(template, d.status?.collisionCount);
  template.metadata = { ...template.metadata, labels: { ...(template.metadata?.labels ?? {}), [HASH_LABEL]: hash } };
  const selector = clone(d.spec.selector ?? {});
  selector.matchLabels = { ...(selector.matchLabels ?? {}), [HASH_LABEL]: hash };
  const rs: RS = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace,
      ownerReferences: [controllerRef({ ...d, apiVersion: 'apps/v1', kind: 'Deployment' })],
      labels: { ...template.metadata.labels },
    },
    spec: { replicas: 0, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template },
  };
  const replicas = newRSReplicas(d, [...oldRSs, rs], rs);
  rs.spec.replicas = replicas;
  setNewRSAnnotations(d, rs, newRevision, { exists: false });

  let created: RS;
  let alreadyExists = false;
  try {
    created = (await rsClient(env).create(d.metadata.namespace!, rs)) as RS;
  } catch (e) {
    if (e instanceof StatusError && e.code === 409 && e.reason === 'AlreadyExists') {
      alreadyExists = true;
      const found = (await rsClient(env).get(d.metadata.namespace!, rs.metadata.name!)) as RS;
      if (controllerOf(found)?.uid === d.metadata.uid && equalIgnoreHash(d.spec.template, found.spec.template)) created = found;
      else {
        // a hash collision: bump collisionCount so the next sync computes another name
        d.status = { ...d.status, collisionCount: (d.status?.collisionCount ?? 0) + 1 };
        await updateDeploymentStatus(env, d).catch(() => undefined);
        throw e;
      }
    } else {
      if (e instanceof StatusError && e.details?.causes?.some((c) => c.reason === 'NamespaceTerminating')) throw e;
      const msg = `Failed to create new replica set "${rs.metadata.name}": ${(e as Error).message}`;
      if (hasProgressDeadline(d)) {
        setCondition((d.status ??= {}), newCondition('Progressing', 'False', 'ReplicaSetCreateError', msg, now));
        await updateDeploymentStatus(env, d).catch(() => undefined);
      }
      env.recorder.event(d, 'Warning', 'ReplicaSetCreateError', msg);
      throw e;
    }
  }
  if (!alreadyExists && replicas > 0) {
    env.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} from 0 to ${replicas}`);
  }
  let needsUpdate = setDeploymentRevision(d, String(newRevision));
  if (!alreadyExists && hasProgressDeadline(d)) {
    setCondition((d.status ??= {}), newCondition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${created.metadata.name}"`, now));
    needsUpdate = true;
  }
  if (needsUpdate) await updateDeploymentStatus(env, d);
  return created;
}

/** NewRSNewReplicas: how big the new ReplicaSet may be now. */
export function newRSReplicas(d: Deployment, allRSs: RS[], newRS: RS): number {
  if (!isRollingUpdate(d)) return desired(d);
  const maxTotal = desired(d) + maxSurge(d);
  const current = sumSpec(allRSs);
  if (current >= maxTotal) return replicasOf(newRS);
  const up = Math.min(maxTotal - current, desired(d) - replicasOf(newRS));
  return replicasOf(newRS) + up;
}

/** scaleReplicaSetAndRecordEvent; returns the updated ReplicaSet when its size changed. */
export async function scaleRSAndRecord(env: DeployEnv, rs: RS, to: number, d: Deployment): Promise<{ scaled: boolean; rs: RS }> {
  if (replicasOf(rs) === to) return { scaled: false, rs };
  return scaleRS(env, rs, to, d, replicasOf(rs) < to ? 'up' : 'down');
}

export async function scaleRS(env: DeployEnv, rs: RS, to: number, d: Deployment, op: string): Promise<{ scaled: boolean; rs: RS }> {
  const sizeChanged = replicasOf(rs) !== to;
  const max = desired(d) + maxSurge(d);
  if (!sizeChanged && !replicasAnnotationsNeedUpdate(rs, desired(d), max)) return { scaled: false, rs };
  const from = replicasOf(rs);
  const copy = clone(rs);
  copy.spec.replicas = to;
  setReplicasAnnotations(copy, desired(d), max);
  const updated = (await rsClient(env).update(copy.metadata.namespace!, copy)) as RS;
  if (sizeChanged) env.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${updated.metadata.name} from ${from} to ${to}`);
  Object.assign(rs, updated);
  return { scaled: sizeChanged, rs: updated };
}

/** scale(): a replica count change (not a template change) spread over the active ReplicaSets. */
export async function scaleDeployment(env: DeployEnv, d: Deployment, newRS: RS | undefined, oldRSs: RS[]): Promise<void> {
  const active = activeRSs([newRS, ...oldRSs]);
  // FindActiveOrLatest: one active ReplicaSet (or none: the newest) takes the whole count
  const only = active.length === 1 ? active[0] : active.length === 0 ? (newRS ?? [...oldRSs].sort(byCreation).at(-1)) : undefined;
  if (active.length <= 1) {
    if (only && replicasOf(only) !== desired(d)) await scaleRSAndRecord(env, only, desired(d), d);
    return;
  }
  // IsSaturated: the new ReplicaSet already runs everything, old ones go to zero
  if (newRS && replicasOf(newRS) === desired(d) && Number(newRS.metadata.annotations?.['deployment.kubernetes.io/desired-replicas']) === desired(d) && (newRS.status?.availableReplicas ?? 0) === desired(d)) {
    for (const old of activeRSs(oldRSs)) await scaleRSAndRecord(env, old, 0, d);
    return;
  }
  if (!isRollingUpdate(d)) return;
  const allowed = desired(d) > 0 ? desired(d) + maxSurge(d) : 0;
  const toAdd = allowed - sumSpec(active);
  let op = '';
  if (toAdd > 0) active.sort(bySize(true)), (op = 'up');
  else if (toAdd < 0) active.sort(bySize(false)), (op = 'down');
  let added = 0;
  const sizes = new Map<string, number>();
  for (const rs of active) {
    if (toAdd === 0) {
      sizes.set(rs.metadata.name!, replicasOf(rs));
      continue;
    }
    const p = proportion(rs, d, toAdd, added);
    sizes.set(rs.metadata.name!, replicasOf(rs) + p);
    added += p;
  }
  for (let i = 0; i < active.length; i++) {
    const rs = active[i];
    if (i === 0 && toAdd !== 0) sizes.set(rs.metadata.name!, Math.max(0, sizes.get(rs.metadata.name!)! + toAdd - added));
    await scaleRS(env, rs, sizes.get(rs.metadata.name!)!, d, op);
  }
}

/** GetReplicaSetProportion: this ReplicaSet's share of the change, bounded by what is left to hand out. */
function proportion(rs: RS, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: RS, d: Deployment): number {
  if (desired(d) === 0) return -replicasOf(rs);
  const maxNow = desired(d) + maxSurge(d);
  let before = Number.parseInt(rs.metadata.annotations?.['deployment.kubernetes.io/max-replicas'] ?? '', 10);
  if (!Number.isFinite(before) || before === 0) before = d.status?.replicas ?? 0;
  if (before === 0) return 0;
  return roundHalfAway((replicasOf(rs) * maxNow) / before) - replicasOf(rs);
}

const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

/** cleanupDeployment: delete the oldest scaled-down ReplicaSets beyond revisionHistoryLimit. */
export async function cleanupOldRSs(env: DeployEnv, oldRSs: RS[], d: Deployment): Promise<void> {
  const limit = d.spec.revisionHistoryLimit;
  if (limit === undefined) return;
  const alive = oldRSs.filter((rs) => !rs.metadata.deletionTimestamp);
  const diff = alive.length - limit;
  if (diff <= 0) return;
  alive.sort(byRevision);
  for (const rs of alive.slice(0, diff)) {
    if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
    try {
      await rsClient(env).delete(rs.metadata.namespace!, rs.metadata.name!);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
}
