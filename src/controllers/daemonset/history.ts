// A DaemonSet's ControllerRevisions (pkg/controller/daemon/update.go constructHistory / cleanupHistory, 1.33): the
// revision whose data equals the current template patch is current (renumbered to the newest), one is created
// when none matches, and old revisions no pod uses are deleted beyond revisionHistoryLimit.
import type { DaemonSet } from '../../api/apps/daemonset/validation.js';
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import type { Informer } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import type { LabelSelector } from '../../machinery/labels.js';
import {
  adoptOrphanRevisions, computeTemplateHash, deleteRevision, DEFAULT_REVISION_HISTORY_LIMIT, goJson, listRevisions,
  newControllerRevision, POD_REVISION_LABEL, sortRevisions, templatePatch, updateRevisionNumber, type ControllerRevision,
} from '../framework/revision-history.js';

const revisionsApi = (client: Client) => client.resource('apps/v1', 'controllerrevisions');

/** Match: the revision stores exactly the DaemonSet's current template patch. */
const matches = (ds: DaemonSet, rev: ControllerRevision) => goJson(rev.data) === goJson(templatePatch(ds.spec?.template));

export interface DaemonSetHistory {
  current: ControllerRevision;
  old: ControllerRevision[];
  /** the pod label value of the current revision */
  hash: string;
}

/** constructHistory: returns the current revision (created or renumbered as needed) and the old ones. */
export async function constructHistory(client: Client, informer: Informer, ds: DaemonSet, selector: LabelSelector): Promise<DaemonSetHistory> {
  let revs = listRevisions(informer, ds, selector);
  if (!ds.metadata.deletionTimestamp) revs = await adoptOrphanRevisions(client, ds, revs);
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (let r of revs) {
    // older revisions may lack the hash label: their name stands in for it
    if (!r.metadata.labels?.[POD_REVISION_LABEL]) {
      r = (await revisionsApi(client).patch(r.metadata.namespace!, r.metadata.name!, 'merge', { metadata: { labels: { [POD_REVISION_LABEL]: r.metadata.name } } })) as ControllerRevision;
    }
    (matches(ds, r) ? current : old).push(r);
  }
  sortRevisions(old);
  const next = (old.length ? (old[old.length - 1].revision ?? 0) : 0) + 1;
  let cur: ControllerRevision;
  if (!current.length) cur = await snapshot(client, ds, next);
  else {
    sortRevisions(current);
    cur = current[current.length - 1];
    // dedupCurHistories: identical snapshots collapse into the newest one
    for (const dup of current.slice(0, -1)) await deleteRevision(client, dup);
    if ((cur.revision ?? 0) < next) cur = await updateRevisionNumber(client, cur, next);
  }
  return { current: cur, old, hash: cur.metadata.labels?.[POD_REVISION_LABEL] ?? '' };
}

/** snapshot: a new revision named <ds>-<hash>; a name taken by other data bumps status.collisionCount and retries later. */
async function snapshot(client: Client, ds: DaemonSet, revision: number): Promise<ControllerRevision> {
  const collisionCount = Number((ds.status as { collisionCount?: number } | undefined)?.collisionCount ?? 0);
  const hash = computeTemplateHash(ds.spec?.template, collisionCount);
  const rev = newControllerRevision(ds, ds.spec?.template, revision, collisionCount, { hash, hashLabel: POD_REVISION_LABEL });
  try {
    return (await revisionsApi(client).create(ds.metadata.namespace!, rev)) as ControllerRevision;
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  }
  const existing = (await revisionsApi(client).get(ds.metadata.namespace!, rev.metadata.name!)) as ControllerRevision;
  if (matches(ds, existing)) return existing;
  const dsApi = client.resource('apps/v1', 'daemonsets');
  const fresh = await dsApi.get(ds.metadata.namespace!, ds.metadata.name!);
  const status = { ...((fresh.status as object) ?? {}), collisionCount: collisionCount + 1 };
  await dsApi.update(ds.metadata.namespace!, { ...fresh, status } as KObject, { subresource: 'status' });
  throw new Error(`found a stale collision of ControllerRevision ${rev.metadata.name} for DaemonSet ${ds.metadata.namespace}/${ds.metadata.name}; retrying with collisionCount ${collisionCount + 1}`);
}

/** cleanupHistory: deletes the oldest revisions beyond revisionHistoryLimit that no daemon pod is labelled with. */
export async function cleanupHistory(client: Client, ds: DaemonSet, old: ControllerRevision[], pods: KObject[]): Promise<void> {
  const live = new Set(pods.map((p) => p.metadata.labels?.[POD_REVISION_LABEL]).filter((h): h is string => !!h));
  const limit = ds.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  // unlike a StatefulSet's, the limit counts live old revisions too; only dead ones are deleted
  let toKill = old.length - limit;
  for (const r of sortRevisions([...old])) {
    if (toKill <= 0 || limit < 0) break;
    if (live.has(r.metadata.labels?.[POD_REVISION_LABEL] ?? '')) continue;
    await deleteRevision(client, r);
    toKill--;
  }
}
