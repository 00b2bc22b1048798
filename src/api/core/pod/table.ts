// `kubectl get pods` as kube-apiserver renders it (printPod in pkg/printers/internalversion/printers.go, 1.33):
// NAME READY STATUS RESTARTS AGE, and IP NODE NOMINATED NODE READINESS GATES with -o wide.
import { ageColumn, CELL_NONE, humanDuration, nameColumn, parseTime } from '../../format.js';
import type { ContainerStatus, Pod } from './types.js';
import type { TableColumn } from '../../types.js';

export interface PodRow {
  ready: string;
  status: string;
  restarts: string;
}

const NODE_UNREACHABLE_REASON = 'NodeLost';

const isTerminalPhase = (phase: string | undefined): boolean => phase === 'Succeeded' || phase === 'Failed';

/** Later of two optional times (ms). */
const later = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

const lastTermination = (cs: ContainerStatus): number | undefined => (cs.lastState?.terminated ? parseTime(cs.lastState.terminated.finishedAt) : undefined);

/** The READY, STATUS and RESTARTS cells of a pod. */
export function podRow(pod: Pod, now: number): PodRow {
  const spec = pod.spec ?? {};
  const st = pod.status ?? {};
  let restarts = 0;
  let sidecarRestarts = 0;
  let total = (spec.containers ?? []).length;
  let ready = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  let reason = st.reason || st.phase || '';
  if ((st.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  const sidecars = new Set<string>();
  for (const c of spec.initContainers ?? []) {
    if (c.restartPolicy === 'Always') {
      sidecars.add(c.name ?? '');
      total++;
    }
  }

  let initializing = false;
  const inits = st.initContainerStatuses ?? [];
  for (let i = 0; i < inits.length; i++) {
    const cs = inits[i];
    restarts += cs.restartCount ?? 0;
    lastRestart = later(lastRestart, lastTermination(cs));
    const sidecar = sidecars.has(cs.name ?? '');
    if (sidecar) {
      sidecarRestarts += cs.restartCount ?? 0;
      lastSidecarRestart = later(lastSidecarRestart, lastTermination(cs));
    }
    const term = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (term && (term.exitCode ?? 0) === 0) continue;
    if (sidecar && cs.started === true) {
      if (cs.ready) ready++;
      continue;
    }
    if (term) {
      if (term.reason) reason = `Init:${term.reason}`;
      else reason = term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') reason = `Init:${waiting.reason}`;
    else reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    initializing = true;
    break;
  }

  const initialized = (st.conditions ?? []).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = st.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      restarts += cs.restartCount ?? 0;
      lastRestart = later(lastRestart, lastTermination(cs));
      const term = cs.state?.terminated;
      if (cs.state?.waiting?.reason) reason = cs.state.waiting.reason;
      else if (term?.reason) reason = term.reason;
      else if (term) reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
      else if (cs.ready && cs.state?.running) {
        hasRunning = true;
        ready++;
      }
    }
    // A pod whose last container completed but another still runs is shown as running (or not ready).
    if (reason === 'Completed' && hasRunning) {
      reason = (st.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata.deletionTimestamp && st.reason === NODE_UNREACHABLE_REASON) reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && !isTerminalPhase(st.phase)) reason = 'Terminating';

  let restartsCell = String(restarts);
  if (restarts !== 0 && lastRestart !== undefined) restartsCell = `${restarts} (${humanDuration(now - lastRestart)} ago)`;
  return { ready: `${ready}/${total}`, status: reason, restarts: restartsCell };
}

function readinessGates(pod: Pod): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (!gates.length) return CELL_NONE;
  const conditions = pod.status?.conditions ?? [];
  const trueCount = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${trueCount}/${gates.length}`;
}

export const podColumns: TableColumn<Pod>[] = [
  nameColumn(),
  { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', cell: (p, c) => podRow(p, c.now).ready },
  { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', cell: (p, c) => podRow(p, c.now).status },
  {
    name: 'Restarts',
    type: 'string',
    description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    cell: (p, c) => podRow(p, c.now).restarts,
  },
  ageColumn(),
  {
    name: 'IP',
    type: 'string',
    priority: 1,
    description: 'IP address allocated to the pod; routable at least within the cluster. Empty until allocated.',
    cell: (p) => p.status?.podIPs?.[0]?.ip || CELL_NONE,
  },
  {
    name: 'Node',
    type: 'string',
    priority: 1,
    description: 'The node the pod is scheduled onto; empty while the pod waits for the scheduler.',
    cell: (p) => p.spec?.nodeName || CELL_NONE,
  },
  {
    name: 'Nominated Node',
    type: 'string',
    priority: 1,
    description: 'The node the pod is expected to run on after preempting other pods there; not a guarantee.',
    cell: (p) => p.status?.nominatedNodeName || CELL_NONE,
  },
  {
    name: 'Readiness Gates',
    type: 'string',
    priority: 1,
    description: 'Extra conditions that must be True, besides container readiness, for the pod to be ready.',
    cell: (p) => readinessGates(p),
  },
];
