// Graceful deletion's rules: what a DELETE marks on an object that has to wait (deletionTimestamp, grace period, the
// garbage collector's finalizers for its propagation policy) and when an update ends that wait by deleting it. The
// store's loops only decide between writing the marks and deleting.
import type { KObject, ResourceDefinition } from '../../api/types.js';
import { rfc3339 } from '../../machinery/object.js';
import type { DeleteOptions } from '../context.js';

/** how often a write loop retries after losing a compare-and-swap before it answers 409 */
export const maxUpdateRetries = 16;

/** Sets deletionTimestamp, grace period and GC finalizers; returns whether anything changed. */
export function markForDeletion(def: ResourceDefinition, obj: KObject, opts: DeleteOptions): boolean {
  const meta = obj.metadata;
  const st = def.strategy;
  let changed = false;
  const policy =
    opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : opts.orphanDependents === false ? 'Background' : undefined);
  const finalizers = new Set(meta.finalizers ?? []);
  const hadFinalizers = finalizers.size > 0;
  const effective = policy ?? (st.defaultGCPolicy === 'OrphanDependents' ? 'Orphan' : undefined);
  if (hadFinalizers || meta.deletionTimestamp) {
    // the GC acts on these finalizers only for objects that wait anyway
    if (effective === 'Orphan' && !finalizers.has('orphan')) finalizers.add('orphan');
    if (effective === 'Foreground' && !finalizers.has('foregroundDeletion')) finalizers.add('foregroundDeletion');
  } else if (effective === 'Foreground' || (effective === 'Orphan' && policy)) {
    finalizers.add(effective === 'Foreground' ? 'foregroundDeletion' : 'orphan');
  }
  if (finalizers.size !== (meta.finalizers?.length ?? 0)) {
    meta.finalizers = [...finalizers];
    changed = true;
  }
  let grace = st.gracePeriodSeconds?.(obj, { gracePeriodSeconds: opts.gracePeriodSeconds });
  if (grace !== undefined && opts.gracePeriodSeconds !== undefined) grace = opts.gracePeriodSeconds;
  const now = Date.now();
  if (!meta.deletionTimestamp) {
    if (st.beforeDelete) {
      st.beforeDelete(obj);
      changed = true;
    }
    meta.deletionTimestamp = rfc3339(now + (grace ?? 0) * 1000);
    meta.deletionGracePeriodSeconds = grace ?? 0;
    changed = true;
  } else {
    // a shorter grace period may replace a longer one; an explicit 0 (force delete) ends a graceful deletion
    const shorter = grace ?? (opts.gracePeriodSeconds === 0 && st.gracePeriodSeconds ? 0 : undefined);
    if (shorter !== undefined && shorter < (meta.deletionGracePeriodSeconds ?? 0)) {
      meta.deletionTimestamp = rfc3339(now + shorter * 1000);
      meta.deletionGracePeriodSeconds = shorter;
      changed = true;
    }
  }
  if (meta.generation !== undefined && changed && def.hasGeneration) meta.generation += 1;
  return changed;
}

/** An update that leaves a deleted object nothing to wait for (no finalizers, no grace period) deletes it. */
export function shouldDeleteDuringUpdate(obj: KObject): boolean {
  const m = obj.metadata;
  return !!m.deletionTimestamp && !(m.finalizers?.length) && !(m.deletionGracePeriodSeconds);
}
