// The shape every controller has: informers feed keys into one work queue, `reconcile(key)` makes one step
// through the API (controller-runtime's Reconciler). Everything belongs to one ControllerContext, never a module.
import type { KObject } from '../api/types.js';
import type { Client } from './types.js';
import { InformerFactory, objectKey, type Informer } from './informer.js';
import { WorkQueue, type ReconcileResult } from './workqueue.js';
import type { EventRecorder } from './events.js';
import type { Metrics } from '../metrics/metrics.js';
import type { QueueMetrics } from '../metrics/workqueue.js';

export interface ControllerContext {
  client: Client;
  informers: InformerFactory;
  /** events with this controller's component name as their source */
  recorder(component: string): EventRecorder;
  log: (line: string) => void;
  /** milliseconds since the epoch; tests may replace it */
  now(): number;
  /** the cluster's metrics (the scheduler's figures); unset: nothing recorded */
  metrics?: Metrics;
  /** the recorder of a controller's work queue, under kube's name for it */
  queueMetrics?(controller: string): QueueMetrics | undefined;
}

export interface Controller {
  readonly name: string;
  /** register informers and handlers; informers are started by the manager afterwards */
  setup(): void;
  /** called once every informer has synced */
  run(): void;
  stop(): void;
}

/** How a manager makes a controller for its cluster. */
export type ControllerFactory = (ctx: ControllerContext) => Controller;

export interface ReconcilerOptions {
  workers?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** A controller over one work queue; subclasses register handlers in setup() and implement reconcile(). */
export abstract class Reconciler implements Controller {
  abstract readonly name: string;
  protected readonly queue: WorkQueue;
  private running = false;
  private readonly pending: string[] = [];

  constructor(
    protected readonly ctx: ControllerContext,
    opts: ReconcilerOptions = {},
  ) {
    this.queue = new WorkQueue((key) => this.reconcile(key), {
      workers: opts.workers ?? 2,
      baseDelayMs: opts.baseDelayMs ?? 5,
      maxDelayMs: opts.maxDelayMs ?? 1000_000,
      onError: (key, err) => this.ctx.log(`k1s: ${this.name} controller: ${key}: ${(err as Error)?.message ?? err}`),
    });
  }

  abstract setup(): void;
  abstract reconcile(key: string): Promise<ReconcileResult | void>;

  run(): void {
    this.running = true;
    // `name` is a subclass field, so not known in the constructor
    this.queue.useMetrics(this.ctx.queueMetrics?.(this.name));
    for (const k of this.pending.splice(0)) this.queue.add(k);
  }

  stop(): void {
    this.running = false;
    this.queue.stop();
  }

  /** Queue a key; before run() keys wait so reconcile never sees half-filled caches. */
  enqueue(key: string): void {
    if (this.running) this.queue.add(key);
    else this.pending.push(key);
  }

  enqueueObject(obj: KObject): void {
    this.enqueue(objectKey(obj));
  }

  enqueueAfter(key: string, ms: number): void {
    this.queue.addAfter(key, ms);
  }

  protected informer(apiVersion: string, plural: string): Informer {
    return this.ctx.informers.informer(apiVersion, plural);
  }

  /** Every add/update/delete of `inf` queues the object's own key. */
  protected watchOwn(inf: Informer): void {
    inf.addHandler({
      add: (o) => this.enqueueObject(o),
      update: (_, o) => this.enqueueObject(o),
      delete: (o) => this.enqueueObject(o),
    });
  }
}
