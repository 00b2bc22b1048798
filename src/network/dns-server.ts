// The cluster DNS server: UDP and TCP listeners (RFC 7766 framing, several queries per connection, answered as they
// complete) in front of the cluster records and the forwarder. `ready` resolves once every listener is bound, the
// informers have listed and the upstreams are known, so a node can hand out this server in pods' resolv.conf only
// when it answers.
import dgram from 'node:dgram';
import net from 'node:net';
import { InformerFactory } from '../client/informer.js';
import type { Client } from '../client/types.js';
import { ClusterDnsRecords, type PodMode } from './dns-records.js';
import { DnsForwarder, type Upstream } from './dns-forward.js';
import { DnsHandler } from './dns-handler.js';

export interface ListenAddress {
  address: string;
  /** 0 picks a free port (the same one for UDP and TCP) */
  port: number;
}

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
  stop(): Promise<void>;
}

export function startClusterDNS(opts: ClusterDNSOptions): ClusterDNS {
  if (!opts.client && !opts.informers) throw new Error('startClusterDNS: pass a client or informers');
  const ownFactory = opts.informers ? undefined : new InformerFactory(opts.client!, opts.log);
  const factory = opts.informers ?? ownFactory!;
  const podMode = opts.podMode ?? 'insecure';
  const sources = {
    services: factory.informer('v1', 'services'),
    endpointSlices: factory.informer('discovery.k8s.io/v1', 'endpointslices'),
    namespaces: factory.informer('v1', 'namespaces'),
    pods: podMode === 'verified' ? factory.informer('v1', 'pods') : undefined,
  };
  const bound: ListenAddress[] = [];
  const wildcard = (a: string) => a === '0.0.0.0' || a === '::';
  const records = new ClusterDnsRecords(sources, {
    clusterDomain: opts.clusterDomain ?? 'cluster.local',
    ttl: opts.ttl,
    podMode,
    nameserverIPs: opts.nameserverIPs ?? opts.listen.map((l) => l.address).filter((a) => !wildcard(a)),
  });
  const forwarder = new DnsForwarder({
    upstreams: opts.upstreams,
    resolvConf: opts.resolvConf,
    systemdResolvConf: opts.systemdResolvConf,
    self: bound,
    timeoutMs: opts.forwardTimeoutMs,
    log: opts.log,
  });
  const handler = new DnsHandler({ records, forwarder });
  const udpSockets: dgram.Socket[] = [];
  const tcpServers: net.Server[] = [];
  const connections = new Set<net.Socket>();
  let stopped = false;

  const onUdp = (sock: dgram.Socket) => (msg: Buffer, rinfo: dgram.RemoteInfo) => {
    handler.handle(msg, 'udp').then(
      (reply) => {
        if (reply && !stopped) sock.send(reply, rinfo.port, rinfo.address);
      },
      (e) => opts.log?.(`k1s: cluster DNS: ${(e as Error).message}`),
    );
  };

  const onTcp = (conn: net.Socket) => {
    if (stopped) return conn.destroy();
    connections.add(conn);
    conn.setTimeout(opts.tcpIdleMs ?? 10_000, () => conn.destroy());
    conn.on('close', () => connections.delete(conn));
    conn.on('error', () => conn.destroy());
    let buf = Buffer.alloc(0);
    conn.on('data', (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + msg.length);
        handler.handle(msg, 'tcp').then(
          (reply) => {
            if (!reply || conn.destroyed) return;
            const len = Buffer.alloc(2);
            len.writeUInt16BE(reply.length);
            conn.write(Buffer.concat([len, reply]));
          },
          () => conn.destroy(),
        );
      }
    });
  };

  const bindOne = async (l: ListenAddress): Promise<void> => {
    const family = net.isIP(l.address) === 6 ? 'udp6' : 'udp4';
    // with port 0 the TCP listener must get the UDP port; another process may hold it for TCP: try again
    for (let attempt = 0; ; attempt++) {
      const udp = dgram.createSocket({ type: family, ipv6Only: family === 'udp6' });
      udp.on('error', (e) => opts.log?.(`k1s: cluster DNS udp ${l.address}: ${e.message}`));
      await new Promise<void>((res, rej) => {
        udp.once('error', rej);
        udp.bind(l.port, l.address, () => {
          udp.off('error', rej);
          res();
        });
      });
      const port = udp.address().port;
      const tcp = net.createServer(onTcp);
      try {
        await new Promise<void>((res, rej) => {
          tcp.once('error', rej);
          tcp.listen({ port, host: l.address, ipv6Only: family === 'udp6' }, () => {
            tcp.off('error', rej);
            res();
          });
        });
      } catch (e) {
        udp.close();
        if (l.port !== 0 || attempt >= 5) throw e;
        continue;
      }
      if (stopped) {
        // stop() came while binding: do not leave listeners behind
        udp.close();
        tcp.close();
        return;
      }
      udp.on('message', onUdp(udp));
      udpSockets.push(udp);
      tcpServers.push(tcp);
      bound.push({ address: l.address, port });
      return;
    }
  };

  const ready = (async () => {
    for (const l of opts.listen) await bindOne(l);
    await forwarder.start();
    await Promise.all(Object.values(sources).map((inf) => inf?.start()));
  })();
  ready.catch(() => undefined); // the caller sees the failure through `ready`; not an unhandled rejection

  return {
    ready,
    addresses: () => bound.map((b) => ({ ...b })),
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const s of udpSockets) s.close();
      for (const c of connections) c.destroy();
      await Promise.all(tcpServers.map((s) => new Promise<void>((res) => s.close(() => res()))));
      forwarder.close();
      ownFactory?.stop();
    },
  };
}
