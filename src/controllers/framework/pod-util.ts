// Pod facts the workload controllers share (pkg/api/v1/pod/util.go, pkg/controller/controller_utils.go).
import type { KObject } from '../../api/types.js';
import { clone } from '../../machinery/object.js';
import { controllerRef } from './owner.js';

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface PodLike extends KObject {
  spec?: { nodeName?: string; [k: string]: unknown };
  status?: { phase?: string; conditions?: PodCondition[]; [k: string]: unknown };
}

export function podCondition(pod: KObject, type: string): PodCondition | undefined {
  return (pod as PodLike).status?.conditions?.find((c) => c.type === type);
}

export function isPodReady(pod: KObject): boolean {
  return podCondition(pod, 'Ready')?.status === 'True';
}

/** Ready for at least minReadySeconds (podutil.IsPodAvailable). */
export function isPodAvailable(pod: KObject, minReadySeconds: number, now: number): boolean {
  const c = podCondition(pod, 'Ready');
  if (c?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : 0;
  return since > 0 && since + minReadySeconds * 1000 <= now;
}

export function podPhase(pod: KObject): string {
  return (pod as PodLike).status?.phase ?? 'Pending';
}

/** Not finished and not being deleted (controller.IsPodActive). */
export function isPodActive(pod: KObject): boolean {
  const phase = podPhase(pod);
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

export function isPodTerminating(pod: KObject): boolean {
  return !!pod.metadata.deletionTimestamp;
}

export function nodeNameOf(pod: KObject): string {
  return (pod as PodLike).spec?.nodeName ?? '';
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[] };
  spec?: Record<string, unknown>;
}

/** A pod for `owner` from its template (controller.GetPodFromTemplate): labels, annotations, finalizers, spec. */
export function podFromTemplate(template: PodTemplate, owner: KObject, opts: { name?: string; generateName?: string } = {}): KObject {
  const meta: KObject['metadata'] = {
    namespace: owner.metadata.namespace,
    labels: clone(template.metadata?.labels ?? {}),
    ownerReferences: [controllerRef(owner)],
  } as KObject['metadata'];
  if (template.metadata?.annotations) meta.annotations = clone(template.metadata.annotations);
  if (template.metadata?.finalizers) (meta as { finalizers?: string[] }).finalizers = clone(template.metadata.finalizers);
  if (opts.name) meta.name = opts.name;
  else meta.generateName = opts.generateName ?? `${owner.metadata.name}-`;
  return { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: clone(template.spec ?? {}) } as KObject;
}
