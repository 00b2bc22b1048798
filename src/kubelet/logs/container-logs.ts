// Reading CRI-format container log files the way the kubelet does (pkg/kubelet/kuberuntime/logs): tail by lines
// counted from the end of the file, since (sinceSeconds/sinceTime, the later wins), limitBytes cutting the last
// write, timestamps re-printed with 9 fixed fraction digits, and follow that waits for writes, reopens the path when
// the file is rotated, and stops at EOF once the container no longer runs.
import { watch, type FSWatcher } from 'node:fs';
import { open, realpath, stat, type FileHandle } from 'node:fs/promises';

export interface LogQuery {
  follow?: boolean;
  previous?: boolean;
  timestamps?: boolean;
  sinceSeconds?: number;
  /** RFC 3339 */
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
}

/** The kubelet's internal options (NewLogOptions): tail and bytes are -1 for "all"; since is ms since the epoch. */
export interface LogOptions {
  tail: number;
  bytes: number;
  sinceMs: number;
  follow: boolean;
  timestamps: boolean;
}

export function logOptions(q: LogQuery, nowMs: number = Date.now()): LogOptions {
  let sinceMs = 0;
  if (q.sinceSeconds != null) sinceMs = nowMs - q.sinceSeconds * 1000;
  if (q.sinceTime) {
    const t = Date.parse(q.sinceTime);
    if (!Number.isNaN(t) && t > sinceMs) sinceMs = t;
  }
  return {
    tail: q.tailLines ?? -1,
    bytes: q.limitBytes ?? -1,
    sinceMs,
    follow: q.follow ?? false,
    timestamps: q.timestamps ?? false,
  };
}

