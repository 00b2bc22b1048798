// Group commit: writes issued while the event loop is busy are queued and committed together, in order, in one
// transaction (one fsync), then each caller's promise settles. Under concurrent clients the batch grows by itself:
// while one commit is fsyncing, the requests that arrive meanwhile pile up for the next one.

export interface GroupCommitOptions<Op, R> {
  /**
   * Applies ops in order and commits them atomically, returning one result per op. Throwing means nothing was
   * committed.
   */
  commit(ops: Op[]): R[];
  /** upper bound of ops per transaction, so reads interleave with a large backlog (default 2000) */
  maxBatch?: number;
}

interface Pending<Op, R> {
  op: Op;
  resolve(r: R): void;
  reject(e: unknown): void;
}

export class GroupCommit<Op, R> {
  private queue: Pending<Op, R>[] = [];
  private scheduled = false;
  private readonly maxBatch: number;

  constructor(private readonly opts: GroupCommitOptions<Op, R>) {
    this.maxBatch = opts.maxBatch ?? 2000;
  }

  get pending(): number {
    return this.queue.length;
  }

  enqueue(op: Op): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not a microtask: it also gathers the writes of every I/O callback of this loop iteration.
        setImmediate(() => this.flushBatch());
      }
    });
  }

  /** Commits everything queued, synchronously (used by close). */
  flushAll(): void {
    while (this.queue.length) this.runBatch();
  }

  private flushBatch(): void {
    this.scheduled = false;
    this.runBatch();
    if (this.queue.length && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flushBatch());
    }
  }

  private runBatch(): void {
    const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
    this.queue = batch === this.queue ? [] : this.queue.slice(batch.length);
    if (!batch.length) return;
    let results: R[];
    try {
      results = this.opts.commit(batch.map((p) => p.op));
    } catch (e) {
      if (batch.length === 1) {
        batch[0]!.reject(e);
        return;
      }
      // The whole batch rolled back; retry one by one so only the failing op's caller sees the error.
      for (const p of batch) {
        try {
          p.resolve(this.opts.commit([p.op])[0]!);
        } catch (e2) {
          p.reject(e2);
        }
      }
      return;
    }
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(results[i]!);
  }
}
