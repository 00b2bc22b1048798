// kubectl's move from client-side to server-side apply: when the manager is "kubectl", conflicts on
// fields whose live value still matches the last-applied-configuration annotation are not conflicts,
// and that annotation (when present) is kept in step with the applied configuration.

import { goJSON, isObj, type Obj } from './values.js';
import { compareObjects, fieldsOf } from './walk.js';
import type { FieldSet } from './fieldset.js';
import type { Schema, SchemaSet } from '../schema.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

function lastAppliedOf(obj: Obj | undefined): string | undefined {
  const ann = isObj(obj?.metadata) && isObj(obj.metadata.annotations) ? obj.metadata.annotations : undefined;
  const v = ann?.[LAST_APPLIED_ANNOTATION];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/**
 * The fields a conflict may be ignored on: those set by the last-applied configuration whose values are
 * unchanged in the live object. Undefined when there is no usable annotation.
 */
export function allowedLastAppliedConflicts(
  live: Obj | undefined,
  apiVersion: string,
  schema: Schema | undefined,
  set: SchemaSet,
): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (!text || !live) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(last) || last.apiVersion !== apiVersion) return undefined;
  const cmp = compareObjects(last, live, schema, set);
  return fieldsOf(last, schema, set).difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
}

/** When `obj` carries a last-applied annotation, rewrites it to the applied configuration (as kubectl would). */
export function refreshLastApplied(obj: Obj, applied: Obj): Obj {
  if (lastAppliedOf(obj) === undefined) return obj;
  let cfg = applied;
  if (isObj(applied.metadata) && isObj(applied.metadata.annotations)) {
    const { [LAST_APPLIED_ANNOTATION]: _drop, ...annotations } = applied.metadata.annotations;
    cfg = { ...applied, metadata: { ...applied.metadata, annotations } };
  }
  const meta = obj.metadata as Obj;
  const annotations = { ...(meta.annotations as Obj), [LAST_APPLIED_ANNOTATION]: goJSON(cfg) + '\n' };
  return { ...obj, metadata: { ...meta, annotations } };
}
