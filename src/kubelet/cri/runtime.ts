// The PodRuntime of a real node: kuberuntime over CRI (containerd). Sandboxes get volumes, a pod cgroup, DNS and
// /etc/hosts; containers get their image (pulled per imagePullPolicy), env, mounts and config from the H3 builders;
// a PLEG relist every second (and after each action) keeps the cached view current and reports changes. Expected
// failures come back as values (FailedCreatePodSandBox, ErrImagePull, CreateContainerConfigError, …).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Container, Pod, Probe } from '../../api/core/pod/types.js';
import type { Client } from '../../client/types.js';
import { CriClient } from '../../runtime/cri-client.js';
import type { PodSandboxConfig } from '../../runtime/cri-types.js';
import { resolveContainerEnv } from '../pods/container-env.js';
import { defaultPullPolicy, ImagePuller, rpcMessage } from './images.js';
import { runLifecycleHook } from './lifecycle-hooks.js';
import { CriPodState, podStatusOf, type ContainerInfo } from './pod-state.js';
import { runProbe } from './probes.js';
import { containerConfig, containerMounts, prepareContainerLogDir } from './container-config.js';
import { podSandboxConfig } from './sandbox-config.js';
import { podDNSConfig, type DNSSettings } from './dns-config.js';
import { computeQOS, ensurePodCgroup, podCgroupParent, removePodCgroup } from './qos-cgroups.js';
import type { PodRuntime, ProbeKind, ProbeResult, RuntimeEvent, RuntimeEventListener, RuntimeFailure, RuntimePodStatus } from '../runtime.js';
import { clientSourceContext } from '../volumes/sources.js';
import { clientClaimSource } from '../volumes/pvc.js';
import { PodVolumes, type VolumeFailure, type VolumeMountSource } from '../volumes/pod-volumes.js';
import { tracePod } from '../../machinery/pod-trace.js';
import { ContainerStopper } from './container-stop.js';
import { collectContainerGarbage } from './container-gc.js';

export interface CriRuntimeOptions {
  /** unix:///… socket of containerd's CRI */
  endpoint: string;
  client: Client;
  /** the kubelet's root dir; pod directories live in <rootDir>/pods/<uid> */
  rootDir: string;
  /** the pod log root (/var/log/pods) */
  podLogDir: string;
  nodeAllocatable: Record<string, string>;
  memoryCapacityBytes: number;
  hostIPs: string[];
  /** cluster DNS and domain (read at each sandbox creation: the DNS service may appear later) */
  dns: () => DNSSettings;
  /** PLEG relist period (default 1 s) */
  relistIntervalMs?: number;
  /** how often configMap/secret/projected volumes are rewritten from the API (default 10 s) */
  volumeResyncMs?: number;
  cgroupRoot?: string;
  log?: (line: string) => void;
}

const QOS_CLASSES = ['Guaranteed', 'Burstable', 'BestEffort'] as const;

export class CriRuntime implements PodRuntime {
  readonly cri: CriClient;
  readonly state: CriPodState;
  private versionString = 'containerd://unknown';
  private readonly listeners: ((uid: string) => void)[] = [];
  private readonly eventListeners: RuntimeEventListener[] = [];
  private readonly pods = new Map<string, Pod>();
  private readonly volumeMounts = new Map<string, Map<string, VolumeMountSource>>();
  private readonly volumes: PodVolumes;
  private readonly images: ImagePuller;
  private readonly stopper: ContainerStopper;
  private readonly removals = new Map<string, Promise<void>>();
  private readonly log: (line: string) => void;
  private relisting?: Promise<void>;
  private relistAgain = false;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(private readonly opts: CriRuntimeOptions) {
    this.cri = new CriClient(opts.endpoint);
    this.state = new CriPodState(this.cri);
    this.log = opts.log ?? (() => {});
    const ctx = clientSourceContext(opts.client, { nodeAllocatable: opts.nodeAllocatable, hostIPs: opts.hostIPs });
    this.volumes = new PodVolumes({ ...ctx, podsDir: this.podsDir, claims: clientClaimSource(opts.client) });
    this.images = new ImagePuller(this.cri, opts.client);
    const emit = (pod: Pod, e: RuntimeEvent) => this.emit(pod, e);
    this.stopper = new ContainerStopper({ cri: this.cri, state: this.state, hostIPs: opts.hostIPs, log: this.log, emit, relist: () => this.relist() });
  }

