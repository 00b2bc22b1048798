// The endpoints of the `default/kubernetes` Service, kept by the API server itself as kube-apiserver's endpoint
// reconciler does (pkg/controlplane/reconcilers/endpointsadapter.go, 1.33): an Endpoints object labelled
// endpointslice.kubernetes.io/skip-mirror=true (the mirroring controller leaves it alone) and an EndpointSlice of
// the same name labelled kubernetes.io/service-name=kubernetes, both pointing at the addresses pods reach the API
// servers on, port `https`. With several servers on one etcd every one lists every live server (kube's "lease"
// reconciler), sorted, from their identity Leases; a server whose Lease ran out is dropped. Re-checked every 10 s
// (the bootstrap controller's EndpointInterval), and when a server's Lease runs out, so an edit or a delete by
// someone else is undone and a dead server does not linger.
import type { Server } from 'node:net';
import type { KObject } from '../api/types.js';
import type { Client } from '../client/types.js';
import { isStatusError } from '../machinery/errors.js';
import { listenAlso } from '../apiserver/extra-listener.js';
import { repackSubsets } from '../api/core/endpoints.js';
import type { ApiServerAddress, LiveApiServer } from './apiserver-identity.js';

export type { ApiServerAddress } from './apiserver-identity.js';

export const KUBERNETES_SERVICE = { namespace: 'default', name: 'kubernetes' } as const;
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const DEFAULT_ENDPOINT_INTERVAL_MS = 10_000;

interface EndpointsShape extends KObject {
  subsets?: unknown[];
}
interface SliceShape extends KObject {
  addressType?: string;
  endpoints?: unknown[];
  ports?: unknown[];
}

const isLoopback = (ip: string) => ip.startsWith('127.') || ip === '::1';
const family = (ip: string) => (ip.includes(':') ? 'IPv6' : 'IPv4');

/** IPv4 before IPv6, each as strings (the order the Endpoints API keeps addresses in) */
function compareIPs(a: string, b: string): number {
  if (family(a) !== family(b)) return family(a) === 'IPv4' ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The addresses grouped by (family, port), groups and addresses sorted, duplicates dropped. */
function groups(addrs: ApiServerAddress | ApiServerAddress[]): { family: string; port: number; ips: string[] }[] {
  const byKey = new Map<string, { family: string; port: number; ips: string[] }>();
  for (const a of Array.isArray(addrs) ? addrs : [addrs]) {
    const key = `${family(a.ip)}/${a.port}`;
    const g = byKey.get(key) ?? { family: family(a.ip), port: a.port, ips: [] };
    if (!g.ips.includes(a.ip)) g.ips.push(a.ip);
    byKey.set(key, g);
  }
  const out = [...byKey.values()];
  for (const g of out) g.ips.sort(compareIPs);
  return out.sort((x, y) => (x.family !== y.family ? (x.family === 'IPv4' ? -1 : 1) : x.port - y.port));
}

/** The Endpoints object the reconciler wants (its own fields only; metadata of an existing one is kept), packed as
 *  the Endpoints API stores it. Servers on several ports (one machine) share a subset when they share an address,
 *  where port names must differ: the lowest port is `https` (the Service's), the others `https-<port>`. */
export function desiredEndpoints(addrs: ApiServerAddress | ApiServerAddress[]): EndpointsShape {
  const gs = groups(addrs);
  const lowest = Math.min(...gs.map((g) => g.port));
  const subsets = gs.map((g) => ({
    addresses: g.ips.map((ip) => ({ ip })),
    ports: [{ name: g.port === lowest ? 'https' : `https-${g.port}`, port: g.port, protocol: 'TCP' }],
  }));
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: KUBERNETES_SERVICE.name, namespace: KUBERNETES_SERVICE.namespace, labels: { [SKIP_MIRROR_LABEL]: 'true' } },
    subsets: repackSubsets(subsets),
  };
}

/** One EndpointSlice per (family, port): the first is `kubernetes`, others (servers on other ports, one machine)
 *  `kubernetes-<port>` (`-ipv6` added for IPv6). */
