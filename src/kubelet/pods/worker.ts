// One worker per pod (the kubelet's podWorkers + syncPod): it runs one sync at a time, triggered by pod updates,
// runtime events, probe results and timers. A sync starts what should run (init containers in order, then the
// rest, restarting per restartPolicy with CrashLoopBackOff), writes the status when it changed, and on deletion
// stops the containers within the grace period, writes the final status and deletes the pod with grace 0.
import type { Container, Pod, PodStatus } from '../../api/core/pod/types.js';
import type { Client } from '../../client/types.js';
import type { EventRecorder } from '../../client/events.js';
import { StatusError } from '../../machinery/errors.js';
import { deepEqual } from '../../machinery/object.js';
import { podStatusPatch } from './status-patch.js';
import { Backoff, goDuration } from '../backoff.js';
import { isRestartableInit, shouldRestart, type WaitingReason } from './container-status.js';
import { generatePodStatus } from './status.js';
import { PodProber } from './prober.js';
import { tracePod } from '../../machinery/pod-trace.js';
import type { PodRuntime, RuntimeContainer, RuntimePodStatus } from '../runtime.js';

export interface PodWorkerContext {
  client: Client;
  runtime: PodRuntime;
  recorder: EventRecorder;
  backoff: Backoff;
  hostIPs: () => string[];
  now: () => number;
  log: (line: string) => void;
  /** retry delay after a failed step (sandbox, status write) */
  retryMs?: number;
}

