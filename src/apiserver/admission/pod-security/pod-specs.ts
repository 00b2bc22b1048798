// Where the pod (or pod template) of each kind PodSecurity looks at lives, and which pod updates it re-evaluates.
import type { KObject } from '../../../api/types.js';
import { SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION } from './checks-profiles.js';
import { obj, type ContainerLike, type PodMeta, type PodSpecLike } from './pod-view.js';

/** group/resource → the path of the pod template in the object */
const TEMPLATE_PATHS: Record<string, string[]> = {
  '/replicationcontrollers': ['spec', 'template'],
  '/podtemplates': ['template'],
  'apps/replicasets': ['spec', 'template'],
  'apps/deployments': ['spec', 'template'],
  'apps/statefulsets': ['spec', 'template'],
  'apps/daemonsets': ['spec', 'template'],
  'batch/jobs': ['spec', 'template'],
  'batch/cronjobs': ['spec', 'jobTemplate', 'spec', 'template'],
};

export const hasPodTemplate = (group: string, resource: string): boolean => `${group}/${resource}` in TEMPLATE_PATHS;

/** The template's metadata and spec; undefined when the object has none (a ReplicationController may not). */
export function extractTemplate(group: string, resource: string, o: KObject): { meta: PodMeta; spec: PodSpecLike } | undefined {
  let cur: unknown = o;
  for (const step of TEMPLATE_PATHS[`${group}/${resource}`] ?? []) cur = obj(cur)?.[step];
  const template = obj(cur);
  if (!template) return undefined;
  return { meta: (obj(template.metadata) ?? {}) as PodMeta, spec: (obj(template.spec) ?? {}) as PodSpecLike };
}

type PodLike = { metadata?: PodMeta; spec?: PodSpecLike };

/**
 * Whether an update changes what the checks could see. Only images, the seccomp annotations and the set of
 * containers are mutable in the checked parts of a pod; everything else the API refuses to change.
 */
export function isSignificantPodUpdate(pod: PodLike, old: PodLike): boolean {
  const ann = pod.metadata?.annotations ?? {};
  const oldAnn = old.metadata?.annotations ?? {};
  if (ann[SECCOMP_POD_ANNOTATION] !== oldAnn[SECCOMP_POD_ANNOTATION]) return true;
  const spec = pod.spec ?? {};
  const oldSpec = old.spec ?? {};
  const changed = (c: ContainerLike, o: ContainerLike) => {
    if (c.image !== o.image) return true;
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + (c.name ?? '');
    return ann[key] !== oldAnn[key];
  };
  for (const field of ['containers', 'initContainers'] as const) {
    const now = spec[field] ?? [];
    const before = oldSpec[field] ?? [];
    if (now.length !== before.length) return true;
    if (now.some((c, i) => changed(c, before[i]))) return true;
  }
  const oldEphemeral = oldSpec.ephemeralContainers ?? [];
  for (const c of spec.ephemeralContainers ?? []) {
    const o = oldEphemeral.find((x) => x.name === c.name);
    if (!o || changed(c, o)) return true;
  }
  return false;
}