export function desiredEndpointSlices(addrs: ApiServerAddress | ApiServerAddress[]): SliceShape[] {
  return groups(addrs).map((g, i) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: i === 0 ? KUBERNETES_SERVICE.name : `${KUBERNETES_SERVICE.name}-${g.port}${g.family === 'IPv6' ? '-ipv6' : ''}`,
      namespace: KUBERNETES_SERVICE.namespace,
      labels: { [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE.name },
    },
    addressType: g.family,
    endpoints: g.ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    ports: [{ name: 'https', port: g.port, protocol: 'TCP' }],
  }));
}

export function desiredEndpointSlice(addr: ApiServerAddress): SliceShape {
  return desiredEndpointSlices(addr)[0]!;
}

/** Deep equality of JSON data, treating a missing key like one holding undefined. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (!same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/** Whether `current` already has what `want` asks for in the given fields (server defaults such as
 *  conditions.serving count as ours when they agree with ours). */
function covers(current: unknown, want: unknown): boolean {
  if (typeof want !== 'object' || want === null) return same(current, want);
  if (typeof current !== 'object' || current === null) return false;
  if (Array.isArray(want)) return Array.isArray(current) && current.length === want.length && want.every((w, i) => covers(current[i], w));
  return Object.entries(want).every(([k, v]) => covers((current as Record<string, unknown>)[k], v));
}

export interface KubernetesEndpointsOptions {
  client: Client;
  /** this server's address */
  address: ApiServerAddress;
  /** the other live servers (several servers on one etcd); without it this server is the only one */
  peers?: () => Promise<LiveApiServer[]>;
  intervalMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

export class KubernetesEndpoints {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** when the first of the peers' Leases runs out: a pass then drops it */
  private nextExpiry = Infinity;
  /** when the pending pass runs */
  private due = Infinity;

  constructor(private readonly opts: KubernetesEndpointsOptions) {}

