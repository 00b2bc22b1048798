// The cluster DNS server. Queries are answered in a worker thread (worker.ts) that owns the UDP and TCP
// listeners, the records and the forwarder, so an answer never waits for this thread's event loop (the API server,
// the node agent and the controllers share it: that wait was the whole p99). This thread keeps the informers and
// feeds the worker their changes (mirror.ts). A worker that dies is logged and replaced (same addresses, a
// fresh snapshot); queries that arrive meanwhile go unanswered and clients retry. `ready` resolves once every
// listener is bound, the informers have listed, the upstreams are known and the worker holds the listed records,
// so a node can hand out this server in pods' resolv.conf only when it answers.
import { Worker } from 'node:worker_threads';
import { InformerFactory, type Informer } from '../../client/informer.js';
import type { Client } from '../../client/types.js';
import type { DnsSourceKind, PodMode } from './records.js';
import type { Upstream } from './forward.js';
import type { ListenAddress } from './listen.js';
import { DnsFeed } from './mirror.js';
import type { DnsWorkerConfig, FromWorker, ToWorker } from './worker.js';

export type { ListenAddress } from './listen.js';

export interface ClusterDNSOptions {
  /** a client: the server runs its own informers */
  client?: Client;
  /** or a cluster's shared informers (started here if need be, never stopped here) */
  informers?: InformerFactory;
  listen: ListenAddress[];
  clusterDomain?: string;
  /** upstream resolvers; default: the host's, from resolvConf */
  upstreams?: Upstream[];
  resolvConf?: string;
  systemdResolvConf?: string;
  ttl?: number;
  podMode?: PodMode;
  /** what `ns.dns.<zone>` and the zone's NS answer (the kube-dns Service IP); default: the listen addresses */
  nameserverIPs?: string[];
  forwardTimeoutMs?: number;
  /** TCP connections idle this long are closed (default 10 s) */
  tcpIdleMs?: number;
  log?: (line: string) => void;
}

export interface ClusterDNS {
  ready: Promise<void>;
  /** the bound addresses (ports resolved), once ready */
  addresses(): ListenAddress[];
  /** the thread answering now (undefined between a crash and its replacement) */
  worker(): Worker | undefined;
  /** how many times the worker was replaced after dying */
  restarts(): number;
  stop(): Promise<void>;
}

/**
 * The worker's script: beside this module in the tsc build (dist/src/network/dns/worker.js); dist/dns-worker.cjs
 * when this code runs from the single-file bundle (dist/k1s.cjs) or the standalone executable, whose
 * import.meta.url names a .cjs file in dist/ (scripts/bundle.mjs, scripts/build-sea.mjs).
 */
export function dnsWorkerURL(base = import.meta.url): URL {
  return new URL(base.endsWith('.cjs') ? './dns-worker.cjs' : './worker.js', base);
}

/** waits between restarts of a worker that keeps dying: 100 ms doubling to 5 s */
const RESTART_MIN_MS = 100;
const RESTART_MAX_MS = 5000;
/** a worker that served this long before dying restarts at once again */
const RESTART_RESET_MS = 30_000;
const STOP_TIMEOUT_MS = 2000;

