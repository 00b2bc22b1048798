// Stopping containers as the kubelet's killContainer does: preStop within the grace period, then StopContainer with
// what is left of it; a second stop with a shorter grace shortens the pending one instead of starting another.
// Apart from the runtime because every path that ends containers (kill, pod kill, sandbox replacement, removal,
// a failed postStart) goes through the same bookkeeping of pending stops.
import type { Container, Pod } from '../../api/core/pod/types.js';
import { isCriNotFound, type CriClient } from '../../runtime/cri-client.js';
import type { RuntimeEvent } from '../runtime.js';
import { rpcMessage } from './images.js';
import { runLifecycleHook, withDeadline } from './lifecycle-hooks.js';
import type { ContainerInfo, CriPodState } from './pod-state.js';

export interface ContainerStopperDeps {
  cri: CriClient;
  state: CriPodState;
  hostIPs: string[];
  log: (line: string) => void;
  emit: (pod: Pod, event: RuntimeEvent) => void;
  /** the runtime's PLEG relist, run once a container has stopped */
  relist: () => Promise<void>;
}

export class ContainerStopper {
  private readonly stopping = new Map<string, { deadline: number; done: Promise<void> }>();

  constructor(private readonly deps: ContainerStopperDeps) {}

  /** preStop within the grace period, then StopContainer with what is left of it; a shorter grace shortens it. */
  stopInstance(pod: Pod | undefined, inst: ContainerInfo, spec: Container | undefined, graceSeconds: number, opts: { message?: string } = {}): Promise<void> {
    const { cri, state, hostIPs, log, emit } = this.deps;
    const grace = Math.max(0, graceSeconds);
    const deadline = Date.now() + grace * 1000;
    const pending = this.stopping.get(inst.criId);
    if (pending) {
      if (deadline >= pending.deadline) return pending.done;
      pending.deadline = deadline;
      void cri.stopContainer({ container_id: inst.criId, timeout: grace }).catch(() => undefined);
      return pending.done;
    }
    const entry = { deadline, done: Promise.resolve() };
    if (pod && opts.message) emit(pod, { type: 'Normal', reason: 'Killing', message: opts.message });
    entry.done = (async () => {
      const preStop = spec?.lifecycle?.preStop;
      if (pod && preStop && grace > 0 && inst.state === 'running') {
        const ip = state.get(inst.uid)?.sandboxes[0]?.ips[0] ?? hostIPs[0];
        const hook = runLifecycleHook({ cri, pod, container: spec!, containerId: inst.criId, podIP: ip, timeoutSeconds: grace }, preStop);
        const msg = await withDeadline(hook, grace, undefined);
        if (msg) {
          log(`k1s: kubelet: FailedPreStopHook: ${msg}`);
          emit(pod, { type: 'Warning', reason: 'FailedPreStopHook', message: 'PreStopHook failed' });
        }
      }
      const left = Math.max(0, Math.ceil((entry.deadline - Date.now()) / 1000));
      await cri.stopContainer({ container_id: inst.criId, timeout: left }).catch((e) => {
        if (!isCriNotFound(e)) log(`k1s: kubelet: stopping container ${inst.name}: ${rpcMessage(e)}`);
      });
      await this.deps.relist().catch(() => undefined);
    })().finally(() => this.stopping.delete(inst.criId));
    this.stopping.set(inst.criId, entry);
    return entry.done;
  }

  /** Every live container of the list, regular containers first, sidecars after them (1.33 ordered termination). */
  async stopAll(containers: ContainerInfo[], graceSeconds: number, pod?: Pod): Promise<void> {
    const live = containers.filter((c) => c.state === 'running' || c.state === 'created');
    const specOf = (n: string) => [...(pod?.spec?.initContainers ?? []), ...(pod?.spec?.containers ?? [])].find((c) => c.name === n) ?? ephemeralSpec(pod, n);
    const sidecar = (n: string) => (pod?.spec?.initContainers ?? []).some((c) => c.name === n && c.restartPolicy === 'Always');
    await Promise.all(live.filter((c) => !sidecar(c.name)).map((c) => this.stopInstance(pod, c, specOf(c.name), graceSeconds)));
    await Promise.all(live.filter((c) => sidecar(c.name)).map((c) => this.stopInstance(pod, c, specOf(c.name), graceSeconds)));
  }
}

function ephemeralSpec(pod: Pod | undefined, name: string): Container | undefined {
  return (pod?.spec?.ephemeralContainers ?? []).find((c) => c.name === name) as Container | undefined;
}
