// A pod's volumes on disk, laid out as the kubelet lays them out: <podsDir>/<uid>/volumes/kubernetes.io~<plugin>/<name>.
// emptyDir (disk, or tmpfs for medium Memory), hostPath (with its type checks), and the API-backed configMap,
// secret, downwardAPI and projected volumes written by the atomic writer (secret and projected on tmpfs, as kube's
// wrapped memory emptyDir). refresh() rewrites the API-backed payloads so updates reach running pods.
// persistentVolumeClaim and generic ephemeral volumes resolve to their bound PV (pvc.ts).
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Pod, Volume } from '../../api/core/pod/types.js';
import { Quantity } from '../../machinery/quantity.js';
import { podResourceConfig } from '../cri/qos-cgroups.js';
import { validatePayloadPath, writePayloadAtomically, type Payload } from './atomic-writer.js';
import { tracePod } from '../../machinery/pod-trace.js';
import {
  checkLocalPath,
  claimOf,
  ownershipMatches,
  resolveClaim,
  unableToMountMessage,
  type ClaimSource,
} from './pvc.js';
import {
  configMapPayload,
  DEFAULT_MODE,
  downwardAPIPayload,
  projectedPayload,
  secretPayload,
  TokenCache,
  type SourceContext,
} from './sources.js';

const run = promisify(execFile);

export interface Mounter {
  mountTmpfs(dir: string, sizeBytes: number | undefined): Promise<void>;
  unmount(dir: string): Promise<void>;
}

/** mount(8)/umount(8): Node has no mount(2). */
export const commandMounter: Mounter = {
  async mountTmpfs(dir, size) {
    await run('mount', ['-t', 'tmpfs', ...(size ? ['-o', `size=${size}`] : []), 'tmpfs', dir]);
  },
  async unmount(dir) {
    await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
  },
};

export interface VolumeContext extends SourceContext {
  /** the kubelet's pods directory (<root-dir>/pods) */
  podsDir: string;
  mounter?: Mounter;
  now?: () => number;
  /** claims and PVs for persistentVolumeClaim / ephemeral volumes (without it they are not supported) */
  claims?: ClaimSource;
}

export interface VolumeMountSource {
  hostPath: string;
  /** the plugin forces read-only (configMap, secret, downwardAPI, projected) */
  readOnly: boolean;
  selinuxRelabel: boolean;
  plugin: string;
}
export interface VolumeFailure {
  reason: 'FailedMount';
  volume: string;
  /** kube's FailedMount event text */
  message: string;
}
export type VolumeSetUp = { mounts: Map<string, VolumeMountSource> } | { failure: VolumeFailure; failures: VolumeFailure[] };

type Obj = Record<string, unknown>;
const API_BACKED: Record<string, string> = {
  configMap: 'kubernetes.io~configmap',
  secret: 'kubernetes.io~secret',
  downwardAPI: 'kubernetes.io~downward-api',
  projected: 'kubernetes.io~projected',
};
const MEMORY_BACKED = new Set(['secret', 'projected']);

function volumeKind(v: Volume): string | undefined {
  for (const k of ['emptyDir', 'hostPath', ...Object.keys(API_BACKED)]) if (v[k] && typeof v[k] === 'object') return k;
  return undefined;
}

/** Mount points (from /proc/self/mountinfo) at or below dir. */
export async function mountsUnder(dir: string): Promise<string[]> {
  const info = await fs.readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const unescape = (s: string): string => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  return info
    .split('\n')
    .map((l) => unescape(l.split(' ')[4] ?? ''))
    .filter((m) => m === dir || m.startsWith(dir + '/'));
}

/** SetVolumeOwnership: group fsGroup, group-readable (and writable unless read-only), setgid directories. */
export async function setOwnership(dir: string, fsGroup: number, readOnly: boolean): Promise<void> {
  const walk = async (p: string): Promise<void> => {
    const st = await fs.lstat(p);
    await fs.lchown(p, -1, fsGroup);
    if (st.isSymbolicLink()) return;
    let mask = readOnly ? 0o440 : 0o660;
    if (st.isDirectory()) mask |= 0o2000 | 0o110;
    await fs.chmod(p, (st.mode & 0o7777) | mask);
    if (st.isDirectory()) for (const e of await fs.readdir(p)) await walk(path.join(p, e));
  };
  await walk(dir);
}

