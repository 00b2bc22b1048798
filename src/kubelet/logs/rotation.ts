// Container log rotation by size (the kubelet's containerLogManager): every monitor period, each running
// container whose log reached containerLogMaxSize is renamed to `<log>.<YYYYMMDD-hhmmss>` and the runtime reopens
// its log (CRI ReopenContainerLog); older rotated files are gzipped (all but the newest) and the oldest removed so
// at most containerLogMaxFiles files exist per container (the live one included).
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export const DEFAULT_CONTAINER_LOG_MAX_SIZE = 10 * 1024 * 1024; // 10Mi
export const DEFAULT_CONTAINER_LOG_MAX_FILES = 5;
export const DEFAULT_LOG_MONITOR_PERIOD_MS = 10_000;

export interface RotatableContainer {
  /** CRI container id (without the runtime prefix) */
  id: string;
  /** absolute path of the container's current log file */
  logPath: string;
  running: boolean;
}

export interface LogRotationOptions {
  /** running containers and their log paths (CRI ListContainers + ContainerStatus) */
  containers(): Promise<RotatableContainer[]>;
  /** CRI ReopenContainerLog */
  reopen(id: string): Promise<void>;
  maxSize?: number;
  maxFiles?: number;
  periodMs?: number;
  now?: () => Date;
  log?: (line: string) => void;
}

const gz = '.gz';
const tmp = '.tmp';

/** Go's "20060102-150405" of the local clock (the kubelet formats time.Now() in local time). */
export function rotationSuffix(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getFullYear(), 4)}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export class ContainerLogRotator {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly maxSize: number;
  private readonly maxFiles: number;

  constructor(private readonly opts: LogRotationOptions) {
    this.maxSize = opts.maxSize ?? DEFAULT_CONTAINER_LOG_MAX_SIZE;
    this.maxFiles = opts.maxFiles ?? DEFAULT_CONTAINER_LOG_MAX_FILES;
    if (this.maxFiles < 2) throw new Error(`containerLogMaxFiles must be at least 2, got ${this.maxFiles}`);
  }

  start(): void {
    const tick = () => {
      this.running = this.rotateAll().catch((e) => this.opts.log?.(`kubelet: log rotation failed: ${String(e)}`));
      void this.running.finally(() => {
        if (this.timer) this.timer = setTimeout(tick, this.opts.periodMs ?? DEFAULT_LOG_MONITOR_PERIOD_MS).unref();
      });
    };
    this.timer = setTimeout(tick, this.opts.periodMs ?? DEFAULT_LOG_MONITOR_PERIOD_MS).unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One monitor pass over every running container. */
  async rotateAll(): Promise<void> {
    for (const c of await this.opts.containers()) {
      if (!c.running) continue;
      try {
        await this.rotateIfNeeded(c);
      } catch (e) {
        this.opts.log?.(`kubelet: failed to rotate log of container ${c.id}: ${String(e)}`);
      }
    }
  }

  async rotateIfNeeded(c: RotatableContainer): Promise<boolean> {
    const size = await stat(c.logPath).then((s) => s.size, () => undefined);
    if (size === undefined) {
      // a rotation whose reopen failed earlier left no live file: ask the runtime again
      await this.opts.reopen(c.id);
      return false;
    }
    if (size < this.maxSize) return false;
    let rotated = await this.rotatedFiles(c.logPath);
    rotated = await this.cleanupUnused(rotated);
    rotated = await this.removeExcess(rotated);
    for (const f of rotated) if (!f.endsWith(gz)) await compress(f);
    await this.rotateLatest(c);
    return true;
  }

  private async rotatedFiles(logPath: string): Promise<string[]> {
    const prefix = basename(logPath) + '.';
    const dir = dirname(logPath);
    return (await readdir(dir)).filter((n) => n.startsWith(prefix)).map((n) => join(dir, n));
  }

  /** Leftovers of an interrupted compression: temporary files, and originals whose .gz already exists. */
  private async cleanupUnused(files: string[]): Promise<string[]> {
    const set = new Set(files);
    const keep: string[] = [];
    for (const f of files) {
      if (f.endsWith(tmp) || (!f.endsWith(gz) && set.has(f + gz))) await unlink(f).catch(() => undefined);
      else keep.push(f);
    }
    return keep;
  }

  /** Besides the live file and the one about to be rotated, at most maxFiles-2 rotated files stay. */
  private async removeExcess(files: string[]): Promise<string[]> {
    const sorted = [...files].sort();
    const keepCount = Math.max(0, this.maxFiles - 2);
    const drop = sorted.slice(0, Math.max(0, sorted.length - keepCount));
    for (const f of drop) await unlink(f).catch(() => undefined);
    return sorted.slice(drop.length);
  }

  private async rotateLatest(c: RotatableContainer): Promise<void> {
    const target = `${c.logPath}.${rotationSuffix((this.opts.now ?? (() => new Date()))())}`;
    await rename(c.logPath, target);
    try {
      await this.opts.reopen(c.id);
    } catch (e) {
      // the runtime still writes to the renamed file: put it back so the live path stays valid
      await rename(target, c.logPath).catch(() => undefined);
      throw e;
    }
  }
}

async function compress(path: string): Promise<void> {
  const out = path + gz + tmp;
  await pipeline(createReadStream(path), createGzip(), createWriteStream(out));
  await rename(out, path + gz);
  await unlink(path);
}
