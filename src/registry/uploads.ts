// Blob upload sessions (POST, PATCH…, PUT ?digest=): the bytes go to a file under the data dir, hashed as they
// arrive, and only a verified blob is committed to containerd. A session lives in memory: after a restart a client
// gets BLOB_UPLOAD_UNKNOWN and starts over, as the spec allows.
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { RegistryError } from './routes.js';

export interface Upload {
  uuid: string;
  name: string;
  file: string;
  size: number;
  hash: Hash;
  /** a request is writing to it: a second one at the same time would interleave bytes */
  busy: boolean;
  touched: number;
}

/** sessions untouched this long are dropped with their files */
const IDLE_MS = 3600_000;

export class Uploads {
  private readonly sessions = new Map<string, Upload>();

  constructor(private readonly dir: string) {}

  async start(): Promise<void> {
    // files of sessions from an earlier run cannot be resumed
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
  }

  async create(name: string): Promise<Upload> {
    this.sweep();
    const uuid = randomUUID();
    const u: Upload = { uuid, name, file: path.join(this.dir, uuid), size: 0, hash: createHash('sha256'), busy: false, touched: Date.now() };
    this.sessions.set(uuid, u);
    return u;
  }

  get(name: string, uuid: string): Upload {
    const u = this.sessions.get(uuid);
    if (!u || u.name !== name) throw new RegistryError('BLOB_UPLOAD_UNKNOWN', 'blob upload unknown to registry', { uuid });
    return u;
  }

  /** Appends a request body; `start` (from Content-Range) must be where the upload stands. */
  async append(u: Upload, body: Readable, start?: number): Promise<void> {
    if (u.busy) throw new RegistryError('BLOB_UPLOAD_INVALID', 'blob upload invalid', 'another request is writing to this upload', 409);
    if (start !== undefined && start !== u.size) {
      body.resume();
      throw new RegistryError('RANGE_INVALID', 'invalid content range', { expected: u.size, got: start });
    }
    u.busy = true;
    try {
      const hashing = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          u.hash.update(chunk);
          u.size += chunk.length;
          cb(null, chunk);
        },
      });
      await pipeline(body, hashing, createWriteStream(u.file, { flags: 'a' }));
    } finally {
      u.busy = false;
      u.touched = Date.now();
    }
  }

  /** the digest of what was uploaded so far (the hash goes on: a copy is finished) */
  digest(u: Upload): string {
    return `sha256:${u.hash.copy().digest('hex')}`;
  }

  async remove(u: Upload): Promise<void> {
    this.sessions.delete(u.uuid);
    await rm(u.file, { force: true });
  }

  private sweep(): void {
    const now = Date.now();
    for (const u of this.sessions.values()) if (!u.busy && now - u.touched > IDLE_MS) void this.remove(u);
  }

  async stop(): Promise<void> {
    this.sessions.clear();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** `Content-Range: <start>-<end>` (the spec's form, also `bytes <start>-<end>/<total>`) → start */
export function contentRangeStart(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const m = /^(?:bytes )?(\d+)-(\d+)(?:\/(?:\d+|\*))?$/.exec(header.trim());
  if (!m) throw new RegistryError('RANGE_INVALID', 'invalid content range', header, 416);
  return Number(m[1]);
}

/** the Range header of upload responses: the bytes received so far, inclusive */
export const uploadRange = (size: number): string => `0-${Math.max(0, size - 1)}`;
