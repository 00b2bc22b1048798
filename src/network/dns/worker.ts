// The cluster DNS worker thread: it owns the DNS sockets and answers from its own copy of the records (mirror.ts),
// so an answer never waits for the main thread's event loop (API server, node agent, controllers). Names outside the
// cluster are forwarded from here too: the forwarder needs nothing of the main thread. The main thread
// (server.ts) starts it, feeds it the informers' changes and restarts it if it dies.
//
// Loaded as its own file: dist/src/network/dns/worker.js in the tsc build, dist/dns-worker.cjs (scripts/bundle.mjs)
// beside the single-file bundle and in the standalone executable (scripts/build-sea.mjs).
import { isMainThread, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { ClusterDnsRecords, type ClusterDnsSources, type DnsSourceKind, type PodMode } from './records.js';
import { DnsForwarder, type Upstream } from './forward.js';
import { DnsHandler } from './handler.js';
import { DnsListeners, type ListenAddress } from './listen.js';
import { DnsMirror, type FeedMessage } from './mirror.js';

export interface DnsWorkerConfig {
  k1sDnsWorker: true;
  listen: ListenAddress[];
  clusterDomain: string;
  ttl?: number;
  podMode: PodMode;
  nameserverIPs: string[];
  upstreams?: Upstream[];
  resolvConf?: string;
  systemdResolvConf?: string;
  forwardTimeoutMs?: number;
  tcpIdleMs?: number;
}

/** main thread → worker */
export type ToWorker = FeedMessage | { t: 'ping'; id: number } | { t: 'stop' };

/** worker → main thread */
export type FromWorker =
  | { t: 'ready'; bound: ListenAddress[] }
  | { t: 'fatal'; error: string; code?: string }
  | { t: 'log'; line: string }
  | { t: 'pong'; id: number }
  | { t: 'stopped' };

export async function runDnsWorker(cfg: DnsWorkerConfig, port: MessagePort): Promise<void> {
  const send = (m: FromWorker) => port.postMessage(m);
  const log = (line: string) => send({ t: 'log', line });
  const kinds: DnsSourceKind[] = ['services', 'endpointSlices', 'namespaces'];
  if (cfg.podMode === 'verified') kinds.push('pods');
  const mirror = new DnsMirror(kinds);
  const records = new ClusterDnsRecords(mirror.sources as ClusterDnsSources, {
    clusterDomain: cfg.clusterDomain,
    ttl: cfg.ttl,
    podMode: cfg.podMode,
    nameserverIPs: cfg.nameserverIPs,
  });
  const self: ListenAddress[] = [];
  const forwarder = new DnsForwarder({
    upstreams: cfg.upstreams,
    resolvConf: cfg.resolvConf,
    systemdResolvConf: cfg.systemdResolvConf,
    // filled in once the listeners are bound, before the forwarder reads its upstreams
    self,
    timeoutMs: cfg.forwardTimeoutMs,
    log,
  });
  const handler = new DnsHandler({ records, forwarder });
  const sockets = new DnsListeners(handler, { tcpIdleMs: cfg.tcpIdleMs, log });
  let stopping = false;
  // the feed is applied from the first message on: the records are complete by the time the main thread's ping
  // (which follows the snapshot) is answered
  port.on('message', (m: ToWorker) => {
    switch (m.t) {
      case 'snapshot':
      case 'changes':
        mirror.apply(m);
        return;
      case 'ping':
        send({ t: 'pong', id: m.id });
        return;
      case 'stop':
        if (stopping) return;
        stopping = true;
        forwarder.close();
        void sockets.close().then(() => {
          send({ t: 'stopped' });
          port.close();
        });
        return;
    }
  });
  try {
    await sockets.bind(cfg.listen);
    self.push(...sockets.bound);
    await forwarder.start();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    send({ t: 'fatal', error: err.message, code: err.code });
    forwarder.close();
    await sockets.close();
    port.close();
    return;
  }
  if (!stopping) send({ t: 'ready', bound: sockets.bound.map((b) => ({ ...b })) });
}

if (!isMainThread && parentPort && (workerData as Partial<DnsWorkerConfig> | null)?.k1sDnsWorker === true) {
  const port = parentPort;
  runDnsWorker(workerData as DnsWorkerConfig, port).catch((e) => {
    // thrown out of the thread: it ends, and the main thread logs it and starts another
    process.nextTick(() => {
      throw e;
    });
  });
}