/** image manager errors whose text is their name (ErrImagePull = errors.New("ErrImagePull")) */
const IMAGE_ERRORS = new Set(['ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'RegistryUnavailable', 'InvalidImageName', 'ImageInspectError']);

/**
 * kuberuntime's startContainer records "Failed" with "Error: <err>" for image, config, create and start failures;
 * the image manager's errors print as their name, and a failed postStart hook has its own event (FailedPostStartHook).
 */
export function startFailureEvent(f: { reason: string; message: string }): string | undefined {
  if (f.reason === 'PostStartHookError') return undefined;
  return `Error: ${IMAGE_ERRORS.has(f.reason) ? f.reason : f.message}`;
}

function statusOnlyChange(a: Pod, b: Pod): boolean {
  const meta = (p: Pod) => {
    const { resourceVersion: _rv, managedFields: _mf, ...rest } = p.metadata as Record<string, unknown>;
    return rest;
  };
  return deepEqual(a.spec, b.spec) && deepEqual(meta(a), meta(b));
}

/** kube's HandlePodReconcile: a status update that changes a readiness gate's condition re-syncs the pod */
function readinessGatesChanged(a: Pod, b: Pod): boolean {
  const gates = new Set((b.spec?.readinessGates ?? []).map((g) => g.conditionType));
  if (!gates.size) return false;
  const of = (p: Pod) => (p.status?.conditions ?? []).filter((c) => gates.has(c.type)).map((c) => `${c.type}=${c.status}`).sort().join(',');
  return of(a) !== of(b);
}

const isTerminalPhase = (p?: string) => p === 'Succeeded' || p === 'Failed';
/** format.Pod: name_namespace(uid) */
const podDesc = (pod: Pod) => `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

export class PodWorker {
  private running = false;
  private again = false;
  private closed = false;
  private readonly waiting = new Map<string, WaitingReason>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly prober: PodProber;
  private lastStatus?: PodStatus;
  /** the kubelet will not start this pod's containers again */
  private finished = false;
  private killing?: { graceSeconds: number; done: boolean };
  private deleteSent = false;
  /** the eviction manager killed this pod: its grace period (0: the pod's own) */
  private evictGraceSeconds?: number;
  /** write the status even when it equals the cached one (an eviction changed the cache itself) */
  private forceWrite = false;
  /** the status last written to the API server: what the next write's patch starts from */
  private written: PodStatus | undefined;
  /** the resourceVersion our last status write made */
  private writtenRV = 0;
  /** resolves when the pending sync loop finishes (tests, shutdown) */
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private pod: Pod,
    private readonly ctx: PodWorkerContext,
  ) {
    this.prober = new PodProber({
      runtime: ctx.runtime,
      onChange: () => this.kick(),
      now: ctx.now,
      onLivenessFailure: (c, probe) => this.livenessFailed(c, probe),
    });
    if (isTerminalPhase(pod.status?.phase)) this.finished = true;
  }

  get uid(): string {
    return this.pod.metadata.uid!;
  }

  /** a new version of the pod from the API; only a change of spec or metadata asks for a sync (kube's pod config
   *  ignores status-only updates, so the kubelet's own status writes do not resync the pod) */
  update(pod: Pod): void {
    const before = this.pod;
    this.pod = pod;
    if (!statusOnlyChange(before, pod) || readinessGatesChanged(before, pod)) this.kick();
  }

  /** asks for a sync; syncs never overlap, and one requested during a sync runs right after it */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.idle = (async () => {
      try {
        do {
          this.again = false;
          try {
            await this.sync();
          } catch (e) {
            this.ctx.log(`k1s: kubelet: pod ${this.pod.metadata.namespace}/${this.pod.metadata.name}: ${(e as Error).message}`);
            this.after(this.ctx.retryMs ?? 1000);
          }
        } while (this.again && !this.closed);
      } finally {
        this.running = false;
      }
    })();
  }

  /** a failed liveness probe: kill the container; the next sync restarts it per restartPolicy */
  private livenessFailed(c: Container, probe: { terminationGracePeriodSeconds?: number }): void {
    if (this.closed || this.pod.metadata.deletionTimestamp) return;
    const pod = this.pod;
    const name = c.name ?? '';
    this.ctx.recorder.event(pod, 'Warning', 'Unhealthy', `Liveness probe failed: `);
    this.ctx.recorder.event(pod, 'Normal', 'Killing', `Container ${name} failed liveness probe, will be restarted`);
    const grace = probe.terminationGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    void this.ctx.runtime
      .killContainer(pod, name, { gracePeriodSeconds: grace })
      .catch((e) => this.ctx.log(`k1s: kubelet: killing ${name} of ${pod.metadata.name}: ${(e as Error).message}`))
      .then(() => this.kick());
  }

  /**
   * The eviction manager's evictPod: the pod turns Failed with the eviction's reason, message and DisruptionTarget
   * condition (generatePodStatus keeps them from the cached status), and its containers are killed.
   */
  evict(status: { phase: 'Failed'; reason: string; message: string; conditions: PodStatus['conditions'] }, gracePeriodSeconds: number): void {
    if (this.closed || this.finished) return;
    const base = this.lastStatus ?? this.pod.status ?? {};
    const extra = status.conditions ?? [];
    const kept = (base.conditions ?? []).filter((c) => !extra.some((x) => x.type === c.type));
    this.lastStatus = { ...base, phase: status.phase, reason: status.reason, message: status.message, conditions: [...kept, ...extra] };
    this.forceWrite = true;
    this.evictGraceSeconds = gracePeriodSeconds;
    this.finished = true;
    this.kick();
  }

  /** the pod is gone from the API: stop whatever still runs and forget it */
  async removed(): Promise<void> {
    this.close();
    await this.idle;
    await this.ctx.runtime.killPod(this.pod, { gracePeriodSeconds: 0 });
    this.ctx.runtime.removePod(this.uid);
    this.ctx.backoff.resetPrefix(`${this.uid}/`);
  }

  close(): void {
    this.closed = true;
    this.prober.stop();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private after(ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.kick();
    }, Math.max(0, ms));
    t.unref?.();
    this.timers.add(t);
  }

  private async sync(): Promise<void> {
    const pod = this.pod;
    tracePod(pod, 'worker: sync starts');
    if (pod.metadata.deletionTimestamp || this.finished) return this.syncTerminating(pod);
    let rs = this.ctx.runtime.podStatus(this.uid);
    if (!rs?.sandboxReady) {
      const sb = await this.ctx.runtime.ensureSandbox(pod);
      if ('reason' in sb) {
        // volumes are set up before the sandbox: their failures are the kubelet's FailedMount, as written
        if (sb.reason === 'FailedMount') this.ctx.recorder.event(pod, 'Warning', 'FailedMount', sb.message);
        else this.ctx.recorder.event(pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${sb.message}`);
        await this.writeStatus(pod, this.ctx.runtime.podStatus(this.uid));
        this.after(this.ctx.retryMs ?? 1000);
        return;
      }
      rs = this.ctx.runtime.podStatus(this.uid);
    }
    await this.startContainers(pod, rs);
    rs = this.ctx.runtime.podStatus(this.uid);
    this.prober.sync(pod, rs);
    const status = await this.writeStatus(pod, rs);
    if ((status && isTerminalPhase(status.phase)) || this.regularContainersDone(pod, rs)) {
      // Never/OnFailure pods whose containers are done: stop what is left (sidecars) and the sandbox
      this.finished = true;
      this.again = true;
    }
  }

  /** computePodActions' KillPod: no regular container will run again, so sidecars stop and the pod finishes */
  private regularContainersDone(pod: Pod, rs: RuntimePodStatus | undefined): boolean {
    const containers = pod.spec?.containers ?? [];
    return containers.length > 0 && containers.every((c) => {
      const last = this.latest(rs, c.name ?? '');
      return last?.state === 'exited' && !shouldRestart(pod, c, last);
    });
  }

  private latest(rs: RuntimePodStatus | undefined, name: string): RuntimeContainer | undefined {
    return rs?.containers.find((c) => c.name === name);
  }

  /** computePodActions + the start loop: init containers one by one, then every regular container */
  private async startContainers(pod: Pod, rs: RuntimePodStatus | undefined): Promise<void> {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    // ephemeral containers start once, before init containers (so they can debug a pod stuck initialising), and
    // are never restarted
    for (const c of pod.spec?.ephemeralContainers ?? []) {
      if (!this.latest(rs, c.name ?? '')) await this.start(pod, c, undefined);
    }
    for (const c of pod.spec?.initContainers ?? []) {
      const last = this.latest(rs, c.name ?? '');
      if (isRestartableInit(c)) {
        if (!last || (last.state === 'exited' && shouldRestart(pod, c, last))) {
          if (!(await this.start(pod, c, last))) return;
        }
        continue;
      }
      if (!last) {
        await this.start(pod, c, last);
        return;
      }
      if (last.state === 'running' || last.state === 'created') return;
      if (last.exitCode === 0) continue;
      if (policy === 'Never') {
        this.finished = true;
        this.again = true;
        return;
      }
      await this.start(pod, c, last);
      return;
    }
    for (const c of pod.spec?.containers ?? []) {
      const last = this.latest(rs, c.name ?? '');
      if (!last || (last.state === 'exited' && shouldRestart(pod, c, last))) await this.start(pod, c, last);
    }
  }

  /** starts (or restarts, unless backing off) one container; false when it did not start */
  private async start(pod: Pod, c: Container, last: RuntimeContainer | undefined): Promise<boolean> {
    const name = c.name ?? '';
    const key = `${this.uid}/${name}`;
    if (last?.state === 'exited') {
      const finished = last.finishedAt ?? this.ctx.now();
      if (this.ctx.backoff.isInBackOffSince(key, finished)) {
        const message = `back-off ${goDuration(this.ctx.backoff.get(key))} restarting failed container=${name} pod=${podDesc(pod)}`;
        this.waiting.set(name, { reason: 'CrashLoopBackOff', message });
        this.ctx.recorder.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${name} in pod ${podDesc(pod)}`);
        this.after(this.ctx.backoff.readyAt(key, finished) - this.ctx.now() + 5);
        return false;
      }
      this.ctx.backoff.next(key, finished);
    }
    const failure = await this.ctx.runtime.startContainer(pod, c, { attempt: last ? last.attempt + 1 : 0 });
    if (failure) {
      this.waiting.set(name, failure);
      const event = startFailureEvent(failure);
      if (event) this.ctx.recorder.event(pod, 'Warning', 'Failed', event);
      this.after(this.ctx.retryMs ?? 1000);
      return false;
    }
    this.waiting.delete(name);
    return true;
  }

  /** deleted or finished: kill within the grace period, write the final status, then let the API drop the pod */
  private async syncTerminating(pod: Pod): Promise<void> {
    const deleting = !!pod.metadata.deletionTimestamp;
    const podGrace = pod.spec?.terminationGracePeriodSeconds ?? 30;
    const evictGrace = this.evictGraceSeconds ? Math.min(this.evictGraceSeconds, podGrace) : podGrace;
    const grace = deleting ? (pod.metadata.deletionGracePeriodSeconds ?? podGrace) : evictGrace;
    if (!this.killing || (!this.killing.done && grace < this.killing.graceSeconds)) {
      const first = !this.killing;
      const killing = (this.killing = { graceSeconds: grace, done: false as boolean });
      if (first && deleting) {
        for (const c of this.ctx.runtime.podStatus(this.uid)?.containers ?? []) {
          if (c.state === 'running') this.ctx.recorder.event(pod, 'Normal', 'Killing', `Stopping container ${c.name}`);
        }
      }
      void this.ctx.runtime.killPod(pod, { gracePeriodSeconds: grace }).then(() => {
        killing.done = true;
        this.kick();
      });
    }
    const rs = this.ctx.runtime.podStatus(this.uid);
    this.prober.sync(pod, rs);
    if (!this.killing.done) {
      await this.writeStatus(pod, rs);
      return;
    }
    this.finished = true;
    await this.writeStatus(pod, rs, { terminal: true });
    if (deleting && !this.deleteSent) {
      this.deleteSent = true;
      try {
        await this.ctx.client.resource('v1', 'pods').delete(pod.metadata.namespace!, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: this.uid } });
      } catch (e) {
        if (!(e instanceof StatusError && (e.code === 404 || e.code === 409))) {
          this.deleteSent = false;
          throw e;
        }
      }
    }
  }

  /** the status manager: writes through the status subresource only when the status changed */
  private async writeStatus(pod: Pod, rs: RuntimePodStatus | undefined, opts: { terminal?: boolean } = {}): Promise<PodStatus | undefined> {
    const status = generatePodStatus({
      pod,
      runtime: rs,
      old: this.lastStatus ?? pod.status,
      waiting: this.waiting,
      probes: (n) => this.prober.verdict(n),
      podIsTerminal: opts.terminal ?? false,
      hostIPs: this.ctx.hostIPs(),
      now: this.ctx.now(),
    });
    if (this.lastStatus && !this.forceWrite && deepEqual(status, this.lastStatus)) return status;
    if (!this.lastStatus && deepEqual(status, pod.status)) {
      this.lastStatus = this.written = status;
      return status;
    }
    // a patch from what the server has, the UID its precondition: the pod as we got it once it includes our last
    // write (it also has what others changed since, e.g. a Ready=False from the node lifecycle controller), else
    // our last write
    const seen = this.written && Number(pod.metadata.resourceVersion) < this.writtenRV ? this.written : pod.status;
    const patch = podStatusPatch(this.uid, seen, status);
    try {
      tracePod(pod, `worker: status write (${status.phase})`);
      const res = await this.ctx.client.resource('v1', 'pods').patch(pod.metadata.namespace!, pod.metadata.name!, 'strategic', patch, {
        subresource: 'status',
        // only its resourceVersion is read: in process, the store need not copy the pod for us
        readOnlyResult: true,
      });
      tracePod(pod, `worker: status written (${status.phase})`);
      this.writtenRV = Number(res.metadata.resourceVersion);
      this.lastStatus = this.written = status;
      this.forceWrite = false;
      return status;
    } catch (e) {
      // gone, or replaced by a pod of the same name (the UID precondition failed)
      if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return undefined;
      throw e;
    }
  }
}
