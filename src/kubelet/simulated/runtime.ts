// The simulated runtime: sandboxes get an IP from the node's pod CIDR, containers start in a millisecond and then
// do what stages.ts declares (exit after a while with a code, stop slowly, stay unready). No processes exist.
import { createHash } from 'node:crypto';
import type { Container, Pod } from '../../api/core/pod/types.js';
import type { PodRuntime, ProbeResult, RuntimeContainer, RuntimeEventListener, RuntimeFailure, RuntimePodStatus } from '../runtime.js';
import { defaultSimRules, simBehaviour, type SimRule } from './stages.js';

interface SimContainer extends RuntimeContainer {
  exitTimer?: NodeJS.Timeout;
  stop?: { startedAt: number; deadline: number; timer?: NodeJS.Timeout; done: Promise<void>; resolve: () => void; stopDelayMs: number };
}

interface SimSandbox {
  ips: string[];
  ready: boolean;
  containers: SimContainer[];
}

export interface SimRuntimeOptions {
  /** the node's spec.podCIDR, read when a sandbox is created */
  podCIDR: () => string | undefined;
  rules?: SimRule[];
  now?: () => number;
}

const SIGTERM_EXIT = 143;
const SIGKILL_EXIT = 137;

export class SimRuntime implements PodRuntime {
  readonly version = 'k1s-sim://0.1.0';
  private readonly pods = new Map<string, SimSandbox>();
  /** addresses held by sandboxes, and where the next search starts (host-local IPAM hands them out round-robin) */
  private readonly usedIPs = new Set<string>();
  private nextIPOffset = 2;
  private readonly listeners: ((uid: string) => void)[] = [];
  private readonly eventListeners: RuntimeEventListener[] = [];
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly opts: SimRuntimeOptions) {
    this.now = opts.now ?? Date.now;
  }

  onPodEvent(listener: (uid: string) => void): void {
    this.listeners.push(listener);
  }

  onRuntimeEvent(listener: RuntimeEventListener): void {
    this.eventListeners.push(listener);
  }

  async ensureSandbox(pod: Pod): Promise<{ ips: string[] } | RuntimeFailure> {
    const uid = pod.metadata.uid!;
    const cur = this.pods.get(uid);
    if (cur?.ready) return { ips: cur.ips };
    let ips: string[] = [];
    if (!pod.spec?.hostNetwork) {
      const ip = this.allocateIP();
      if (typeof ip !== 'string') return ip;
      ips = [ip];
    }
    const sb: SimSandbox = cur ?? { ips, ready: true, containers: [] };
    this.releaseIPs(sb);
    sb.ips = ips;
    for (const ip of ips) this.usedIPs.add(ip);
    sb.ready = true;
    this.pods.set(uid, sb);
    return { ips };
  }

  async startContainer(pod: Pod, c: Container, opts: { attempt: number }): Promise<RuntimeFailure | undefined> {
    const sb = this.pods.get(pod.metadata.uid!);
    if (!sb?.ready) return { reason: 'CreateContainerError', message: 'pod sandbox is not ready' };
    // a simulated node has every image; creating and starting never fail
    const emit = (reason: string, message: string) => {
      for (const l of this.eventListeners) l(pod, { type: 'Normal', reason, message });
    };
    emit('Pulled', `Container image "${c.image ?? ''}" already present on machine`);
    emit('Created', `Created container: ${c.name ?? ''}`);
    emit('Started', `Started container ${c.name ?? ''}`);
    const b = simBehaviour(pod, c, this.opts.rules ?? defaultSimRules);
    const t = this.now();
    const image = normalizeImage(c.image ?? '');
    const inst: SimContainer = {
      name: c.name ?? '',
      id: `containerd://${createHash('sha256').update(`${pod.metadata.uid}/${c.name}/${opts.attempt}/${t}/${Math.random()}`).digest('hex')}`,
      attempt: opts.attempt,
      image,
      imageID: `${image.replace(/:[^:/@]+$/, '')}@sha256:${createHash('sha256').update(image).digest('hex')}`,
      state: 'running',
      createdAt: t,
      startedAt: t,
      readinessOverride: b.ready ? undefined : false,
    };
    // keep the current and the previous instance per container, as the kubelet's container GC leaves them
    const same = sb.containers.filter((x) => x.name === inst.name).sort((a, b2) => b2.createdAt - a.createdAt);
    for (const old of same.slice(1)) sb.containers.splice(sb.containers.indexOf(old), 1);
    sb.containers.push(inst);
    if (b.exitAfterMs !== undefined) {
      inst.exitTimer = setTimeout(() => this.exit(pod.metadata.uid!, inst, b.exitCode), b.exitAfterMs);
      inst.exitTimer.unref?.();
    }
    this.notify(pod.metadata.uid!);
    return undefined;
  }

  killContainer(pod: Pod, name: string, opts: { gracePeriodSeconds: number }): Promise<void> {
    const sb = this.pods.get(pod.metadata.uid!);
    const inst = sb?.containers.filter((x) => x.name === name && x.state === 'running').sort((a, b) => b.createdAt - a.createdAt)[0];
    if (!inst) return Promise.resolve();
    const graceMs = Math.max(0, opts.gracePeriodSeconds) * 1000;
    const now = this.now();
    if (inst.stop) {
      // a shorter grace period (a second delete) brings the deadline forward
      if (now + graceMs < inst.stop.deadline) {
        inst.stop.deadline = now + graceMs;
        this.scheduleStop(pod, inst);
      }
      return inst.stop.done;
    }
    const stopDelayMs = simBehaviour(pod, { name }, this.opts.rules ?? defaultSimRules).stopDelayMs;
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    inst.stop = { startedAt: now, deadline: now + graceMs, done, resolve, stopDelayMs };
    this.scheduleStop(pod, inst);
    return done;
  }

  async killPod(pod: Pod, opts: { gracePeriodSeconds: number }): Promise<void> {
    const uid = pod.metadata.uid!;
    const sb = this.pods.get(uid);
    if (!sb) return;
    const names = [...new Set(sb.containers.filter((c) => c.state === 'running').map((c) => c.name))];
    await Promise.all(names.map((n) => this.killContainer(pod, n, opts)));
    if (sb.ready) {
      sb.ready = false;
      this.releaseIPs(sb);
      this.notify(uid);
    }
  }

  async probe(pod: Pod, c: Container, kind?: string): Promise<ProbeResult> {
    const inst = this.pods.get(pod.metadata.uid!)?.containers.find((x) => x.name === c.name && x.state === 'running');
    if (!inst) return 'failure';
    // simulated containers are always alive; rules only make them unready
    if (kind === 'liveness') return 'success';
    return simBehaviour(pod, c, this.opts.rules ?? defaultSimRules).ready ? 'success' : 'failure';
  }

  podStatus(uid: string): RuntimePodStatus | undefined {
    const sb = this.pods.get(uid);
    if (!sb) return undefined;
    return {
      uid,
      ips: [...sb.ips],
      sandboxReady: sb.ready,
      containers: sb.containers
        .map(({ exitTimer: _e, stop: _s, ...rest }) => ({ ...rest }))
        .sort((a, b) => b.createdAt - a.createdAt),
    };
  }

  removePod(uid: string): void {
    const sb = this.pods.get(uid);
    if (!sb) return;
    for (const c of sb.containers) this.clearTimers(c);
    this.releaseIPs(sb);
    this.pods.delete(uid);
  }

  close(): void {
    this.closed = true;
    for (const uid of [...this.pods.keys()]) this.removePod(uid);
  }

  /** SIGTERM at stop.startedAt; the container exits after its stop delay, or is SIGKILLed at the deadline */
  private scheduleStop(pod: Pod, inst: SimContainer): void {
    const stop = inst.stop!;
    if (stop.timer) clearTimeout(stop.timer);
    const exitAt = stop.startedAt + stop.stopDelayMs;
    const killed = stop.stopDelayMs > 0 && exitAt >= stop.deadline;
    const after = Math.max(0, (killed ? stop.deadline : exitAt) - this.now());
    stop.timer = setTimeout(() => {
      this.exit(pod.metadata.uid!, inst, killed ? SIGKILL_EXIT : SIGTERM_EXIT);
      stop.resolve();
    }, after);
    stop.timer.unref?.();
  }

  private exit(uid: string, inst: SimContainer, code: number): void {
    if (inst.state !== 'running') return;
    this.clearTimers(inst);
    inst.state = 'exited';
    inst.exitCode = code;
    inst.reason = code === 0 ? 'Completed' : 'Error';
    inst.finishedAt = this.now();
    this.notify(uid);
  }

  private clearTimers(c: SimContainer): void {
    if (c.exitTimer) clearTimeout(c.exitTimer);
    if (c.stop) {
      if (c.stop.timer) clearTimeout(c.stop.timer);
      c.stop.resolve();
    }
  }

  private notify(uid: string): void {
    if (this.closed) return;
    for (const l of this.listeners) l(uid);
  }

  /** the first free address of the node's pod CIDR, skipping the network (.0) and gateway (.1) addresses */
  private releaseIPs(sb: SimSandbox): void {
    for (const ip of sb.ips) this.usedIPs.delete(ip);
    sb.ips = [];
  }

  private allocateIP(): string | RuntimeFailure {
    const cidr = this.opts.podCIDR();
    const parsed = cidr ? parseIPv4CIDR(cidr) : undefined;
    if (!parsed) return { reason: 'FailedCreatePodSandBox', message: 'network is not ready: the node has no pod CIDR (spec.podCIDR) yet' };
    const size = 2 ** (32 - parsed.bits);
    // .0 is the network, .1 the bridge, the last one broadcast
    const usable = size - 3;
    for (let n = 0; n < usable; n++) {
      const i = 2 + ((this.nextIPOffset - 2 + n) % usable);
      const ip = intToIPv4(parsed.base + i);
      if (this.usedIPs.has(ip)) continue;
      this.nextIPOffset = i + 1;
      return ip;
    }
    return { reason: 'FailedCreatePodSandBox', message: `failed to allocate an IP address: range ${cidr} is full` };
  }
}

export function parseIPv4CIDR(cidr: string): { base: number; bits: number } | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m) return undefined;
  const bits = Number(m[5]);
  if (bits > 32) return undefined;
  const addr = ((Number(m[1]) << 24) >>> 0) + (Number(m[2]) << 16) + (Number(m[3]) << 8) + Number(m[4]);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (addr & mask) >>> 0, bits };
}

export function intToIPv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** docker.io/library/nginx:latest for "nginx", as containerd reports images */
export function normalizeImage(image: string): string {
  let name = image;
  const first = name.split('/')[0];
  if (!name.includes('/') ) name = `docker.io/library/${name}`;
  else if (!first.includes('.') && !first.includes(':') && first !== 'localhost') name = `docker.io/${name}`;
  if (!name.includes('@') && !/:[^/]+$/.test(name)) name += ':latest';
  return name;
}
