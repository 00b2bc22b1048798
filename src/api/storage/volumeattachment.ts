// storage.k8s.io/v1 VolumeAttachment: types.go, pkg/registry/storage/volumeattachment/strategy.go (spec immutable,
// status subresource; errorCode needs MutableCSINodeAllocatableCount, alpha in 1.33), ValidateVolumeAttachment(V1/
// Update) in pkg/apis/storage/validation/validation.go, printVolumeAttachment.
import { FieldError, goQuote } from '../../machinery/errors.js';
import { s, type Definitions } from '../../machinery/schema.js';
import { byteLength, inclusiveRangeError, nameIsDNSSubdomain } from '../../machinery/validation.js';
import { CORE } from '../core/common.js';
import { ageColumn, jsonEqual, nameColumn, sortedKeys } from '../format.js';
import { kindHeader, listDefinition } from '../meta.js';
import { bare, goPtr, isCreate } from '../networking/util.js';
import { STORAGE, validateCSIDriverName } from './common.js';
import { defineResource, type KObject } from '../types.js';

interface VolumeError {
  time?: string | null;
  message?: string;
  errorCode?: number | null;
}
export interface VolumeAttachment extends KObject {
  spec?: {
    attacher?: string;
    source?: { persistentVolumeName?: string | null; inlineVolumeSpec?: Record<string, unknown> | null };
    nodeName?: string;
  };
  status?: { attached?: boolean; attachmentMetadata?: Record<string, string> | null; attachError?: VolumeError | null; detachError?: VolumeError | null };
}

const MAX_METADATA_SIZE = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;

const volumeError = (what: string) =>
  s.ref(`${STORAGE}VolumeError`, `${what} represents the last error of the ${what.startsWith('attach') ? 'attach' : 'detach'} operation, if any. Set only by the external-attacher.`);

export const volumeAttachmentDefinitions: Definitions = {
  [`${STORAGE}VolumeAttachment`]: s.obj(
    {
      ...kindHeader(),
      spec: s.ref(`${STORAGE}VolumeAttachmentSpec`, 'spec is the desired attach/detach behavior. Populated by the Kubernetes system; immutable.', { default: {} }),
      status: s.ref(`${STORAGE}VolumeAttachmentStatus`, 'status of the attach or detach request, set by the entity that completes it (the external-attacher).', {
        default: {},
      }),
    },
    {
      description: 'VolumeAttachment captures the intent to attach or detach the specified volume to/from the specified node. VolumeAttachments are cluster-scoped.',
      required: ['spec'],
    },
  ),
  [`${STORAGE}VolumeAttachmentSpec`]: s.obj(
    {
      attacher: s.str('attacher is the name of the volume driver that must handle this request (the name GetPluginName() returns).', { default: '' }),
      nodeName: s.str('nodeName represents the node that the volume should be attached to.', { default: '' }),
      source: s.ref(`${STORAGE}VolumeAttachmentSource`, 'source represents the volume that should be attached.', { default: {} }),
    },
    { description: 'VolumeAttachmentSpec is the specification of a VolumeAttachment request.', required: ['attacher', 'source', 'nodeName'] },
  ),
  [`${STORAGE}VolumeAttachmentSource`]: s.obj(
    {
      inlineVolumeSpec: s.ref(
        `${CORE}PersistentVolumeSpec`,
        "inlineVolumeSpec holds what is needed to attach a persistent volume defined by a pod's inline volume source, translated for CSI migration.",
      ),
      persistentVolumeName: s.str('persistentVolumeName represents the name of the persistent volume to attach.'),
    },
    { description: 'VolumeAttachmentSource represents a volume that should be attached: exactly one member must be set.' },
  ),
  [`${STORAGE}VolumeAttachmentStatus`]: s.obj(
    {
      attachError: volumeError('attachError'),
      attached: s.bool('attached says the volume is attached. Set only by the entity completing the attach (the external-attacher).', { default: false }),
      attachmentMetadata: s.strMap(
        'attachmentMetadata carries what a successful attach returned that later WaitForAttach or Mount calls need. Set only by the external-attacher.',
      ),
      detachError: volumeError('detachError'),
    },
    { description: 'VolumeAttachmentStatus is the status of a VolumeAttachment request.', required: ['attached'] },
  ),
  [`${STORAGE}VolumeError`]: s.obj(
    {
      errorCode: s.int32('errorCode is the numeric gRPC code of the error. Alpha: needs the MutableCSINodeAllocatableCount feature gate.'),
      message: s.str('message is the error of the attach or detach operation. It may be logged, so it must not hold sensitive information.'),
      time: s.time('time is when the error was encountered.'),
    },
    { description: 'VolumeError captures an error encountered during a volume operation.' },
  ),
  [`${STORAGE}VolumeAttachmentList`]: listDefinition(
    `${STORAGE}VolumeAttachment`,
    'VolumeAttachmentList is a collection of VolumeAttachment objects.',
    'items is the list of VolumeAttachments',
  ),
};

function validateVolumeError(e: VolumeError | null | undefined, path: string): FieldError[] {
  if (e == null) return [];
  const errs: FieldError[] = [];
  // Kubernetes reports the metadata limit here, not the 1024-byte message limit it checks.
  if (byteLength(e.message ?? '') > MAX_ERROR_MESSAGE) errs.push(FieldError.tooLong(`${path}.message`, '', MAX_METADATA_SIZE));
  if (e.errorCode != null && e.errorCode < 0) errs.push(FieldError.invalid(`${path}.errorCode`, e.errorCode, inclusiveRangeError(0, 2147483647)));
  return errs;
}

