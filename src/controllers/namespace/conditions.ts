// The five status conditions the namespace deleter maintains (pkg/controller/namespace/deletion/
// status_condition_utils.go): a failure or "content remains" variant with status True, else the "ok" variant False.
import type { NamespaceCondition } from '../../api/core/namespace.js';

const CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

const OK: Record<(typeof CONDITION_TYPES)[number], { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: { reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  NamespaceDeletionGroupVersionParsingFailure: { reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  NamespaceDeletionContentFailure: { reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: { reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
};

/** What one deletion pass found; turned into conditions by `applyNamespaceConditions`. */
export class NamespaceDeletionReport {
  readonly contentErrors: string[] = [];
  /** "resource.group" → objects left */
  readonly remaining = new Map<string, number>();
  /** finalizer → objects carrying it */
  readonly finalizers = new Map<string, number>();
  totalsKnown = false;

  conditions(now: string): NamespaceCondition[] {
    const out: NamespaceCondition[] = [];
    if (this.contentErrors.length) {
      const msgs = [...this.contentErrors].sort();
      out.push({
        type: 'NamespaceDeletionContentFailure',
        status: 'True',
        lastTransitionTime: now,
        reason: 'ContentDeletionFailed',
        message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`,
      });
    }
    if (!this.totalsKnown) return out;
    const left = [...this.remaining].filter(([, n]) => n > 0).map(([gr, n]) => `${gr} has ${n} resource instances`).sort();
    if (left.length) {
      out.push({ type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: now, reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${left.join(', ')}` });
    }
    const fins = [...this.finalizers].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`).sort();
    if (fins.length) {
      out.push({
        type: 'NamespaceFinalizersRemaining',
        status: 'True',
        lastTransitionTime: now,
        reason: 'SomeFinalizersRemain',
        message: `Some content in the namespace has finalizers remaining: ${fins.join(', ')}`,
      });
    }
    return out;
  }
}

/**
 * Merges new conditions into `existing` in kube's way: every maintained type gets its failure or ok variant; the
 * transition time moves only when the status changes. Returns the new list, or undefined when nothing changed.
 */
export function applyNamespaceConditions(existing: NamespaceCondition[], fresh: NamespaceCondition[], now: string): NamespaceCondition[] | undefined {
  const out = existing.map((c) => ({ ...c }));
  let changed = false;
  for (const type of CONDITION_TYPES) {
    const next = fresh.find((c) => c.type === type) ?? { type, status: 'False', lastTransitionTime: now, ...OK[type] };
    const old = out.find((c) => c.type === type);
    if (!old) {
      out.push(next);
      changed = true;
    } else if (old.status !== next.status || old.reason !== next.reason || old.message !== next.message) {
      if (old.status !== next.status) old.lastTransitionTime = now;
      old.status = next.status;
      old.reason = next.reason;
      old.message = next.message;
      changed = true;
    }
  }
  return changed ? out : undefined;
}
