// The body of a kubelet's pod status write: a strategic merge patch from the status the API server has to the new
// one, with the pod's UID as a precondition — what kubelet's status manager sends (statusutil.PatchPodStatus), not
// a whole pod. Only what changed travels. Lists merged by key (conditions by type, podIPs and hostIPs by ip,
// resourceClaimStatuses by name) carry the new order ($setElementOrder) and a `$patch: delete` per entry gone, so
// the result is exactly the new status, while entries someone else added meanwhile (a readiness gate's condition)
// are merged, not wiped. Every other list is atomic and travels whole.
import type { PodStatus } from '../../api/core/pod/types.js';
import { deepEqual } from '../../machinery/object.js';

type Json = Record<string, unknown>;

/** PodStatus' lists with patchStrategy merge, by their patchMergeKey */
const MERGE_KEYS = new Map([
  ['conditions', 'type'],
  ['podIPs', 'ip'],
  ['hostIPs', 'ip'],
  ['resourceClaimStatuses', 'name'],
]);

export interface PodStatusPatch {
  metadata: { uid: string };
  status: Json;
}

/** The patch taking `from` (what the server has) to `to`; its status is empty when nothing changed. */
export function podStatusPatch(uid: string, from: PodStatus | undefined, to: PodStatus): PodStatusPatch {
  return { metadata: { uid }, status: mapPatch((from ?? {}) as Json, to as Json, MERGE_KEYS) };
}

/**
 * A map's changes: new or changed values, null for keys gone, nested maps patched key by key, and the lists named
 * in `mergeKeys` patched item by item.
 */
function mapPatch(from: Json, to: Json, mergeKeys?: ReadonlyMap<string, string>): Json {
  const out: Json = {};
  for (const k of Object.keys(to)) {
    const a = from[k];
    const b = to[k];
    if (b === undefined || deepEqual(a, b)) continue;
    const key = mergeKeys?.get(k);
    if (key !== undefined && Array.isArray(a) && Array.isArray(b)) Object.assign(out, mergeListPatch(k, key, a as Json[], b as Json[]));
    else out[k] = isMap(a) && isMap(b) ? mapPatch(a as Json, b as Json) : b;
  }
  for (const k of Object.keys(from)) if (from[k] !== undefined && to[k] === undefined) out[k] = null;
  return out;
}

function mergeListPatch(field: string, key: string, from: Json[], to: Json[]): Json {
  const before = new Map(from.map((x) => [x[key], x]));
  const items: Json[] = [];
  for (const x of to) {
    const old = before.get(x[key]);
    if (!old) items.push(x);
    else if (!deepEqual(old, x)) items.push({ [key]: x[key], ...mapPatch(old, x) });
  }
  const kept = new Set(to.map((x) => x[key]));
  for (const x of from) if (!kept.has(x[key])) items.push({ [key]: x[key], $patch: 'delete' });
  return { [`$setElementOrder/${field}`]: to.map((x) => ({ [key]: x[key] })), [field]: items };
}

function isMap(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
