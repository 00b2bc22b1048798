// The CRI runtime's view of its pods (the kubelet's PLEG relist + kuberuntime's GetPodStatus): every relist reads
// ListPodSandbox and ListContainers, asks ContainerStatus only for containers whose state changed, maps them to
// RuntimeContainer (exit codes, reasons, termination messages) and reports which pods changed. Because everything is
// read back from containerd through the labels the kubelet put on sandboxes and containers, a restarted k1s
// re-adopts what runs (restart counts come from metadata.attempt).
import { promises as fs } from 'node:fs';
import type { CriClient } from '../../runtime/cri-client.js';
import type * as cri from '../../runtime/cri-types.js';
import { POD_UID_LABEL } from './sandbox-config.js';
import { CONTAINER_NAME_LABEL, TERMINATION_MESSAGE_PATH_ANNOTATION, TERMINATION_MESSAGE_POLICY_ANNOTATION } from './container-config.js';
import type { RuntimeContainer, RuntimeContainerState, RuntimePodStatus } from '../runtime.js';

/** kube's maxContainerTerminationMessageLength / FallbackToLogsOnError limits */
const MAX_MESSAGE_BYTES = 4096;
const MAX_LOG_MESSAGE_LINES = 80;
const MAX_LOG_MESSAGE_BYTES = 2048;

export interface SandboxInfo {
  id: string;
  uid: string;
  attempt: number;
  ready: boolean;
  createdAt: number;
  ips: string[];
}

export interface ContainerInfo extends RuntimeContainer {
  criId: string;
  sandboxId: string;
  uid: string;
  logPath?: string;
}

export interface PodState {
  /** newest first */
  sandboxes: SandboxInfo[];
  containers: ContainerInfo[];
}

const nsToMs = (ns: string | number | undefined): number | undefined => {
  const n = Number(ns ?? 0);
  return n > 0 ? Math.floor(n / 1e6) : undefined;
};

const STATES: Record<string, RuntimeContainerState> = {
  CONTAINER_CREATED: 'created',
  CONTAINER_RUNNING: 'running',
  CONTAINER_EXITED: 'exited',
};

/** The last lines of a CRI-format log file, without the timestamp/stream/tag prefix (FallbackToLogsOnError). */
export async function tailCriLog(file: string, opts: { lines: number; bytes: number }): Promise<string> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const lines = text.split('\n').filter(Boolean).slice(-opts.lines);
  let out = '';
  for (const l of lines) {
    const m = /^\S+ (?:stdout|stderr) ([FP]) (.*)$/.exec(l);
    if (!m) continue;
    out += m[2] + (m[1] === 'F' ? '\n' : '');
  }
  const buf = Buffer.from(out);
  return buf.length > opts.bytes ? buf.subarray(buf.length - opts.bytes).toString() : out;
}

/** kuberuntime's termination message: the file behind terminationMessagePath, else the log tail on error. */
async function terminationMessage(st: cri.ContainerStatus): Promise<string> {
  const path = st.annotations[TERMINATION_MESSAGE_PATH_ANNOTATION];
  const policy = st.annotations[TERMINATION_MESSAGE_POLICY_ANNOTATION];
  let msg = '';
  const mount = path ? st.mounts.find((m) => m.container_path === path) : undefined;
  if (mount?.host_path) {
    const fh = await fs.open(mount.host_path, 'r').catch(() => undefined);
    if (fh) {
      const buf = Buffer.alloc(MAX_MESSAGE_BYTES);
      const { bytesRead } = await fh.read(buf, 0, MAX_MESSAGE_BYTES, 0).finally(() => fh.close());
      msg = buf.subarray(0, bytesRead).toString();
    }
  }
  if (!msg && policy === 'FallbackToLogsOnError' && st.exit_code !== 0 && st.log_path) {
    msg = await tailCriLog(st.log_path, { lines: MAX_LOG_MESSAGE_LINES, bytes: MAX_LOG_MESSAGE_BYTES });
  }
  return msg;
}

/** How far along its life a container's state is (CRI: created → running → exited). */
const STATE_ORDER: Record<string, number> = { unknown: 0, created: 1, running: 2, exited: 3 };

export function toRuntimeContainer(st: cri.ContainerStatus, sandboxId: string, uid: string, message: string): ContainerInfo {
  const state = STATES[st.state] ?? 'unknown';
  const rc: ContainerInfo = {
    name: st.metadata?.name ?? st.labels[CONTAINER_NAME_LABEL] ?? '',
    id: `containerd://${st.id}`,
    criId: st.id,
    sandboxId,
    uid,
    attempt: st.metadata?.attempt ?? 0,
    image: st.image?.image ?? '',
    imageID: st.image_ref,
    state,
    createdAt: nsToMs(st.created_at) ?? 0,
    logPath: st.log_path || undefined,
  };
  if (state === 'running' || state === 'exited') rc.startedAt = nsToMs(st.started_at);
  if (state === 'exited') {
    rc.finishedAt = nsToMs(st.finished_at);
    rc.exitCode = st.exit_code;
    rc.reason = st.reason || (st.exit_code === 0 ? 'Completed' : 'Error');
    if (message) rc.message = message;
  }
  return rc;
}

