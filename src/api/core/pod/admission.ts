// What happens to a pod between decoding and storage besides defaulting: the pod strategy's PrepareForCreate /
// PrepareForUpdate (pkg/registry/core/pod/strategy.go), QoS (pkg/apis/core/helper/qos), dropping fields of
// features that are off by default in 1.33 (pkg/api/pod DropDisabledPodFields), and the mutating admission plugins
// every real cluster runs on pod create (ServiceAccount, DefaultTolerationSeconds, Priority).
import { Quantity } from '../../../machinery/quantity.js';
import { randomSuffix } from '../../../machinery/object.js';
import { syncServiceAccountAlias } from './defaults.js';
import type { Container, Pod, PodSpec, Toleration } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

function positive(v: unknown): Quantity | undefined {
  try {
    const q = Quantity.fromJSON(v);
    return q.sign() > 0 ? q : undefined;
  } catch {
    return undefined;
  }
}

/** qos.ComputePodQOS for 1.33 defaults (PodLevelResources off): only cpu and memory of regular and init containers count. */
export function computeQOS(pod: Pod): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  const add = (m: Map<string, Quantity>, k: string, q: Quantity) => m.set(k, m.has(k) ? m.get(k)!.add(q) : q);
  let guaranteed = true;
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const res = c.resources ?? {};
    for (const [k, v] of Object.entries(res.requests ?? {})) {
      const q = (k === 'cpu' || k === 'memory') && positive(v);
      if (q) add(requests, k, q);
    }
    const found = new Set<string>();
    for (const [k, v] of Object.entries(res.limits ?? {})) {
      const q = (k === 'cpu' || k === 'memory') && positive(v);
      if (!q) continue;
      found.add(k);
      add(limits, k, q);
    }
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [k, req] of requests) {
      const lim = limits.get(k);
      if (!lim || lim.cmp(req) !== 0) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** Whether any container of the spec has a value at `get`. */
function anyContainer(spec: PodSpec | undefined, get: (c: Container) => unknown): boolean {
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])].some((c) => get(c) !== undefined);
}

const projectedSources = (spec: PodSpec | undefined): Obj[] =>
  (spec?.volumes ?? []).flatMap((v) => (isObj(v.projected) && Array.isArray(v.projected.sources) ? (v.projected.sources as Obj[]) : []));

/**
 * DropDisabledPodFields for the gates that are off in a default 1.33 cluster: a field is dropped unless the old
 * object already uses it (so existing objects keep working). PodLevelResources, ContainerStopSignals,
 * DynamicResourceAllocation, ImageVolume, ClusterTrustBundleProjection and PodObservedGenerationTracking.
 */
export function dropDisabledPodFields(pod: Pod, old?: Pod): void {
  const spec = pod.spec;
  if (!spec) return;
  const oldSpec = old?.spec;
  if (!oldSpec?.resources) delete spec.resources;
  if (!anyContainer(oldSpec, (c) => c.lifecycle?.stopSignal)) {
    for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
      for (const c of list ?? []) if (isObj(c.lifecycle)) delete c.lifecycle.stopSignal;
    }
  }
  const draInUse = draInUseBy(oldSpec);
  if (!draInUse) {
    delete spec.resourceClaims;
    for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
      for (const c of list ?? []) if (isObj(c.resources)) delete c.resources.claims;
    }
    if (pod.status && !old?.status?.resourceClaimStatuses) delete pod.status.resourceClaimStatuses;
  }
  if (spec.volumes && !(oldSpec?.volumes ?? []).some((v) => v.image !== undefined)) {
    spec.volumes = spec.volumes.filter((v) => v.image === undefined);
  }
  if (!projectedSources(oldSpec).some((s) => s.clusterTrustBundle !== undefined)) {
    for (const s of projectedSources(spec)) delete s.clusterTrustBundle;
  }
  dropObservedGeneration(pod, old);
}

/**
 * dropDisabledPodFields of a status update, whose spec is the old object's: the spec keeps what the old object uses
 * anyway, so only the status fields are dropped (the spec, shared with the old object, is not touched).
 */
export function dropDisabledPodStatusFields(pod: Pod, old: Pod): void {
  if (!pod.spec) return;
  if (!draInUseBy(old.spec) && pod.status && !old.status?.resourceClaimStatuses) delete pod.status.resourceClaimStatuses;
  dropObservedGeneration(pod, old);
}

function draInUseBy(oldSpec: PodSpec | undefined): boolean {
  return !!oldSpec?.resourceClaims?.length || anyContainer(oldSpec, (c) => (c.resources?.claims?.length ? true : undefined));
}

function dropObservedGeneration(pod: Pod, old?: Pod): void {
  const st = pod.status;
  if (!st) return;
  const inUse = !!old?.status?.observedGeneration || (old?.status?.conditions ?? []).some((c) => !!c.observedGeneration);
  if (inUse) return;
  delete st.observedGeneration;
  for (const c of st.conditions ?? []) if (isObj(c)) delete c.observedGeneration;
}

/** Adds the PodScheduled=False/SchedulingGated condition to a new pod that has scheduling gates. */
export function applySchedulingGatedCondition(pod: Pod, now: string): void {
  if (!pod.spec?.schedulingGates?.length) return;
  const st = (pod.status ??= {});
  if ((st.conditions ?? []).some((c) => c.type === 'PodScheduled')) return;
  (st.conditions ??= []).push({
    type: 'PodScheduled',
    status: 'False',
    lastProbeTime: null,
    lastTransitionTime: now,
    reason: 'SchedulingGated',
    message: 'Scheduling is blocked due to non-empty scheduling gates',
  });
}

