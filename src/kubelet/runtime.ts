// The container runtime as the kubelet drives it. The kubelet owns pods, restart policy, back-off, probes and status;
// a runtime only runs sandboxes and containers and reports what it sees. The simulated runtime (kubelet/simulated/runtime.ts)
// implements this today; a CRI runtime (RunPodSandbox/CreateContainer/StartContainer/StopContainer/… over gRPC to
// containerd) implements the same interface later, so everything above it is shared.
import type { Container, Pod, Probe } from '../api/core/pod/types.js';

export type RuntimeContainerState = 'created' | 'running' | 'exited' | 'unknown';

/** One instance (attempt) of a container, as CRI ContainerStatus reports it. Times are ms since the epoch. */
export interface RuntimeContainer {
  name: string;
  /** runtime-prefixed id, e.g. containerd://<hex> */
  id: string;
  /** how many times this container was started before this instance (CRI metadata.attempt) */
  attempt: number;
  image: string;
  imageID: string;
  state: RuntimeContainerState;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  exitCode?: number;
  reason?: string;
  message?: string;
  /** a simulated runtime's own verdict on readiness; CRI runtimes leave it unset (probes decide) */
  readinessOverride?: boolean;
}

export interface RuntimePodStatus {
  uid: string;
  /** the sandbox's IPs while it is ready; empty once it is stopped */
  ips: string[];
  sandboxReady: boolean;
  /** every known instance, newest first per container name */
  containers: RuntimeContainer[];
}

/** Why a step failed, as a value (kubelet turns it into a waiting reason and an event); never thrown. */
export interface RuntimeFailure {
  reason: string;
  message: string;
}

/** An event the runtime records about a pod (image pulls, lifecycle hooks), as kuberuntime records them. */
export interface RuntimeEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export type RuntimeEventListener = (pod: Pod, event: RuntimeEvent) => void;

export type ProbeKind = 'readiness' | 'liveness' | 'startup';
export type ProbeResult = 'success' | 'failure';

export interface PodRuntime {
  /** RunPodSandbox: creates the pod's sandbox and network once; returns its IPs. Idempotent. */
  ensureSandbox(pod: Pod): Promise<{ ips: string[] } | RuntimeFailure>;
  /** CreateContainer + StartContainer for one container of the pod; `attempt` becomes the restart count. */
  startContainer(pod: Pod, container: Container, opts: { attempt: number }): Promise<RuntimeFailure | undefined>;
  /** StopContainer with a grace period in seconds; resolves once the container has exited. Calling again with
   *  a shorter grace period shortens the wait. */
  killContainer(pod: Pod, name: string, opts: { gracePeriodSeconds: number }): Promise<void>;
  /** stops every container (honouring the grace period) and then the sandbox, releasing its IPs */
  killPod(pod: Pod, opts: { gracePeriodSeconds: number }): Promise<void>;
  /** runs an exec/http/tcp/grpc probe against a running container */
  probe(pod: Pod, container: Container, kind: ProbeKind, probe: Probe): Promise<ProbeResult>;
  /** what the runtime knows about one pod, or undefined when it has never seen it (PLEG relist of one pod) */
  podStatus(uid: string): RuntimePodStatus | undefined;
  /** forget a pod entirely (RemovePodSandbox, container GC) */
  removePod(uid: string): void;
  /** PLEG events: called with a pod uid whenever one of its containers changes state */
  onPodEvent(listener: (uid: string) => void): void;
  /** events about a pod's containers that only the runtime sees (Pulling, Pulled, FailedPostStartHook, …) */
  onRuntimeEvent(listener: RuntimeEventListener): void;
  /** e.g. "containerd://1.7.27" for nodeInfo.containerRuntimeVersion */
  readonly version: string;
  close(): void;
}
