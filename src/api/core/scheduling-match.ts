// How tolerations match taints and node selector terms match nodes (k8s.io/api/core/v1 toleration.go,
// component-helpers/scheduling/corev1/nodeaffinity): one implementation for the scheduler, the DaemonSet
// controller and taint-based eviction.
import type { Taint } from './node/validation.js';
import type { Toleration } from './pod/types.js';

export interface NodeSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[] | null;
  matchFields?: NodeSelectorRequirement[] | null;
}

/** Toleration.ToleratesTaint: effect and key (when set) must match; Exists ignores the value, Equal compares it. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator || 'Equal';
  if (op === 'Exists') return true;
  return op === 'Equal' && (t.value ?? '') === (taint.value ?? '');
}

const INT64 = /^[+-]?\d+$/;

/** One requirement against a label (or field) value; Gt/Lt compare as int64 (strconv.ParseInt), like nodeaffinity. */
export function nodeSelectorRequirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const vals = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && vals.includes(value);
    case 'NotIn':
      return value === undefined || !vals.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt':
      if (value === undefined || vals.length !== 1 || !INT64.test(value) || !INT64.test(vals[0])) return false;
      return r.operator === 'Gt' ? BigInt(value) > BigInt(vals[0]) : BigInt(value) < BigInt(vals[0]);
    default:
      return false;
  }
}

/** A term matches when all its expressions (labels) and fields (only metadata.name) match; an empty term matches nothing. */
export function nodeSelectorTermMatches(term: NodeSelectorTerm, labels: Record<string, string>, nodeName: string): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (!exprs.length && !fields.length) return false;
  for (const r of exprs) {
    const key = r.key ?? '';
    if (!nodeSelectorRequirementMatches(r, Object.prototype.hasOwnProperty.call(labels, key) ? labels[key] : undefined)) return false;
  }
  return fields.every((r) => r.key === 'metadata.name' && nodeSelectorRequirementMatches(r, nodeName));
}
