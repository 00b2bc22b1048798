// The controller manager: runs every controller of a cluster while it holds the kube-controller-manager Lease.
// Losing the lease stops them all (as kube-controller-manager exits); winning it again starts fresh instances.
import { hostname } from 'node:os';
import type { Client } from '../../client/types.js';
import { InformerFactory } from '../../client/informer.js';
import type { Controller, ControllerContext, ControllerFactory } from '../../client/controller.js';
import { EventRecorder } from '../../client/events.js';
import { LeaderElector } from './leader-election.js';
import type { Metrics } from '../../metrics/metrics.js';
import { kubeQueueName } from './queue-names.js';

export interface ControllerManagerOptions {
  client: Client;
  controllers: ControllerFactory[];
  log?: (line: string) => void;
  identity?: string;
  /** the Lease in kube-system (default kube-controller-manager; the scheduler uses kube-scheduler) */
  leaseName?: string;
  /** no Lease (single-process tests) */
  leaderElection?: boolean;
  now?: () => number;
  /** the cluster's metrics: each controller's work queue records there */
  metrics?: Metrics;
}

export class ControllerManager {
  private running: Controller[] = [];
  private informers?: InformerFactory;
  private elector?: LeaderElector;
  private generation = 0;
  readonly identity: string;

  constructor(private readonly opts: ControllerManagerOptions) {
    this.identity = opts.identity ?? `${hostname()}_${crypto.randomUUID()}`;
  }

  get informerFactory(): InformerFactory | undefined {
    return this.informers;
  }

  controller<T extends Controller>(name: string): T | undefined {
    return this.running.find((c) => c.name === name) as T | undefined;
  }

  async start(): Promise<void> {
    if (this.opts.leaderElection === false) return this.startControllers();
    this.elector = new LeaderElector(this.opts.client, {
      namespace: 'kube-system',
      name: this.opts.leaseName ?? 'kube-controller-manager',
      identity: this.identity,
      log: this.opts.log,
      now: this.opts.now,
      onStartedLeading: () => void this.startControllers(),
      onStoppedLeading: () => this.stopControllers(),
    });
    await this.elector.start();
  }

  async stop(): Promise<void> {
    if (this.elector) await this.elector.stop();
    this.stopControllers();
  }

  private async startControllers(): Promise<void> {
    const gen = ++this.generation;
    const log = this.opts.log ?? ((l: string) => console.error(l));
    const informers = new InformerFactory(this.opts.client, log);
    const recorders = new Map<string, EventRecorder>();
    const now = this.opts.now ?? Date.now;
    const ctx: ControllerContext = {
      client: this.opts.client,
      informers,
      log,
      now,
      metrics: this.opts.metrics,
      queueMetrics: (controller) => this.opts.metrics?.workqueue.queue(kubeQueueName(controller)),
      recorder: (component) => {
        let r = recorders.get(component);
        if (!r) recorders.set(component, (r = new EventRecorder(this.opts.client, component, '', log, now)));
        return r;
      },
    };
    const controllers = this.opts.controllers.map((f) => f(ctx));
    for (const c of controllers) c.setup();
    this.informers = informers;
    this.running = controllers;
    await informers.start();
    if (gen !== this.generation) return;
    for (const c of controllers) c.run();
  }

  private stopControllers(): void {
    this.generation++;
    for (const c of this.running.splice(0)) c.stop();
    this.informers?.stop();
    this.informers = undefined;
  }
}
