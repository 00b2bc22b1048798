// Leader election on a coordination.k8s.io Lease (client-go leaderelection with LeaseLock): acquire when the lease
// is free or expired, renew every retry period, give up leadership when renewal fails past the renew deadline.
import { rfc3339Micro } from '../../machinery/object.js';
import { StatusError } from '../../machinery/errors.js';
import type { Client } from '../../client/types.js';
import type { KObject } from '../../api/types.js';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  log?: (line: string) => void;
  now?: () => number;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export class LeaderElector {
  private timer?: NodeJS.Timeout;
  private leading = false;
  private lastRenew = 0;
  private stopped = false;

  constructor(
    private readonly client: Client,
    private readonly opts: LeaderElectionOptions,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): Promise<void> {
    return this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.leading) {
      this.leading = false;
      this.opts.onStoppedLeading();
      // ReleaseOnCancel: hand the lease over at once
      await this.release().catch(() => {});
    }
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const ok = await this.tryAcquireOrRenew();
      if (ok) {
        this.lastRenew = this.now();
        if (!this.leading) {
          this.leading = true;
          this.opts.log?.(`k1s: ${this.opts.identity} became leader of ${this.opts.namespace}/${this.opts.name}`);
          this.opts.onStartedLeading();
        }
      } else if (this.leading) this.lose();
    } catch (e) {
      this.opts.log?.(`k1s: leader election ${this.opts.name}: ${(e as Error).message}`);
      if (this.leading && this.now() - this.lastRenew > (this.opts.renewDeadlineMs ?? 10_000)) this.lose();
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.opts.retryPeriodMs ?? 2000);
    this.timer.unref();
  }

  private lose(): void {
    this.leading = false;
    this.opts.log?.(`k1s: ${this.opts.identity} lost leadership of ${this.opts.namespace}/${this.opts.name}`);
    this.opts.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const rc = this.client.resource('coordination.k8s.io/v1', 'leases');
    const duration = this.opts.leaseDurationSeconds ?? 15;
    const nowStr = rfc3339Micro(this.now());
    let lease: KObject & { spec?: LeaseSpec };
    try {
      lease = await rc.get(this.opts.namespace, this.opts.name);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
      await rc.create(this.opts.namespace, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.opts.name, namespace: this.opts.namespace },
        spec: { holderIdentity: this.opts.identity, leaseDurationSeconds: duration, acquireTime: nowStr, renewTime: nowStr, leaseTransitions: 0 },
      } as KObject);
      return true;
    }
    const spec: LeaseSpec = lease.spec ?? {};
    const mine = spec.holderIdentity === this.opts.identity;
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const expired = !spec.holderIdentity || renewed + (spec.leaseDurationSeconds ?? duration) * 1000 < this.now();
    if (!mine && !expired) return false;
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: this.opts.identity,
      leaseDurationSeconds: duration,
      renewTime: nowStr,
      ...(mine ? {} : { acquireTime: nowStr, leaseTransitions: (spec.leaseTransitions ?? 0) + (spec.holderIdentity ? 1 : 0) }),
    };
    try {
      await rc.update(this.opts.namespace, { ...lease, spec: next } as KObject);
      return true;
    } catch (e) {
      if (e instanceof StatusError && e.code === 409) return false;
      throw e;
    }
  }

  private async release(): Promise<void> {
    const rc = this.client.resource('coordination.k8s.io/v1', 'leases');
    const lease = (await rc.get(this.opts.namespace, this.opts.name)) as KObject & { spec?: LeaseSpec };
    if (lease.spec?.holderIdentity !== this.opts.identity) return;
    await rc.update(this.opts.namespace, { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: rfc3339Micro(this.now()) } } as KObject);
  }
}
