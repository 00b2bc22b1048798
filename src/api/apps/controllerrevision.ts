// apps/v1 ControllerRevision: an immutable snapshot of state (data) with a revision number, written by the
// DaemonSet and StatefulSet controllers. ValidateControllerRevision(Update) of pkg/apis/apps/validation and
// printControllerRevision (NAME CONTROLLER REVISION AGE).
import { FieldError, goQuote } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { APPS, nonNegative } from './common.js';
import { bare } from '../core/pod/validation-util.js';
import { ageColumn, CELL_NONE, jsonEqual, nameColumn } from '../format.js';
import { kindHeader, listDefinition, META } from '../meta.js';
import { defineResource, type KObject } from '../types.js';

export interface ControllerRevision extends KObject {
  data?: unknown;
  revision?: number;
}

export const controllerRevisionDefinitions: Definitions = {
  [`${APPS}ControllerRevision`]: s.obj(
    {
      ...kindHeader(),
      data: s.ref(META.RawExtension, 'The serialized state this revision records.'),
      revision: s.int64('Number of the revision of the state held in data.', { default: 0 }),
    },
    {
      description:
        'ControllerRevision is an immutable snapshot of state data, used by controllers (such as the DaemonSet and StatefulSet controllers) to roll updates forward and back. Clients treat it as immutable and are responsible for its garbage collection.',
      required: ['revision'],
    },
  ),
  [`${APPS}ControllerRevisionList`]: listDefinition(`${APPS}ControllerRevision`, 'ControllerRevisionList is a list of ControllerRevisions.', 'Items is the list of ControllerRevisions'),
};

/**
 * How the data of a revision prints in an "immutable" error: the decoded internal value is a *runtime.Unknown
 * holding the JSON bytes, which Go prints with %#v.
 */
function goUnknown(data: unknown): { toString(): string } {
  const bytes = [...Buffer.from(JSON.stringify(data) ?? 'null')].map((b) => `0x${b.toString(16)}`).join(', ');
  return bare(`runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:${goQuote('')}, Kind:${goQuote('')}}, Raw:[]uint8{${bytes}}, ContentEncoding:"", ContentType:"application/json"}`);
}

/** The controller column: `<kind>.<group>/<name>` (lower-cased) of the controlling owner reference. */
function controllerOf(o: KObject): string {
  const ref = (o.metadata.ownerReferences ?? []).find((r) => r.controller === true);
  if (!ref) return CELL_NONE;
  const parts = (ref.apiVersion ?? '').split('/');
  const group = parts.length === 2 ? parts[0] : '';
  if (!ref.kind && !group) return ref.name;
  return `${(group ? `${ref.kind}.${group}` : ref.kind).toLowerCase()}/${ref.name}`;
}

export const controllerRevisionResource = defineResource<ControllerRevision>({
  group: 'apps',
  version: 'v1',
  kind: 'ControllerRevision',
  plural: 'controllerrevisions',
  singular: 'controllerrevision',
  namespaced: true,
  schemaRef: `${APPS}ControllerRevision`,
  definitions: controllerRevisionDefinitions,
  columns: [
    nameColumn(),
    { name: 'Controller', type: 'string', description: 'Controller of the object', cell: controllerOf },
    // The printer declares the column a string but fills it with the int64 revision.
    { name: 'Revision', type: 'string', description: controllerRevisionDefinitions[`${APPS}ControllerRevision`].properties!.revision.description!, cell: (o) => o.revision ?? 0 },
    ageColumn(),
  ],
  strategy: {
    defaults(cr) {
      // revision has no omitempty; a JSON null in data decodes to no data.
      if (typeof cr.revision !== 'number') cr.revision = 0;
      if (cr.data === null) delete cr.data;
    },
    validate(cr) {
      const errs: FieldError[] = [];
      if (cr.data === undefined) errs.push(FieldError.required('data', 'data is mandatory'));
      return [...errs, ...nonNegative(cr.revision ?? 0, 'revision')];
    },
    // ValidateControllerRevisionUpdate: the data never changes (the revision number may).
    validateUpdate: (cr, old) => (jsonEqual(cr.data ?? null, old.data ?? null) ? [] : [FieldError.invalid('data', goUnknown(cr.data), 'field is immutable')]),
    allowCreateOnUpdate: false,
  },
});
