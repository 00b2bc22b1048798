// The endpoints of the `default/kubernetes` Service, kept by the API server itself as kube-apiserver's endpoint
// reconciler does (pkg/controlplane/reconcilers/endpointsadapter.go, 1.33): an Endpoints object labelled
// endpointslice.kubernetes.io/skip-mirror=true (the mirroring controller leaves it alone) and an EndpointSlice of
// the same name labelled kubernetes.io/service-name=kubernetes, both pointing at the address pods reach the API
// server on, port `https`. Re-checked every 10 s (the bootstrap controller's EndpointInterval) so an edit or a
// delete by someone else is undone.
import type { Server } from 'node:net';
import type { KObject } from '../api/types.js';
import type { Client } from '../client/types.js';
import { isStatusError } from '../machinery/errors.js';
import { listenAlso } from '../apiserver/extra-listener.js';

export const KUBERNETES_SERVICE = { namespace: 'default', name: 'kubernetes' } as const;
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const DEFAULT_ENDPOINT_INTERVAL_MS = 10_000;

export interface ApiServerAddress {
  ip: string;
  port: number;
}

interface EndpointsShape extends KObject {
  subsets?: unknown[];
}
interface SliceShape extends KObject {
  addressType?: string;
  endpoints?: unknown[];
  ports?: unknown[];
}

/** The Endpoints object the reconciler wants (its own fields only; metadata of an existing one is kept). */
export function desiredEndpoints(addr: ApiServerAddress): EndpointsShape {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: KUBERNETES_SERVICE.name, namespace: KUBERNETES_SERVICE.namespace, labels: { [SKIP_MIRROR_LABEL]: 'true' } },
    subsets: [{ addresses: [{ ip: addr.ip }], ports: [{ name: 'https', port: addr.port, protocol: 'TCP' }] }],
  };
}

export function desiredEndpointSlice(addr: ApiServerAddress): SliceShape {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: KUBERNETES_SERVICE.name, namespace: KUBERNETES_SERVICE.namespace, labels: { [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE.name } },
    addressType: addr.ip.includes(':') ? 'IPv6' : 'IPv4',
    endpoints: [{ addresses: [addr.ip], conditions: { ready: true } }],
    ports: [{ name: 'https', port: addr.port, protocol: 'TCP' }],
  };
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
  address: ApiServerAddress;
  intervalMs?: number;
  log?: (line: string) => void;
}

export class KubernetesEndpoints {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly opts: KubernetesEndpointsOptions) {}

  /** Reconciles once (errors thrown), then keeps reconciling in the background. */
  async start(): Promise<void> {
    await this.reconcile();
    this.timer = setInterval(() => {
      if (this.running || this.stopped) return;
      this.running = this.reconcile()
        .catch((e) => this.opts.log?.(`k1s: kubernetes endpoints: ${(e as Error).message}`))
        .finally(() => (this.running = undefined));
    }, this.opts.intervalMs ?? DEFAULT_ENDPOINT_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass: Endpoints first, then the EndpointSlice (deleting other slices claiming the Service). */
  async reconcile(): Promise<void> {
    const { namespace, name } = KUBERNETES_SERVICE;
    const eps = this.opts.client.resource('v1', 'endpoints');
    const want = desiredEndpoints(this.opts.address);
    await upsert(eps, want, (cur) => covers(cur.metadata.labels, want.metadata.labels) && Object.keys(cur.metadata.labels ?? {}).length === 1 && covers((cur as EndpointsShape).subsets, want.subsets), (cur) => ({
      ...cur,
      metadata: { ...cur.metadata, labels: want.metadata.labels },
      subsets: want.subsets,
    }));

    const slices = this.opts.client.resource('discovery.k8s.io/v1', 'endpointslices');
    const slice = desiredEndpointSlice(this.opts.address);
    const list = await slices.list(namespace, { labelSelector: `${SERVICE_NAME_LABEL}=${name}` });
    for (const other of list.items as SliceShape[]) {
      if (other.metadata.name === name && other.addressType === slice.addressType) continue;
      await slices.delete(namespace, other.metadata.name!).catch(ignoreNotFound);
    }
    await upsert(slices, slice, (cur) => {
      const c = cur as SliceShape;
      return Object.keys(cur.metadata.labels ?? {}).length === 1 && covers(cur.metadata.labels, slice.metadata.labels) && covers(c.endpoints, slice.endpoints) && covers(c.ports, slice.ports) && c.addressType === slice.addressType;
    }, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: slice.metadata.labels }, endpoints: slice.endpoints, ports: slice.ports }));
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
  log?: (line: string) => void;
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
  const address = { ip: loopback || wildcard ? opts.gateway : opts.bindAddress, port: opts.port };
  const endpoints = new KubernetesEndpoints({ client: opts.client, address, log: opts.log });
  try {
    await endpoints.start();
  } catch (e) {
    await listener?.close();
    throw e;
  }
  opts.log?.(`k1s: API server reachable from pods at https://${address.ip}:${address.port} (Service default/kubernetes)`);
  return {
    address,
    stop: async () => {
      await endpoints.stop();
      await listener?.close();
    },
  };
}
