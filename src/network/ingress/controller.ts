// k1s' built-in ingress controller: IngressClass `k1s` (controller k1s.dev/ingress, the default class, created at
// start if missing), HTTP and HTTPS listeners on the host proxying straight to Service endpoints, routes rebuilt from
// informers on every Ingress/IngressClass change, status.loadBalancer.ingress set on every served Ingress, events
// for what cannot be served.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Ingress, IngressBackend, IngressClass } from '../../api/networking/ingress/schema.js';
import type { KObject } from '../../api/types.js';
import { InformerFactory, objectKey, splitKey } from '../../client/informer.js';
import type { Client } from '../../client/types.js';
import { WorkQueue } from '../../client/workqueue.js';
import { EventRecorder } from '../../client/events.js';
import { StatusError } from '../../machinery/errors.js';
import type { CertKeyPem } from '../../pki/certs.js';
import { buildRouteTable, matchRoute, requestHost, requestPath, type RouteTable } from './match.js';
import { createIngressProxy, type Resolution } from './proxy.js';
import { fakeCertificate, tlsEntries, TlsStore } from './tls.js';
import { EndpointTable, findServicePort } from '../service-lb/endpoints.js';
import { statusAddressFor } from '../service-lb/load-balancer.js';

export const INGRESS_CLASS_NAME = 'k1s';
export const INGRESS_CONTROLLER = 'k1s.dev/ingress';
const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';
const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

export interface IngressControllerOptions {
  client: Client;
  informers?: InformerFactory;
  /** HTTP port (default 80; 0 = any free port) */
  httpPort?: number;
  /** HTTPS port (default 443; 0 = any free port) */
  httpsPort?: number;
  /** listen address (default 127.0.0.1) */
  address?: string;
  /** what status.loadBalancer.ingress reports: an IP becomes `ip`, a name `hostname` (default: the listen address, 127.0.0.1 for wildcards) */
  statusAddress?: string;
  /** certificate for hosts without a TLS Secret (default: a self-signed "Fake Certificate") */
  defaultCertificate?: CertKeyPem;
  nodeName?: string;
  log?: (line: string) => void;
}

export interface IngressController {
  /** the ports actually listened on (useful with port 0) */
  readonly ports: { http: number; https: number };
  stop(): Promise<void>;
}

/** Is this IngressClass one of k1s' and the default? */
function isDefaultClass(ic: KObject): boolean {
  return ic.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true';
}

async function ensureIngressClass(client: Client): Promise<void> {
  const rc = client.resource('networking.k8s.io/v1', 'ingressclasses');
  try {
    await rc.get('', INGRESS_CLASS_NAME);
    return; // present: leave what the user made of it (e.g. a removed default annotation)
  } catch (e) {
    if (!(e instanceof StatusError && e.code === 404)) throw e;
  }
  const ic: IngressClass = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: INGRESS_CLASS_NAME, annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' }, labels: { 'app.kubernetes.io/managed-by': 'k1s' } },
    spec: { controller: INGRESS_CONTROLLER },
  };
  await rc.create('', ic).catch((e) => {
    if (!(e instanceof StatusError && e.code === 409)) throw e;
  });
}

function listenOn(server: net.Server, port: number, address: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new Error(`ingress ${what} listener: listen tcp ${address}:${port}: bind: ${e.code === 'EADDRINUSE' ? 'address already in use' : e.message}`)));
    server.listen({ port, host: address }, () => resolve((server.address() as net.AddressInfo).port));
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((r) => {
    if (!server.listening) return r();
    server.close(() => r());
    server.closeAllConnections();
  });
}

function age(o: KObject): string {
  return `${o.metadata.creationTimestamp ?? ''}\u0000${objectKey(o)}`;
}

