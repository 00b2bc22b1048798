// core/v1 PersistentVolumeClaim as a StatefulSet embeds it (spec.volumeClaimTemplates); the claim's schema is the
// PersistentVolumeClaim kind's own (api/core/persistentvolumeclaim/schema.ts). What decoding and encoding do to each template:
// SetDefaults_PersistentVolumeClaim (status.phase Pending), SetDefaults_PersistentVolumeClaimSpec (volumeMode
// Filesystem), ResourceList rounding, and the apps/v1 conversion that always writes apiVersion v1 / kind
// PersistentVolumeClaim (issue 87583).
import { dropEmpty, isObj } from '../common.js';
import { roundedQuantity } from '../../core/pod/defaults.js';
import { normalizeEmbeddedMeta } from '../../core/podtemplate/spec.js';

export { pvcDefinitions as claimTemplateDefinitions } from '../../core/persistentvolumeclaim/schema.js';

type Obj = Record<string, unknown>;

function roundList(holder: Obj, key: string): void {
  const list = holder[key];
  if (!isObj(list)) return;
  for (const k of Object.keys(list)) {
    const q = roundedQuantity(list[k]);
    if (q !== undefined) list[k] = q;
  }
  if (!Object.keys(list).length) delete holder[key];
}

/** The defaults and Go encoding of one volume claim template. */
export function defaultClaimTemplate(pvc: Obj): void {
  pvc.apiVersion = 'v1';
  pvc.kind = 'PersistentVolumeClaim';
  const meta: Obj = isObj(pvc.metadata) ? pvc.metadata : (pvc.metadata = {});
  normalizeEmbeddedMeta(meta);
  const spec: Obj = isObj(pvc.spec) ? pvc.spec : (pvc.spec = {});
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
  // resources is a struct in Go: always written, {} when empty.
  const resources: Obj = isObj(spec.resources) ? spec.resources : (spec.resources = {});
  roundList(resources, 'limits');
  roundList(resources, 'requests');
  dropEmpty(spec, ['accessModes', 'volumeName']);
  const status: Obj = isObj(pvc.status) ? pvc.status : (pvc.status = {});
  if (!status.phase) status.phase = 'Pending';
  roundList(status, 'capacity');
  roundList(status, 'allocatedResources');
  dropEmpty(status, ['accessModes', 'conditions', 'allocatedResourceStatuses']);
}
