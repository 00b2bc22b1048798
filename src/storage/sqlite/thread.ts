// Main-thread side of the threaded writer (the thread itself is worker.ts). Writes issued in one turn of
// the event loop go to the thread as one message; the thread answers in order, and each answer is handled here:
// the store is told about the commit (revision, watch events) before the writers' promises settle.
import { receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import type { StoredWriteResult, WriteOp } from './writes.js';
import type { StoreWriter, WriterOptions } from './writer.js';
import { spawnWriter, type Reply, type Request, type WriterConfig } from './worker.js';

interface Queued {
  op: WriteOp;
  resolve(r: StoredWriteResult): void;
  reject(e: unknown): void;
}

type Waiting =
  | { kind: 'write'; writes: Queued[] }
  | { kind: 'call'; resolve(v: number | undefined): void; reject(e: unknown): void };

export class ThreadWriter implements StoreWriter {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly maxBatch: number;
  private readonly exited: Promise<void>;
  private queue: Queued[] = [];
  private scheduled = false;
  /** requests sent and not answered yet, in the order they were sent (and will be answered) */
  private readonly waiting = new Map<number, Waiting>();
  private writesInFlight = 0;
  private nextId = 1;
  private failure: Error | undefined;
  private closing = false;

  constructor(
    config: Omit<WriterConfig, 'maxBatch'> & { maxBatch?: number },
    private readonly opts: WriterOptions,
  ) {
    this.maxBatch = config.maxBatch ?? 2000;
    ({ worker: this.worker, port: this.port } = spawnWriter({ ...config, maxBatch: this.maxBatch }));
    this.port.on('message', (r: Reply) => this.onReply(r));
    this.worker.on('error', (e) => this.fail(e));
    this.exited = new Promise((resolve) => {
      this.worker.on('exit', (code) => {
        // The exit can overtake the last replies (a separate channel): take those first.
        this.drain();
        this.fail(new Error(`the SQLite writer thread exited (code ${code})`));
        resolve();
      });
    });
    this.updateRef();
  }

  write(op: WriteOp): Promise<StoredWriteResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not a microtask: it also gathers the writes of every I/O callback of this loop iteration.
        setImmediate(() => this.flush());
      }
    });
  }

  async compactRange(lo: number, hi: number): Promise<number> {
    return (await this.call({ t: 'compact', id: 0, lo, hi })) ?? 0;
  }

  async reclaim(): Promise<void> {
    await this.call({ t: 'reclaim', id: 0 });
  }

  flush(): void {
    this.scheduled = false;
    while (this.queue.length) {
      const writes = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
      this.queue = writes === this.queue ? [] : this.queue.slice(writes.length);
      this.send({ t: 'write', id: 0, ops: writes.map((w) => w.op) }, { kind: 'write', writes });
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.flush();
    try {
      if (!this.failure) await this.call({ t: 'close', id: 0 });
    } finally {
      if (this.failure) await this.worker.terminate();
      await this.exited;
    }
  }

  unreported(): boolean {
    return this.writesInFlight > 0;
  }

  drain(): void {
    if (!this.waiting.size) return; // nothing can be on its way
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) this.onReply(m.message as Reply);
  }

  private call(req: Request): Promise<number | undefined> {
    return new Promise((resolve, reject) => this.send(req, { kind: 'call', resolve, reject }));
  }

  private send(req: Request, w: Waiting): void {
    if (this.failure) {
      reject(w, this.failure);
      return;
    }
    req.id = this.nextId++;
    this.waiting.set(req.id, w);
    if (w.kind === 'write') this.writesInFlight++;
    this.port.postMessage(req);
    this.updateRef();
  }

  private onReply(r: Reply): void {
    switch (r.t) {
      case 'committed': {
        // Committed is committed: a throwing observer must not turn the writes into failures.
        try {
          this.opts.onCommitted({ ops: r.ops, events: r.events, ms: r.ms });
        } catch {}
        r.ids.forEach((id, i) => {
          const w = this.take(id);
          if (w?.kind !== 'write') return;
          this.writesInFlight--;
          w.writes.forEach((q, j) => {
            const o = r.outcomes[i]![j]!;
            if ('error' in o) q.reject(new Error(o.error));
            else q.resolve(o);
          });
        });
        break;
      }
      case 'done': {
        const w = this.take(r.id);
        if (w?.kind === 'call') {
          if (r.error !== undefined) w.reject(new Error(r.error));
          else w.resolve(r.value);
        }
        break;
      }
      case 'fatal':
        this.fail(new Error(r.error));
        break;
    }
    this.updateRef();
  }

  private take(id: number): Waiting | undefined {
    const w = this.waiting.get(id);
    this.waiting.delete(id);
    return w;
  }

  /** The thread is gone or could not open the database: every write from now on fails with the reason. */
  private fail(e: Error): void {
    this.failure ??= e;
    for (const w of this.waiting.values()) reject(w, this.failure);
    this.waiting.clear();
    this.writesInFlight = 0;
    for (const q of this.queue) q.reject(this.failure);
    this.queue = [];
    this.updateRef();
  }

  /** The thread keeps the process alive only while it has work, like an inline store with a commit pending. */
  private updateRef(): void {
    if (this.waiting.size || this.queue.length || this.closing) {
      this.worker.ref();
      this.port.ref();
    } else {
      this.worker.unref();
      this.port.unref();
    }
  }
}

function reject(w: Waiting, e: Error): void {
  if (w.kind === 'call') w.reject(e);
  else for (const q of w.writes) q.reject(e);
}
