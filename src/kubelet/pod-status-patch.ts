// The body of a kubelet's pod status write: a strategic merge patch from the status the API server has to the new
// one, with the pod's UID as a precondition — what kubelet's status manager sends (statusutil.PatchPodStatus), not
// a whole pod. Only what changed travels. Lists merged by key (conditions by type, podIPs and hostIPs by ip,
// resourceClaimStatuses by name) carry the new order ($setElementOrder) and a `$patch: delete` per entry gone, so
// the result is exactly the new status, while entries someone else added meanwhile (a readiness gate's condition)
// are merged, not wiped. Every other list is atomic and travels whole.
import type { PodStatus } from '../api/core-pod-types.js';
import { deepEqual } from '../machinery/object.js';

type Json = Record<string, unknown>;

/** PodStatus' lists with patchStrategy merge, by their patchMergeKey */
const MERGE_KEYS: Record<string, string> = { conditions: 'type', podIPs: 'ip', hostIPs: 'ip', resourceClaimStatuses: 'name' };

export interface PodStatusPatch {
  metadata: { uid: string };
  status: Json;
}

/** The patch taking `from` (what the server has) to `to`; its status is empty when nothing changed. */
export function podStatusPatch(uid: string, from: PodStatus | undefined, to: PodStatus): PodStatusPatch {
  const a = (from ?? {}) as Json;
  const b = to as Json;
  const status: Json = {};
  for (const k of Object.keys(b)) {
    if (b[k] === undefined || deepEqual(a[k], b[k])) continue;
    const key = MERGE_KEYS[k];
    if (key && Array.isArray(b[k]) && Array.isArray(a[k])) Object.assign(status, mergeListPatch(k, key, a[k] as Json[], b[k] as Json[]));
    else status[k] = b[k];
  }
  for (const k of Object.keys(a)) if (a[k] !== undefined && b[k] === undefined) status[k] = null;
  return { metadata: { uid }, status };
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

/** a map's changes: new or changed values, null for keys gone, nested maps patched key by key */
function mapPatch(from: Json, to: Json): Json {
  const out: Json = {};
  for (const k of Object.keys(to)) {
    if (to[k] === undefined || deepEqual(from[k], to[k])) continue;
    out[k] = isMap(from[k]) && isMap(to[k]) ? mapPatch(from[k] as Json, to[k] as Json) : to[k];
  }
  for (const k of Object.keys(from)) if (from[k] !== undefined && to[k] === undefined) out[k] = null;
  return out;
}

function isMap(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
