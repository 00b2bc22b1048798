// ValidateReplicationController / ValidateReplicationControllerSpec / ValidateReplicationControllerStatusUpdate
// (pkg/apis/core/validation/validation.go, 1.33). The selector is a plain label map: it must not be empty and,
// unlike apps/v1 selectors, it may change.
import { FieldError } from '../../../machinery/errors.js';
import { selectorFromSet } from '../../../machinery/labels.js';
import { nonNegative, replicaCountErrors } from '../../apps/common.js';
import type { PodTemplateSpec } from '../podtemplate/spec.js';
import { validateReplicaTemplate } from '../podtemplate/validation.js';
import type { KObject } from '../../types.js';

export interface ReplicationControllerSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: Record<string, string>;
  template?: PodTemplateSpec;
  [k: string]: unknown;
}

export interface ReplicationController extends KObject {
  spec?: ReplicationControllerSpec;
  status?: Record<string, unknown>;
}

/** ValidateReplicationControllerSpec (metadata is the registry's). */
export function validateReplicationController(rc: ReplicationController): FieldError[] {
  const spec = rc.spec ?? {};
  const errs = nonNegative(spec.minReadySeconds ?? 0, 'spec.minReadySeconds');
  const selector = selectorFromSet(spec.selector);
  // ValidateNonEmptySelector
  if (selector.empty) errs.push(FieldError.required('spec.selector'));
  errs.push(...nonNegative(spec.replicas ?? 0, 'spec.replicas'));
  const matches = selector.empty ? undefined : (labels: Record<string, string>) => selector.matches(labels);
  errs.push(...validateReplicaTemplate(spec.template, matches, 'spec.template', 'ReplicationController'));
  return errs;
}

/** ValidateReplicationControllerStatus. */
export function validateReplicationControllerStatus(rc: ReplicationController): FieldError[] {
  const st = rc.status ?? {};
  return replicaCountErrors(
    st,
    ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
    ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
  );
}
