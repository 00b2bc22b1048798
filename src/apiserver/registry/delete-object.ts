// DELETE in the generic store: preconditions, admission, then either the marks of a graceful deletion (finalizers,
// grace period: the object stays) or the delete itself, each a compare-and-swap retried on conflicts.
import { errors } from '../../machinery/errors.js';
import { clone } from '../../machinery/object.js';
import type { DeleteOptions, RequestContext } from '../context.js';
import { markForDeletion, maxUpdateRetries } from './deletion.js';
import type { DeleteResult, ResourceStore } from './store.js';

export async function deleteObject(rs: ResourceStore, ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<DeleteResult> {
  for (let attempt = 0; ; attempt++) {
    const kv = await rs.getKV(namespace, name);
    const conv = rs.def.conversion;
    const obj = conv ? await rs.decodeConverted(kv) : rs.decode(kv);
    const meta = obj.metadata;
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== meta.uid) {
      throw errors.conflict(rs.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
      throw errors.conflict(
        rs.gr,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion}`,
      );
    }
    await rs.deps.admission.admit({ ctx, store: rs, operation: 'DELETE', object: obj, old: obj, namespace });
    const next = clone(obj);
    const changed = markForDeletion(rs.def, next, opts);
    const pending = (next.metadata.finalizers?.length ?? 0) > 0 || (next.metadata.deletionGracePeriodSeconds ?? 0) > 0 ||
      !!rs.def.strategy.deletionBlocked?.(next);
    if (ctx.dryRun) return { object: next, deleted: !pending };
    if (pending) {
      if (!changed) return { object: obj, deleted: false };
      const res = await rs.deps.store.update(kv.key, conv ? await rs.encodeConverted(next) : rs.encode(next), kv.modRevision);
      if (res.ok) {
        next.metadata.resourceVersion = String(res.kv.modRevision);
        return { object: next, deleted: false };
      }
    } else {
      const res = await rs.deps.store.delete(kv.key, { expectedRevision: kv.modRevision });
      if (res.ok) return { object: obj, deleted: true };
    }
    if (attempt >= maxUpdateRetries) throw errors.staleResourceVersion(rs.gr, name);
  }
}
