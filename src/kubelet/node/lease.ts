// The node's heartbeat: a Lease in kube-node-lease named after the node, held by the node, owned by the Node
// object, renewed every 10 s with leaseDurationSeconds 40 (pkg/kubelet/nodelease, component-helpers' lease controller).
import type { Lease } from '../../api/coordination/index.js';
import type { KObject } from '../../api/types.js';
import type { Client } from '../../client/types.js';
import { StatusError } from '../../machinery/errors.js';
import { rfc3339Micro } from '../../machinery/object.js';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const NODE_LEASE_DURATION_SECONDS = 40;
/** renewInterval = 0.25 × leaseDuration */
export const NODE_LEASE_RENEW_INTERVAL_MS = 10_000;

export interface NodeLeaseOptions {
  client: Client;
  nodeName: string;
  /** the Node to own the Lease; looked up each time it is missing from the lease */
  node: () => KObject | undefined;
  renewIntervalMs?: number;
  now?: () => number;
  log?: (line: string) => void;
}

/** The Lease the kubelet wants: holder, duration, renew time and the Node as owner once the Node exists. */
export function desiredLease(name: string, node: KObject | undefined, now: number, current?: Lease): Lease {
  const lease: Lease = current
    ? (JSON.parse(JSON.stringify(current)) as Lease)
    : { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: NODE_LEASE_NAMESPACE }, spec: {} };
  lease.spec = { ...lease.spec, holderIdentity: name, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime: rfc3339Micro(now) };
  const refs = (lease.metadata as { ownerReferences?: unknown[] }).ownerReferences;
  if (node?.metadata.uid && !refs?.length) {
    (lease.metadata as { ownerReferences?: unknown[] }).ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid }];
  }
  return lease;
}

export class NodeLease {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private current?: Lease;

  constructor(private readonly opts: NodeLeaseOptions) {}

  start(): void {
    const loop = async () => {
      if (this.stopped) return;
      try {
        await this.renew();
      } catch (e) {
        this.opts.log?.(`k1s: kubelet ${this.opts.nodeName}: lease: ${(e as Error).message}`);
      }
      if (this.stopped) return;
      this.timer = setTimeout(loop, this.opts.renewIntervalMs ?? NODE_LEASE_RENEW_INTERVAL_MS);
      this.timer.unref?.();
    };
    void loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** One renewal: update the lease we hold (re-reading it on conflict), or create it. */
  async renew(): Promise<void> {
    const rc = this.opts.client.resource('coordination.k8s.io/v1', 'leases');
    const now = (this.opts.now ?? Date.now)();
    const name = this.opts.nodeName;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!this.current) {
        try {
          this.current = (await rc.get(NODE_LEASE_NAMESPACE, name)) as Lease;
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 404)) throw e;
          this.current = (await rc.create(NODE_LEASE_NAMESPACE, desiredLease(name, this.opts.node(), now))) as Lease;
          return;
        }
      }
      try {
        this.current = (await rc.update(NODE_LEASE_NAMESPACE, desiredLease(name, this.opts.node(), now, this.current))) as Lease;
        return;
      } catch (e) {
        this.current = undefined;
        if (!(e instanceof StatusError && (e.code === 409 || e.code === 404))) throw e;
      }
    }
  }
}
