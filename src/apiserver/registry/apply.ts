// Server-side apply (PATCH with application/apply-patch+yaml): merge an applied configuration into the live
// object, tracking field ownership; creates the object when it does not exist.
import type { KObject } from '../../api/types.js';
import { errors } from '../../machinery/errors.js';
import { applyConfiguration } from '../../machinery/apply/apply.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import type { RequestContext } from '../context.js';
import { schemaCheck } from '../handlers/decode.js';
import type { ResourceStore } from './store.js';

export async function serverSideApply(
  rs: ResourceStore,
  ctx: RequestContext,
  namespace: string,
  name: string,
  applied: KObject,
  opts: { force: boolean; subresource: string },
): Promise<{ object: KObject; created: boolean }> {
  if (applied.apiVersion !== rs.apiVersion) {
    throw errors.badRequest(
      applied.apiVersion === undefined
        ? 'apiVersion must be set for apply patches'
        : `the API version in the data (${String(applied.apiVersion)}) does not match the expected API version (${rs.apiVersion})`,
    );
  }
  if (applied.kind !== rs.def.kind) {
    throw errors.badRequest(
      applied.kind === undefined
        ? 'kind must be set for apply patches'
        : `the kind in the data (${String(applied.kind)}) does not match the expected kind (${rs.def.kind})`,
    );
  }
  const meta = (applied.metadata ??= {});
  if (meta.name !== undefined && meta.name !== name) {
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  }
  if (!ctx.fieldManager) throw errors.badRequest('PATCH requests of type apply require fieldManager to be set');
  schemaCheck(rs, ctx, applied, { patch: true });
  ctx.managedFieldsDone = true;
  return rs.guaranteedUpdate(
    ctx,
    namespace,
    name,
    (current) => {
      const res = applyConfiguration({
        live: current ? clone(current) : undefined,
        applied: { ...applied, metadata: { ...meta, name } },
        manager: ctx.fieldManager,
        force: opts.force,
        apiVersion: rs.apiVersion,
        subresource: opts.subresource,
        schema: rs.schema,
        set: rs.deps.schemas,
        now: rfc3339(),
      });
      const obj = res as KObject;
      obj.metadata ??= {};
      if (!meta.resourceVersion) delete obj.metadata.resourceVersion;
      return obj;
    },
    { subresource: opts.subresource, allowCreate: opts.subresource === '' },
  );
}
