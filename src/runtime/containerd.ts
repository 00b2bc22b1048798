// Supervises k1s' own containerd: writes its config, spawns it in its own process group, waits for CRI
// Status, restarts it with back-off when it dies (pods keep running: each has its own shim) and stops it.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { containerdPaths, renderContainerdConfig, type ContainerdPaths } from './containerd-config.js';
import { CriClient } from './cri-client.js';
import { importImageArchives } from './images.js';

export interface ContainerdOptions {
  dataDir: string;
  /** sandbox (pause) image; it must be present in containerd (see importOnStart) */
  sandboxImage: string;
  cniBinDir?: string;
  /** the containerd binary (default: `containerd` on PATH) */
  containerdPath?: string;
  /** supervisor messages (started, died, restarting …), one line each */
  log?: (line: string) => void;
  /** how long start() waits for CRI RuntimeReady (default 10 s) */
  readyTimeoutMs?: number;
  logLevel?: string;
  /** image tarballs (the pause image) imported after the first start unless containerd already has them */
  importOnStart?: string[];
}

export interface ContainerdRestartEvent {
  /** restarts since start() */
  restarts: number;
  exitCode?: number;
  signal?: string;
  /** from the death of the old process to the new one being ready */
  downMs: number;
}

/** What the kubelet needs from a container runtime process, whether k1s runs it or not. */
export interface ContainerRuntimeProcess {
  /** unix:///… endpoint for CriClient */
  readonly endpoint: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** called after the runtime came back from a crash; returns an unsubscribe function */
  onRestart(cb: (ev: ContainerdRestartEvent) => void): () => void;
}

export type ContainerdState = 'stopped' | 'starting' | 'running' | 'restarting';

const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
const RESTART_BACKOFF_INITIAL_MS = 100;
const RESTART_BACKOFF_MAX_MS = 10_000;
/** a process that stayed up this long resets the back-off */
const RESTART_BACKOFF_RESET_MS = 60_000;
const STOP_GRACE_MS = 5_000;

export class Containerd implements ContainerRuntimeProcess {
  readonly paths: ContainerdPaths;
  readonly endpoint: string;
  private readonly log: (line: string) => void;
  private readonly readyTimeoutMs: number;
  private readonly pidFile: string;
  private child: ResultPromise | undefined;
  private exited: Promise<void> | undefined;
  private currentState: ContainerdState = 'stopped';
  private restarts = 0;
  private backoffMs = RESTART_BACKOFF_INITIAL_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private readonly restartListeners = new Set<(ev: ContainerdRestartEvent) => void>();

  constructor(private readonly opts: ContainerdOptions) {
    this.paths = containerdPaths(opts.dataDir, { cniBinDir: opts.cniBinDir });
    this.endpoint = `unix://${this.paths.address}`;
    this.log = opts.log ?? (() => {});
    this.readyTimeoutMs = opts.readyTimeoutMs ?? 10_000;
    this.pidFile = path.join(this.paths.dir, 'containerd.pid');
  }

  /** A runtime someone else runs (`--container-runtime-endpoint`): start waits for it, stop leaves it alone. */
  static external(endpoint: string, opts: { readyTimeoutMs?: number } = {}): ContainerRuntimeProcess {
    return new ExternalRuntime(endpoint, opts.readyTimeoutMs ?? 10_000);
  }

  get state(): ContainerdState {
    return this.currentState;
  }

  /** pid of the running containerd (undefined when none) */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  onRestart(cb: (ev: ContainerdRestartEvent) => void): () => void {
    this.restartListeners.add(cb);
    return () => this.restartListeners.delete(cb);
  }

  async start(): Promise<void> {
    if (this.currentState !== 'stopped') throw new Error(`containerd is already ${this.currentState}`);
    this.currentState = 'starting';
    try {
      for (const d of [this.paths.dir, this.paths.root, this.paths.state, this.paths.cniConfDir, this.paths.podLogDir]) {
        mkdirSync(d, { recursive: true });
      }
      mkdirSync(path.dirname(this.paths.address), { recursive: true, mode: 0o700 });
      writeFileSync(this.paths.config, renderContainerdConfig({ paths: this.paths, sandboxImage: this.opts.sandboxImage, logLevel: this.opts.logLevel }));
      await this.killOrphan();
      this.rotateLog();
      await this.spawnReady();
      if (this.opts.importOnStart?.length) {
        await importImageArchives({ address: this.paths.address, files: this.opts.importOnStart, onProgress: this.log });
      }
      this.currentState = 'running';
      this.startedAt = Date.now();
    } catch (e) {
      await this.terminate();
      this.currentState = 'stopped';
      throw e;
    }
  }

  async stop(): Promise<void> {
    const was = this.currentState;
    this.currentState = 'stopped';
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    if (was === 'stopped' && !this.child) return;
    await this.terminate();
    try {
      unlinkSync(this.pidFile);
    } catch {
      /* already gone */
    }
  }

  // ---- process handling