  get podsDir(): string {
    return path.join(this.opts.rootDir, 'pods');
  }

  get version(): string {
    return this.versionString;
  }

  /** Reads the runtime version and adopts what runs (first relist); then relists periodically. */
  async start(): Promise<void> {
    const v = await this.cri.version({});
    this.versionString = `${v.runtime_name}://${v.runtime_version}`;
    await this.relist();
    const loop = (ms: number, fn: () => Promise<unknown>) => {
      const t = setInterval(() => void fn().catch((e) => this.log(`k1s: cri runtime: ${(e as Error).message}`)), ms);
      t.unref?.();
      this.timers.push(t);
    };
    loop(this.opts.relistIntervalMs ?? 1000, () => this.relist());
    loop(this.opts.volumeResyncMs ?? 10_000, () => this.refreshVolumes());
  }

  onPodEvent(listener: (uid: string) => void): void {
    this.listeners.push(listener);
  }

  onRuntimeEvent(listener: RuntimeEventListener): void {
    this.eventListeners.push(listener);
  }

  private emit(pod: Pod, event: RuntimeEvent): void {
    for (const l of this.eventListeners) l(pod, event);
  }

  /** PLEG relist: one at a time; a request during a relist runs one more right after. */
  relist(): Promise<void> {
    if (this.relisting) {
      this.relistAgain = true;
      return this.relisting;
    }
    this.relisting = (async () => {
      try {
        do {
          this.relistAgain = false;
          const changed = await this.state.relist();
          collectContainerGarbage(this.cri, this.state);
          if (!this.closed) for (const uid of changed) for (const l of this.listeners) l(uid);
        } while (this.relistAgain && !this.closed);
      } finally {
        this.relisting = undefined;
      }
    })();
    return this.relisting;
  }

  /** a pod's status changed outside a relist (refreshSandbox/refreshContainer): its listeners hear it as from one */
  private changed(uid: string | undefined): void {
    if (uid && !this.closed) for (const l of this.listeners) l(uid);
  }

  podStatus(uid: string): RuntimePodStatus | undefined {
    const st = this.state.get(uid);
    return st ? podStatusOf(uid, st) : undefined;
  }

  /** uids of every pod with a sandbox or container in the runtime (housekeeping finds orphans with it) */
  knownPods(): string[] {
    return this.state.uids();
  }

  private sandboxConfig(pod: Pod, attempt: number): PodSandboxConfig {
    const dns = this.opts.dns();
    return podSandboxConfig(pod, {
      attempt,
      dns: podDNSConfig(pod, dns).config,
      podLogDir: this.opts.podLogDir,
      cgroupParent: podCgroupParent(pod.metadata.uid!, computeQOS(pod)),
      clusterDomain: dns.clusterDomain,
    });
  }

