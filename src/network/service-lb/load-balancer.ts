// LoadBalancer Services on the host with no tunnel and no extra process: each TCP/UDP port of a Service of type
// LoadBalancer (without a spec.loadBalancerClass, i.e. the default class) gets a listener on `<address>:<port>`
// relaying to the Service's ready endpoints, and status.loadBalancer.ingress = [{ip, ipMode: VIP}] once every port
// listens. Events and reasons are the cloud service controller's (EnsuringLoadBalancer, EnsuredLoadBalancer,
// SyncLoadBalancerFailed, DeletingLoadBalancer, DeletedLoadBalancer).
import type { KObject } from '../../api/types.js';
import { InformerFactory, objectKey, splitKey } from '../../client/informer.js';
import type { Client } from '../../client/types.js';
import { WorkQueue } from '../../client/workqueue.js';
import { EventRecorder } from '../../client/events.js';
import { StatusError } from '../../machinery/errors.js';
import { EndpointTable, serviceSpec } from './endpoints.js';
import { listen, type PortListener, type Protocol } from './listeners.js';

export interface ServiceLoadBalancerOptions {
  client: Client;
  /** where listeners bind (default 127.0.0.1) */
  address?: string;
  /** what status.loadBalancer.ingress reports (default: `address`, or 127.0.0.1 when it is a wildcard address) */
  statusAddress?: string;
  /** shared informers; started here if not yet started, stopped only if created here */
  informers?: InformerFactory;
  /** node name for events' source.host */
  nodeName?: string;
  log?: (line: string) => void;
}

export interface ServiceLoadBalancer {
  /** `TCP/8080` → Service key, for what listens now */
  listening(): Map<string, string>;
  stop(): Promise<void>;
}

interface LbState {
  listeners: Map<string, PortListener>;
  /** the listener set the last Ensured event was written for */
  ensured: string;
}

const SUPPORTED: readonly string[] = ['TCP', 'UDP'];
/** The service controller's finalizer: a Service keeps it until its load balancer (here: listeners) is gone. */
export const LB_CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

function hasFinalizer(svc: KObject | undefined): boolean {
  return (svc?.metadata.finalizers ?? []).includes(LB_CLEANUP_FINALIZER);
}

export function statusAddressFor(address: string, explicit?: string): string {
  if (explicit) return explicit;
  return address === '0.0.0.0' || address === '::' || address === '' ? '127.0.0.1' : address;
}

function wantsLoadBalancer(svc: KObject | undefined): boolean {
  if (!svc || svc.metadata.deletionTimestamp) return false;
  const spec = serviceSpec(svc);
  return spec.type === 'LoadBalancer' && !spec.loadBalancerClass;
}

function lbIngress(svc: KObject): unknown[] {
  return ((svc.status as { loadBalancer?: { ingress?: unknown[] | null } } | undefined)?.loadBalancer?.ingress ?? []) as unknown[];
}

