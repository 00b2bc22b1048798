// Pure node-lifecycle rules: which taints a node's conditions call for, how tolerations match taints
// (k8s.io/api/core/v1 toleration.go), and zone disruption states (node_lifecycle_controller.go ComputeZoneState).
import type { Toleration } from '../../api/core/pod/types.js';
import { toleratesTaint as tolerates } from '../../api/core/scheduling-match.js';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface NodeCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  [k: string]: unknown;
}

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

/** Condition → NoSchedule taint (TaintNodesByCondition: nodeConditionToTaintKeyStatusMap). */
const CONDITION_TAINTS: { type: string; status: string; key: string }[] = [
  { type: 'Ready', status: 'False', key: TAINT_NOT_READY },
  { type: 'Ready', status: 'Unknown', key: TAINT_UNREACHABLE },
  { type: 'MemoryPressure', status: 'True', key: 'node.kubernetes.io/memory-pressure' },
  { type: 'DiskPressure', status: 'True', key: 'node.kubernetes.io/disk-pressure' },
  { type: 'NetworkUnavailable', status: 'True', key: 'node.kubernetes.io/network-unavailable' },
  { type: 'PIDPressure', status: 'True', key: 'node.kubernetes.io/pid-pressure' },
];
const UNSCHEDULABLE_KEY = 'node.kubernetes.io/unschedulable';
const MANAGED_NO_SCHEDULE = new Set([...CONDITION_TAINTS.map((c) => c.key), UNSCHEDULABLE_KEY]);

/** The NoSchedule taints the conditions (and spec.unschedulable) call for. */
export function noScheduleTaintKeys(conditions: NodeCondition[], unschedulable: boolean): Set<string> {
  const out = new Set<string>();
  for (const c of conditions) for (const m of CONDITION_TAINTS) if (c.type === m.type && c.status === m.status) out.add(m.key);
  if (unschedulable) out.add(UNSCHEDULABLE_KEY);
  return out;
}

/** The NoExecute taint for a Ready status: False → not-ready, Unknown (or missing) → unreachable, True → none. */
export function noExecuteTaintKey(readyStatus: string | undefined): string | undefined {
  if (readyStatus === 'True') return undefined;
  return readyStatus === 'False' ? TAINT_NOT_READY : TAINT_UNREACHABLE;
}

/**
 * The node's taints with the controller-managed ones replaced: NoSchedule taints for `noSchedule`, and (when
 * `noExecute` is given, else left as they are) the not-ready/unreachable NoExecute taint. Returns undefined when
 * nothing changes. New NoExecute taints are stamped with `now` (SwapNodeControllerTaint).
 */
export function reconcileTaints(current: Taint[], noSchedule: Set<string>, noExecute: { key?: string } | undefined, now: string): Taint[] | undefined {
  const managedNoExec = (t: Taint) => t.effect === 'NoExecute' && (t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE);
  const out: Taint[] = [];
  let changed = false;
  for (const t of current) {
    if (t.effect === 'NoSchedule' && MANAGED_NO_SCHEDULE.has(t.key) && !noSchedule.has(t.key)) {
      changed = true;
      continue;
    }
    if (noExecute && managedNoExec(t) && t.key !== noExecute.key) {
      changed = true;
      continue;
    }
    out.push(t);
  }
  for (const key of noSchedule) {
    if (!out.some((t) => t.key === key && t.effect === 'NoSchedule')) {
      out.push({ key, effect: 'NoSchedule' });
      changed = true;
    }
  }
  if (noExecute?.key && !out.some((t) => t.key === noExecute.key && t.effect === 'NoExecute')) {
    out.push({ key: noExecute.key, effect: 'NoExecute', timeAdded: now });
    changed = true;
  }
  return changed ? out : undefined;
}

/**
 * For a pod's tolerations against a node's NoExecute taints: undefined if some taint is not tolerated (evict now),
 * else the seconds the pod may stay (Infinity when no matching toleration has tolerationSeconds).
 */
export function minTolerationSeconds(tolerations: Toleration[], taints: Taint[]): number | undefined {
  let min = Infinity;
  for (const taint of taints) {
    const used = tolerations.filter((t) => tolerates(t, taint));
    if (!used.length) return undefined;
    for (const t of used) {
      if (typeof t.tolerationSeconds !== 'number') continue;
      min = Math.min(min, Math.max(0, t.tolerationSeconds));
    }
  }
  return min;
}

export type ZoneState = 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** ComputeZoneState with the default unhealthy-zone threshold 0.55. */
export function zoneState(ready: number, notReady: number): ZoneState {
  if (ready === 0 && notReady > 0) return 'FullDisruption';
  if (notReady > 2 && notReady / (notReady + ready) >= 0.55) return 'PartialDisruption';
  return 'Normal';
}

/** The zone a node belongs to (utilnode.GetZoneKey): region and zone labels; '' when it has neither. */
export function zoneKey(labels: Record<string, string> | undefined): string {
  const region = labels?.['topology.kubernetes.io/region'] ?? '';
  const zone = labels?.['topology.kubernetes.io/zone'] ?? '';
  return region || zone ? `${region}:\x00:${zone}` : '';
}
