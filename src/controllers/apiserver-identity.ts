// Each API server's identity Lease, as kube-apiserver keeps one (KEP-1965, 1.33): kube-system/apiserver-<hash>,
// labelled apiserver.kubernetes.io/identity=kube-apiserver and kubernetes.io/hostname, held by <name>_<uuid> and
// renewed while the server runs. k1s also writes the address the server is reached at into an annotation, so every
// server knows every live server: the `kubernetes` Endpoints list them (kube keeps a separate TTL'd etcd key per
// server for that, its "lease" endpoint reconciler; k1s reads these Leases instead).
//
// Differs from kube: kube's Lease lasts 3600 s (--identity-lease-duration-seconds), renewed every 10 s
// (--identity-lease-renew-interval-seconds); k1s' lasts 15 s (kube's endpoint reconciler TTL), renewed every 5 s,
// because its expiry is what drops a killed server from the Endpoints. kube hashes the host name alone; k1s hashes
// it with the advertised address and port, so several servers on one machine have a Lease each.
import { createHash, randomUUID } from 'node:crypto';
import type { KObject } from '../api/types.js';
import type { Client } from '../client/types.js';
import { rfc3339Micro } from '../machinery/object.js';
import { StatusError } from '../machinery/errors.js';

export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
export const ADDRESS_ANNOTATION = 'k1s.dev/advertise-address';
export const IDENTITY_LEASE_DURATION_S = 15;
export const IDENTITY_RENEW_INTERVAL_MS = 5_000;
/** kube's apiserver lease GC removes Leases expired this long ago */
const GC_AFTER_MS = 3600_000;
const NAMESPACE = 'kube-system';

export interface ApiServerAddress {
  ip: string;
  port: number;
}

interface LeaseShape extends KObject {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; acquireTime?: string };
}

/** RFC 4648 base32, lower case, no padding (kube: base32.StdEncoding.WithPadding(NoPadding), lowered) */
function base32(bytes: Buffer): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

export function formatAddress(a: ApiServerAddress): string {
  return a.ip.includes(':') ? `[${a.ip}]:${a.port}` : `${a.ip}:${a.port}`;
}

export function parseAddress(s: string | undefined): ApiServerAddress | undefined {
  const m = s === undefined ? null : /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(s);
  return m ? { ip: m[1]!, port: Number(m[2]) } : undefined;
}

/** apiserver-<first 16 bytes of sha256, base32> */
export function identityLeaseName(host: string, address: ApiServerAddress): string {
  return `apiserver-${base32(createHash('sha256').update(`${host}/${formatAddress(address)}`).digest().subarray(0, 16))}`;
}

export interface LiveApiServer {
  address: ApiServerAddress;
  /** ms since the epoch when its Lease runs out unless renewed */
  expiresAt: number;
}

/** The servers whose identity Lease has not run out, with the address they published. */
export async function liveApiServers(client: Client, now = Date.now()): Promise<LiveApiServer[]> {
  const list = await client.resource('coordination.k8s.io/v1', 'leases').list(NAMESPACE, { labelSelector: `${IDENTITY_LABEL}=kube-apiserver` });
  const live: LiveApiServer[] = [];
  for (const l of list.items as LeaseShape[]) {
    const address = parseAddress(l.metadata.annotations?.[ADDRESS_ANNOTATION]);
    const expiresAt = expiry(l);
    if (address && l.spec?.holderIdentity && expiresAt > now) live.push({ address, expiresAt });
  }
  return live;
}

function expiry(l: LeaseShape): number {
  const renewed = l.spec?.renewTime ? Date.parse(l.spec.renewTime) : 0;
  return renewed + (l.spec?.leaseDurationSeconds ?? 0) * 1000;
}

export interface ApiServerIdentityOptions {
  client: Client;
  hostname: string;
  address: ApiServerAddress;
  durationSeconds?: number;
  renewIntervalMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

export class ApiServerIdentity {
  readonly name: string;
  readonly holderIdentity: string;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private lastGc = 0;

  constructor(private readonly opts: ApiServerIdentityOptions) {
    this.name = identityLeaseName(opts.hostname, opts.address);
    this.holderIdentity = `${this.name}_${randomUUID()}`;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** Writes the Lease once (errors thrown), then renews it in the background. */
  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => {
      if (this.running || this.stopped) return;
      this.running = this.renew()
        .catch((e) => this.opts.log?.(`k1s: apiserver identity lease: ${(e as Error).message}`))
        .finally(() => (this.running = undefined));
    }, this.opts.renewIntervalMs ?? IDENTITY_RENEW_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops renewing: the Lease runs out as a killed server's does. */
  async stopRenewing(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Stops renewing and deletes the Lease, so the others drop this server at once. */
  async stop(): Promise<void> {
    await this.stopRenewing();
    const rc = this.opts.client.resource('coordination.k8s.io/v1', 'leases');
    const cur = (await rc.get(NAMESPACE, this.name).catch(() => undefined)) as LeaseShape | undefined;
    if (cur?.spec?.holderIdentity === this.holderIdentity) await rc.delete(NAMESPACE, this.name).catch(() => undefined);
  }

  private desired(cur?: LeaseShape): LeaseShape {
    const now = rfc3339Micro(this.now());
    const mine = cur?.spec?.holderIdentity === this.holderIdentity;
    return {
      ...(cur ?? {}),
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...(cur?.metadata ?? { name: this.name, namespace: NAMESPACE }),
        labels: { ...cur?.metadata.labels, [IDENTITY_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': this.opts.hostname },
        annotations: { ...cur?.metadata.annotations, [ADDRESS_ANNOTATION]: formatAddress(this.opts.address) },
      },
      spec: {
        holderIdentity: this.holderIdentity,
        leaseDurationSeconds: this.opts.durationSeconds ?? IDENTITY_LEASE_DURATION_S,
        acquireTime: mine && cur?.spec?.acquireTime ? cur.spec.acquireTime : now,
        renewTime: now,
      },
    };
  }

  private async renew(): Promise<void> {
    const rc = this.opts.client.resource('coordination.k8s.io/v1', 'leases');
    let cur: LeaseShape | undefined;
    try {
      cur = (await rc.get(NAMESPACE, this.name)) as LeaseShape;
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
    try {
      // a restarted server with the same name takes its old Lease over with its new holder identity, as kube's does
      if (cur) await rc.update(NAMESPACE, this.desired(cur));
      else await rc.create(NAMESPACE, this.desired());
    } catch (e) {
      // someone else wrote it between the read and the write: the next renewal reads again
      if (!(e instanceof StatusError && e.code === 409)) throw e;
    }
    if (this.now() - this.lastGc > 60_000) {
      this.lastGc = this.now();
      await this.collectGarbage().catch(() => undefined);
    }
  }

  /** Leases of servers gone for an hour are deleted by the servers still running (kube's apiserver lease GC). */
  private async collectGarbage(): Promise<void> {
    const rc = this.opts.client.resource('coordination.k8s.io/v1', 'leases');
    const list = await rc.list(NAMESPACE, { labelSelector: `${IDENTITY_LABEL}=kube-apiserver` });
    for (const l of list.items as LeaseShape[]) {
      if (l.metadata.name !== this.name && expiry(l) + GC_AFTER_MS < this.now()) await rc.delete(NAMESPACE, l.metadata.name!).catch(() => undefined);
    }
  }
}