export function startClusterDNS(opts: ClusterDNSOptions): ClusterDNS {
  if (!opts.client && !opts.informers) throw new Error('startClusterDNS: pass a client or informers');
  const ownFactory = opts.informers ? undefined : new InformerFactory(opts.client!, opts.log);
  const factory = opts.informers ?? ownFactory!;
  const podMode = opts.podMode ?? 'insecure';
  const sources: Partial<Record<DnsSourceKind, Informer>> = {
    services: factory.informer('v1', 'services'),
    endpointSlices: factory.informer('discovery.k8s.io/v1', 'endpointslices'),
    namespaces: factory.informer('v1', 'namespaces'),
    pods: podMode === 'verified' ? factory.informer('v1', 'pods') : undefined,
  };
  const log = (line: string) => opts.log?.(line);
  const wildcard = (a: string) => a === '0.0.0.0' || a === '::';
  const base: Omit<DnsWorkerConfig, 'listen'> = {
    k1sDnsWorker: true,
    clusterDomain: opts.clusterDomain ?? 'cluster.local',
    ttl: opts.ttl,
    podMode,
    nameserverIPs: opts.nameserverIPs ?? opts.listen.map((l) => l.address).filter((a) => !wildcard(a)),
    upstreams: opts.upstreams,
    resolvConf: opts.resolvConf,
    systemdResolvConf: opts.systemdResolvConf,
    forwardTimeoutMs: opts.forwardTimeoutMs,
    tcpIdleMs: opts.tcpIdleMs,
  };

  let current: Worker | undefined;
  let bound: ListenAddress[] = [];
  let stopped = false;
  let restarts = 0;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let nextPing = 0;
  const pings = new Map<number, () => void>();
  const send = (m: ToWorker) => current?.postMessage(m);
  const feed = new DnsFeed(sources, send);

  /** Starts a worker on `listen`; resolves when it is bound and knows its upstreams, rejects if it cannot be. */
  const spawn = (listen: ListenAddress[]): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      let up = false;
      let w: Worker;
      try {
        w = new Worker(dnsWorkerURL(), { workerData: { ...base, listen } satisfies DnsWorkerConfig });
      } catch (e) {
        reject(e as Error);
        return;
      }
      current = w;
      // the records first: the worker applies messages in order, so a ping after this finds them in place
      w.postMessage(feed.snapshot() satisfies ToWorker);
      for (const id of pings.keys()) w.postMessage({ t: 'ping', id } satisfies ToWorker);
      w.on('message', (m: FromWorker) => {
        switch (m.t) {
          case 'ready':
            up = true;
            bound = m.bound;
            resolve();
            return;
          case 'fatal':
            reject(Object.assign(new Error(m.error), m.code ? { code: m.code } : {}));
            return;
          case 'log':
            log(m.line);
            return;
          case 'pong':
            pings.get(m.id)?.();
            pings.delete(m.id);
            return;
          case 'stopped':
            return;
        }
      });
      w.on('error', (e) => {
        log(`k1s: cluster DNS worker failed: ${e.stack ?? e.message}`);
        reject(e);
      });
      w.on('exit', (code) => {
        if (current === w) current = undefined;
        reject(new Error(`cluster DNS worker exited (code ${code}) before it was ready`));
        if (stopped || !bound.length) return; // stopping, or the first start failed (ready rejects)
        if (up && Date.now() - started >= RESTART_RESET_MS) failures = 0;
        const delay = failures === 0 ? 0 : Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** (failures - 1));
        failures++;
        log(`k1s: cluster DNS worker exited (code ${code}); restarting${delay ? ` in ${delay} ms` : ''}`);
        restartTimer = setTimeout(restart, delay);
      });
    });

  const restart = (): void => {
    restartTimer = undefined;
    if (stopped) return;
    restarts++;
    spawn(bound).catch((e) => {
      // an 'exit' follows a failed start and schedules the next attempt; a worker that could not even be
      // created has no exit: try again from here
      log(`k1s: cluster DNS worker restart: ${(e as Error).message}`);
      if (!current && !stopped && !restartTimer) {
        failures++;
        restartTimer = setTimeout(restart, Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** failures));
      }
    });
  };

  /** Resolves once the worker has applied everything posted before (messages are handled in order). */
  const sync = (): Promise<void> =>
    new Promise((resolve) => {
      const id = nextPing++;
      pings.set(id, resolve);
      send({ t: 'ping', id });
    });

  const ready = (async () => {
    await Promise.all([spawn(opts.listen), ...Object.values(sources).map((inf) => inf?.start())]);
    if (stopped) return;
    feed.flush(); // the synced state, also when the lists were empty
    await sync();
  })();
  ready.catch(() => undefined); // the caller sees the failure through `ready`; not an unhandled rejection

  return {
    ready,
    addresses: () => bound.map((b) => ({ ...b })),
    worker: () => current,
    restarts: () => restarts,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (restartTimer) clearTimeout(restartTimer);
      feed.close();
      for (const done of pings.values()) done();
      pings.clear();
      const w = current;
      if (w) {
        const exited = new Promise<void>((res) => w.once('exit', () => res()));
        const closed = new Promise<void>((res) => w.on('message', (m: FromWorker) => m.t === 'stopped' && res()));
        w.postMessage({ t: 'stop' } satisfies ToWorker);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, exited, new Promise<void>((res) => (timer = setTimeout(res, STOP_TIMEOUT_MS)))]);
        clearTimeout(timer);
        await w.terminate();
      }
      current = undefined;
      ownFactory?.stop();
    },
  };
}