export interface LogMessage {
  /** ms since the epoch and the nanoseconds within the second, so nothing of the file's precision is lost */
  ms: number;
  nanos: number;
  stream: 'stdout' | 'stderr';
  log: Buffer;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 timestamp with up to 9 fraction digits (RFC3339NanoLenient). */
export function parseTimestamp(s: string): { ms: number; nanos: number } | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const frac = (m[7] ?? '').padEnd(9, '0');
  const base = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[8].toUpperCase()}`);
  if (Number.isNaN(base)) return undefined;
  const nanos = Number(frac);
  return { ms: base + Math.floor(nanos / 1e6), nanos };
}

/** Go's RFC3339NanoFixed in UTC ("2006-01-02T15:04:05.000000000Z"): the file's zone is kept by Go; CRI writes UTC. */
export function formatTimestamp(ms: number, nanos: number): string {
  const iso = new Date(ms).toISOString(); // ...T15:04:05.123Z
  return `${iso.slice(0, 19)}.${String(nanos).padStart(9, '0')}Z`;
}

/** parseCRILog: "<time> <stream> <tag> <content>"; a partial (P) line loses its newline. */
export function parseCriLine(line: Buffer): LogMessage | undefined {
  const sp1 = line.indexOf(0x20);
  if (sp1 < 0) return undefined;
  const ts = parseTimestamp(line.subarray(0, sp1).toString('latin1'));
  if (!ts) return undefined;
  const sp2 = line.indexOf(0x20, sp1 + 1);
  if (sp2 < 0) return undefined;
  const stream = line.subarray(sp1 + 1, sp2).toString('latin1');
  if (stream !== 'stdout' && stream !== 'stderr') return undefined;
  const sp3 = line.indexOf(0x20, sp2 + 1);
  if (sp3 < 0) return undefined;
  const tag = line.subarray(sp2 + 1, sp3).toString('latin1').split(':')[0];
  let end = line.length;
  if (tag === 'P' && end > sp3 + 1 && line[end - 1] === 0x0a) end--;
  return { ...ts, stream, log: line.subarray(sp3 + 1, end) };
}

/** parseDockerJSONLog, for files a docker-style runtime wrote. */
function parseJsonLine(line: Buffer): LogMessage | undefined {
  try {
    const j = JSON.parse(line.toString('utf8')) as { log?: string; stream?: string; time?: string };
    const ts = parseTimestamp(j.time ?? '');
    if (!ts || (j.stream !== 'stdout' && j.stream !== 'stderr')) return undefined;
    return { ...ts, stream: j.stream, log: Buffer.from(j.log ?? '') };
  } catch {
    return undefined;
  }
}

/** FindTailLineStartIndex: the offset of the n-th line counted from the end (newlines counted; -1 → 0). */
export async function tailStart(fh: FileHandle, n: number): Promise<number> {
  if (n < 0) return 0;
  const { size } = await fh.stat();
  const block = 64 * 1024;
  let count = 0;
  for (let right = size; right > 0; right -= block) {
    const left = Math.max(0, right - block);
    const buf = Buffer.alloc(right - left);
    await fh.read(buf, 0, buf.length, left);
    for (let i = buf.length - 1; i >= 0; i--) {
      if (buf[i] !== 0x0a) continue;
      count++;
      // the (n+1)-th newline from the end closes the line before the n lines we keep
      if (count > n) return left + i + 1;
    }
  }
  return 0;
}

export interface LogSink {
  /** resolves when the bytes are handed on (back-pressure); a false result means the reader went away */
  write(stream: 'stdout' | 'stderr', data: Buffer): Promise<boolean> | boolean;
}

export interface ReadLogsOptions {
  /** while following: is the container still running? (ContainerStatus over CRI) */
  isRunning?: () => Promise<boolean>;
  signal?: AbortSignal;
  /** the force-check period while following (kubelet: 1 s) */
  pollMs?: number;
}

/**
 * ReadLogs: writes the messages of the log file at `path` to `sink` per `opts`. Resolves when done: at EOF
 * without follow, once the byte limit or tail count is reached, or (follow) when the container stopped and the
 * file is drained, or when `signal` aborts.
 */
export async function readLogs(path: string, opts: LogOptions, sink: LogSink, ro: ReadLogsOptions = {}): Promise<void> {
  path = await realpath(path);
  let fh = await open(path, 'r');
  try {
    let pos = await tailStart(fh, opts.tail);
    const limited = opts.tail >= 0 && !opts.follow;
    let remainingLines = opts.tail;
    let remainingBytes = opts.bytes >= 0 ? opts.bytes : Number.POSITIVE_INFINITY;
    let parse: ((l: Buffer) => LogMessage | undefined) | undefined;
    let pending = Buffer.alloc(0);
    let waiter: FileWaiter | undefined;
    let running = true;
    let next: FileHandle | undefined;
    const chunk = Buffer.alloc(64 * 1024);
    try {
      for (;;) {
        if (limited && remainingLines <= 0) return;
        if (ro.signal?.aborted) return;
        const nl = pending.indexOf(0x0a);
        let line: Buffer | undefined;
        if (nl >= 0) {
          line = pending.subarray(0, nl + 1);
          pending = pending.subarray(nl + 1);
        } else {
          const { bytesRead } = await fh.read(chunk, 0, chunk.length, pos);
          if (bytesRead > 0) {
            pos += bytesRead;
            pending = Buffer.concat([pending, chunk.subarray(0, bytesRead)]);
            continue;
          }
          // EOF
          if (opts.follow) {
            if (next) {
              // the old file is drained: carry on in the one that replaced it
              await fh.close();
              fh = next;
              next = undefined;
              pos = 0;
              pending = Buffer.alloc(0);
              waiter?.rewatch();
              continue;
            }
            if (!running) return;
            // an incomplete last line stays in `pending` and is completed by later reads
            waiter ??= new FileWaiter(path);
            running = ro.isRunning ? await ro.isRunning() : true;
            if (!running) continue; // drain whatever arrived meanwhile, then stop at the next EOF
            const recreated = await waiter.next(ro.pollMs ?? 1000, ro.signal);
            if (recreated || (await rotated(path, fh, pos))) next = await open(path, 'r').catch(() => undefined);
            continue;
          }
          if (pending.length === 0) return;
          line = pending; // an incomplete last line is still written once
          pending = Buffer.alloc(0);
        }
        parse ??= parseCriLine(line) ? parseCriLine : parseJsonLine(line) ? parseJsonLine : undefined;
        if (!parse) throw new Error(`failed to get parse function: unsupported log format: ${JSON.stringify(line.toString())}`);
        const msg = parse(line);
        if (!msg) continue;
        if (limited) remainingLines--;
        // since has millisecond precision, so comparing milliseconds is Go's Before
        if (msg.ms < opts.sinceMs) continue;
        let out = msg.log;
        if (opts.timestamps) out = Buffer.concat([Buffer.from(formatTimestamp(msg.ms, msg.nanos) + ' '), out]);
        if (out.length > remainingBytes) out = out.subarray(0, remainingBytes);
        remainingBytes -= out.length;
        if ((await sink.write(msg.stream, out)) === false) return;
        if (remainingBytes <= 0) return;
      }
    } finally {
      waiter?.close();
      await next?.close();
    }
  } finally {
    await fh.close();
  }
}

/** The path now names another file (rename + create), or ours was truncated below what we read (copytruncate). */
async function rotated(path: string, fh: FileHandle, pos: number): Promise<boolean> {
  try {
    const [a, b] = await Promise.all([stat(path), fh.stat()]);
    return a.ino !== b.ino || b.size < pos;
  } catch {
    return false;
  }
}

/** fsnotify's role: wakes on a write, reports a rename/replace as "recreated", and times out after the poll period. */
class FileWaiter {
  private watcher: FSWatcher | undefined;
  private wake: ((recreated: boolean) => void) | undefined;
  private event: 'change' | 'rename' | undefined;

  constructor(private readonly path: string) {
    this.rewatch();
  }

  rewatch(): void {
    this.watcher?.close();
    try {
      this.watcher = watch(this.path, { persistent: false }, (type) => {
        if (this.event !== 'rename') this.event = type === 'rename' ? 'rename' : 'change';
        this.wake?.(this.event === 'rename');
      });
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = undefined; // the poll period still finds new data
    }
  }

  next(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.event) {
      const r = this.event === 'rename';
      this.event = undefined;
      return Promise.resolve(r);
    }
    return new Promise((resolve) => {
      const done = (recreated: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.wake = undefined;
        this.event = undefined;
        resolve(recreated);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.wake = done;
    });
  }

  close(): void {
    this.watcher?.close();
    this.wake?.(false);
  }
}