/** The RuntimePodStatus of one pod: the newest sandbox decides readiness and IPs; containers newest first. */
export function podStatusOf(uid: string, st: PodState): RuntimePodStatus {
  const sb = st.sandboxes[0];
  const containers = st.containers
    .map(({ criId: _c, sandboxId: _s, uid: _u, logPath: _l, ...rest }) => ({ ...rest }))
    .sort((a, b) => b.attempt - a.attempt || b.createdAt - a.createdAt);
  return { uid, ips: sb?.ready ? [...sb.ips] : [], sandboxReady: !!sb?.ready, containers };
}

const bySandboxAge = (a: SandboxInfo, b: SandboxInfo): number => b.attempt - a.attempt || b.createdAt - a.createdAt;

/** the IPs a PodSandboxStatus reports (primary first) */
const sandboxIPsOf = (n: cri.PodSandboxStatus['network']): string[] =>
  [n?.ip, ...(n?.additional_ips ?? []).map((x) => x.ip)].filter((x): x is string => !!x);

/** a sandbox as listed or read (both carry id, metadata, state and created_at) */
function sandboxInfo(s: cri.PodSandbox | cri.PodSandboxStatus, uid: string, ips: string[]): SandboxInfo {
  return { id: s.id, uid, attempt: s.metadata?.attempt ?? 0, ready: s.state === 'SANDBOX_READY', createdAt: nsToMs(s.created_at) ?? 0, ips };
}

/** Reads containerd's sandboxes and containers; keeps what does not change (exited containers, sandbox IPs). */
export class CriPodState {
  private pods = new Map<string, PodState>();
  private readonly containerCache = new Map<string, { state: string; info: ContainerInfo }>();
  /** sandbox id → its IPs (read once: a sandbox keeps its IPs until it stops) */
  private readonly sandboxIPs = new Map<string, string[]>();
  private readonly fingerprints = new Map<string, string>();
  /** sandboxes and containers learned by refreshSandbox/refreshContainer while a relist was listing: that relist's
   *  (older) listing may lack them, so they are added to its result */
  private learned?: { sandboxes: SandboxInfo[]; containers: ContainerInfo[] };

  constructor(private readonly cri: CriClient) {}

  /**
   * Reads one sandbox (after RunPodSandbox) into the view without a relist, as kuberuntime reads PodSandboxStatus
   * for the new sandbox's IP. Returns the pod's uid when its status changed (as relist reports it; the next relist
   * then reports no change for it).
   */
  async refreshSandbox(id: string): Promise<string | undefined> {
    const res = await this.cri.podSandboxStatus({ pod_sandbox_id: id, verbose: false });
    const s = res.status;
    const uid = s?.labels[POD_UID_LABEL] ?? s?.metadata?.uid;
    if (!s || !uid) return undefined;
    const ips = sandboxIPsOf(s.network);
    this.sandboxIPs.set(s.id, ips);
    const info = sandboxInfo(s, uid, ips);
    this.learned?.sandboxes.push(info);
    return this.put(uid, (st) => ({ ...st, sandboxes: [info, ...st.sandboxes.filter((x) => x.id !== info.id)].sort(bySandboxAge) }));
  }

  /** Reads one container (after StartContainer) into the view without a relist; see refreshSandbox. */
  async refreshContainer(id: string, sandboxId: string): Promise<string | undefined> {
    const res = await this.cri.containerStatus({ container_id: id });
    const st = res.status;
    const uid = st?.labels[POD_UID_LABEL];
    if (!st || !uid) return undefined;
    const msg = st.state === 'CONTAINER_EXITED' ? await terminationMessage(st) : '';
    const info = toRuntimeContainer(st, sandboxId, uid, msg);
    this.containerCache.set(id, { state: st.state, info });
    this.learned?.containers.push(info);
    return this.put(uid, (cur) => ({ ...cur, containers: [...cur.containers.filter((x) => x.criId !== id), info] }));
  }

  /** changes one pod's state; its uid when that changed its status */
  private put(uid: string, change: (st: PodState) => PodState): string | undefined {
    const st = change(this.pods.get(uid) ?? { sandboxes: [], containers: [] });
    this.pods.set(uid, st);
    const fp = JSON.stringify(podStatusOf(uid, st));
    if (this.fingerprints.get(uid) === fp) return undefined;
    this.fingerprints.set(uid, fp);
    return uid;
  }