export async function startServiceLoadBalancer(opts: ServiceLoadBalancerOptions): Promise<ServiceLoadBalancer> {
  const address = opts.address ?? '127.0.0.1';
  const statusIp = statusAddressFor(address, opts.statusAddress);
  const log = opts.log ?? ((l: string) => console.error(l));
  const ownInformers = !opts.informers;
  const informers = opts.informers ?? new InformerFactory(opts.client, log);
  const table = new EndpointTable(informers);
  const recorder = new EventRecorder(opts.client, 'service-controller', opts.nodeName ?? '', log);
  const states = new Map<string, LbState>();
  /** Services left pending by a port they could not bind: retried at once when one of ours frees a port */
  const pending = new Set<string>();
  let stopped = false;
  const wakePending = (except: string) => {
    for (const k of pending) if (k !== except) queue.add(k);
  };

  const pickFor = (ns: string, name: string, protocol: Protocol, port: number) => () => {
    // read the port's current name each time: a rename keeps the listener but changes the slice port to use
    const svc = table.service(ns, name);
    const p = svc && (serviceSpec(svc).ports ?? []).find((sp) => sp.port === port && (sp.protocol ?? 'TCP') === protocol);
    return p ? table.pick(ns, name, p.name ?? '', protocol) : undefined;
  };

  async function patchStatus(svc: KObject, ingress: unknown[] | null): Promise<void> {
    try {
      await opts.client
        .resource('v1', 'services')
        .patch(svc.metadata.namespace!, svc.metadata.name!, 'merge', { status: { loadBalancer: { ingress } } }, { subresource: 'status' });
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }

  async function setFinalizer(svc: KObject, want: boolean): Promise<void> {
    const list = svc.metadata.finalizers ?? [];
    const i = list.indexOf(LB_CLEANUP_FINALIZER);
    if (want === i >= 0) return;
    const ops = want
      ? list.length
        ? [{ op: 'add', path: '/metadata/finalizers/-', value: LB_CLEANUP_FINALIZER }]
        : [{ op: 'add', path: '/metadata/finalizers', value: [LB_CLEANUP_FINALIZER] }]
      : [
          { op: 'test', path: `/metadata/finalizers/${i}`, value: LB_CLEANUP_FINALIZER },
          { op: 'remove', path: `/metadata/finalizers/${i}` },
        ];
    try {
      await opts.client.resource('v1', 'services').patch(svc.metadata.namespace!, svc.metadata.name!, 'json', ops);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }

  async function teardown(key: string, svc: KObject | undefined): Promise<void> {
    const st = states.get(key);
    states.delete(key);
    pending.delete(key);
    if (st && st.listeners.size && svc) recorder.event(svc, 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
    await Promise.all([...(st?.listeners.values() ?? [])].map((l) => l.close()));
    if (st?.listeners.size) wakePending(key);
    if (!svc) return;
    const spec = serviceSpec(svc);
    // the default controller clears what it reported once the Service stops wanting a load balancer
    if (!spec.loadBalancerClass && lbIngress(svc).length > 0) {
      await patchStatus(svc, null);
      recorder.event(svc, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
    } else if (st && st.listeners.size) recorder.event(svc, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
    await setFinalizer(svc, false);
  }

  async function reconcile(key: string): Promise<void> {
    if (stopped) return;
    const { namespace: ns, name } = splitKey(key);
    const svc = table.service(ns, name);
    if (!wantsLoadBalancer(svc)) return teardown(key, svc);
    const spec = serviceSpec(svc!);
    // the finalizer first, so a delete cannot leave listeners behind
    await setFinalizer(svc!, true);
    let st = states.get(key);
    if (!st) states.set(key, (st = { listeners: new Map(), ensured: '' }));
    const desired = new Map<string, { protocol: Protocol; port: number }>();
    const errors: string[] = [];
    for (const p of spec.ports ?? []) {
      const protocol = p.protocol ?? 'TCP';
      if (!SUPPORTED.includes(protocol)) {
        errors.push(`protocol ${protocol} of port ${p.port} is not supported (TCP and UDP are)`);
        continue;
      }
      desired.set(`${protocol}/${p.port}`, { protocol: protocol as Protocol, port: p.port });
    }
    let freed = false;
    for (const [pk, l] of [...st.listeners]) {
      if (desired.has(pk)) continue;
      st.listeners.delete(pk);
      await l.close();
      freed = true;
    }
    if (freed) wakePending(key);
    const missing = [...desired].filter(([pk]) => !st.listeners.has(pk));
    if (missing.length) recorder.event(svc!, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
    for (const [pk, d] of missing) {
      const res = await listen({ address, port: d.port, protocol: d.protocol, pick: pickFor(ns, name, d.protocol, d.port) });
      if (!res.ok) {
        errors.push(res.error);
        continue;
      }
      if (stopped || states.get(key) !== st) {
        await res.listener.close();
        return;
      }
      st.listeners.set(pk, res.listener);
    }
    if (errors.length) {
      pending.add(key);
      st.ensured = '';
      recorder.event(svc!, 'Warning', 'SyncLoadBalancerFailed', `Error syncing load balancer: failed to ensure load balancer: ${errors.join('; ')}`);
      // pending: report no address while a port cannot be served
      if (lbIngress(svc!).length) await patchStatus(svc!, null);
      throw new Error(`service ${key}: ${errors.join('; ')}`);
    }
    pending.delete(key);
    const want = [{ ip: statusIp, ipMode: 'VIP' }];
    if (JSON.stringify(lbIngress(svc!)) !== JSON.stringify(want)) await patchStatus(svc!, want);
    const ensured = [...st.listeners.keys()].sort().join(',');
    if (st.ensured !== ensured) {
      st.ensured = ensured;
      recorder.event(svc!, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
    }
  }

  const queue = new WorkQueue(reconcile, {
    baseDelayMs: 1000,
    maxDelayMs: 30_000,
    onError: (key, err) => log(`k1s: service-lb ${key}: ${(err as Error).message}`),
  });
  const enqueue = (o: KObject) => {
    if (!stopped) queue.add(objectKey(o));
  };
  table.services.addHandler({
    add: (o) => (wantsLoadBalancer(o) || hasFinalizer(o)) && enqueue(o),
    update: (oldO, newO) => {
      const relevant = wantsLoadBalancer(newO) || states.has(objectKey(newO)) || (wantsLoadBalancer(oldO) && !wantsLoadBalancer(newO));
      const cleanupNeeded = !serviceSpec(newO).loadBalancerClass && serviceSpec(newO).type !== 'LoadBalancer' && lbIngress(newO).length > 0;
      if (relevant || cleanupNeeded || hasFinalizer(newO)) enqueue(newO);
    },
    delete: (o) => states.has(objectKey(o)) && enqueue(o),
  });
  await informers.start();

  return {
    listening() {
      const out = new Map<string, string>();
      for (const [key, st] of states) for (const pk of st.listeners.keys()) out.set(pk, key);
      return out;
    },
    async stop() {
      stopped = true;
      queue.stop();
      const all = [...states.values()].flatMap((st) => [...st.listeners.values()]);
      states.clear();
      await Promise.all(all.map((l) => l.close()));
      if (ownInformers) informers.stop();
    },
  };
}

