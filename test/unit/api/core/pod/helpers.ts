// Drives the pod strategy the way the registry does: decode defaults, prepare, validate.
import { errors, type FieldError } from '../../../../../src/machinery/errors.js';
import { podResource, type Pod } from '../../../../../src/api/core/pod/resource.js';
import type { Strategy } from '../../../../../src/api/types.js';

export const strategy = podResource.strategy as unknown as Required<Strategy<Pod>>;

export function pod(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...meta }, spec } as Pod;
}

export const basic = (extra: Record<string, unknown> = {}): Pod => pod({ containers: [{ name: 'c', image: 'nginx:1.27' }], ...extra });

/** Decode defaults + PrepareForCreate, as on POST. */
export function created(p: Pod): Pod {
  const o = structuredClone(p);
  strategy.defaults(o);
  strategy.prepareForCreate(o);
  return o;
}

/** The 422 message kube-apiserver would return for a create of `p`, or '' when valid. */
export function createMessage(p: Pod): string {
  const o = created(p);
  return message(o, strategy.validate(o));
}

export function message(p: Pod, errs: FieldError[]): string {
  return errs.length ? errors.invalid('Pod', '', p.metadata.name ?? '', errs).message : '';
}

export function fieldErrors(p: Pod): string[] {
  const o = created(p);
  return strategy.validate(o).map((e) => e.toString());
}

/** An update of stored pod `old` to `next` (defaulted first), returning the field errors as strings. */
export function updateErrors(old: Pod, mutate: (p: Pod) => void): string[] {
  const next = structuredClone(old);
  mutate(next);
  strategy.defaults(next);
  strategy.prepareForUpdate(next, old);
  return strategy.validateUpdate(next, old).map((e) => e.toString());
}