export async function startIngressController(opts: IngressControllerOptions): Promise<IngressController> {
  const log = opts.log ?? ((l: string) => console.error(l));
  const address = opts.address ?? '127.0.0.1';
  const statusAddr = statusAddressFor(address, opts.statusAddress);
  const wantStatus = [net.isIP(statusAddr) ? { ip: statusAddr } : { hostname: statusAddr }];
  const ownInformers = !opts.informers;
  const informers = opts.informers ?? new InformerFactory(opts.client, log);
  const ingresses = informers.informer('networking.k8s.io/v1', 'ingresses');
  const classes = informers.informer('networking.k8s.io/v1', 'ingressclasses');
  const secrets = informers.informer('v1', 'secrets');
  const endpoints = new EndpointTable(informers);
  const fallbackCert = opts.defaultCertificate ?? (await fakeCertificate());
  const tlsStore = new TlsStore(secrets, fallbackCert);
  const recorder = new EventRecorder(opts.client, 'k1s-ingress-controller', opts.nodeName ?? '', log);
  let table: RouteTable = buildRouteTable([]);
  let served = new Set<string>();
  /** per Ingress: the resourceVersion a Sync event was written for, and the problems last reported */
  const synced = new Map<string, string>();
  const reported = new Map<string, string>();
  let stopped = false;

  function ownedClasses(): { names: Set<string>; isDefault: boolean } {
    const names = new Set<string>();
    let isDefault = false;
    for (const ic of classes.list() as IngressClass[]) {
      if (ic.spec?.controller !== INGRESS_CONTROLLER) continue;
      names.add(ic.metadata.name!);
      if (isDefaultClass(ic)) isDefault = true;
    }
    return { names, isDefault };
  }

  function isServed(ing: Ingress, owned: { names: Set<string>; isDefault: boolean }): boolean {
    if (ing.metadata.deletionTimestamp) return false;
    const cls = ing.spec?.ingressClassName ?? ing.metadata.annotations?.[LEGACY_CLASS_ANNOTATION];
    return cls ? owned.names.has(cls) : owned.isDefault;
  }

  function backendProblems(ing: Ingress, b: IngressBackend | undefined | null, out: Set<string>): void {
    if (!b) return;
    const ns = ing.metadata.namespace!;
    if (!b.service) {
      out.add(`UnsupportedBackend\u0000resource backends (${b.resource?.kind ?? '?'} "${b.resource?.name ?? ''}") are not supported by k1s' ingress controller`);
      return;
    }
    const svc = endpoints.service(ns, b.service.name ?? '');
    if (!svc) out.add(`ServiceNotFound\u0000service "${ns}/${b.service.name}" not found`);
    else if (!findServicePort(svc, b.service.port ?? {})) {
      const p = b.service.port?.name ?? b.service.port?.number;
      out.add(`ServicePortNotFound\u0000service "${ns}/${b.service.name}" does not have a TCP port ${JSON.stringify(p)}`);
    }
  }

  /** Writes a Sync event for new Ingress versions and a Warning for each new problem set. */
  function report(ing: Ingress): void {
    const key = objectKey(ing);
    if (synced.get(key) !== ing.metadata.resourceVersion) {
      synced.set(key, ing.metadata.resourceVersion ?? '');
      recorder.event(ing, 'Normal', 'Sync', 'Scheduled for sync');
    }
    const problems = new Set<string>();
    backendProblems(ing, ing.spec?.defaultBackend, problems);
    for (const r of ing.spec?.rules ?? []) for (const p of r.http?.paths ?? []) backendProblems(ing, p.backend, problems);
    for (const t of ing.spec?.tls ?? []) {
      if (!t.secretName) continue;
      const c = tlsStore.check(ing.metadata.namespace!, t.secretName);
      if (!c.ok) problems.add(`TLSSecretNotValid\u0000${c.reason}; using the default certificate`);
    }
    const sig = [...problems].sort().join('\n');
    if (reported.get(key) === sig) return;
    reported.set(key, sig);
    for (const p of problems) {
      const [reason, message] = p.split('\u0000');
      recorder.event(ing, 'Warning', reason, message);
    }
  }

  function rebuild(): void {
    if (stopped) return;
    const owned = ownedClasses();
    const all = (ingresses.list() as Ingress[]).filter((i) => isServed(i, owned)).sort((a, b) => (age(a) < age(b) ? -1 : 1));
    table = buildRouteTable(all);
    tlsStore.setEntries(tlsEntries(all));
    const before = served;
    served = new Set(all.map(objectKey));
    for (const k of before) if (!served.has(k)) reported.delete(k);
    for (const k of new Set([...before, ...served])) statusQueue.add(k);
    for (const ing of all) report(ing);
  }

  let rebuildPending = false;
  const scheduleRebuild = () => {
    if (rebuildPending || stopped) return;
    rebuildPending = true;
    setImmediate(() => {
      rebuildPending = false;
      rebuild();
    });
  };

  async function syncStatus(key: string): Promise<void> {
    if (stopped) return;
    const { namespace, name } = splitKey(key);
    const ing = ingresses.get(namespace, name) as Ingress | undefined;
    if (!ing) return;
    const cur = ing.status?.loadBalancer?.ingress ?? [];
    const mine = JSON.stringify(cur) === JSON.stringify(wantStatus);
    let want: unknown[] | null;
    if (served.has(key)) {
      if (mine) return;
      want = wantStatus;
    } else {
      // no longer ours (class changed): take back only the address we reported
      if (!mine) return;
      want = null;
    }
    try {
      await opts.client
        .resource('networking.k8s.io/v1', 'ingresses')
        .patch(namespace, name, 'merge', { status: { loadBalancer: { ingress: want } } }, { subresource: 'status' });
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
  const statusQueue = new WorkQueue(syncStatus, { baseDelayMs: 100, maxDelayMs: 30_000, onError: (k, e) => log(`k1s: ingress status ${k}: ${(e as Error).message}`) });

  const onAny = { add: scheduleRebuild, update: scheduleRebuild, delete: scheduleRebuild };
  ingresses.addHandler({
    add: scheduleRebuild,
    update: (o, n) => {
      // status-only writes (ours included) change no route
      if (JSON.stringify(o.spec) !== JSON.stringify(n.spec) || JSON.stringify(o.metadata.annotations) !== JSON.stringify(n.metadata.annotations) || o.metadata.deletionTimestamp !== n.metadata.deletionTimestamp) scheduleRebuild();
      else if (served.has(objectKey(n))) statusQueue.add(objectKey(n));
    },
    delete: (o) => {
      synced.delete(objectKey(o));
      reported.delete(objectKey(o));
      scheduleRebuild();
    },
  });
  classes.addHandler(onAny);
  secrets.addHandler(onAny);
  endpoints.services.addHandler(onAny);

  const proxy = createIngressProxy({ resolve });
  function resolve(req: http.IncomingMessage): Resolution {
    const m = matchRoute(table, requestHost(req.headers.host), requestPath(req.url));
    if (!m) return { ok: false, status: 404 };
    const ref = m.backend.service;
    if (!ref?.name) return { ok: false, status: 503 };
    const svc = endpoints.service(m.namespace, ref.name);
    const port = svc && findServicePort(svc, ref.port ?? {});
    const target = port && endpoints.pick(m.namespace, ref.name, port.name ?? '', 'TCP');
    return target ? { ok: true, target } : { ok: false, status: 503 };
  }

  const httpServer = http.createServer({ keepAliveTimeout: 60_000 }, proxy.request);
  const httpsServer = https.createServer(
    {
      keepAliveTimeout: 60_000,
      SNICallback: (servername, cb) => cb(null, tlsStore.contextFor(servername)),
      // without SNI (clients dialling an IP) the server's own certificate applies: the fallback
      cert: fallbackCert.certPem,
      key: fallbackCert.keyPem,
    },
    proxy.request,
  );
  for (const s of [httpServer, httpsServer]) s.on('upgrade', proxy.upgrade);

  const stopAll = async () => {
    stopped = true;
    statusQueue.stop();
    proxy.close();
    await Promise.all([closeServer(httpServer), closeServer(httpsServer)]);
    if (ownInformers) informers.stop();
  };

  try {
    await ensureIngressClass(opts.client);
    await informers.start();
    const ports = {
      http: await listenOn(httpServer, opts.httpPort ?? 80, address, 'HTTP'),
      https: await listenOn(httpsServer, opts.httpsPort ?? 443, address, 'HTTPS'),
    };
    rebuild();
    return { ports, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
