// The scheduling queue (kube-scheduler's PriorityQueue): activeQ ordered by priority, then the time the pod
// entered the queue, then creation time; backoffQ for pods waiting out their back-off (1 s doubling to 10 s);
// unschedulablePods for pods no node fits, moved back only by a cluster event one of their rejecting plugins
// cares about (or after 5 minutes, as kube's leftover flush does). Timers fire at the next expiry; nothing polls.

export interface QueueOptions {
  now?: () => number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** how long a pod may sit in unschedulablePods before it is retried anyway (kube: 5 min) */
  maxUnschedulableMs?: number;
  /** how often that leftover check runs (kube: 30 s) */
  leftoverFlushMs?: number;
}

export interface QueuedPod {
  key: string;
  uid: string;
  priority: number;
  /** creationTimestamp in ms */
  creation: number;
  /** when the pod (re-)entered the queue */
  timestamp: number;
  seq: number;
  attempts: number;
  /** plugins that rejected the pod in its last attempt; empty means any event may help */
  unschedulablePlugins: Set<string>;
  where: 'active' | 'backoff' | 'unschedulable' | 'inflight';
  /** the pod changed or a move request came while it was being scheduled */
  dirty: boolean;
  /** performance.now() when the pod first entered the queue (the SLI's start) and when its current attempt began */
  enqueued: number;
  attemptStart?: number;
  algorithmEnd?: number;
  /** its position in the active or backoff heap (kept by the heap) */
  heapIndex?: number;
}

export interface PodRef {
  key: string;
  uid: string;
  priority: number;
  creation: number;
}

/** activeQ order (queuesort.PrioritySort): higher priority first, then earlier queue time, creation, arrival. */
export function lessActive(a: QueuedPod, b: QueuedPod): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp;
  if (a.creation !== b.creation) return a.creation < b.creation;
  return a.seq < b.seq;
}

/**
 * A binary heap with removal. An item's position is kept on the item (a pod is in one heap at a time), and sifting
 * moves a hole instead of swapping, so a pop from 10,000 pending pods writes each moved item once.
 */
class Heap {
  private readonly items: QueuedPod[] = [];
  constructor(private readonly less: (a: QueuedPod, b: QueuedPod) => boolean) {}

  get size(): number {
    return this.items.length;
  }
  peek(): QueuedPod | undefined {
    return this.items[0];
  }
  push(q: QueuedPod): void {
    this.items.push(q);
    this.up(this.items.length - 1, q);
  }
  pop(): QueuedPod | undefined {
    const top = this.items[0];
    if (top) this.removeAt(0);
    return top;
  }
  remove(q: QueuedPod): void {
    const i = q.heapIndex;
    if (i !== undefined && this.items[i] === q) this.removeAt(i);
  }
  private removeAt(i: number): void {
    const gone = this.items[i]!;
    gone.heapIndex = undefined;
    const last = this.items.pop()!;
    if (i < this.items.length) {
      this.down(i, last);
      if (last.heapIndex === i) this.up(i, last);
    }
  }
  private place(i: number, q: QueuedPod): void {
    this.items[i] = q;
    q.heapIndex = i;
  }
  /** puts `q` at the hole `i`, moving it up past the parents it is less than */
  private up(i: number, q: QueuedPod): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = this.items[p]!;
      if (!this.less(q, parent)) break;
      this.place(i, parent);
      i = p;
    }
    this.place(i, q);
  }
  /** puts `q` at the hole `i`, moving it down past the children less than it */
  private down(i: number, q: QueuedPod): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.less(this.items[r]!, this.items[l]!) ? r : l;
      const child = this.items[c]!;
      if (!this.less(child, q)) break;
      this.place(i, child);
      i = c;
    }
    this.place(i, q);
  }
}

export class SchedulingQueue {
  private readonly pods = new Map<string, QueuedPod>();
  private readonly active = new Heap(lessActive);
  private readonly backoff = new Heap((a, b) => this.backoffExpiry(a) < this.backoffExpiry(b));
  private readonly unschedulable = new Set<string>();
  private readonly inflight = new Set<string>();
  private waiters: ((q: QueuedPod | undefined) => void)[] = [];
  private backoffTimer?: NodeJS.Timeout;
  private backoffTimerAt = Infinity;
  private leftoverTimer?: NodeJS.Timeout;
  private closed = false;
  private seq = 0;
  private readonly now: () => number;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxUnschedulableMs: number;

  constructor(opts: QueueOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.initialBackoffMs = opts.initialBackoffMs ?? 1000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 10_000;
    this.maxUnschedulableMs = opts.maxUnschedulableMs ?? 5 * 60_000;
    this.leftoverTimer = setInterval(() => this.flushLeftover(), opts.leftoverFlushMs ?? 30_000);
    this.leftoverTimer.unref?.();
  }

  get length(): number {
    return this.pods.size;
  }

  /** scheduler_pending_pods: how many pods wait in each sub-queue (k1s gates none) */
  pendingCounts(): Record<'active' | 'backoff' | 'unschedulable' | 'gated', number> {
    return { active: this.active.size, backoff: this.backoff.size, unschedulable: this.unschedulable.size, gated: 0 };
  }

  /** Where a pod is, for tests and diagnostics. */
  state(key: string): QueuedPod['where'] | undefined {
    return this.pods.get(key)?.where;
  }

  /** A new pending pod goes straight to activeQ (a known one is left where it is). */
  add(ref: PodRef): void {
    if (this.closed) return;
    const cur = this.pods.get(ref.key);
    if (cur && cur.uid === ref.uid) return;
    if (cur) this.delete(ref.key);
    const q: QueuedPod = { ...ref, timestamp: this.now(), seq: this.seq++, attempts: 0, unschedulablePlugins: new Set(), where: 'active', dirty: false, enqueued: performance.now() };
    this.pods.set(q.key, q);
    this.pushActive(q);
    this.wake();
  }