/** ValidateVolumeAttachment: spec and status (metadata is validated by the generic server). */
export function validateVolumeAttachment(va: VolumeAttachment): FieldError[] {
  const errs: FieldError[] = [];
  const spec = va.spec ?? {};
  if ((spec.attacher ?? '') === '') errs.push(FieldError.required('spec.attacher', ''));
  const src = spec.source ?? {};
  const pv = src.persistentVolumeName;
  const inline = src.inlineVolumeSpec;
  const exactlyOne = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
  if (inline == null && pv == null) errs.push(FieldError.required('spec.source', exactlyOne));
  else if (inline != null && pv != null) errs.push(FieldError.forbidden('spec.source', exactlyOne));
  else if (pv != null && pv === '') errs.push(FieldError.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  for (const m of nameIsDNSSubdomain(spec.nodeName ?? '', false)) errs.push(FieldError.invalid('spec.nodeName', spec.nodeName ?? '', m));
  const st = va.status ?? {};
  let size = 0;
  for (const k of sortedKeys(st.attachmentMetadata)) size += byteLength(k) + byteLength(st.attachmentMetadata![k] ?? '');
  if (size > MAX_METADATA_SIZE) errs.push(FieldError.tooLong('status.attachmentMetadata', '', MAX_METADATA_SIZE));
  errs.push(...validateVolumeError(st.attachError, 'status.attachError'));
  errs.push(...validateVolumeError(st.detachError, 'status.detachError'));
  return errs;
}

/** ValidateVolumeAttachmentV1: the stricter checks v1 applies to new objects. */
function validateVolumeAttachmentV1(va: VolumeAttachment): FieldError[] {
  const errs = validateCSIDriverName(va.spec?.attacher ?? '', 'spec.attacher');
  const pv = va.spec?.source?.persistentVolumeName;
  if (pv != null) for (const m of nameIsDNSSubdomain(pv, false)) errs.push(FieldError.invalid('spec.source.persistentVolumeName', pv, m));
  return errs;
}

/** Go's %#v of storage.VolumeAttachmentSpec (the bad value of the immutable-spec error). */
function goSpec(spec: VolumeAttachment['spec']): { toString(): string } {
  const src = spec?.source ?? {};
  return bare(
    `storage.VolumeAttachmentSpec{Attacher:${goQuote(spec?.attacher ?? '')}, Source:storage.VolumeAttachmentSource{PersistentVolumeName:${goPtr('string', src.persistentVolumeName)}, InlineVolumeSpec:${goPtr('core.PersistentVolumeSpec', src.inlineVolumeSpec)}}, NodeName:${goQuote(spec?.nodeName ?? '')}}`,
  );
}

function normalize(va: VolumeAttachment): void {
  const spec = (va.spec ??= {});
  spec.attacher ??= '';
  spec.nodeName ??= '';
  spec.source ??= {};
  const st = (va.status ??= {});
  st.attached ??= false;
  // metav1.Time inside a struct: Go writes null for the zero time.
  for (const e of [st.attachError, st.detachError]) if (e && e.time === undefined) e.time = null;
}

const doc = (def: string, f: string): string => volumeAttachmentDefinitions[STORAGE + def].properties![f].description!;

export const volumeAttachmentResource = defineResource<VolumeAttachment>({
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  singular: 'volumeattachment',
  namespaced: false,
  schemaRef: `${STORAGE}VolumeAttachment`,
  definitions: volumeAttachmentDefinitions,
  subresources: { status: true },
  columns: [
    nameColumn(),
    { name: 'Attacher', type: 'string', format: 'name', description: doc('VolumeAttachmentSpec', 'attacher'), cell: (o) => o.spec?.attacher ?? '' },
    { name: 'PV', type: 'string', description: doc('VolumeAttachmentSource', 'persistentVolumeName'), cell: (o) => o.spec?.source?.persistentVolumeName ?? '' },
    { name: 'Node', type: 'string', description: doc('VolumeAttachmentSpec', 'nodeName'), cell: (o) => o.spec?.nodeName ?? '' },
    { name: 'Attached', type: 'boolean', description: doc('VolumeAttachmentStatus', 'attached'), cell: (o) => o.status?.attached ?? false },
    ageColumn(),
  ],
  strategy: {
    defaults: normalize,
    prepareForCreate(va) {
      va.status = { attached: false };
    },
    validate: (va) => [...validateVolumeAttachment(va), ...(isCreate(va) ? validateVolumeAttachmentV1(va) : [])],
    validateUpdate: (va, old) => (jsonEqual(va.spec ?? {}, old.spec ?? {}) ? [] : [FieldError.invalid('spec', goSpec(va.spec), 'field is immutable')]),
    prepareForStatusUpdate(va, old) {
      // errorCode may only be set while the gate is enabled or when the stored error already has one.
      for (const k of ['attachError', 'detachError'] as const) {
        const e = va.status?.[k];
        if (e && old.status?.[k]?.errorCode == null) delete e.errorCode;
      }
    },
    validateStatusUpdate: (va) => validateVolumeAttachment(va),
    allowCreateOnUpdate: false,
  },
});