  async ensureSandbox(pod: Pod): Promise<{ ips: string[] } | RuntimeFailure> {
    const uid = pod.metadata.uid!;
    this.pods.set(uid, pod);
    const current = this.state.get(uid);
    const newest = current?.sandboxes[0];
    if (newest?.ready) return { ips: [...newest.ips] };
    try {
      // a dead sandbox is replaced: whatever still runs in the pod goes first (computePodActions' KillPod)
      if (current) await this.stopper.stopAll(current.containers, 0);
      // the image check of the containers that start first overlaps the sandbox's creation
      const first = pod.spec?.initContainers?.length ? pod.spec.initContainers.slice(0, 1) : (pod.spec?.containers ?? []);
      this.images.prefetch(first.filter((c) => (c.imagePullPolicy ?? defaultPullPolicy(c.image ?? '')) !== 'Always').map((c) => c.image ?? ''));
      // kube's syncPod: the pod cgroup, the pod's directories, then its volumes; the cgroup is made while the
      // volumes are resolved
      const dirs = (async () => {
        await ensurePodCgroup(pod, { cgroupRoot: this.opts.cgroupRoot });
        const config = this.sandboxConfig(pod, newest ? newest.attempt + 1 : 0);
        await fs.mkdir(config.log_directory!, { recursive: true, mode: 0o755 });
        return config;
      })();
      dirs.catch(() => undefined);
      tracePod(pod, 'cri: volumes resolve');
      const vols = await this.volumes.resolve(pod);
      if ('failure' in vols) return { reason: 'FailedMount', message: vols.failure.message };
      const config = await dirs;
      tracePod(pod, 'cri: RunPodSandbox');
      const sandbox = this.cri.runPodSandbox({ config });
      sandbox.catch(() => undefined);
      // the volumes' payloads go to disk while the sandbox is made (only containers use them), once the request is
      // out: a tmpfs mount forks, which holds this thread (write never rejects)
      const written = new Promise((r) => setImmediate(r)).then(() => vols.write());
      let sandboxId: string;
      let unwritten: VolumeFailure[];
      try {
        ({ pod_sandbox_id: sandboxId } = await sandbox);
        tracePod(pod, 'cri: RunPodSandbox done');
      } finally {
        unwritten = await written;
      }
      tracePod(pod, 'cri: volumes written');
      if (unwritten.length) {
        // kube mounts the volumes before it makes the sandbox: one that could not be written takes the sandbox back
        await this.cri.stopPodSandbox({ pod_sandbox_id: sandboxId }).catch(() => undefined);
        await this.cri.removePodSandbox({ pod_sandbox_id: sandboxId }).catch((e) => this.log(`k1s: kubelet: removing sandbox ${sandboxId}: ${rpcMessage(e)}`));
        await this.relist().catch(() => undefined);
        return { reason: 'FailedMount', message: unwritten[0].message };
      }
      this.volumeMounts.set(uid, vols.mounts);
      // the new sandbox's status (its IPs), as kuberuntime reads it: no relist of the whole node
      await this.state.refreshSandbox(sandboxId).then((uid) => this.changed(uid), () => this.relist());
      tracePod(pod, 'cri: sandbox status read');
    } catch (e) {
      await this.relist().catch(() => undefined);
      return { reason: 'FailedCreatePodSandBox', message: rpcMessage(e) };
    }
    const sb = this.state.get(uid)?.sandboxes[0];
    if (!sb?.ready) return { reason: 'FailedCreatePodSandBox', message: 'pod sandbox is not ready after creation' };
    return { ips: [...sb.ips] };
  }

