// The kubelet's pod status (generateAPIPodStatus, getPhase, status/generate.go and the status manager's
// timestamps) as pure functions: runtime facts + the previous status in, the API PodStatus out.
import type { ContainerStatus, Pod, PodCondition, PodStatus } from '../../api/core/pod/types.js';
import { computeQOS } from '../../api/core/pod/resource.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import { convertContainerStatuses, isRestartableInit, type ProbeVerdict, type WaitingReason } from './container-status.js';
import type { RuntimePodStatus } from '../runtime.js';

export const KUBELET_CONDITIONS = ['PodScheduled', 'Ready', 'Initialized', 'ContainersReady', 'PodReadyToStartContainers', 'PodResizePending', 'PodResizeInProgress'];

const byName = (list: ContainerStatus[], name: string) => list.find((s) => s.name === name);
const isTerminal = (phase?: string) => phase === 'Succeeded' || phase === 'Failed';

/** getPhase: the pod phase from its container statuses, restart policy and whether the pod is terminal. */
export function podPhase(pod: Pod, statuses: ContainerStatus[], opts: { podIsTerminal: boolean; podHasInitialized: boolean }): string {
  const spec = pod.spec ?? {};
  let pendingInit = 0;
  let pendingSidecars = 0;
  let failedInit = 0;
  for (const c of spec.initContainers ?? []) {
    if (isRestartableInit(c)) continue;
    const s = byName(statuses, c.name ?? '');
    if (!s || s.state?.running) pendingInit++;
    else if (s.state?.terminated) {
      if (s.state.terminated.exitCode !== 0) failedInit++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) {
        if (s.lastState.terminated.exitCode !== 0) failedInit++;
      } else pendingInit++;
    } else pendingInit++;
  }
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of spec.initContainers ?? []) {
    if (!isRestartableInit(c)) continue;
    const s = byName(statuses, c.name ?? '');
    if (!s) unknown++;
    else if (s.state?.running) {
      if (!s.started) pendingSidecars++;
      running++;
    } else if (s.state?.terminated) {
      // stopped sidecars do not count
    } else if (s.state?.waiting) {
      if (!s.lastState?.terminated) {
        pendingSidecars++;
        waiting++;
      }
    } else {
      pendingSidecars++;
      unknown++;
    }
  }
  for (const c of spec.containers ?? []) {
    const s = byName(statuses, c.name ?? '');
    if (!s) unknown++;
    else if (s.state?.running) running++;
    else if (s.state?.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }
  if (failedInit > 0 && spec.restartPolicy === 'Never') return 'Failed';
  if (pendingInit > 0 || (pendingSidecars > 0 && !opts.podHasInitialized) || waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (opts.podIsTerminal) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (spec.restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (spec.restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** HasAnyRegularContainerStarted: some regular container is running or has terminated. */
export function anyRegularContainerStarted(pod: Pod, statuses: ContainerStatus[]): boolean {
  return (pod.spec?.containers ?? []).some((c) => {
    const s = byName(statuses, c.name ?? '');
    return !!(s?.state?.running || s?.state?.terminated);
  });
}

const list = (names: string[]) => `[${names.join(' ')}]`;

function containersReady(pod: Pod, statuses: ContainerStatus[], phase: string): PodCondition {
  const unknown: string[] = [];
  const unready: string[] = [];
  const consider = [...(pod.spec?.initContainers ?? []).filter(isRestartableInit), ...(pod.spec?.containers ?? [])];
  for (const c of consider) {
    const s = byName(statuses, c.name ?? '');
    if (!s) unknown.push(c.name ?? '');
    else if (!s.ready) unready.push(c.name ?? '');
  }
  if ((phase === 'Succeeded' && !unknown.length) || phase === 'Failed') {
    return { type: 'ContainersReady', status: 'False', reason: phase === 'Failed' ? 'PodFailed' : 'PodCompleted' };
  }
  const msgs: string[] = [];
  if (unknown.length) msgs.push(`containers with unknown status: ${list(unknown)}`);
  if (unready.length) msgs.push(`containers with unready status: ${list(unready)}`);
  if (msgs.length) return { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: msgs.join(', ') };
  return { type: 'ContainersReady', status: 'True' };
}

function podReady(pod: Pod, conditions: PodCondition[], cr: PodCondition): PodCondition {
  if (cr.status !== 'True') {
    const c: PodCondition = { type: 'Ready', status: cr.status };
    if (cr.reason) c.reason = cr.reason;
    if (cr.message) c.message = cr.message;
    return c;
  }
  const msgs: string[] = [];
  for (const g of pod.spec?.readinessGates ?? []) {
    const type = g.conditionType ?? '';
    const c = conditions.find((x) => x.type === type);
    if (!c) msgs.push(`corresponding condition of pod readiness gate "${type}" does not exist.`);
    else if (c.status !== 'True') msgs.push(`the status of pod readiness gate "${type}" is not "True", but ${c.status}`);
  }
  if (msgs.length) return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: msgs.join(', ') };
  return { type: 'Ready', status: 'True' };
}

function initialized(pod: Pod, statuses: ContainerStatus[], phase: string): PodCondition {
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of pod.spec?.initContainers ?? []) {
    const s = byName(statuses, c.name ?? '');
    if (!s) unknown.push(c.name ?? '');
    else if (isRestartableInit(c) ? !s.started : !s.ready) incomplete.push(c.name ?? '');
  }
  if (phase === 'Succeeded' && !unknown.length) return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  if (anyRegularContainerStarted(pod, statuses)) return { type: 'Initialized', status: 'True' };
  const msgs: string[] = [];
  if (unknown.length) msgs.push(`containers with unknown status: ${list(unknown)}`);
  if (incomplete.length) msgs.push(`containers with incomplete status: ${list(incomplete)}`);
  if (msgs.length) return { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: msgs.join(', ') };
  return { type: 'Initialized', status: 'True' };
}

export interface PodStatusInput {
  pod: Pod;
  runtime?: RuntimePodStatus;
  /** the status the kubelet generated last (status manager cache), else the API's */
  old?: PodStatus;
  waiting?: ReadonlyMap<string, WaitingReason>;
  probes?: (name: string) => ProbeVerdict;
  /** the kubelet will not run this pod's containers again (deleted, or finished) */
  podIsTerminal: boolean;
  hostIPs: string[];
  now: number;
}

/** generateAPIPodStatus followed by the status manager's timestamps. */
export function generatePodStatus(input: PodStatusInput): PodStatus {
  const { pod, runtime } = input;
  const apiStatus = pod.status ?? {};
  const old = input.old ?? apiStatus;
  const waiting = input.waiting ?? new Map<string, WaitingReason>();
  const s: PodStatus = {};
  const hostNetwork = pod.spec?.hostNetwork === true;
  const base = { pod, runtime, waiting, probes: input.probes };
  const containerStatuses = convertContainerStatuses({ ...base, previous: old.containerStatuses ?? [], containers: pod.spec?.containers ?? [], isInit: false });
  const initStatuses = pod.spec?.initContainers?.length
    ? convertContainerStatuses({ ...base, previous: old.initContainerStatuses ?? [], containers: pod.spec.initContainers, isInit: true })
    : undefined;
  const ephemeralStatuses = pod.spec?.ephemeralContainers?.length
    ? ephemeralContainerStatuses(convertContainerStatuses({ ...base, previous: old.ephemeralContainerStatuses ?? [], containers: pod.spec.ephemeralContainers.map((c) => ({ ...c, restartPolicy: 'Never' })), isInit: false }))
    : undefined;
  const all = [...containerStatuses, ...(initStatuses ?? [])];
  const hasInitialized = (runtime?.containers ?? []).some((r) => (pod.spec?.containers ?? []).some((c) => c.name === r.name));
  let phase = podPhase(pod, all, { podIsTerminal: input.podIsTerminal, podHasInitialized: hasInitialized });
  if (!isTerminal(phase)) {
    if (isTerminal(old.phase)) phase = old.phase!;
    else if (isTerminal(apiStatus.phase)) phase = apiStatus.phase!;
  }
  if (isTerminal(apiStatus.phase)) phase = apiStatus.phase!;

  s.phase = phase;
  if (phase === old.phase) {
    const reason = (old.reason as string | undefined) || apiStatus.reason;
    const message = (old.message as string | undefined) || (apiStatus.message as string | undefined);
    if (reason) s.reason = reason;
    if (message) s.message = message;
  }
  // conditions owned by others (readiness gates, DisruptionTarget …) stay, then the kubelet's own
  const conditions: PodCondition[] = (apiStatus.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.includes(c.type ?? '')).map((c) => clone(c));
  const disruption = (old.conditions ?? []).find((c) => c.type === 'DisruptionTarget');
  if (disruption) {
    const i = conditions.findIndex((c) => c.type === 'DisruptionTarget');
    if (i >= 0) conditions[i] = clone(disruption);
    else conditions.push(clone(disruption));
  }
  conditions.push({ type: 'PodReadyToStartContainers', status: runtime?.sandboxReady ? 'True' : 'False' });
  const allForConditions = [...(initStatuses ?? []), ...containerStatuses];
  conditions.push(initialized(pod, allForConditions, phase));
  const cr = containersReady(pod, allForConditions, phase);
  conditions.push(podReady(pod, conditions, cr));
  conditions.push(cr);
  conditions.push({ type: 'PodScheduled', status: 'True' });
  s.conditions = conditions;

  if (input.hostIPs.length) {
    s.hostIP = input.hostIPs[0];
    s.hostIPs = input.hostIPs.map((ip) => ({ ip }));
  }
  let ips = runtime?.ips ?? [];
  if (hostNetwork) ips = input.hostIPs;
  if (!ips.length && old.podIPs?.length) ips = old.podIPs.map((p) => p.ip ?? '').filter(Boolean);
  if (ips.length) {
    s.podIP = ips[0];
    s.podIPs = ips.map((ip) => ({ ip }));
  }
  if (initStatuses) s.initContainerStatuses = initStatuses;
  s.containerStatuses = containerStatuses;
  s.qosClass = apiStatus.qosClass ?? computeQOS(pod);
  if (ephemeralStatuses) s.ephemeralContainerStatuses = ephemeralStatuses;
  return withStatusManagerTimes(s, old, input.now);
}

/** Ephemeral containers have no probes: never ready, and the prober manager gives them no `started`. */
function ephemeralContainerStatuses(list: ContainerStatus[]): ContainerStatus[] {
  return list.map(({ started: _s, allocatedResources: _a, resources: _r, volumeMounts, ...rest }) => ({ ...rest, ready: false, ...(volumeMounts ? { volumeMounts } : {}) }) as ContainerStatus);
}

/** The status manager: a condition keeps its lastTransitionTime while its status is unchanged; startTime is set
 *  once. Fields are put in core/v1 PodStatus order. */
export function withStatusManagerTimes(s: PodStatus, old: PodStatus, now: number): PodStatus {
  const t = rfc3339(now);
  const conditions = (s.conditions ?? []).map((c) => {
    if (!KUBELET_CONDITIONS.includes(c.type ?? '')) return c;
    const prev = (old.conditions ?? []).find((o) => o.type === c.type);
    const ltt = prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : t;
    const out: PodCondition = { type: c.type, status: c.status, lastProbeTime: null, lastTransitionTime: ltt };
    if (c.reason) out.reason = c.reason;
    if (c.message) out.message = c.message;
    return out;
  });
  const out: PodStatus = { phase: s.phase, conditions };
  for (const k of ['message', 'reason', 'hostIP', 'hostIPs', 'podIP', 'podIPs'] as const) if (s[k] !== undefined) (out as Record<string, unknown>)[k] = s[k];
  out.startTime = (old.startTime as string | undefined) || t;
  if (s.initContainerStatuses) out.initContainerStatuses = s.initContainerStatuses;
  out.containerStatuses = s.containerStatuses;
  out.qosClass = s.qosClass;
  if (s.ephemeralContainerStatuses) out.ephemeralContainerStatuses = s.ephemeralContainerStatuses;
  return out;
}