/** hostPath type checks (pkg/volume/hostpath checkType), with kube's messages. */
export async function checkHostPathType(p: string, type: string): Promise<string | undefined> {
  const stat = await fs.stat(p).catch(() => undefined);
  const kindOf = (): string | undefined => {
    if (!stat) return undefined;
    if (stat.isDirectory()) return 'Directory';
    if (stat.isFile()) return 'File';
    if (stat.isSocket()) return 'Socket';
    if (stat.isCharacterDevice()) return 'CharDevice';
    if (stat.isBlockDevice()) return 'BlockDevice';
    return undefined;
  };
  const expect = (want: string, desc: string): string | undefined => {
    if (!stat) return `hostPath ${p} doesn't exist`;
    const k = kindOf();
    if (!k) return `hostPath type check failed, ${p} is not a ${desc}, unable to determine its type: only recognise file, directory, socket, block device and character device`;
    return k === want ? undefined : `hostPath type check failed: ${p} is not a ${desc}, it's a ${k}`;
  };
  switch (type) {
    case '':
      return undefined;
    case 'DirectoryOrCreate':
      if (!stat) return fs.mkdir(p, { recursive: true, mode: 0o755 }).then(() => undefined, (e: Error) => e.message);
      return expect('Directory', 'directory');
    case 'Directory':
      return expect('Directory', 'directory');
    case 'FileOrCreate':
      // kube creates the file only: a missing parent directory is an error
      if (!stat) return fs.open(p, 'a', 0o644).then((h) => h.close().then(() => undefined), (e: Error) => e.message);
      return expect('File', 'file');
    case 'File':
      return expect('File', 'file');
    case 'Socket':
      return expect('Socket', 'socket file');
    case 'CharDevice':
      return expect('CharDevice', 'character device');
    case 'BlockDevice':
      return expect('BlockDevice', 'block device');
  }
  return `${type} is an invalid volume type`;
}

/** calculateEmptyDirMemorySize: node allocatable memory, lowered to the pod's memory limit and to sizeLimit. */
export function memoryVolumeSize(pod: Pod, sizeLimit: unknown, nodeAllocatable: Record<string, string | number>): number | undefined {
  const parse = (v: unknown): number | undefined => {
    try {
      return v === undefined || v === null ? undefined : Quantity.fromJSON(v).value();
    } catch {
      return undefined;
    }
  };
  let size = parse(nodeAllocatable.memory);
  const podLimit = podResourceConfig(pod).memoryLimit;
  if (podLimit && podLimit > 0 && (size === undefined || podLimit <= size)) size = podLimit;
  const limit = parse(sizeLimit);
  if (limit && limit > 0 && (size === undefined || limit <= size)) size = limit;
  return size;
}

/**
 * Unmounts everything mounted below <podsDir>/<uid> (deepest first) and removes that directory; refuses to remove
 * while something stays mounted. Also for orphaned pod directories found at start-up.
 */
export async function tearDownPodVolumes(podsDir: string, uid: string, opts: { mounter?: Mounter } = {}): Promise<void> {
  if (!uid || uid.includes('/') || uid === '.' || uid === '..') throw new Error(`invalid pod uid ${JSON.stringify(uid)}`);
  const dir = path.join(podsDir, uid);
  const mounter = opts.mounter ?? commandMounter;
  for (const m of (await mountsUnder(dir)).sort((a, b) => b.length - a.length)) await mounter.unmount(m);
  const left = await mountsUnder(dir);
  if (left.length) throw new Error(`pod ${uid}: still mounted: ${left.join(', ')}`);
  await fs.rm(dir, { recursive: true, force: true });
}