  private async spawnReady(): Promise<void> {
    const started = performance.now();
    this.removeStaleSocket();
    const logFile = { file: this.paths.log, append: true } as const;
    const child: ResultPromise = execa(this.opts.containerdPath ?? 'containerd', ['--config', this.paths.config], {
      // own process group: a Ctrl-C in k1s' terminal must not reach containerd before k1s has shut down
      detached: true,
      cleanup: false,
      reject: false,
      stdin: 'ignore',
      // containerd looks runc and its shim up on PATH; runc is in /usr/sbin, which a user's PATH may lack
      env: { PATH: [process.env.PATH, '/usr/local/sbin', '/usr/sbin', '/sbin'].filter(Boolean).join(':') },
      stdout: logFile,
      stderr: logFile,
    });
    this.child = child;
    let notFound = false;
    const exited = child.then((r) => {
      if (this.child === child) this.child = undefined;
      notFound = r.code === 'ENOENT';
      this.onChildExit(r.exitCode, r.signal);
    });
    this.exited = exited;
    if (child.pid) writeFileSync(this.pidFile, `${child.pid}\n`);

    const cri = new CriClient(this.endpoint, { timeoutMs: 2_000 });
    const giveUp = new AbortController();
    try {
      const ready = cri.waitReady(this.readyTimeoutMs, { signal: giveUp.signal }).then(() => undefined);
      ready.catch(() => {}); // may lose the race to an early exit
      const died = exited.then(() => 'exited' as const);
      const outcome = await Promise.race([ready.then(() => 'ready' as const), died]);
      if (outcome === 'exited') {
        throw Object.assign(new Error('containerd exited during start-up'), { code: notFound ? 'ENOENT' : undefined });
      }
      this.log(`containerd ready in ${Math.round(performance.now() - started)} ms (pid ${child.pid}, ${this.endpoint})`);
    } catch (e) {
      await this.terminate();
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ENOENT') {
        throw new Error(
          `cannot run ${this.opts.containerdPath ?? 'containerd'}: not found on PATH; install it: apt-get install -y containerd runc`,
        );
      }
      throw new Error(`containerd did not become ready: ${err.message}\nlast lines of ${this.paths.log}:\n${await this.logTail(20)}`);
    } finally {
      giveUp.abort();
      cri.close();
    }
  }

  private onChildExit(exitCode: number | undefined, signal: string | undefined): void {
    if (this.currentState !== 'running') return;
    const diedAt = Date.now();
    const upFor = diedAt - this.startedAt;
    if (upFor > RESTART_BACKOFF_RESET_MS) this.backoffMs = RESTART_BACKOFF_INITIAL_MS;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, RESTART_BACKOFF_MAX_MS);
    this.currentState = 'restarting';
    this.log(`containerd exited (${signal ?? `code ${exitCode}`}); restarting in ${delay} ms`);
    this.scheduleRestart(delay, diedAt, { exitCode, signal });
  }

  private scheduleRestart(delay: number, diedAt: number, how: { exitCode?: number; signal?: string }): void {
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.currentState !== 'restarting') return;
      this.spawnReady().then(
        () => {
          if (this.currentState !== 'restarting') return; // stopped meanwhile
          this.currentState = 'running';
          this.startedAt = Date.now();
          this.restarts++;
          const ev: ContainerdRestartEvent = { restarts: this.restarts, ...how, downMs: Date.now() - diedAt };
          for (const cb of this.restartListeners) cb(ev);
        },
        (e: Error) => {
          if (this.currentState !== 'restarting') return;
          const next = this.backoffMs;
          this.backoffMs = Math.min(this.backoffMs * 2, RESTART_BACKOFF_MAX_MS);
          this.log(`containerd restart failed: ${e.message.split('\n')[0]}; retrying in ${next} ms`);
          this.scheduleRestart(next, diedAt, how);
        },
      );
    }, delay);
  }

  /** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
  private async terminate(): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited) return;
    child.kill('SIGTERM');
    const killTimer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    try {
      await exited;
    } finally {
      clearTimeout(killTimer);
    }
  }

  /** containerd left behind by a k1s that was killed (it runs in its own process group) */
  private async killOrphan(): Promise<void> {
    let pid: number;
    try {
      pid = Number(readFileSync(this.pidFile, 'utf8').trim());
    } catch {
      return;
    }
    if (!pid || !isOurContainerd(pid, this.paths.config)) return;
    this.log(`stopping containerd pid ${pid} left by an earlier run`);
    process.kill(pid, 'SIGTERM');
    const until = Date.now() + STOP_GRACE_MS;
    while (Date.now() < until && processAlive(pid)) await new Promise((r) => setTimeout(r, 20));
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    while (processAlive(pid)) await new Promise((r) => setTimeout(r, 20));
  }

  /** a socket file from a killed containerd makes the next one fail to listen */
  private removeStaleSocket(): void {
    for (const f of [this.paths.address, `${this.paths.address}.ttrpc`]) {
      try {
        if (statSync(f).isSocket()) unlinkSync(f);
      } catch {
        /* not there */
      }
    }
  }

  private rotateLog(): void {
    try {
      if (statSync(this.paths.log).size > LOG_ROTATE_BYTES) renameSync(this.paths.log, `${this.paths.log}.1`);
    } catch {
      /* no log yet */
    }
  }

  private async logTail(lines: number): Promise<string> {
    if (!existsSync(this.paths.log)) return '(no log)';
    const text = await readFile(this.paths.log, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // a zombie still answers signal 0; treat it as gone
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function isOurContainerd(pid: number, config: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.some((a) => a.endsWith('containerd')) && argv.includes(config);
  } catch {
    return false;
  }
}

class ExternalRuntime implements ContainerRuntimeProcess {
  constructor(
    readonly endpoint: string,
    private readonly readyTimeoutMs: number,
  ) {}

  async start(): Promise<void> {
    const cri = new CriClient(this.endpoint, { timeoutMs: 2_000 });
    try {
      await cri.waitReady(this.readyTimeoutMs);
    } finally {
      cri.close();
    }
  }

  async stop(): Promise<void> {}

  onRestart(): () => void {
    return () => {};
  }
}
