// Container statuses as the kubelet reports them (convertToAPIContainerStatuses and the probe manager's
// UpdatePodStatus): the runtime's newest instance is `state`, the one before it `lastState`; containers the kubelet
// holds back (CrashLoopBackOff …) show as waiting with the reason it recorded; readiness and `started` come from probes.
import type { Container, ContainerState, ContainerStatus, Pod } from '../../api/core/pod/types.js';
import { clone, rfc3339 } from '../../machinery/object.js';
import type { RuntimeContainer, RuntimePodStatus } from '../runtime.js';

export interface WaitingReason {
  reason: string;
  message: string;
}

/** What the probes say of one running container (undefined: no verdict yet). */
export interface ProbeVerdict {
  ready?: boolean;
  started?: boolean;
}

export interface ContainerStatusInput {
  pod: Pod;
  runtime?: RuntimePodStatus;
  previous: ContainerStatus[];
  containers: Container[];
  isInit: boolean;
  /** the reason cache: why a container that should run is not running */
  waiting: ReadonlyMap<string, WaitingReason>;
  probes?: (name: string) => ProbeVerdict;
}

export function isRestartableInit(c: Container): boolean {
  return c.restartPolicy === 'Always';
}

/** ShouldContainerBeRestarted: whether the kubelet will (re)start this container on its next sync. */
export function shouldRestart(pod: Pod, c: Container, latest: RuntimeContainer | undefined): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  if (!latest || latest.state !== 'exited') return !latest || latest.state !== 'running';
  const policy = c.restartPolicy ?? pod.spec?.restartPolicy ?? 'Always';
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return latest.exitCode !== 0;
  return true;
}

function stateOf(rc: RuntimeContainer): ContainerState {
  if (rc.state === 'running') return { running: { startedAt: rfc3339(rc.startedAt ?? rc.createdAt) } };
  if (rc.state === 'exited') {
    const t: Record<string, unknown> = { exitCode: rc.exitCode ?? 0 };
    if (rc.reason) t.reason = rc.reason;
    if (rc.message) t.message = rc.message;
    t.startedAt = rc.startedAt ? rfc3339(rc.startedAt) : null;
    t.finishedAt = rc.finishedAt ? rfc3339(rc.finishedAt) : null;
    t.containerID = rc.id;
    return { terminated: t as ContainerState['terminated'] };
  }
  return { waiting: {} };
}

function volumeMountStatuses(c: Container): Record<string, unknown>[] | undefined {
  if (!c.volumeMounts?.length) return undefined;
  return c.volumeMounts.map((m) => {
    const v: Record<string, unknown> = { name: m.name, mountPath: m.mountPath };
    if (m.readOnly) {
      v.readOnly = true;
      v.recursiveReadOnly = 'Disabled';
    }
    return v;
  });
}

/** The API statuses of one container list (regular or init), in spec order. */
export function convertContainerStatuses(input: ContainerStatusInput): ContainerStatus[] {
  const { pod, runtime, containers } = input;
  const hasInit = (pod.spec?.initContainers?.length ?? 0) > 0;
  const old = new Map(input.previous.map((s) => [s.name ?? '', s]));
  const defaultWaiting = hasInit ? 'PodInitializing' : 'ContainerCreating';
  const instances = (name: string) => (runtime?.containers ?? []).filter((r) => r.name === name).sort((a, b) => b.createdAt - a.createdAt);
  return containers.map((c) => {
    const name = c.name ?? '';
    const prev = old.get(name);
    const seen = instances(name);
    let st: ContainerStatus;
    if (!seen.length && prev?.state?.terminated) st = clone(prev);
    else {
      st = { name, state: { waiting: { reason: defaultWaiting } }, lastState: {}, ready: false, restartCount: prev?.restartCount ?? 0, image: c.image ?? '', imageID: '' };
      if (prev?.lastState) st.lastState = clone(prev.lastState);
      // the runtime lost a container that was running: it terminated, we just do not know how
      if (!seen.length && prev?.state?.running && !st.lastState?.terminated) {
        st.lastState = { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was deleted.  The container used to be Running' } as ContainerState['terminated'] };
        if (!pod.metadata.deletionTimestamp) st.restartCount = (st.restartCount ?? 0) + 1;
      }
    }
    if (seen.length) {
      const cur = seen[0];
      st = { name, state: stateOf(cur), lastState: seen[1] ? stateOf(seen[1]) : prev?.lastState && prev.restartCount === cur.attempt ? clone(prev.lastState) : {}, ready: false, restartCount: cur.attempt, image: cur.image, imageID: cur.imageID, containerID: cur.id };
      if (cur.state === 'running' && prev?.started !== undefined && prev.containerID === cur.id) st.started = prev.started;
    }
    // a container held back (back-off, failed start) is waiting, with what it was before as lastState
    const w = input.waiting.get(name);
    const skipInit = input.isInit && seen[0]?.state === 'exited' && seen[0].exitCode === 0;
    if (w && !skipInit && shouldRestart(pod, c, seen[0])) {
      if (st.state?.terminated) st.lastState = st.state;
      st.state = { waiting: { reason: w.reason, message: w.message } };
    }
    applyProbes(st, c, input);
    const res = seen.length ? { allocatedResources: c.resources?.requests ? clone(c.resources.requests) : undefined, resources: clone(c.resources ?? {}) } : {};
    return ordered(st, res, volumeMountStatuses(c));
  });
}

/** The probe manager's pass: `started` and `ready` for every container. */
function applyProbes(st: ContainerStatus, c: Container, input: ContainerStatusInput): void {
  const running = !!st.state?.running;
  const verdict = running ? (input.probes?.(st.name ?? '') ?? {}) : {};
  const started = running && (c.startupProbe ? verdict.started === true : true);
  st.started = running ? (st.started === true || started) : false;
  if (input.isInit && !isRestartableInit(c)) {
    st.ready = !!st.state?.terminated && st.state.terminated.exitCode === 0;
    return;
  }
  st.ready = running && !!st.started && (verdict.ready ?? !c.readinessProbe);
}

/** Field order of core/v1 ContainerStatus, so output reads like a real kubelet's. */
function ordered(st: ContainerStatus, res: { allocatedResources?: unknown; resources?: unknown }, mounts?: Record<string, unknown>[]): ContainerStatus {
  const out: ContainerStatus = { name: st.name, state: st.state, lastState: st.lastState ?? {}, ready: st.ready ?? false, restartCount: st.restartCount ?? 0, image: st.image, imageID: st.imageID ?? '' };
  if (st.containerID) out.containerID = st.containerID;
  out.started = st.started ?? false;
  if (res.allocatedResources) out.allocatedResources = res.allocatedResources;
  if (res.resources) out.resources = res.resources;
  if (mounts) out.volumeMounts = mounts;
  return out;
}
