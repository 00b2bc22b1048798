// Simulated nodes on several servers: two simulated kubelets for one Node would fight over its status and its pods,
// so on a shared datastore they run on the holder of the kube-system/k1s-simulated-nodes Lease and move with it
// (a server taking over adopts the simulated Nodes that exist). Alone on SQLite they start at once, as before.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Client } from '../client/types.js';
import { LeaderElector } from '../controllers/framework/leader-election.js';
import { SimulatedNodes } from '../kubelet/simulated/nodes.js';

export interface SimulatedNodesRunnerOptions {
  client: Client;
  log: (line: string) => void;
  capacity: Record<string, string>;
  count: number;
  /** run under the Lease (several servers may share the store) */
  leaderElection: boolean;
}

export class SimulatedNodesRunner {
  private current?: SimulatedNodes;
  private starting?: Promise<void>;
  private elector?: LeaderElector;

  constructor(private readonly opts: SimulatedNodesRunnerOptions) {}

  /** whether this server runs them now */
  get running(): boolean {
    return !!this.current;
  }

  async start(): Promise<void> {
    if (!this.opts.leaderElection) return this.begin();
    this.elector = new LeaderElector(this.opts.client, {
      namespace: 'kube-system',
      name: 'k1s-simulated-nodes',
      identity: `${hostname()}_${randomUUID()}`,
      log: this.opts.log,
      onStartedLeading: () => {
        this.starting = this.begin().catch((e) => this.opts.log(`k1s: simulated nodes: ${(e as Error).message}`));
      },
      onStoppedLeading: () => void this.end(),
    });
    await this.elector.start();
    // leading from the first try: the nodes are there when start-up ends, as without a Lease
    await this.starting;
  }

  private begin(): Promise<void> {
    const sim = new SimulatedNodes({ client: this.opts.client, log: this.opts.log, capacity: this.opts.capacity });
    this.current = sim;
    // adopts Nodes added at run time (k1s node add --simulated) even when none are asked for at start
    return sim.start({ count: this.opts.count });
  }

  private async end(): Promise<void> {
    const sim = this.current;
    this.current = undefined;
    await sim?.stop();
  }

  async stop(): Promise<void> {
    await this.elector?.stop();
    await this.end();
  }
}
