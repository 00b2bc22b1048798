// OpenAPI schema of core/v1 PersistentVolumeClaim (its spec, shared with ephemeral volume templates, is defined in
// api/core/pod/schema-volumes.ts). Tags and list types follow k8s.io/api/core/v1 types.go (1.33).
import { s, type Definitions, type Schema } from '../../../machinery/schema.js';
import { CORE } from '../common.js';
import { kindHeader, listDefinition } from '../../meta.js';

const r = (name: string, description?: string, extra: Partial<Schema> = {}): Schema => s.ref(CORE + name, description, extra);
const PV_DOC = 'https://kubernetes.io/docs/concepts/storage/persistent-volumes';

export const pvcDefinitions: Definitions = {
  [`${CORE}PersistentVolumeClaim`]: s.obj(
    {
      ...kindHeader(),
      spec: r('PersistentVolumeClaimSpec', `The storage the user asks for. More info: ${PV_DOC}#persistentvolumeclaims`, { default: {} }),
      status: r('PersistentVolumeClaimStatus', `Current state of the claim. Read-only. More info: ${PV_DOC}#persistentvolumeclaims`, { default: {} }),
    },
    { description: 'PersistentVolumeClaim is a request for storage; it binds to a PersistentVolume that satisfies it.' },
  ),
  [`${CORE}PersistentVolumeClaimStatus`]: s.obj(
    {
      phase: s.enumOf(['Bound', 'Lost', 'Pending'], 'Current phase of the claim: Pending, Bound or Lost.'),
      accessModes: s.arr(s.enumOf(['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']), {
        description: `Access modes of the bound volume. More info: ${PV_DOC}#access-modes-1`,
      }),
      capacity: s.map(s.quantity(), 'Actual resources of the bound volume.'),
      conditions: s.arr(r('PersistentVolumeClaimCondition', undefined, { default: {} }), {
        mergeKey: 'type',
        description: 'Current conditions of the claim, e.g. Resizing while its volume is being expanded.',
      }),
      allocatedResources: s.map(s.quantity(), 'Storage the system allocated for the claim; at least the requested size during a resize.'),
      allocatedResourceStatuses: { ...s.strMap('Status of resizing per resource (ControllerResizeInProgress, NodeResizePending, ...).'), mapType: 'granular' },
      currentVolumeAttributesClassName: s.str('VolumeAttributesClass currently applied to the volume.'),
      modifyVolumeStatus: r('ModifyVolumeStatus', 'Status of an ongoing VolumeAttributesClass change.'),
    },
    { description: 'PersistentVolumeClaimStatus is the current status of a claim.' },
  ),
  [`${CORE}PersistentVolumeClaimCondition`]: s.obj(
    {
      type: s.str('Type of the condition, e.g. Resizing or FileSystemResizePending.', { default: '' }),
      status: s.str('Status of the condition: True, False or Unknown.', { default: '' }),
      lastProbeTime: s.time('Last time the condition was probed.'),
      lastTransitionTime: s.time('Last time the condition changed status.'),
      reason: s.str('CamelCase reason for the last transition.'),
      message: s.str('Human-readable details of the last transition.'),
    },
    { required: ['type', 'status'], description: 'A condition of a claim.' },
  ),
  [`${CORE}ModifyVolumeStatus`]: s.obj(
    {
      targetVolumeAttributesClassName: s.str('VolumeAttributesClass being applied.'),
      status: s.str('Status of the change: Pending, InProgress or Infeasible.', { default: '' }),
    },
    { required: ['status'], description: 'Status of a VolumeAttributesClass change of a claim.' },
  ),
  [`${CORE}PersistentVolumeClaimList`]: listDefinition(
    `${CORE}PersistentVolumeClaim`,
    'PersistentVolumeClaimList is a list of PersistentVolumeClaim items.',
    `Items is a list of persistent volume claims. More info: ${PV_DOC}#persistentvolumeclaims`,
  ),
};
