// The texts a failed scheduling attempt reports (framework.FitError and DefaultPreemption's PostFilter, 1.33):
// "0/3 nodes are available: <count reason, …sorted>. preemption: 0/3 nodes are available: <…>." (the preemption
// part is written by scheduler/preemption/post-filter.ts).
import type { FilterStatus } from './plugins/pod-info.js';

export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';
export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const NO_PREEMPTION_VICTIMS = 'No preemption victims found for incoming pod';
export const NOT_ELIGIBLE_PREEMPT_NEVER = 'not eligible due to preemptionPolicy=Never.';

/** "0/N nodes are available: <histogram>." with "<count> <reason>" entries sorted as strings. */
export function fitErrorMessage(numAllNodes: number, statuses: Iterable<FilterStatus>, postFilterMsg = ''): string {
  const counts = new Map<string, number>();
  let preFilterMsg = '';
  for (const s of statuses) {
    if (s.preFilter) preFilterMsg ||= s.reasons.join(', ');
    for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  const parts = [...counts].map(([r, n]) => `${n} ${r}`).sort();
  let msg = `0/${numAllNodes} nodes are available:`;
  // a PreFilter rejection replaces the per-node histogram
  if (preFilterMsg) msg += ` ${preFilterMsg}.`;
  else if (parts.length) msg += ` ${parts.join(', ')}.`;
  if (postFilterMsg) msg += ` ${postFilterMsg}`;
  return msg;
}