  get(uid: string): PodState | undefined {
    return this.pods.get(uid);
  }

  uids(): string[] {
    return [...this.pods.keys()];
  }

  forget(uid: string): void {
    this.pods.delete(uid);
    this.fingerprints.delete(uid);
  }

  /** Lists everything and returns the uids whose status changed (appeared, changed or vanished). */
  async relist(): Promise<string[]> {
    const learned: NonNullable<CriPodState['learned']> = (this.learned = { sandboxes: [], containers: [] });
    try {
      return await this.relistWith(learned);
    } finally {
      if (this.learned === learned) this.learned = undefined;
    }
  }

  private async relistWith(learned: NonNullable<CriPodState['learned']>): Promise<string[]> {
    const [{ items }, { containers }] = await Promise.all([this.cri.listPodSandbox({}), this.cri.listContainers({})]);
    const next = new Map<string, PodState>();
    const liveSandboxes = new Set<string>();
    for (const s of items) {
      const uid = s.labels[POD_UID_LABEL] ?? s.metadata?.uid;
      if (!uid) continue;
      liveSandboxes.add(s.id);
      let ips = this.sandboxIPs.get(s.id);
      if (!ips) {
        const res = await this.cri.podSandboxStatus({ pod_sandbox_id: s.id, verbose: false }).catch(() => undefined);
        ips = sandboxIPsOf(res?.status?.network);
        if (res) this.sandboxIPs.set(s.id, ips);
      }
      const info = sandboxInfo(s, uid, ips);
      const st = next.get(uid) ?? { sandboxes: [], containers: [] };
      st.sandboxes.push(info);
      next.set(uid, st);
    }
    for (const id of [...this.sandboxIPs.keys()]) if (!liveSandboxes.has(id)) this.sandboxIPs.delete(id);
    const liveContainers = new Set<string>();
    for (const c of containers) {
      const uid = c.labels[POD_UID_LABEL];
      if (!uid) continue;
      liveContainers.add(c.id);
      const cached = this.containerCache.get(c.id);
      let info = cached?.info;
      if (!cached || cached.state !== c.state) {
        const res = await this.cri.containerStatus({ container_id: c.id }).catch(() => undefined);
        if (!res?.status) continue;
        const msg = res.status.state === 'CONTAINER_EXITED' ? await terminationMessage(res.status) : '';
        info = toRuntimeContainer(res.status, c.pod_sandbox_id, uid, msg);
        this.containerCache.set(c.id, { state: res.status.state, info });
      }
      const st = next.get(uid) ?? { sandboxes: [], containers: [] };
      st.containers.push(info!);
      next.set(uid, st);
    }
    const learnedIds = new Set(learned.containers.map((c) => c.criId));
    for (const id of [...this.containerCache.keys()]) if (!liveContainers.has(id) && !learnedIds.has(id)) this.containerCache.delete(id);
    // what refreshSandbox/refreshContainer read during this relist came after a CRI call returned: a listing taken
    // before that lacks it (a new sandbox or container), or shows a sandbox not ready yet. (A container listed
    // in an older state had its status read again above: its cached state differs.)
    for (const sb of learned.sandboxes) {
      const st = next.get(sb.uid) ?? { sandboxes: [], containers: [] };
      const i = st.sandboxes.findIndex((x) => x.id === sb.id);
      if (i < 0) st.sandboxes.push(sb);
      else if (sb.ready && !st.sandboxes[i].ready) st.sandboxes[i] = sb;
      next.set(sb.uid, st);
    }
    for (const c of learned.containers) {
      const st = next.get(c.uid) ?? { sandboxes: [], containers: [] };
      const i = st.containers.findIndex((x) => x.criId === c.criId);
      if (i < 0) st.containers.push(c);
      // this listing read the container before it started (created), the refresh after: a container's state only
      // moves forward, so the later one wins (else exec would find a Ready pod's container not running until the
      // next relist)
      else if (STATE_ORDER[c.state] > STATE_ORDER[st.containers[i]!.state]) st.containers[i] = c;
      next.set(c.uid, st);
    }
    for (const st of next.values()) st.sandboxes.sort(bySandboxAge);
    const changed: string[] = [];
    for (const uid of new Set([...this.pods.keys(), ...next.keys()])) {
      const st = next.get(uid);
      const fp = st ? JSON.stringify(podStatusOf(uid, st)) : '';
      if (this.fingerprints.get(uid) !== fp) changed.push(uid);
      if (st) this.fingerprints.set(uid, fp);
      else this.fingerprints.delete(uid);
    }
    this.pods = next;
    return changed;
  }
}
