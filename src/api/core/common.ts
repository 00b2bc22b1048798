// core/v1 types several kinds share (ObjectReference, LocalObjectReference), and small helpers the core
// strategies share.
import { FieldError } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { jsonEqual } from '../format.js';

export const CORE = 'io.k8s.api.core.v1.';

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface LocalObjectReference {
  name?: string;
}

const NAMES_DOC = 'https://kubernetes.io/docs/concepts/overview/working-with-objects/names';

export const coreCommonDefinitions: Definitions = {
  [`${CORE}ObjectReference`]: s.obj(
    {
      apiVersion: s.str('API version of the referent.'),
      fieldPath: s.str(
        'If the reference is to a piece of an object rather than the whole object, a JSON/Go field access path to it, e.g. "spec.containers{name}" for a named container of a pod or "spec.containers[2]" for the container at index 2.',
      ),
      kind: s.str(
        'Kind of the referent. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
      ),
      name: s.str(`Name of the referent. More info: ${NAMES_DOC}/#names`),
      namespace: s.str('Namespace of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/'),
      resourceVersion: s.str(
        'Specific resourceVersion to which this reference is made, if any. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency',
      ),
      uid: s.str(`UID of the referent. More info: ${NAMES_DOC}/#uids`),
    },
    { description: 'ObjectReference contains enough information to let you inspect or modify the referred object.', mapType: 'atomic' },
  ),
  [`${CORE}LocalObjectReference`]: s.obj(
    {
      name: s.str(
        `Name of the referent. Effectively required, though for backwards compatibility it may be empty; an empty name is almost certainly a mistake. More info: ${NAMES_DOC}/#names`,
        { default: '' },
      ),
    },
    {
      description: 'LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.',
      mapType: 'atomic',
    },
  ),
};

/** `immutable: true` on ConfigMaps and Secrets: once set, it and the data fields may not change. */
export function immutableData(
  obj: Record<string, unknown>,
  old: Record<string, unknown>,
  fields: string[],
): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  const msg = 'field is immutable when `immutable` is set';
  if (obj.immutable !== true) errs.push(FieldError.forbidden('immutable', msg));
  // defaults() drops empty maps, so {} and an absent map compare equal here (Go's DeepEqual would not).
  for (const f of fields) if (!jsonEqual(obj[f] ?? null, old[f] ?? null)) errs.push(FieldError.forbidden(f, msg));
  return errs;
}

/** Drops an empty map: Go's omitempty never serialises one, so stored objects do not carry it. */
export function dropEmpty(obj: Record<string, unknown>, ...fields: string[]): void {
  for (const f of fields) {
    const v = obj[f];
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) delete obj[f];
    if (v === null) delete obj[f];
  }
}