/** MatchLabelKeysInPodAffinity (on in 1.33): matchLabelKeys/mismatchLabelKeys become In/NotIn selector terms on create. */
export function mutatePodAffinity(pod: Pod): void {
  const labels = pod.metadata.labels ?? {};
  const aff = pod.spec?.affinity;
  if (!isObj(aff)) return;
  const apply = (term: unknown) => {
    if (!isObj(term) || !isObj(term.labelSelector)) return;
    const sel = term.labelSelector as { matchExpressions?: Obj[] };
    for (const [keys, operator] of [[term.matchLabelKeys, 'In'], [term.mismatchLabelKeys, 'NotIn']] as const) {
      for (const key of (Array.isArray(keys) ? keys : []) as string[]) {
        if (key in labels) (sel.matchExpressions ??= []).push({ key, operator, values: [labels[key]] });
      }
    }
  };
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = aff[kind];
    if (!isObj(a)) continue;
    for (const t of (a.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Obj[]) apply(isObj(t) ? t.podAffinityTerm : undefined);
    for (const t of (a.requiredDuringSchedulingIgnoredDuringExecution ?? []) as Obj[]) apply(t);
  }
}

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** DefaultTolerationSeconds admission: tolerate not-ready and unreachable nodes for 300s unless already tolerated. */
export function addDefaultTolerations(spec: PodSpec): void {
  const covers = (t: Toleration, key: string) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect);
  const tolerations = spec.tolerations ?? [];
  const add: Toleration[] = [];
  for (const key of [NOT_READY, UNREACHABLE]) {
    if (!tolerations.some((t) => covers(t, key))) add.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
  }
  if (add.length) spec.tolerations = [...tolerations, ...add];
}

/** The PriorityClasses every cluster bootstraps; other names are resolved by the caller. */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

/** Priority admission for the cases that need no PriorityClass lookup (no class, or a system class). */
export function applyDefaultPriority(spec: PodSpec): void {
  const name = spec.priorityClassName ?? '';
  const value = name === '' ? 0 : SYSTEM_PRIORITY_CLASSES[name];
  if (value === undefined) return;
  if (spec.priority === undefined || spec.priority === null) spec.priority = value;
  if (!spec.preemptionPolicy) spec.preemptionPolicy = 'PreemptLowerPriority';
}

/**
 * The create-time mutations of the admission chain that need no other object: ServiceAccount's default name,
 * DefaultTolerationSeconds and Priority (without a global default class). Mirror (static) pods are left alone by
 * the ServiceAccount plugin.
 */
export function admitPodCreate(pod: Pod): void {
  const spec = (pod.spec ??= {});
  if (!(pod.metadata.annotations ?? {})[MIRROR_POD_ANNOTATION] && !spec.serviceAccountName) {
    spec.serviceAccountName = 'default';
    syncServiceAccountAlias(spec);
  }
  addDefaultTolerations(spec);
  applyDefaultPriority(spec);
}

export const SERVICE_ACCOUNT_VOLUME_PREFIX = 'kube-api-access-';
export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The projected token volume the ServiceAccount admission plugin adds (TokenVolumeSource, as defaulted). */
export function serviceAccountTokenVolume(name: string): Obj {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        // 1h+7s: the kubelet recognises this lifetime as "warn only" for legacy token consumers.
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/** Whether the token should be mounted: the pod's automountServiceAccountToken wins, then the ServiceAccount's. */
export function shouldAutomountToken(pod: Pod, serviceAccount?: { automountServiceAccountToken?: boolean }): boolean {
  const own = pod.spec?.automountServiceAccountToken;
  if (typeof own === 'boolean') return own;
  const sa = serviceAccount?.automountServiceAccountToken;
  return typeof sa === 'boolean' ? sa : true;
}

/**
 * ServiceAccount admission's mountServiceAccountToken: mounts a `kube-api-access-xxxxx` projected volume read-only
 * at /var/run/secrets/kubernetes.io/serviceaccount in every init and regular container that has nothing mounted
 * there, adding the volume unless one named kube-api-access-* already exists. Call it on create for pods whose
 * ServiceAccount exists and shouldAutomountToken() allows it. `rand(n)` gives the n-character random suffix.
 */
export function injectServiceAccountVolume(pod: Pod, rand: (n: number) => string = randomSuffix): void {
  const spec = (pod.spec ??= {});
  const existing = (spec.volumes ?? []).find((v) => typeof v.name === 'string' && v.name.startsWith(SERVICE_ACCOUNT_VOLUME_PREFIX));
  const name = existing?.name ?? SERVICE_ACCOUNT_VOLUME_PREFIX + rand(5);
  let needed = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((c.volumeMounts ?? []).some((m) => m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
    (c.volumeMounts ??= []).push({ name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH });
    needed = true;
  }
  if (needed && !existing) (spec.volumes ??= []).push(serviceAccountTokenVolume(name));
}

/** PodStrategy.PrepareForCreate plus the admission mutations above; `now` is RFC 3339. */
export function prepareNewPod(pod: Pod, now: string): void {
  pod.metadata.generation = 1;
  admitPodCreate(pod);
  pod.status = { phase: 'Pending', qosClass: computeQOS(pod) };
  dropDisabledPodFields(pod);
  applySchedulingGatedCondition(pod, now);
  mutatePodAffinity(pod);
}

