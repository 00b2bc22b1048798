// Pod and Service facts the Endpoints and EndpointSlice controllers share (k8s.io/endpointslice/util and utils.go,
// pkg/controller/endpoint, 1.33): which pods become endpoints, their IPs, hostnames and target ports, and which
// Services a pod change touches.
import type { Pod } from '../../api/core/pod/types.js';
import type { Service, ServicePort } from '../../api/core/service/types.js';
import type { KObject } from '../../api/types.js';
import { objectKey, type Informer } from '../../client/informer.js';
import { StatusError } from '../../machinery/errors.js';
import { selectorFromSet } from '../../machinery/labels.js';
import { deepEqual } from '../../machinery/object.js';
import { isPodReady } from '../framework/pod-util.js';

export const LABEL_HEADLESS = 'service.kubernetes.io/headless';
export const ANNOTATION_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
export const LABEL_ZONE = 'topology.kubernetes.io/zone';

/** The pod's IPs: status.podIPs, or status.podIP when only that is written (the v1 conversion fills podIPs so). */
export function podIPs(pod: Pod): string[] {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip ?? '').filter((ip) => ip !== '');
  if (ips.length) return ips;
  const ip = pod.status?.podIP as string | undefined;
  return ip ? [ip] : [];
}

export const isIPv6 = (ip: string): boolean => ip.includes(':');

/** ShouldPodBeInEndpoints: not terminal, has an IP, and not terminating unless those are wanted. */
export function shouldPodBeInEndpoints(pod: Pod, opts: { includeTerminating: boolean }): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (podIPs(pod).length === 0) return false;
  return opts.includeTerminating || !pod.metadata.deletionTimestamp;
}

/** ShouldSetHostname: the pod names itself into this Service's subdomain. */
export function shouldSetHostname(pod: Pod, svc: Service): boolean {
  const spec = pod.spec as { hostname?: string; subdomain?: string } | undefined;
  return !!spec?.hostname && spec.subdomain === svc.metadata.name && svc.metadata.namespace === pod.metadata.namespace;
}

/** isServiceIPSet: a ClusterIP that is neither empty nor None (a Service without one is headless). */
export function isServiceIPSet(svc: Service): boolean {
  const ip = svc.spec?.clusterIP ?? '';
  return ip !== '' && ip !== 'None';
}

interface ContainerPorts {
  ports?: { name?: string; containerPort?: number; protocol?: string }[];
  restartPolicy?: string;
}

/** FindPort: a numeric targetPort as is; a named one from the containers' (and sidecars') ports of that protocol. */
export function findPort(pod: Pod, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  const proto = sp.protocol ?? 'TCP';
  const spec = pod.spec as { containers?: ContainerPorts[]; initContainers?: ContainerPorts[] } | undefined;
  const sidecars = (spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  for (const c of [...(spec?.containers ?? []), ...sidecars]) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === proto) return p.containerPort;
  }
  return undefined;
}

/** The Services whose selector matches these labels (a Service without a selector selects nothing). */
function servicesMatching(services: Informer, namespace: string, labels: Record<string, string>): Set<string> {
  const out = new Set<string>();
  for (const s of services.list(namespace) as Service[]) {
    const sel = s.spec?.selector;
    if (sel === undefined || sel === null) continue;
    if (selectorFromSet(sel).matches(labels)) out.add(objectKey(s));
  }
  return out;
}

export function servicesForPod(services: Informer, pod: KObject): Set<string> {
  return servicesMatching(services, pod.metadata.namespace ?? '', pod.metadata.labels ?? {});
}

const podIPList = (p: Pod) => podIPs(p).join(',');

