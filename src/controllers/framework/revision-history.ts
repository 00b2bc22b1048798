// ControllerRevision history shared by the StatefulSet and DaemonSet controllers (pkg/controller/history, 1.33):
// revision data is the owner's pod template as a strategic merge patch that replaces spec.template, encoded as Go's
// encoding/json writes a map (sorted keys, HTML-safe escapes) so names and hashes come out as Kubernetes makes them.
import { computeHash, safeEncode } from '../deployment/hash.js';
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import type { Informer } from '../../client/informer.js';
import type { LabelSelector } from '../../machinery/labels.js';
import { StatusError } from '../../machinery/errors.js';
import { clone } from '../../machinery/object.js';
import { controllerOf, controllerRef } from './owner.js';
import type { PodTemplate } from './pod-util.js';

/** The label on pods naming their revision (apps.StatefulSetRevisionLabel / apps.DefaultDaemonSetUniqueLabelKey). */
export const POD_REVISION_LABEL = 'controller-revision-hash';
/** The label on a StatefulSet's ControllerRevisions carrying the hash of its data (history.ControllerRevisionHashLabel). */
export const REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

export interface ControllerRevision extends KObject {
  data?: unknown;
  revision?: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Go encoding and hashing

/** JSON as Go's json.Marshal writes a map[string]interface{}: keys sorted, <>& and U+2028/9 escaped. */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => goJson(x)).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort(byBytes);
    return `{${keys.map((k) => `${goString(k)}:${goJson(o[k])}`).join(',')}}`;
  }
  return 'null';
}

function byBytes(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return Buffer.compare(x, y);
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** FNV-1 32-bit (hash/fnv New32). */
export function fnv32(data: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const b of data) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h;
}

/** FNV-1a 32-bit (hash/fnv New32a). */
/** FNV-1a over the bytes, continuing from `seed` (hash.Hash32 written in parts). */
export function fnv32a(data: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const b of data) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

export { safeEncode as safeEncodeString };

/** ControllerRevisionName: `<prefix>-<hash>`, the prefix cut to 223 bytes. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** The revision data both controllers store: {"spec":{"template":{...,"$patch":"replace"}}} (getPatch). */
export function templatePatch(template: PodTemplate | undefined): Record<string, unknown> {
  return { spec: { template: { ...clone(template ?? {}), $patch: 'replace' } } };
}

/** HashControllerRevision: FNV-1 over the raw data, then the collision count in decimal. */
export function hashControllerRevision(data: unknown, collisionCount?: number): string {
  let h = fnv32(Buffer.from(goJson(data), 'utf8'));
  if (collisionCount !== undefined) h = fnv32(Buffer.from(String(collisionCount), 'utf8'), h);
  return safeEncode(String(h));
}

/** controller.ComputeHash, used for DaemonSet revisions: the same spew-based hash as a Deployment's pod-template-hash. */
export function computeTemplateHash(template: PodTemplate | undefined, collisionCount?: number): string {
  return computeHash(template ?? {}, collisionCount);
}

/** The pod template a revision restores (ApplyRevision of the replace patch). */
export function templateFromRevision(rev: ControllerRevision): PodTemplate {
  const t = clone(((rev.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec?.template ?? {}) as Record<string, unknown>);
  delete t.$patch;
  return t as PodTemplate;
}

/** EqualRevision: the hash labels (when both parse) and the data agree. */
export function equalRevision(a: ControllerRevision | undefined, b: ControllerRevision | undefined): boolean {
  if (!a || !b) return a === b;
  const ha = a.metadata.labels?.[REVISION_HASH_LABEL];
  const hb = b.metadata.labels?.[REVISION_HASH_LABEL];
  if (ha && hb && ha !== hb) return false;
  return goJson(a.data) === goJson(b.data);
}

/** SortControllerRevisions: by revision, then creation time, then name. */
export function sortRevisions(revs: ControllerRevision[]): ControllerRevision[] {
  return revs.sort((a, b) => {
    const d = (a.revision ?? 0) - (b.revision ?? 0);
    if (d) return d;
    const ta = a.metadata.creationTimestamp ?? '';
    const tb = b.metadata.creationTimestamp ?? '';
    if (ta !== tb) return ta < tb ? -1 : 1;
    return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
  });
}

/** One more than the highest revision (1 for an empty history); expects sorted input. */
export function nextRevision(sorted: ControllerRevision[]): number {
  return sorted.length ? (sorted[sorted.length - 1].revision ?? 0) + 1 : 1;
}

/**
 * NewControllerRevision: owned by `owner`, labelled like the template plus the hash label, named `<owner>-<hash>`.
 * StatefulSets hash the revision data under controller.kubernetes.io/hash; DaemonSets pass their template hash and
 * controller-revision-hash.
 */
export function newControllerRevision(
  owner: KObject,
  template: PodTemplate | undefined,
  revision: number,
  collisionCount: number,
  opts: { hash?: string; hashLabel?: string } = {},
): ControllerRevision {
  const data = templatePatch(template);
  const hash = opts.hash ?? hashControllerRevision(data, collisionCount);
  const rev: ControllerRevision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(owner.metadata.name!, hash),
      namespace: owner.metadata.namespace,
      labels: { ...(template?.metadata?.labels ?? {}), [opts.hashLabel ?? REVISION_HASH_LABEL]: hash },
      ownerReferences: [controllerRef(owner)],
    },
    data,
    revision,
  };
  if (owner.metadata.annotations && Object.keys(owner.metadata.annotations).length) rev.metadata.annotations = { ...owner.metadata.annotations };
  return rev;
}