const setUpFailure = (volume: string, error: string): VolumeFailure => ({ reason: 'FailedMount', volume, message: `MountVolume.SetUp failed for volume "${volume}" : ${error}` });

export class PodVolumes {
  private readonly tokens: TokenCache;
  private readonly mounter: Mounter;

  constructor(private readonly ctx: VolumeContext) {
    this.tokens = new TokenCache(ctx.now);
    this.mounter = ctx.mounter ?? commandMounter;
  }

  podDir(uid: string): string {
    return path.join(this.ctx.podsDir, uid);
  }

  volumeDir(uid: string, plugin: string, name: string): string {
    return path.join(this.podDir(uid), 'volumes', plugin, name);
  }

  /** Sets up every volume of the pod (idempotent: the kubelet calls it on each sync). */
  async setUp(pod: Pod): Promise<VolumeSetUp> {
    const r = await this.setUpAll(pod, false);
    return 'failure' in r ? r : { mounts: r.mounts };
  }

  /**
   * setUp in two steps: everything that reads the API or checks the node (the failures kube reports as FailedMount
   * while it waits for a configMap, a secret, a claim or a hostPath) resolves first; writing the configMap, secret,
   * downwardAPI and projected payloads to their (tmpfs) directories is left to write(), so that a caller can
   * overlap it with other work (the kubelet: RunPodSandbox) and wait for it before containers use the volumes.
   * write() returns the failures of those writes, as setUp would have reported them.
   */
  resolve(pod: Pod): Promise<{ failure: VolumeFailure; failures: VolumeFailure[] } | { mounts: Map<string, VolumeMountSource>; write: () => Promise<VolumeFailure[]> }> {
    return this.setUpAll(pod, true);
  }

  private async setUpAll(pod: Pod, deferWrites: boolean): Promise<{ failure: VolumeFailure; failures: VolumeFailure[] } | { mounts: Map<string, VolumeMountSource>; write: () => Promise<VolumeFailure[]> }> {
    const uid = pod.metadata?.uid ?? '';
    // the pod's directories are made while the volumes are read (each volume makes its own directory below them)
    const podDirs = Promise.all(['volumes', 'plugins'].map((d) => fs.mkdir(path.join(this.podDir(uid), d), { recursive: true, mode: 0o750 })));
    podDirs.catch(() => undefined);
    const mounts = new Map<string, VolumeMountSource>();
    const failures: VolumeFailure[] = [];
    const unprocessed: { volume: string; error: string }[] = [];
    const writes: { volume: string; write: () => Promise<unknown> }[] = [];
    for (const v of pod.spec?.volumes ?? []) {
      const name = v.name ?? '';
      if (claimOf(pod, v) && this.ctx.claims) {
        const r = await this.setUpClaim(pod, v, this.ctx.claims).catch((e: Error) => ({ processError: e.message }));
        if ('processError' in r) unprocessed.push({ volume: name, error: r.processError });
        else if ('error' in r) failures.push({ reason: 'FailedMount', volume: name, message: r.error });
        else mounts.set(name, r);
        continue;
      }
      const r = await this.setUpOne(pod, v)
        .then(async (r) => {
          if ('error' in r || !r.write || deferWrites) return r;
          await r.write();
          return { ...r, write: undefined };
        })
        .catch((e: Error) => ({ error: e.message }));
      if ('error' in r) failures.push(setUpFailure(name, r.error));
      else {
        const { write, ...mount } = r;
        mounts.set(name, mount);
        if (write) writes.push({ volume: name, write });
      }
    }
    await podDirs;
    if (unprocessed.length) {
      // the populator could not add these volumes: the pod waits for them (e.g. its claim to be bound)
      const names = unprocessed.map((u) => u.volume);
      const message = unableToMountMessage(names, [...names, ...failures.map((f) => f.volume)], unprocessed.map((u) => u.error));
      failures.unshift({ reason: 'FailedMount', volume: names[0], message });
    }
    if (failures.length) return { failure: failures[0], failures };
    const write = async (): Promise<VolumeFailure[]> => {
      const done = await Promise.all(writes.map((w) => w.write().then(() => undefined, (e: Error) => setUpFailure(w.volume, e.message))));
      return done.filter((f): f is VolumeFailure => !!f);
    };
    return { mounts, write };
  }