  /** The pod's spec or metadata changed: an unschedulable pod deserves another try. */
  updated(key: string): void {
    const q = this.pods.get(key);
    if (!q) return;
    if (q.where === 'inflight') q.dirty = true;
    else if (q.where === 'unschedulable') this.requeue(q);
    this.wake();
  }

  delete(key: string): void {
    const q = this.pods.get(key);
    if (!q) return;
    this.pods.delete(key);
    this.inflight.delete(key);
    if (q.where === 'active') this.active.remove(q);
    else if (q.where === 'backoff') this.backoff.remove(q);
    else if (q.where === 'unschedulable') this.unschedulable.delete(key);
  }

  /** The next pod to schedule; waits while activeQ is empty, undefined once closed. */
  pop(): Promise<QueuedPod | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const q = this.takeActive();
    if (q) return Promise.resolve(q);
    return new Promise((res) => this.waiters.push(res));
  }

  /** The attempt is over and the pod was bound (or vanished): forget it. */
  done(key: string): void {
    const q = this.pods.get(key);
    if (q?.where !== 'inflight') return;
    this.pods.delete(key);
    this.inflight.delete(key);
  }

  /**
   * No node fits: park the pod until an event one of `plugins` cares about, unless something changed while it was
   * being scheduled, in which case it only waits out its back-off.
   */
  addUnschedulable(key: string, plugins: Iterable<string>): void {
    const q = this.pods.get(key);
    if (!q || q.where !== 'inflight') return;
    this.inflight.delete(key);
    q.unschedulablePlugins = new Set(plugins);
    q.timestamp = this.now();
    if (q.dirty) {
      q.dirty = false;
      this.requeue(q);
      this.wake();
      return;
    }
    q.where = 'unschedulable';
    this.unschedulable.add(key);
  }

  /** The attempt failed with an error: retry after the back-off. */
  addBackoff(key: string): void {
    const q = this.pods.get(key);
    if (!q || q.where !== 'inflight') return;
    this.inflight.delete(key);
    q.dirty = false;
    q.timestamp = this.now();
    this.pushBackoff(q);
  }

  /**
   * A cluster event: every unschedulable pod rejected by a plugin in `plugins` (or by none at all) moves to
   * activeQ, or to backoffQ while its back-off lasts. Pods being scheduled remember the event.
   */
  moveOnEvent(plugins: ReadonlySet<string> | 'all'): void {
    for (const key of this.inflight) this.pods.get(key)!.dirty = true;
    for (const key of [...this.unschedulable]) {
      const q = this.pods.get(key)!;
      if (plugins !== 'all' && q.unschedulablePlugins.size && ![...q.unschedulablePlugins].some((p) => plugins.has(p))) continue;
      this.requeue(q);
    }
    this.wake();
  }

  close(): void {
    this.closed = true;
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    if (this.leftoverTimer) clearInterval(this.leftoverTimer);
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  /** kube's calculateBackoffDuration: initial × 2^(attempts-1), capped. */
  backoffDuration(q: QueuedPod): number {
    let d = this.initialBackoffMs;
    for (let i = 1; i < q.attempts; i++) {
      d *= 2;
      if (d > this.maxBackoffMs) return this.maxBackoffMs;
    }
    return Math.min(d, this.maxBackoffMs);
  }

  private backoffExpiry(q: QueuedPod): number {
    return q.timestamp + this.backoffDuration(q);
  }

  private requeue(q: QueuedPod): void {
    this.unschedulable.delete(q.key);
    if (q.attempts > 0 && this.backoffExpiry(q) > this.now()) this.pushBackoff(q);
    else this.pushActive(q);
  }

  /** Into activeQ; callers wake() once they are done so a batch is ordered before anyone pops. */
  private pushActive(q: QueuedPod): void {
    q.where = 'active';
    this.active.push(q);
  }

  private wake(): void {
    while (this.waiters.length) {
      const q = this.takeActive();
      if (!q) return;
      this.waiters.shift()!(q);
    }
  }

  private takeActive(): QueuedPod | undefined {
    const q = this.active.pop();
    if (!q) return undefined;
    q.where = 'inflight';
    this.inflight.add(q.key);
    q.attempts++;
    q.attemptStart = performance.now();
    return q;
  }

  private pushBackoff(q: QueuedPod): void {
    q.where = 'backoff';
    this.backoff.push(q);
    this.armBackoffTimer();
  }

  private armBackoffTimer(): void {
    const head = this.backoff.peek();
    if (!head || this.closed) return;
    const at = this.backoffExpiry(head);
    if (this.backoffTimer && at >= this.backoffTimerAt) return;
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    this.backoffTimerAt = at;
    this.backoffTimer = setTimeout(() => this.flushBackoff(), Math.max(0, at - this.now()));
    this.backoffTimer.unref?.();
  }

  private flushBackoff(): void {
    this.backoffTimer = undefined;
    this.backoffTimerAt = Infinity;
    const now = this.now();
    for (let head = this.backoff.peek(); head && this.backoffExpiry(head) <= now; head = this.backoff.peek()) {
      this.backoff.pop();
      this.pushActive(head);
    }
    this.wake();
    this.armBackoffTimer();
  }

  private flushLeftover(): void {
    const now = this.now();
    for (const key of [...this.unschedulable]) {
      const q = this.pods.get(key);
      if (q && now - q.timestamp > this.maxUnschedulableMs) this.requeue(q);
    }
    this.wake();
  }
}