/** GetServicesToUpdateOnPodChange: which Services an update of a pod can change, if any. */
export function servicesForPodUpdate(services: Informer, oldPod: Pod, newPod: Pod): Set<string> {
  if (oldPod.metadata.resourceVersion === newPod.metadata.resourceVersion) return new Set();
  const hostOf = (p: Pod) => {
    const s = p.spec as { hostname?: string; subdomain?: string } | undefined;
    return `${s?.hostname ?? ''}/${s?.subdomain ?? ''}`;
  };
  const labelsChanged = !deepEqual(oldPod.metadata.labels ?? {}, newPod.metadata.labels ?? {}) || hostOf(oldPod) !== hostOf(newPod);
  const podChanged =
    !!oldPod.metadata.deletionTimestamp !== !!newPod.metadata.deletionTimestamp ||
    isPodReady(oldPod) !== isPodReady(newPod) ||
    podIPList(oldPod) !== podIPList(newPod) ||
    // k1s addition: the phase decides ShouldPodBeInEndpoints, and nodeName the slice's node/zone
    (oldPod.status?.phase ?? '') !== (newPod.status?.phase ?? '') ||
    ((oldPod.spec as { nodeName?: string })?.nodeName ?? '') !== ((newPod.spec as { nodeName?: string })?.nodeName ?? '');
  if (!podChanged && !labelsChanged) return new Set();
  const cur = servicesForPod(services, newPod);
  if (!labelsChanged) return cur;
  const old = servicesForPod(services, oldPod);
  if (podChanged) return new Set([...cur, ...old]);
  // only labels changed: the Services gained or lost the pod
  return new Set([...cur].filter((k) => !old.has(k)).concat([...old].filter((k) => !cur.has(k))));
}

/**
 * TriggerTimeTracker: the earliest change (a pod's Ready transition, the Service's creation) not yet seen by a
 * sync of that Service, for the last-change-trigger-time annotation. One per controller instance.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, { pods: Map<string, number>; service: number }>();

  compute(svc: Service, pods: Pod[]): number | undefined {
    const key = objectKey(svc);
    const prev = this.states.get(key);
    let min: number | undefined;
    const next = { pods: new Map<string, number>(), service: 0 };
    for (const pod of pods) {
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      const t = typeof ready?.lastTransitionTime === 'string' ? Date.parse(ready.lastTransitionTime) : NaN;
      if (!Number.isFinite(t)) continue;
      next.pods.set(pod.metadata.name ?? '', t);
      if (t > (prev?.pods.get(pod.metadata.name ?? '') ?? -Infinity)) min = min === undefined ? t : Math.min(min, t);
    }
    const created = svc.metadata.creationTimestamp ? Date.parse(svc.metadata.creationTimestamp) : NaN;
    if (Number.isFinite(created)) {
      next.service = created;
      if (created > (prev?.service ?? -Infinity)) min = min === undefined ? created : Math.min(min, created);
    }
    this.states.set(key, next);
    return min;
  }

  delete(key: string): void {
    this.states.delete(key);
  }
}

/** time.Time.Format(RFC3339Nano) in UTC: fractional seconds without trailing zeros. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

/** Sets or clears the trigger-time annotation on an object's metadata. */
export function setTriggerTime(obj: KObject, triggerTime: number | undefined): void {
  const ann = (obj.metadata.annotations ??= {});
  if (triggerTime !== undefined) ann[ANNOTATION_TRIGGER_TIME] = rfc3339Nano(triggerTime);
  else delete ann[ANNOTATION_TRIGGER_TIME];
  dropEmptyMaps(obj);
}

/** Empty label and annotation maps are left out, as Go's omitempty does. */
export function dropEmptyMaps(obj: KObject): void {
  if (obj.metadata.annotations && Object.keys(obj.metadata.annotations).length === 0) delete obj.metadata.annotations;
  if (obj.metadata.labels && Object.keys(obj.metadata.labels).length === 0) delete obj.metadata.labels;
}

/** The Service's pods (its selector as a set selector), from the pod informer. */
export function podsForService(pods: Informer, svc: Service): Pod[] {
  const sel = selectorFromSet(svc.spec?.selector ?? {});
  return (pods.list(svc.metadata.namespace ?? '') as Pod[]).filter((p) => sel.matches(p.metadata.labels ?? {}));
}

/** A create refused because the namespace is terminating: retrying cannot help (NamespaceTerminatingCause). */
export function isNamespaceTerminating(e: unknown): boolean {
  if (!(e instanceof StatusError) || e.code !== 403) return false;
  return !!e.details?.causes?.some((c) => c.reason === 'NamespaceTerminating') || e.message.includes('because it is being terminated');
}
