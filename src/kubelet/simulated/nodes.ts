// Simulated nodes in the server process: each is a real Kubelet over a SimRuntime. Nodes come from start()/add(),
// or from any Node created through the API with the annotation k1s.dev/simulated: "true" (`k1s node add
// --simulated NAME` creates such a Node); deleting a simulated Node stops its kubelet.
import type { Node } from '../../api/core/node/resource.js';
import { Informer } from '../../client/informer.js';
import type { Client } from '../../client/types.js';
import { StatusError } from '../../machinery/errors.js';
import { Kubelet, type KubeletOptions } from '../kubelet.js';
import { intToIPv4, parseIPv4CIDR, SimRuntime } from './runtime.js';
import type { SimRule } from './stages.js';

export const SIMULATED_ANNOTATION = 'k1s.dev/simulated';
export const DEFAULT_SIM_CAPACITY = { cpu: '32', memory: '256Gi', pods: '110' };
export const DEFAULT_SIM_ZONES = ['zone-a', 'zone-b', 'zone-c'];

export interface SimNodeOptions {
  capacity?: Record<string, string>;
  /** topology.kubernetes.io/zone (default: round-robin over the zones by the node's index) */
  zone?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  internalIP?: string;
}

export interface SimulatedNodesOptions {
  client: Client;
  log?: (line: string) => void;
  now?: () => number;
  zones?: string[];
  capacity?: Record<string, string>;
  /** node InternalIPs are taken from this range in order (default 172.30.0.0/16) */
  nodeIPRange?: string;
  /** what simulated containers do (default: stages.ts defaultSimRules) */
  rules?: SimRule[];
  /** timing overrides, mostly for tests */
  kubelet?: Pick<KubeletOptions, 'nodeStatusUpdateIntervalMs' | 'nodeStatusReportIntervalMs' | 'leaseRenewIntervalMs' | 'backoff'>;
}

export class SimulatedNodes {
  private readonly kubelets = new Map<string, Kubelet>();
  private readonly starting = new Map<string, Promise<Kubelet>>();
  private informer?: Informer;
  private nextIndex = 0;
  /** node name → its InternalIP, so a removed node's address can be reused */
  private readonly ips = new Map<string, string>();

  constructor(private readonly opts: SimulatedNodesOptions) {}

  /** registers `count` nodes named <namePrefix>0…, and adopts simulated Nodes created through the API from now on */
  async start(opts: { count?: number; namePrefix?: string; capacity?: Record<string, string> } = {}): Promise<void> {
    await this.watchNodes();
    const prefix = opts.namePrefix ?? 'k1s-sim-';
    const names = Array.from({ length: opts.count ?? 0 }, (_, i) => `${prefix}${i}`);
    await Promise.all(names.map((n) => this.add(n, { capacity: opts.capacity })));
  }

  /** starts a simulated kubelet for `name` (its Node is created, or adopted when it exists) */
  async add(name: string, node: SimNodeOptions = {}): Promise<Kubelet> {
    const have = this.kubelets.get(name) ?? this.starting.get(name);
    if (have) return have;
    const p = this.launch(name, node);
    this.starting.set(name, p);
    try {
      const k = await p;
      this.kubelets.set(name, k);
      return k;
    } finally {
      this.starting.delete(name);
    }
  }

  /** stops the kubelet and deletes its Node */
  async remove(name: string): Promise<void> {
    this.stopKubelet(name);
    try {
      await this.opts.client.resource('v1', 'nodes').delete('', name);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }

  names(): string[] {
    return [...this.kubelets.keys()].sort();
  }

  kubelet(name: string): Kubelet | undefined {
    return this.kubelets.get(name);
  }

  /** stops every simulated kubelet; their Nodes stay (and turn NotReady once the node lifecycle controller notices) */
  async stop(): Promise<void> {
    this.informer?.stop();
    await Promise.allSettled([...this.starting.values()]);
    for (const name of [...this.kubelets.keys()]) this.stopKubelet(name);
  }

  private async watchNodes(): Promise<void> {
    if (this.informer) return;
    this.informer = new Informer(this.opts.client, 'v1', 'nodes', { log: this.opts.log });
    const adopt = (n: Node) => {
      if (n.metadata.annotations?.[SIMULATED_ANNOTATION] !== 'true' || n.metadata.deletionTimestamp) return;
      if (this.kubelets.has(n.metadata.name!) || this.starting.has(n.metadata.name!)) return;
      const ip = n.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
      const zone = n.metadata.labels?.['topology.kubernetes.io/zone'];
      const capacity = n.status?.capacity as Record<string, string> | undefined;
      void this.add(n.metadata.name!, { internalIP: ip, zone, capacity: capacity && Object.keys(capacity).length ? capacity : undefined }).catch((e) =>
        this.log(`k1s: simulated node ${n.metadata.name}: ${(e as Error).message}`),
      );
    };
    this.informer.addHandler({
      add: (n) => adopt(n as Node),
      update: (_, n) => adopt(n as Node),
      delete: (n) => this.stopKubelet(n.metadata.name!),
    });
    await this.informer.start();
  }

  private async launch(name: string, node: SimNodeOptions): Promise<Kubelet> {
    const index = this.nextIndex++;
    const zones = this.opts.zones ?? DEFAULT_SIM_ZONES;
    const internalIP = node.internalIP ?? this.allocateIP();
    this.ips.set(name, internalIP);
    let kubelet: Kubelet | undefined;
    const runtime = new SimRuntime({ podCIDR: () => kubelet?.podCIDR, rules: this.opts.rules, now: this.opts.now });
    kubelet = new Kubelet({
      client: this.opts.client,
      nodeName: name,
      internalIP,
      runtime,
      capacity: { ...(node.capacity ?? this.opts.capacity ?? DEFAULT_SIM_CAPACITY) },
      labels: {
        'node.kubernetes.io/instance-type': 'k1s-sim',
        'topology.kubernetes.io/zone': node.zone ?? zones[index % zones.length],
        ...(node.labels ?? {}),
      },
      annotations: { [SIMULATED_ANNOTATION]: 'true', ...(node.annotations ?? {}) },
      log: this.opts.log,
      now: this.opts.now,
      ...this.opts.kubelet,
    });
    try {
      await kubelet.start();
    } catch (e) {
      kubelet.stop();
      this.ips.delete(name);
      throw e;
    }
    return kubelet;
  }

  private stopKubelet(name: string): void {
    const k = this.kubelets.get(name);
    if (!k) return;
    this.kubelets.delete(name);
    this.ips.delete(name);
    k.stop();
  }

  private allocateIP(): string {
    const range = parseIPv4CIDR(this.opts.nodeIPRange ?? '172.30.0.0/16')!;
    const used = new Set(this.ips.values());
    for (let i = 2; i < 2 ** (32 - range.bits) - 1; i++) {
      const ip = intToIPv4(range.base + i);
      if (!used.has(ip)) return ip;
    }
    throw new Error('k1s: no free simulated node IP');
  }

  private log(line: string): void {
    (this.opts.log ?? ((l: string) => console.error(l)))(line);
  }
}
