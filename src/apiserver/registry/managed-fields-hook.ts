// Keeps metadata.managedFields up to date on every non-apply write (apply computes its own).
import type { KObject } from '../../api/types.js';
import { managedFieldsAfterUpdate } from '../../machinery/apply/managed-fields.js';
import type { RequestContext } from '../context.js';
import type { ResourceStore } from './store.js';

export function trackManagedFields(
  store: ResourceStore,
  ctx: RequestContext,
  w: { live: KObject | undefined; updated: KObject; subresource: string },
): void {
  if (ctx.managedFieldsDone) return;
  const managedFields = managedFieldsAfterUpdate({
    live: w.live,
    updated: w.updated,
    manager: ctx.fieldManager,
    operation: 'Update',
    apiVersion: store.apiVersion,
    subresource: w.subresource || undefined,
    now: new Date(),
    schema: store.schema,
    set: store.deps.schemas,
  });
  if (managedFields) w.updated.metadata.managedFields = managedFields as KObject['metadata']['managedFields'];
  else delete w.updated.metadata.managedFields;
}
