// The texts a failed scheduling attempt reports (framework.FitError and DefaultPreemption's PostFilter, 1.33):
// "0/3 nodes are available: <count reason, …sorted>. preemption: 0/3 nodes are available: <…>." The preemption
// part comes from a dry run: nodes rejected as unresolvable are not worth preempting on, nodes without
// lower-priority pods have no victims, others are filtered again with every lower-priority pod removed.
import type { PodSpec } from '../api/core-pod-types.js';
import { runFilters, type FilterStatus, type PodInfo } from './filters.js';
import type { NodeInfo } from './node-info.js';

export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';
export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const NO_PREEMPTION_VICTIMS = 'No preemption victims found for incoming pod';
export const NOT_ELIGIBLE_PREEMPT_NEVER = 'not eligible due to preemptionPolicy=Never.';

/** "0/N nodes are available: <histogram>." with "<count> <reason>" entries sorted as strings. */
export function fitErrorMessage(numAllNodes: number, statuses: Iterable<FilterStatus>, postFilterMsg = ''): string {
  const counts = new Map<string, number>();
  for (const s of statuses) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts].map(([r, n]) => `${n} ${r}`).sort();
  let msg = `0/${numAllNodes} nodes are available:`;
  if (parts.length) msg += ` ${parts.join(', ')}.`;
  if (postFilterMsg) msg += ` ${postFilterMsg}`;
  return msg;
}

export interface PreemptionDiagnosis {
  /** the PostFilter message ("preemption: …"), empty when a preemption candidate exists */
  message: string;
  /** nodes where evicting lower-priority pods would make room (preemption itself is not implemented yet) */
  candidates: NodeInfo[];
}

/**
 * What DefaultPreemption would answer for a pod that fits nowhere, without evicting anything. `statuses` holds the
 * filter status of every node that was evaluated.
 */
export function diagnosePreemption(p: PodInfo, numAllNodes: number, statuses: Map<NodeInfo, FilterStatus>): PreemptionDiagnosis {
  if ((p.spec as PodSpec).preemptionPolicy === 'Never') return { message: `preemption: ${NOT_ELIGIBLE_PREEMPT_NEVER}`, candidates: [] };
  const dry: FilterStatus[] = [];
  const candidates: NodeInfo[] = [];
  for (const [ni, st] of statuses) {
    if (st.code === 'UnschedulableAndUnresolvable') {
      dry.push({ plugin: 'DefaultPreemption', code: 'UnschedulableAndUnresolvable', reasons: [PREEMPTION_NOT_HELPFUL] });
      continue;
    }
    let victims = 0;
    for (const e of ni.pods.values()) if (e.priority < p.priority) victims++;
    if (victims === 0) {
      dry.push({ plugin: 'DefaultPreemption', code: 'UnschedulableAndUnresolvable', reasons: [NO_PREEMPTION_VICTIMS] });
      continue;
    }
    const again = runFilters(p, ni.without((e) => e.priority < p.priority));
    if (again) dry.push(again);
    else candidates.push(ni);
  }
  if (candidates.length) return { message: '', candidates };
  // nodes never evaluated count as "not helpful" (the absent-nodes status)
  for (let i = statuses.size; i < numAllNodes; i++) dry.push({ plugin: 'DefaultPreemption', code: 'UnschedulableAndUnresolvable', reasons: [PREEMPTION_NOT_HELPFUL] });
  return { message: `preemption: ${fitErrorMessage(numAllNodes, dry)}`, candidates };
}
