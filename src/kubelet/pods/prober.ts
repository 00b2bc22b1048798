// Readiness, liveness and startup probes of one pod (the kubelet's prober workers): each running container instance
// with a probe is probed first after initialDelaySeconds, then every periodSeconds; success/failure thresholds flip
// the result, and a flip asks the pod worker for a new status. While a startup probe has not succeeded the other
// probes of that container are skipped (not run, no result), as kube's doProbe does.
import type { Container, Pod, Probe } from '../../api/core/pod/types.js';
import type { ProbeVerdict } from './container-status.js';
import type { PodRuntime, ProbeKind, RuntimePodStatus } from '../runtime.js';

interface ProbeState {
  kind: ProbeKind;
  result?: boolean;
  successes: number;
  failures: number;
  timer?: NodeJS.Timeout;
}

export interface PodProberOptions {
  runtime: PodRuntime;
  /** called when a result changes */
  onChange: () => void;
  /** a liveness probe reached its failure threshold: the kubelet kills the container (it restarts per policy) */
  onLivenessFailure?: (c: Container, probe: Probe) => void;
  now?: () => number;
}

export class PodProber {
  /** container instance id → its probes */
  private readonly byInstance = new Map<string, ProbeState[]>();
  private readonly overrides = new Map<string, boolean | undefined>();
  private readonly latestRunning = new Map<string, string>();
  private stopped = false;

  constructor(private readonly opts: PodProberOptions) {}

  /** starts probes for running instances that have none yet and drops those of instances that stopped */
  sync(pod: Pod, rs: RuntimePodStatus | undefined): void {
    const specs = [...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...(pod.spec?.containers ?? [])];
    const running = new Set<string>();
    this.latestRunning.clear();
    for (const inst of rs?.containers ?? []) {
      if (inst.state !== 'running' || this.latestRunning.has(inst.name)) continue;
      const c = specs.find((x) => x.name === inst.name);
      if (!c) continue;
      running.add(inst.id);
      this.latestRunning.set(inst.name, inst.id);
      this.overrides.set(inst.id, inst.readinessOverride);
      if (this.byInstance.has(inst.id)) continue;
      const states: ProbeState[] = [];
      this.byInstance.set(inst.id, states);
      const started = inst.startedAt ?? inst.createdAt;
      if (c.startupProbe) states.push(this.schedule(pod, c, 'startup', c.startupProbe, started, states));
      if (c.readinessProbe) states.push(this.schedule(pod, c, 'readiness', c.readinessProbe, started, states));
      if (c.livenessProbe && this.opts.onLivenessFailure) states.push(this.schedule(pod, c, 'liveness', c.livenessProbe, started, states));
    }
    for (const [id, states] of [...this.byInstance]) {
      if (running.has(id)) continue;
      for (const s of states) if (s.timer) clearTimeout(s.timer);
      this.byInstance.delete(id);
      this.overrides.delete(id);
    }
  }

  verdict(name: string): ProbeVerdict {
    const id = this.latestRunning.get(name);
    if (!id) return {};
    const states = this.byInstance.get(id) ?? [];
    const out: ProbeVerdict = {};
    const readiness = states.find((s) => s.kind === 'readiness');
    const startup = states.find((s) => s.kind === 'startup');
    if (readiness) out.ready = readiness.result === true;
    if (startup) out.started = startup.result === true;
    if (this.overrides.get(id) === false) out.ready = false;
    return out;
  }

  stop(): void {
    this.stopped = true;
    for (const states of this.byInstance.values()) for (const s of states) if (s.timer) clearTimeout(s.timer);
    this.byInstance.clear();
  }

  private schedule(pod: Pod, c: Container, kind: ProbeKind, probe: Probe, startedAt: number, siblings: ProbeState[]): ProbeState {
    const state: ProbeState = { kind, successes: 0, failures: 0 };
    const now = (this.opts.now ?? Date.now)();
    const first = Math.max(0, startedAt + (probe.initialDelaySeconds ?? 0) * 1000 - now);
    const run = async () => {
      if (this.stopped) return;
      // readiness and liveness wait for the startup probe to succeed (kube's prober workers skip until started)
      const startup = siblings.find((s) => s.kind === 'startup');
      if (kind !== 'startup' && startup && startup.result !== true) {
        state.timer = setTimeout(run, (probe.periodSeconds ?? 10) * 1000);
        state.timer.unref?.();
        return;
      }
      const ok = (await this.opts.runtime.probe(pod, c, kind, probe).catch(() => 'failure')) === 'success';
      if (this.stopped) return;
      if (ok) {
        state.successes++;
        state.failures = 0;
      } else {
        state.failures++;
        state.successes = 0;
      }
      const before = state.result;
      if (ok && state.successes >= (probe.successThreshold ?? 1)) state.result = true;
      if (!ok && state.failures >= (probe.failureThreshold ?? 3)) state.result = false;
      if (kind === 'liveness' && state.result === false) {
        // the instance is killed; its replacement gets fresh probes
        this.opts.onLivenessFailure?.(c, probe);
        return;
      }
      // a startup probe stops once it has succeeded
      if (!(kind === 'startup' && state.result)) {
        state.timer = setTimeout(run, (probe.periodSeconds ?? 10) * 1000);
        state.timer.unref?.();
      }
      if (before !== state.result) this.opts.onChange();
    };
    state.timer = setTimeout(run, first);
    state.timer.unref?.();
    return state;
  }
}
