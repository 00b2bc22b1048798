// The audit log backend (--audit-log-path): event lines queued and written off the request path, to a file that
// rotates as kube-apiserver's (lumberjack) does — at --audit-log-maxsize MB (default 100) the file is renamed to
// <name>-<UTC 2006-01-02T15-04-05.000>.<ext> and a new one started; --audit-log-maxbackup and --audit-log-maxage
// prune old ones — or to stdout for "-". A failed write (a full disk) drops its events: they are counted and
// logged, and requests never wait for the disk.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { open, readdir, rename, rm, stat, chmod, type FileHandle } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { basename, dirname, extname, join } from 'node:path';

export interface AuditLogOptions {
  /** the file, or "-" for stdout */
  path: string;
  /** rotate beyond this many MB (0 or unset: 100, lumberjack's default) */
  maxSizeMB?: number;
  /** the same in bytes (tests) */
  maxSizeBytes?: number;
  /** keep at most this many rotated files (0: all) */
  maxBackups?: number;
  /** remove rotated files older than this many days (0: never) */
  maxAgeDays?: number;
  /** gzip rotated files (--audit-log-compress) */
  compress?: boolean;
  /** events held while the disk is slow before new ones are dropped (kube's batch buffer: 10000) */
  queueLimit?: number;
  log?: (line: string) => void;
  now?: () => Date;
}

const MB = 1024 * 1024;
const BACKUP_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

export class AuditLogWriter {
  /** events lost to write errors or a full queue */
  dropped = 0;
  private readonly max: number;
  private readonly queueLimit: number;
  private readonly log: (line: string) => void;
  private readonly now: () => Date;
  private queue: string[] = [];
  private running?: Promise<void>;
  private file?: FileHandle;
  private size = 0;
  private closed = false;
  private lastDropLog = 0;
  private unloggedDrops = 0;
  /** pruning and compression, one run at a time (lumberjack's mill goroutine) */
  private milling: Promise<void> = Promise.resolve();

  constructor(private readonly opts: AuditLogOptions) {
    this.max = opts.maxSizeBytes ?? (opts.maxSizeMB ? opts.maxSizeMB * MB : 100 * MB);
    this.queueLimit = opts.queueLimit ?? 10_000;
    this.log = opts.log ?? ((l) => console.error(l));
    this.now = opts.now ?? (() => new Date());
    if (opts.path !== '-') {
      // kube's ensureLogFile: the directory and the file exist before the first event (a bad path fails start-up)
      try {
        mkdirSync(dirname(opts.path), { recursive: true, mode: 0o700 });
        closeSync(openSync(opts.path, 'a', 0o600));
      } catch (e) {
        throw new Error(`ensureLogFile: ${(e as Error).message}`);
      }
    }
  }

  /** Queues one line (newline included); never throws, never waits. */
  write(line: string): void {
    if (this.closed || this.queue.length >= this.queueLimit) {
      this.drop(1, this.closed ? 'audit backend shut down' : 'audit buffer queue blocked');
      return;
    }
    this.queue.push(line);
    this.running ??= new Promise<void>((r) => setImmediate(r)).then(() => this.drain());
  }

  /** Resolves when every queued line is written (or dropped). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    // the last requests' events (connections closed with the server) come a tick later
    await new Promise((r) => setImmediate(r));
    this.closed = true;
    await this.flush();
    await this.file?.close().catch(() => undefined);
    this.file = undefined;
    await this.milling;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const lines = this.queue;
        this.queue = [];
        if (this.opts.path === '-') await writeStdout(lines.join(''));
        else await this.writeLines(lines);
      }
    } catch (e) {
      this.drop(this.queue.length, (e as Error).message);
      this.queue = [];
    } finally {
      this.running = undefined;
    }
  }

  /** lumberjack's Write, line by line: rotate before a line that would pass the limit; batched writes between */
  private async writeLines(lines: string[]): Promise<void> {
    let chunk: string[] = [];
    let chunkBytes = 0;
    for (const line of lines) {
      const n = Buffer.byteLength(line);
      if (n > this.max) {
        this.drop(1, `write length ${n} exceeds maximum file size ${this.max}`);
        continue;
      }
      if (!this.file) {
        await this.writeChunk(chunk, chunkBytes);
        chunk = [];
        chunkBytes = 0;
        if (!(await this.openExistingOrNew(n))) {
          this.drop(1, 'the audit log is not open');
          continue;
        }
      } else if (this.size + chunkBytes + n > this.max) {
        await this.writeChunk(chunk, chunkBytes);
        chunk = [];
        chunkBytes = 0;
        if (!(await this.rotate())) {
          this.drop(1, 'the audit log is not open');
          continue;
        }
      }
      chunk.push(line);
      chunkBytes += n;
    }
    await this.writeChunk(chunk, chunkBytes);
  }

  private async writeChunk(chunk: string[], bytes: number): Promise<void> {
    if (!chunk.length || !this.file) return;
    try {
      await this.file.write(chunk.join(''));
      this.size += bytes;
    } catch (e) {
      this.drop(chunk.length, (e as Error).message);
      // opened again for the next events: the disk may have room by then
      await this.file.close().catch(() => undefined);
      this.file = undefined;
    }
  }