  /** A claim's bound PV: hostPath (type-checked, no ownership change) or local (must exist; fsGroup applied). */
  private async setUpClaim(pod: Pod, v: Volume, claims: ClaimSource): Promise<VolumeMountSource | { processError: string } | { error: string }> {
    const r = await resolveClaim(claims, pod, v);
    if ('processError' in r) return r;
    const setUpFailed = (msg: string) => ({ error: `MountVolume.SetUp failed for volume "${r.pvName}" : ${msg}` });
    if (r.kind === 'hostPath') {
      if (r.path.split('/').includes('..')) return setUpFailed(`invalid HostPath \`${r.path}\`: must not contain '..'`);
      const err = await checkHostPathType(r.path, r.hostPathType);
      if (err) return setUpFailed(err);
      return { hostPath: r.path, readOnly: r.readOnly, selinuxRelabel: false, plugin: 'kubernetes.io~host-path' };
    }
    const missing = await checkLocalPath(r.path);
    if (missing) return { error: `MountVolume.NewMounter initialization failed for volume "${r.pvName}" : ${missing}` };
    const sc = pod.spec?.securityContext as { fsGroup?: number; fsGroupChangePolicy?: string } | undefined;
    if (sc?.fsGroup !== undefined && !r.readOnly) {
      const skip = sc.fsGroupChangePolicy === 'OnRootMismatch' && (await ownershipMatches(r.path, sc.fsGroup, false));
      const err = skip ? undefined : await setOwnership(r.path, sc.fsGroup, false).then(() => undefined, (e: Error) => e.message);
      if (err) return setUpFailed(err);
    }
    return { hostPath: r.path, readOnly: r.readOnly, selinuxRelabel: true, plugin: 'kubernetes.io~local-volume' };
  }

  /** Rewrites the API-backed payloads that changed; returns the volumes updated and the failures. */
  async refresh(pod: Pod): Promise<{ updated: string[]; failures: VolumeFailure[] }> {
    const updated: string[] = [];
    const failures: VolumeFailure[] = [];
    for (const v of pod.spec?.volumes ?? []) {
      const kind = volumeKind(v);
      if (!kind || !API_BACKED[kind]) continue;
      const dir = this.volumeDir(pod.metadata?.uid ?? '', API_BACKED[kind], v.name ?? '');
      if (!(await fs.stat(dir).catch(() => undefined))) continue; // not set up yet
      const r = await this.writeApiVolume(pod, kind, v[kind] as Obj, dir).catch((e: Error) => ({ error: e.message }));
      if ('error' in r) failures.push({ reason: 'FailedMount', volume: v.name ?? '', message: `MountVolume.SetUp failed for volume "${v.name}" : ${r.error}` });
      else if (r.changed) updated.push(v.name ?? '');
    }
    return { updated, failures };
  }

  /** Unmounts the pod's tmpfs volumes and removes its directory. */
  async tearDown(uid: string): Promise<void> {
    await tearDownPodVolumes(this.ctx.podsDir, uid, { mounter: this.mounter });
    this.tokens.forgetPod(uid);
  }

