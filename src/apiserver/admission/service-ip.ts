// ClusterIP and NodePort allocation for Services: what kube-apiserver's Service REST storage does in its
// BeginCreate/BeginUpdate hooks (pkg/registry/core/service/storage). There are no allocator bitmaps or IPAddress
// objects here: what is taken is read from the stored services, plus what this process handed out that is not
// written yet. Allocations are serialised so concurrent creates in one process never pick the same address or port.
import { allocateCreate, allocateUpdate, holdings, type AllocatorConfig, type Taken } from '../../api/core/service/alloc.js';
import { parseCIDR } from '../../api/core/service/net.js';
import type { Service } from '../../api/core/service/types.js';
import { deepEqual } from '../../machinery/object.js';
import type { AdmissionPlugin } from './chain.js';
import type { ResourceStore } from '../registry/store.js';
import { listObjects } from '../registry/list.js';

export interface ServiceAllocationOptions {
  /** The service CIDR (--service-cluster-ip-range), e.g. 10.43.0.0/16. */
  serviceCIDR: string;
  /** --service-node-port-range, inclusive. */
  nodePortRange: [number, number];
  /** Source of randomness for dynamic picks (tests pass a fixed one). */
  random?: () => number;
  /** How long an allocation not yet visible in storage stays reserved (a failed write frees it after this). */
  reservationMs?: number;
}

interface Reservation {
  owner: string;
  until: number;
}

export function serviceAllocation(opts: ServiceAllocationOptions, services: () => ResourceStore): AdmissionPlugin {
  const cidr = parseCIDR(opts.serviceCIDR);
  if (!cidr) throw new Error(`invalid service CIDR "${opts.serviceCIDR}"`);
  const [lo, hi] = opts.nodePortRange;
  if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo > 0 && lo <= hi && hi <= 65535)) {
    throw new Error(`invalid node port range ${lo}-${hi}`);
  }
  const cfg: AllocatorConfig = { cidr, nodePorts: [lo, hi], random: opts.random ?? Math.random };
  const ttl = opts.reservationMs ?? 30_000;
  // Handed out but possibly not stored yet, keyed "ip:<bigint>" / "port:<n>".
  const pending = new Map<string, Reservation>();
  let tail: Promise<unknown> = Promise.resolve();

  function serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  }

  /** What everyone but `owner` holds: stored services and live reservations. */
  async function takenBy(owner: string): Promise<Taken> {
    const taken: Taken = { ips: new Set(), ports: new Set() };
    const stored = new Set<string>();
    for (const obj of (await listObjects(services(), '', {})).items) {
      const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
      const h = holdings(obj as Service);
      for (const ip of h.ips) stored.add(`ip:${ip}`);
      for (const p of h.ports) stored.add(`port:${p}`);
      if (key === owner) continue;
      for (const ip of h.ips) taken.ips.add(ip);
      for (const p of h.ports) taken.ports.add(p);
    }
    const now = Date.now();
    for (const [k, r] of pending) {
      // Once storage shows the allocation (or the reservation expired) the store is the source of truth.
      if (r.until < now || stored.has(k)) {
        pending.delete(k);
        continue;
      }
      if (r.owner === owner) continue;
      if (k.startsWith('ip:')) taken.ips.add(k.slice(3));
      else taken.ports.add(Number(k.slice(5)));
    }
    return taken;
  }

  function reserve(owner: string, got: { ips: string[]; ports: number[] }): void {
    const until = Date.now() + ttl;
    for (const ip of got.ips) pending.set(`ip:${ip}`, { owner, until });
    for (const p of got.ports) pending.set(`port:${p}`, { owner, until });
  }

  return {
    name: 'ServiceIPAllocation',
    async admit({ store, operation, object, old, namespace, ctx }) {
      if (store.def.group !== '' || store.def.plural !== 'services') return;
      if (operation !== 'CREATE' && operation !== 'UPDATE') return;
      const svc = object as Service;
      // Status updates (and metadata-only ones) keep the spec: nothing to allocate.
      if (operation === 'UPDATE' && (!old || deepEqual(svc.spec, (old as Service).spec))) return;
      const owner = `${namespace}/${svc.metadata.name ?? ''}`;
      await serialised(async () => {
        const taken = await takenBy(owner);
        let got;
        if (operation === 'CREATE') got = allocateCreate(svc, cfg, taken);
        else {
          // The service's own holdings stay taken until the write, so new picks never reuse them.
          const mine = holdings(old as Service);
          for (const ip of mine.ips) taken.ips.add(ip);
          for (const p of mine.ports) taken.ports.add(p);
          got = allocateUpdate(svc, old as Service, cfg, taken);
        }
        if (!ctx.dryRun) reserve(owner, got);
      });
    },
  };
}
