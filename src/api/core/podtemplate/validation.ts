// ValidatePodTemplateSpec (pkg/apis/core/validation) and the checks the replica-managing workloads add around it
// (ValidatePodTemplateSpecForReplicaSet / ForRC in 1.33), plus Go's %#v rendering of the bad values they report.
import { FieldError, goQuote } from '../../../machinery/errors.js';
import { compareGoStrings, validateAnnotations, validateLabels } from '../../../machinery/validation.js';
import type { PodTemplateSpec } from './spec.js';
import type { Pod, PodSpec } from '../pod/types.js';
import { bare } from '../pod/validation-util.js';
import { validatePodAnnotations, validatePodSpec } from '../pod/validation.js';

/** Go's %#v of a map[string]string (keys sorted, as fmt prints maps); nil prints as a typed nil. */
export function goStringMap(m: Record<string, string> | undefined | null): { toString(): string } {
  if (m === undefined || m === null) return bare('map[string]string(nil)');
  const keys = Object.keys(m).sort(compareGoStrings);
  return bare(`map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`).join(', ')}}`);
}

const HOST_PORT_DETAIL = 'must match `containerPort` when `hostNetwork` is true';

/**
 * ValidatePodSpec as for a template (ResourceIsPod false): a host-network template may leave hostPort 0 to mean
 * "same as containerPort"; the pod validator insists on equality, so that one error is dropped for such ports.
 */
function validateTemplatePodSpec(spec: PodSpec, path: string): FieldError[] {
  const allowed = new Set<string>();
  if (spec.hostNetwork) {
    (spec.containers ?? []).forEach((c, i) => (c.ports ?? []).forEach((p, j) => {
      if (!p.hostPort) allowed.add(`${path}.containers[${i}].ports[${j}].hostPort`);
    }));
  }
  return validatePodSpec(spec, undefined, path).filter((e) => !(e.detail === HOST_PORT_DETAIL && allowed.has(e.field)));
}

/** ValidatePodTemplateSpec: labels and annotations of the template (at `<path>.labels`), then its pod spec. */
export function validatePodTemplateSpec(tpl: PodTemplateSpec, path: string): FieldError[] {
  const meta = tpl.metadata ?? {};
  const spec = tpl.spec ?? {};
  const errs = [
    ...validateLabels(meta.labels, `${path}.labels`),
    ...validateAnnotations(meta.annotations, `${path}.annotations`),
    ...validatePodAnnotations({ metadata: meta, spec } as Pod, `${path}.annotations`),
    ...validateTemplatePodSpec(spec, `${path}.spec`),
  ];
  if (spec.ephemeralContainers?.length) {
    errs.push(FieldError.forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}

/** The template of a controller must produce pods its selector picks up. */
export function selectorMismatch(tpl: PodTemplateSpec, path: string): FieldError {
  return FieldError.invalid(`${path}.metadata.labels`, goStringMap(tpl.metadata?.labels), '`selector` does not match template `labels`');
}

/** What every pod-owning workload requires of its template beyond a valid pod: restartPolicy Always, no deadline. */
export function workloadTemplateRules(tpl: PodTemplateSpec, path: string, kind: string): FieldError[] {
  const spec = tpl.spec ?? {};
  const errs: FieldError[] = [];
  if (spec.restartPolicy !== 'Always') errs.push(FieldError.notSupported(`${path}.spec.restartPolicy`, spec.restartPolicy ?? '', ['Always']));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    errs.push(FieldError.forbidden(`${path}.spec.activeDeadlineSeconds`, `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return errs;
}

/**
 * ValidatePodTemplateSpecForReplicaSet / ForRC: the selector (when it restricts anything) must match the template
 * labels, the template must be a valid pod template, and the workload rules apply.
 */
export function validateReplicaTemplate(
  tpl: PodTemplateSpec | undefined | null,
  matches: ((labels: Record<string, string>) => boolean) | undefined,
  path: string,
  kind: string,
): FieldError[] {
  if (!tpl) return [FieldError.required(path)];
  const errs: FieldError[] = [];
  if (matches && !matches(tpl.metadata?.labels ?? {})) errs.push(selectorMismatch(tpl, path));
  errs.push(...validatePodTemplateSpec(tpl, path), ...workloadTemplateRules(tpl, path, kind));
  return errs;
}
