// The node IPAM controller (kube-controller-manager's range allocator): gives every Node a free /24 (by default)
// of the cluster CIDR as spec.podCIDR and spec.podCIDRs; a deleted Node's range is free again. Which ranges are
// taken is read from the Node cache each time (level-triggered); ranges assigned but not yet seen in the cache are
// remembered so two Nodes never get the same one.
import type { Node } from '../api/core/node/resource.js';
import type { Informer } from '../client/informer.js';
import { StatusError } from '../machinery/errors.js';
import { type ControllerFactory, Reconciler, type ControllerContext } from '../client/controller.js';

export interface NodeIpamOptions {
  /** default 10.42.0.0/16 */
  clusterCIDR?: string;
  /** default 24 */
  nodeMaskSize?: number;
}

interface Range {
  base: number;
  bits: number;
}

function parseCIDR(cidr: string): Range {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr.trim());
  if (!m) throw new Error(`k1s: node IPAM: invalid IPv4 cluster CIDR ${JSON.stringify(cidr)}`);
  const bits = Number(m[5]);
  const addr = ((Number(m[1]) << 24) >>> 0) + (Number(m[2]) << 16) + (Number(m[3]) << 8) + Number(m[4]);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (addr & mask) >>> 0, bits };
}

const ip = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** The idx-th subnet of `cluster` with `maskSize` bits (idx from 0). */
export function subnetAt(cluster: string, maskSize: number, idx: number): string {
  const r = parseCIDR(cluster);
  return `${ip((r.base + idx * 2 ** (32 - maskSize)) >>> 0)}/${maskSize}`;
}

/** The first subnet not in `used`, or undefined when the cluster CIDR is exhausted. */
export function firstFreeSubnet(cluster: string, maskSize: number, used: ReadonlySet<string>): string | undefined {
  const r = parseCIDR(cluster);
  if (maskSize < r.bits || maskSize > 32) throw new Error(`k1s: node IPAM: node mask /${maskSize} does not fit in ${cluster}`);
  const count = 2 ** (maskSize - r.bits);
  for (let i = 0; i < count; i++) {
    const s = subnetAt(cluster, maskSize, i);
    if (!used.has(s)) return s;
  }
  return undefined;
}

export class NodeIpamController extends Reconciler {
  readonly name = 'node-ipam';
  private nodes!: Informer;
  /** node name → range written but maybe not yet in the cache */
  private readonly assigned = new Map<string, string>();
  private readonly cluster: string;
  private readonly maskSize: number;

  constructor(ctx: ControllerContext, opts: NodeIpamOptions = {}) {
    // one worker: picking a free range must not race with itself
    super(ctx, { workers: 1 });
    this.cluster = opts.clusterCIDR ?? '10.42.0.0/16';
    this.maskSize = opts.nodeMaskSize ?? 24;
    parseCIDR(this.cluster);
  }

  setup(): void {
    this.nodes = this.informer('v1', 'nodes');
    this.nodes.addHandler({
      add: (o) => this.enqueueObject(o),
      update: (_, o) => this.enqueueObject(o),
      delete: (o) => {
        this.assigned.delete(o.metadata.name!);
        // a freed range may be what a node without one is waiting for
        for (const n of this.nodes.list()) if (!(n as Node).spec?.podCIDR) this.enqueueObject(n);
      },
    });
  }

  async reconcile(key: string): Promise<void> {
    const node = this.nodes.get('', key) as Node | undefined;
    if (!node || node.metadata.deletionTimestamp) return;
    if (node.spec?.podCIDR) {
      this.assigned.delete(key);
      return;
    }
    const pending = this.assigned.get(key);
    const used = new Set<string>();
    for (const n of this.nodes.list() as Node[]) {
      for (const c of [n.spec?.podCIDR, ...(n.spec?.podCIDRs ?? [])]) if (c) used.add(c);
    }
    for (const [name, c] of this.assigned) if (name !== key) used.add(c);
    const cidr = pending ?? firstFreeSubnet(this.cluster, this.maskSize, used);
    if (!cidr) {
      this.ctx.recorder('cidrAllocator').event(node, 'Normal', 'CIDRNotAvailable', `Node ${key} status is now: CIDRNotAvailable`);
      throw new Error(`no free /${this.maskSize} left in ${this.cluster} for node ${key}`);
    }
    this.assigned.set(key, cidr);
    try {
      await this.ctx.client.resource('v1', 'nodes').patch('', key, 'merge', { metadata: { uid: node.metadata.uid }, spec: { podCIDR: cidr, podCIDRs: [cidr] } });
    } catch (e) {
      this.assigned.delete(key);
      if (e instanceof StatusError && e.code === 404) return;
      this.ctx.recorder('cidrAllocator').event(node, 'Warning', 'CIDRAssignmentFailed', `Node ${key} status is now: CIDRAssignmentFailed`);
      throw e;
    }
  }
}

export function nodeIpamController(opts: NodeIpamOptions = {}): ControllerFactory {
  return (ctx) => new NodeIpamController(ctx, opts);
}