// ---------------------------------------------------------------------------------------------------------------
// API operations (realHistory)

const RESOURCE = ['apps/v1', 'controllerrevisions'] as const;

/** ListControllerRevisions: revisions in the owner's namespace matching selector, owned by it or by nobody. */
export function listRevisions(revisions: Informer, owner: KObject, selector: LabelSelector): ControllerRevision[] {
  return revisions.list(owner.metadata.namespace ?? '').filter((r) => {
    if (!selector.matches(r.metadata.labels)) return false;
    const ref = controllerOf(r);
    return !ref || ref.uid === owner.metadata.uid;
  }) as ControllerRevision[];
}

/** Adopts every orphan among `revs` (strategic merge patch adding the controller reference, as kube does). */
export async function adoptOrphanRevisions(client: Client, owner: KObject, revs: ControllerRevision[]): Promise<ControllerRevision[]> {
  const out: ControllerRevision[] = [];
  for (const r of revs) {
    if (controllerOf(r)) {
      out.push(r);
      continue;
    }
    const patch = { metadata: { ownerReferences: [controllerRef(owner)], uid: r.metadata.uid } };
    out.push((await client.resource(...RESOURCE).patch(r.metadata.namespace!, r.metadata.name!, 'strategic', patch)) as ControllerRevision);
  }
  return out;
}

/**
 * CreateControllerRevision: creates `rev`; a name taken by a revision with other data is a hash collision, so the
 * collision count goes up and the name is recomputed. Returns the revision and the (possibly raised) count.
 */
export async function createRevision(client: Client, owner: KObject, rev: ControllerRevision, collisionCount: number): Promise<{ revision: ControllerRevision; collisionCount: number }> {
  const rc = client.resource(...RESOURCE);
  const ns = owner.metadata.namespace!;
  for (let count = collisionCount; ; count++) {
    const hash = hashControllerRevision(rev.data, count);
    const body = clone(rev);
    body.metadata.name = controllerRevisionName(owner.metadata.name!, hash);
    body.metadata.labels = { ...(body.metadata.labels ?? {}), [REVISION_HASH_LABEL]: hash };
    try {
      return { revision: (await rc.create(ns, body)) as ControllerRevision, collisionCount: count };
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 409)) throw e;
      const exists = (await rc.get(ns, body.metadata.name)) as ControllerRevision;
      if (goJson(exists.data) === goJson(body.data)) return { revision: exists, collisionCount: count };
    }
    if (count - collisionCount > 100) throw new Error(`too many ControllerRevision name collisions for ${owner.metadata.name}`);
  }
}

/** UpdateControllerRevision: sets the revision number (a roll back re-uses an old revision's data). */
export async function updateRevisionNumber(client: Client, rev: ControllerRevision, revision: number): Promise<ControllerRevision> {
  if (rev.revision === revision) return rev;
  return (await client.resource(...RESOURCE).patch(rev.metadata.namespace!, rev.metadata.name!, 'merge', { revision })) as ControllerRevision;
}

export async function deleteRevision(client: Client, rev: ControllerRevision): Promise<void> {
  try {
    await client.resource(...RESOURCE).delete(rev.metadata.namespace!, rev.metadata.name!);
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 404)) throw e;
  }
}

/**
 * The revisions beyond `limit` to delete, oldest first, never a live one (truncateHistory / cleanupHistory).
 * `history` must be sorted and exclude nothing; `live` names or hashes revisions still in use.
 */
export function revisionsToPrune(history: ControllerRevision[], isLive: (r: ControllerRevision) => boolean, limit: number): ControllerRevision[] {
  const dead = history.filter((r) => !isLive(r));
  if (limit < 0 || dead.length <= limit) return [];
  return dead.slice(0, dead.length - limit);
}