  async startContainer(pod: Pod, c: Container, opts: { attempt: number }): Promise<RuntimeFailure | undefined> {
    const uid = pod.metadata.uid!;
    this.pods.set(uid, pod);
    const sb = this.state.get(uid)?.sandboxes[0];
    if (!sb?.ready) return { reason: 'CreateContainerError', message: 'pod sandbox is not ready' };
    /** the container made, once CreateContainer succeeded: only its status is read back afterwards */
    let created: string | undefined;
    try {
      tracePod(pod, 'cri: image ensure');
      const img = await this.images.ensure(pod, c, () => this.sandboxConfig(pod, sb.attempt), (e) => this.emit(pod, e));
      if ('reason' in img) return img;
      const ctx = clientSourceContext(this.opts.client, { nodeAllocatable: this.opts.nodeAllocatable, hostIPs: this.opts.hostIPs });
      tracePod(pod, 'cri: env');
      const env = await resolveContainerEnv(ctx, pod, c, { podIPs: sb.ips });
      if ('failure' in env) return env.failure;
      let vols = this.volumeMounts.get(uid);
      if (!vols) {
        const set = await this.volumes.setUp(pod);
        if ('failure' in set) return { reason: 'CreateContainerConfigError', message: set.failure.message };
        this.volumeMounts.set(uid, (vols = set.mounts));
      }
      const dns = this.opts.dns();
      const target = (c as { targetContainerName?: string }).targetContainerName;
      tracePod(pod, 'cri: mounts');
      // the container's log directory is made beside the kubelet-managed files
      const sandboxConfig = this.sandboxConfig(pod, sb.attempt);
      const logDir = prepareContainerLogDir(sandboxConfig.log_directory!, c.name ?? '');
      logDir.catch(() => undefined);
      const mounts = await containerMounts(pod, c, vols, { podDir: this.volumes.podDir(uid), env: env.env, podIPs: sb.ips, clusterDomain: dns.clusterDomain });
      if ('failure' in mounts) return mounts.failure;
      const built = containerConfig(pod, c, {
        attempt: opts.attempt,
        env: env.env,
        mounts: mounts.mounts,
        imageRef: img.ref,
        imageUser: { uid: img.uid, username: img.username },
        memoryCapacity: this.opts.memoryCapacityBytes,
        seccompProfileRoot: path.join(this.opts.rootDir, 'seccomp'),
        // an ephemeral container with a target joins that container's process namespace (CRI NamespaceMode TARGET)
        targetContainerId: target ? this.newest(uid, target)?.criId : undefined,
      });
      if ('failure' in built) return built.failure;
      await logDir;
      let id: string;
      try {
        tracePod(pod, 'cri: CreateContainer');
        ({ container_id: id } = await this.cri.createContainer({ pod_sandbox_id: sb.id, config: built.config, sandbox_config: sandboxConfig }));
        created = id;
      } catch (e) {
        return { reason: 'CreateContainerError', message: rpcMessage(e) };
      }
      this.emit(pod, { type: 'Normal', reason: 'Created', message: `Created container: ${c.name ?? ''}` });
      try {
        tracePod(pod, 'cri: StartContainer');
        await this.cri.startContainer({ container_id: id });
        tracePod(pod, 'cri: StartContainer done');
      } catch (e) {
        return { reason: 'RunContainerError', message: rpcMessage(e) };
      }
      this.emit(pod, { type: 'Normal', reason: 'Started', message: `Started container ${c.name ?? ''}` });
      const postStart = c.lifecycle?.postStart;
      if (postStart) {
        const msg = await runLifecycleHook({ cri: this.cri, pod, container: c, containerId: id, podIP: sb.ips[0] ?? this.opts.hostIPs[0], timeoutSeconds: 30 }, postStart);
        if (msg) {
          // kube: the event, then killContainer with the message "FailedPostStartHook" (preStop still runs)
          this.emit(pod, { type: 'Warning', reason: 'FailedPostStartHook', message: msg });
          await this.relist().catch(() => undefined);
          created = undefined;
          const inst = this.state.get(uid)?.containers.find((x) => x.criId === id);
          const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
          if (inst) await this.stopper.stopInstance(pod, inst, c, grace, { message: 'FailedPostStartHook' });
          else await this.cri.stopContainer({ container_id: id, timeout: grace }).catch(() => undefined);
          return { reason: 'PostStartHookError', message: msg };
        }
      }
      return undefined;
    } finally {
      // the new container's status (kuberuntime's next GetPodStatus); a relist when nothing was created, or when
      // that read fails
      if (created) await this.state.refreshContainer(created, sb.id).then((uid) => this.changed(uid), () => this.relist().catch(() => undefined));
      else await this.relist().catch(() => undefined);
      tracePod(pod, 'cri: container status read');
    }
  }

  private newest(uid: string, name: string): ContainerInfo | undefined {
    return this.state
      .get(uid)
      ?.containers.filter((c) => c.name === name && (c.state === 'running' || c.state === 'created'))
      .sort((a, b) => b.attempt - a.attempt)[0];
  }

  killContainer(pod: Pod, name: string, opts: { gracePeriodSeconds: number }): Promise<void> {
    const inst = this.newest(pod.metadata.uid!, name);
    if (!inst) return Promise.resolve();
    const spec = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((c) => c.name === name);
    return this.stopper.stopInstance(pod, inst, spec, opts.gracePeriodSeconds);
  }