  private async openExistingOrNew(writeLen: number): Promise<boolean> {
    try {
      const info = await stat(this.opts.path).catch(() => undefined);
      if (!info) return await this.openNew();
      if (info.isFile() && info.size + writeLen >= this.max) return await this.rotate();
      this.file = await open(this.opts.path, 'a', 0o600);
      this.size = info.isFile() ? info.size : 0;
      return true;
    } catch (e) {
      this.log(`k1s: audit log ${this.opts.path}: ${(e as Error).message}`);
      return false;
    }
  }

  private async rotate(): Promise<boolean> {
    await this.file?.close().catch(() => undefined);
    this.file = undefined;
    try {
      const ok = await this.openNew();
      this.milling = this.milling.then(() => this.mill());
      return ok;
    } catch (e) {
      this.log(`k1s: audit log ${this.opts.path}: rotation failed: ${(e as Error).message}`);
      return false;
    }
  }

  /** the current file moved aside under its backup name (regular files only), a new one created with its mode */
  private async openNew(): Promise<boolean> {
    const path = this.opts.path;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    let mode = 0o600;
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) {
      mode = info.mode & 0o777;
      await rename(path, backupName(path, this.now()));
    }
    this.file = await open(path, info && !info.isFile() ? 'a' : 'w', mode);
    if (info?.isFile()) await chmod(path, mode).catch(() => undefined);
    this.size = 0;
    return true;
  }

  /** lumberjack's millRunOnce: prune by count and age, then compress */
  private async mill(): Promise<void> {
    const { maxBackups = 0, maxAgeDays = 0, compress = false } = this.opts;
    if (!maxBackups && !maxAgeDays && !compress) return;
    try {
      let files = await this.backups();
      const remove: string[] = [];
      if (maxBackups > 0 && files.length > maxBackups) {
        const kept = new Set<string>();
        const rest: typeof files = [];
        for (const f of files) {
          const key = f.name.replace(/\.gz$/, '');
          if (kept.has(key) || kept.size < maxBackups) {
            kept.add(key);
            rest.push(f);
          } else remove.push(f.name);
        }
        files = rest;
      }
      if (maxAgeDays > 0) {
        const cutoff = this.now().getTime() - maxAgeDays * 24 * 3600 * 1000;
        files = files.filter((f) => (f.time < cutoff ? (remove.push(f.name), false) : true));
      }
      const dir = dirname(this.opts.path);
      for (const name of remove) await rm(join(dir, name), { force: true });
      if (compress) for (const f of files.filter((x) => !x.name.endsWith('.gz'))) await gzipFile(join(dir, f.name));
    } catch (e) {
      this.log(`k1s: audit log ${this.opts.path}: removing old files failed: ${(e as Error).message}`);
    }
  }

  /** rotated files, newest first */
  async backups(): Promise<{ name: string; time: number }[]> {
    const dir = dirname(this.opts.path);
    const file = basename(this.opts.path);
    const ext = extname(file);
    const prefix = `${file.slice(0, file.length - ext.length)}-`;
    const out: { name: string; time: number }[] = [];
    for (const name of await readdir(dir)) {
      if (!name.startsWith(prefix)) continue;
      const end = name.endsWith(`${ext}.gz`) ? name.length - ext.length - 3 : name.endsWith(ext) ? name.length - ext.length : -1;
      if (end < 0) continue;
      const m = BACKUP_TIME.exec(name.slice(prefix.length, end));
      if (!m) continue;
      out.push({ name, time: Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]) });
    }
    return out.sort((a, b) => b.time - a.time);
  }

  private drop(n: number, why: string): void {
    if (n <= 0) return;
    this.dropped += n;
    this.unloggedDrops += n;
    // one line a second at most: a full disk must not flood the server's own log
    const now = Date.now();
    if (now - this.lastDropLog < 1000) return;
    this.lastDropLog = now;
    this.log(`k1s: Error in audit plugin 'log' affecting ${this.unloggedDrops} audit events: ${why} (${this.dropped} dropped in all)`);
    this.unloggedDrops = 0;
  }
}

/** lumberjack's backupName: <dir>/<name without ext>-<UTC time>.<ext> */
export function backupName(path: string, t: Date): string {
  const file = basename(path);
  const ext = extname(file);
  const iso = t.toISOString(); // 2006-01-02T15:04:05.000Z
  const stamp = `${iso.slice(0, 10)}T${iso.slice(11, 13)}-${iso.slice(14, 16)}-${iso.slice(17, 23)}`;
  return join(dirname(path), `${file.slice(0, file.length - ext.length)}-${stamp}${ext}`);
}

function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())));
}

async function gzipFile(path: string): Promise<void> {
  const info = await stat(path);
  await pipeline(createReadStream(path), createGzip(), createWriteStream(`${path}.gz`, { mode: info.mode & 0o777 }));
  await rm(path, { force: true });
}