  private async setUpOne(pod: Pod, v: Volume): Promise<(VolumeMountSource & { write?: () => Promise<unknown> }) | { error: string }> {
    const uid = pod.metadata?.uid ?? '';
    const name = v.name ?? '';
    const kind = volumeKind(v);
    if (kind === 'hostPath') {
      const hp = v.hostPath as { path?: string; type?: string };
      const p = hp.path ?? '';
      if (p.split('/').includes('..')) return { error: `invalid HostPath \`${p}\`: must not contain '..'` };
      const err = await checkHostPathType(p, hp.type ?? '');
      return err ? { error: err } : { hostPath: p, readOnly: false, selinuxRelabel: false, plugin: 'kubernetes.io~host-path' };
    }
    if (kind === 'emptyDir') {
      const ed = v.emptyDir as { medium?: string; sizeLimit?: unknown };
      const dir = this.volumeDir(uid, 'kubernetes.io~empty-dir', name);
      await this.wrappedEmptyDir(pod, dir, ed.medium === 'Memory', ed.sizeLimit);
      const fsGroup = pod.spec?.securityContext?.fsGroup;
      if (fsGroup !== undefined) await setOwnership(dir, fsGroup, false);
      return { hostPath: dir, readOnly: false, selinuxRelabel: true, plugin: 'kubernetes.io~empty-dir' };
    }
    if (kind && API_BACKED[kind]) {
      const dir = this.volumeDir(uid, API_BACKED[kind], name);
      const r = await this.apiPayload(pod, kind, v[kind] as Obj);
      if ('error' in r) return r;
      return { hostPath: dir, readOnly: true, selinuxRelabel: true, plugin: API_BACKED[kind], write: () => this.writeApiPayload(pod, kind, dir, r.payload) };
    }
    const type = Object.keys(v).find((k) => k !== 'name') ?? 'unknown';
    return { error: `volume type ${type} is not supported by this kubelet` };
  }

  /** kube's emptyDir SetUp: a 0777 directory, with a tmpfs on it for medium Memory. */
  private async wrappedEmptyDir(pod: Pod, dir: string, memory: boolean, sizeLimit?: unknown): Promise<void> {
    await fs.mkdir(dir, { recursive: true, mode: 0o750 });
    if (memory && !(await mountsUnder(dir)).includes(dir)) {
      await fs.chmod(dir, 0o777);
      await this.mounter.mountTmpfs(dir, memoryVolumeSize(pod, sizeLimit, this.ctx.nodeAllocatable));
      return;
    }
    if (!memory) await fs.chmod(dir, 0o777);
  }

  private async writeApiVolume(pod: Pod, kind: string, src: Obj, dir: string): Promise<{ changed: boolean } | { error: string }> {
    const r = await this.apiPayload(pod, kind, src);
    if ('error' in r) return r;
    return this.writeApiPayload(pod, kind, dir, r.payload);
  }

  /** the payload of a configMap, secret, downwardAPI or projected volume, its paths checked (the atomic writer's
   *  errors, which kube reports before writing anything) */
  private async apiPayload(pod: Pod, kind: string, src: Obj): Promise<{ payload: Payload } | { error: string }> {
    const mode = typeof src.defaultMode === 'number' ? src.defaultMode : DEFAULT_MODE;
    let r;
    tracePod(pod, `vol: ${kind} payload`);
    if (kind === 'configMap') r = await configMapPayload(this.ctx, pod, src, mode);
    else if (kind === 'secret') r = await secretPayload(this.ctx, pod, src, mode);
    else if (kind === 'downwardAPI') r = downwardAPIPayload(pod, (src.items ?? []) as never[], mode, this.ctx.nodeAllocatable);
    else r = await projectedPayload(this.ctx, this.tokens, pod, src);
    if ('error' in r) return r;
    for (const p of r.payload.keys()) {
      const error = validatePayloadPath(p);
      if (error) return { error };
    }
    return r;
  }

  /** the volume's directory (tmpfs for secret and projected) with the payload written atomically */
  private async writeApiPayload(pod: Pod, kind: string, dir: string, payload: Payload): Promise<{ changed: boolean }> {
    tracePod(pod, `vol: ${kind} emptyDir`);
    await this.wrappedEmptyDir(pod, dir, MEMORY_BACKED.has(kind));
    tracePod(pod, `vol: ${kind} write`);
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    return writePayloadAtomically(dir, payload, {
      now: this.ctx.now ? new Date(this.ctx.now()) : undefined,
      afterWrite: fsGroup === undefined ? undefined : () => setOwnership(dir, fsGroup, true),
    });
  }
}
