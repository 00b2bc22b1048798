// Main-thread side of the checkpointer thread (checkpoint-thread.ts). After a commit, the thread is asked
// for a checkpoint unless one is running; commits made while it runs ask for one more when it ends. A checkpoint that
// copies every frame lets the next commit start the WAL over, so the WAL stays as small as the commits between two
// checkpoints. If the thread fails, the store checkpoints on its own connection again (onFailure).
import type { MessagePort, Worker } from 'node:worker_threads';
import type { CheckpointerConfig, CheckpointInfo, CheckpointReply, CheckpointRequest } from './checkpoint-thread.js';
import { spawnCheckpointer } from './worker.js';

export interface CheckpointerOptions {
  /** the thread stopped or a checkpoint failed: checkpoints are the store's again */
  onFailure(e: Error): void;
  /** each checkpoint, as the thread reported it */
  onCheckpoint?(c: CheckpointInfo): void;
}

export class Checkpointer {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private running = false;
  /** a commit happened while a checkpoint was running */
  private again = false;
  private failed = false;
  private closing?: Promise<void>;
  private closed?: () => void;

  constructor(
    config: CheckpointerConfig,
    private readonly opts: CheckpointerOptions,
  ) {
    ({ worker: this.worker, port: this.port } = spawnCheckpointer(config));
    this.port.on('message', (r: CheckpointReply) => this.onReply(r));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => {
      this.closed?.();
      if (!this.closing) this.fail(new Error(`the SQLite checkpointer thread exited (code ${code})`));
    });
    // A pending checkpoint never keeps the process alive: what it would copy is safe in the WAL already.
    this.worker.unref();
    this.port.unref();
  }

  /** A commit happened. */
  kick(): void {
    if (this.failed || this.closing) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.send({ t: 'kick' });
  }

  /** Ends the thread after the checkpoint running now, if any (the store then checkpoints and closes the file). */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = new Promise<void>((resolve) => {
      this.closed = resolve;
      if (this.failed) {
        void this.worker.terminate().then(() => resolve());
        return;
      }
      this.worker.ref();
      this.port.ref();
      this.port.postMessage({ t: 'close' } satisfies CheckpointRequest);
    });
    return this.closing;
  }

  private send(req: CheckpointRequest): void {
    this.running = true;
    this.again = false;
    this.port.postMessage(req);
  }

  private onReply(r: CheckpointReply): void {
    switch (r.t) {
      case 'checkpointed':
        this.running = false;
        this.opts.onCheckpoint?.({ frames: r.frames, copied: r.copied, ms: r.ms });
        if (this.again && !this.closing) this.send({ t: 'kick' });
        return;
      case 'failed':
        this.running = false;
        this.fail(new Error(r.error));
        void this.worker.terminate();
        return;
      case 'closed':
        this.closed?.();
        return;
    }
  }

  private fail(e: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.closed?.();
    this.opts.onFailure(e);
  }
}