  async killPod(pod: Pod, opts: { gracePeriodSeconds: number }): Promise<void> {
    const uid = pod.metadata.uid!;
    const st = this.state.get(uid);
    if (!st) return;
    await this.stopper.stopAll(st.containers, opts.gracePeriodSeconds, pod);
    for (const sb of this.state.get(uid)?.sandboxes ?? []) {
      if (!sb.ready) continue;
      await this.cri.stopPodSandbox({ pod_sandbox_id: sb.id }).catch((e) => this.log(`k1s: kubelet: stopping sandbox of ${pod.metadata.name}: ${rpcMessage(e)}`));
    }
    await this.relist().catch(() => undefined);
  }

  async probe(pod: Pod, c: Container, _kind: ProbeKind, probe: Probe): Promise<ProbeResult> {
    return (await this.probeDetail(pod, c, probe)).ok ? 'success' : 'failure';
  }

  /** the probe's result with its output (the Unhealthy event's text) */
  async probeDetail(pod: Pod, c: Container, probe: Probe): Promise<{ ok: boolean; output: string }> {
    const inst = this.newest(pod.metadata.uid!, c.name ?? '');
    if (!inst || inst.state !== 'running') return { ok: false, output: 'container is not running' };
    const ip = pod.spec?.hostNetwork ? this.opts.hostIPs[0] : (this.state.get(pod.metadata.uid!)?.sandboxes[0]?.ips[0] ?? '');
    return runProbe({ cri: this.cri, containerId: inst.criId, container: c, podIP: ip, timeoutSeconds: probe.timeoutSeconds ?? 1 }, probe);
  }

  removePod(uid: string): void {
    if (this.removals.has(uid)) return;
    const p = this.remove(uid)
      .catch((e) => this.log(`k1s: kubelet: removing pod ${uid}: ${(e as Error).message}`))
      .finally(() => this.removals.delete(uid));
    this.removals.set(uid, p);
  }

  /** resolves once every pending pod removal has finished */
  async whenRemoved(): Promise<void> {
    await Promise.all([...this.removals.values()]);
  }

  private async remove(uid: string): Promise<void> {
    await this.relist().catch(() => undefined);
    const st = this.state.get(uid);
    if (st) await this.stopper.stopAll(st.containers, 0);
    for (const c of this.state.get(uid)?.containers ?? []) await this.cri.removeContainer({ container_id: c.criId }).catch(() => undefined);
    for (const sb of this.state.get(uid)?.sandboxes ?? []) {
      await this.cri.stopPodSandbox({ pod_sandbox_id: sb.id }).catch(() => undefined);
      await this.cri.removePodSandbox({ pod_sandbox_id: sb.id }).catch((e) => this.log(`k1s: kubelet: removing sandbox ${sb.id}: ${rpcMessage(e)}`));
    }
    this.state.forget(uid);
    this.pods.delete(uid);
    this.volumeMounts.delete(uid);
    await this.volumes.tearDown(uid);
    for (const q of QOS_CLASSES) await removePodCgroup(uid, q, { cgroupRoot: this.opts.cgroupRoot });
    for (const d of await fs.readdir(this.opts.podLogDir).catch(() => [] as string[])) {
      if (d.endsWith(`_${uid}`)) await fs.rm(path.join(this.opts.podLogDir, d), { recursive: true, force: true });
    }
  }

  /** configMap/secret/downwardAPI/projected payloads follow the API (the kubelet's periodic volume resync) */
  private async refreshVolumes(): Promise<void> {
    for (const [uid, pod] of this.pods) {
      if (!this.state.get(uid)?.sandboxes[0]?.ready) continue;
      const r = await this.volumes.refresh(pod).catch(() => undefined);
      for (const f of r?.failures ?? []) this.log(`k1s: kubelet: ${f.message}`);
    }
  }

  /** the latest spec of a pod the kubelet synced (volume refresh reads it) */
  updatePod(pod: Pod): void {
    if (this.pods.has(pod.metadata.uid!)) this.pods.set(pod.metadata.uid!, pod);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.cri.close();
  }
}