  /** Reconciles once (errors thrown), then keeps reconciling in the background. */
  async start(): Promise<void> {
    await this.reconcile();
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    const now = (this.opts.now ?? Date.now)();
    const interval = this.opts.intervalMs ?? DEFAULT_ENDPOINT_INTERVAL_MS;
    const delay = Math.max(100, Math.min(interval, this.nextExpiry - now + 200));
    this.due = now + delay;
    this.timer = setTimeout(() => {
      this.running = this.reconcile()
        .catch((e) => this.opts.log?.(`k1s: kubernetes endpoints: ${(e as Error).message}`))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, delay);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** On shutdown (after this server's Lease is gone): the others' addresses only, when there are others. */
  async removeSelf(): Promise<void> {
    const peers = await this.livePeers();
    const others = peers.filter((a) => !(a.ip === this.opts.address.ip && a.port === this.opts.address.port));
    if (others.length) await this.write(others);
  }

  private async livePeers(): Promise<ApiServerAddress[]> {
    if (!this.opts.peers) return [];
    const live = await this.opts.peers();
    this.nextExpiry = Math.min(Infinity, ...live.map((l) => l.expiresAt));
    // a pass outside the timer's saw a Lease running out before the pending pass: that pass moves up
    if (this.timer && !this.running && !this.stopped && this.nextExpiry + 200 < this.due) {
      clearTimeout(this.timer);
      this.schedule();
    }
    return live.map((l) => l.address);
  }

  /** One pass: Endpoints first, then the EndpointSlices (deleting other slices claiming the Service). */
  async reconcile(): Promise<void> {
    await this.write([this.opts.address, ...(await this.livePeers())]);
  }

  private async write(all: ApiServerAddress[]): Promise<void> {
    const { namespace } = KUBERNETES_SERVICE;
    // Endpoints may not hold loopback addresses (kube's validation): a server advertising one is left out
    const addrs = all.filter((a) => !isLoopback(a.ip));
    if (!addrs.length) return;
    const eps = this.opts.client.resource('v1', 'endpoints');
    const want = desiredEndpoints(addrs);
    await upsert(eps, want, (cur) => covers(cur.metadata.labels, want.metadata.labels) && Object.keys(cur.metadata.labels ?? {}).length === 1 && covers((cur as EndpointsShape).subsets, want.subsets), (cur) => ({
      ...cur,
      metadata: { ...cur.metadata, labels: want.metadata.labels },
      subsets: want.subsets,
    }));

    const slices = this.opts.client.resource('discovery.k8s.io/v1', 'endpointslices');
    const wanted = desiredEndpointSlices(addrs);
    const list = await slices.list(namespace, { labelSelector: `${SERVICE_NAME_LABEL}=${KUBERNETES_SERVICE.name}` });
    for (const other of list.items as SliceShape[]) {
      if (wanted.some((w) => w.metadata.name === other.metadata.name && w.addressType === other.addressType)) continue;
      await slices.delete(namespace, other.metadata.name!).catch(ignoreNotFound);
    }
    for (const slice of wanted) {
      await upsert(slices, slice, (cur) => {
        const c = cur as SliceShape;
        return Object.keys(cur.metadata.labels ?? {}).length === 1 && covers(cur.metadata.labels, slice.metadata.labels) && covers(c.endpoints, slice.endpoints) && covers(c.ports, slice.ports) && c.addressType === slice.addressType;
      }, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: slice.metadata.labels }, endpoints: slice.endpoints, ports: slice.ports }));
    }
  }
}

type Resource = ReturnType<Client['resource']>;

/** Creates `want`, or updates the existing object when `ok` says it differs; a conflict is retried once. */
async function upsert(res: Resource, want: KObject, ok: (cur: KObject) => boolean, merge: (cur: KObject) => KObject): Promise<void> {
  const ns = want.metadata.namespace!;
  for (let attempt = 0; ; attempt++) {
    try {
      const cur = await res.get(ns, want.metadata.name!).catch((e) => (isStatusError(e) && e.code === 404 ? undefined : Promise.reject(e)));
      if (!cur) await res.create(ns, want);
      else if (!ok(cur)) await res.update(ns, merge(cur));
      return;
    } catch (e) {
      // another writer got there first (Conflict / AlreadyExists): read again
      if (attempt < 2 && isStatusError(e) && (e.code === 409)) continue;
      throw e;
    }
  }
}

function ignoreNotFound(e: unknown): void {
  if (!(isStatusError(e) && e.code === 404)) throw e;
}

export interface PodFacingApiOptions {
  /** the API server's TLS server (fastify's app.server) */
  server: Server;
  client: Client;
  /** the pod network's gateway address on this node */
  gateway: string;
  /** the main listener's address and actual port */
  bindAddress: string;
  port: number;
  /** --advertise-address given: publish it instead of the address chosen here */
  advertise?: ApiServerAddress;
  /** publishes the address (the identity Lease and the Endpoints of every live server); default: this server's
   *  address alone in the Endpoints */
  publish?: (address: ApiServerAddress) => Promise<{ stop(): Promise<void> }>;
  log?: (line: string) => void;
}

/** The default publisher: the Endpoints list this server alone. */
export async function publishAlone(client: Client, address: ApiServerAddress, log?: (line: string) => void): Promise<{ stop(): Promise<void> }> {
  const endpoints = new KubernetesEndpoints({ client, address, log });
  await endpoints.start();
  return endpoints;
}

/**
 * Makes the API server reachable from pods and publishes where: with a loopback --bind-address an extra listener on
 * the pod network's gateway (reachable from pods and this host only, never from the LAN); with a wildcard bind the
 * main listener already covers the gateway; with a specific address, that address is published, as kube-apiserver
 * advertises its bind address.
 */
export async function servePodFacingApi(opts: PodFacingApiOptions): Promise<{ address: ApiServerAddress; stop(): Promise<void> }> {
  const loopback = opts.bindAddress === '127.0.0.1' || opts.bindAddress === '::1' || opts.bindAddress === 'localhost';
  const wildcard = opts.bindAddress === '0.0.0.0' || opts.bindAddress === '::';
  const listener = loopback ? await listenAlso(opts.server, { host: opts.gateway, port: opts.port }) : undefined;
  const address = opts.advertise ?? { ip: loopback || wildcard ? opts.gateway : opts.bindAddress, port: opts.port };
  let published: { stop(): Promise<void> };
  try {
    published = await (opts.publish ? opts.publish(address) : publishAlone(opts.client, address, opts.log));
  } catch (e) {
    await listener?.close();
    throw e;
  }
  opts.log?.(`k1s: API server reachable from pods at https://${address.ip}:${address.port} (Service default/kubernetes)`);
  return {
    address,
    stop: async () => {
      await published.stop();
      await listener?.close();
    },
  };
}
