// One host listener of a LoadBalancer Service port: TCP connections and UDP datagrams relayed to a ready endpoint
// picked per connection (per client address for UDP). Listening failures (port in use) are values, not throws.
import dgram from 'node:dgram';
import net from 'node:net';
import type { Target } from './endpoints.js';

export type Protocol = 'TCP' | 'UDP';

export interface ListenerSpec {
  address: string;
  port: number;
  protocol: Protocol;
  /** the next endpoint for a new connection / UDP client, or undefined when the Service has none ready */
  pick: () => Target | undefined;
  /** idle time after which a UDP client's session is forgotten (default 30 s, as conntrack's UDP stream timeout is longer) */
  udpIdleMs?: number;
}

export interface PortListener {
  readonly spec: ListenerSpec;
  close(): Promise<void>;
}

export type ListenResult = { ok: true; listener: PortListener } | { ok: false; error: string };

/** Go's net error text for a failed listen, which is what a Kubernetes controller would print. */
function listenError(spec: ListenerSpec, e: NodeJS.ErrnoException): string {
  const proto = spec.protocol === 'TCP' ? 'tcp' : 'udp';
  const hostPort = net.isIPv6(spec.address) ? `[${spec.address}]:${spec.port}` : `${spec.address}:${spec.port}`;
  const why = e.code === 'EADDRINUSE' ? 'address already in use' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EADDRNOTAVAIL' ? 'cannot assign requested address' : e.message;
  return `listen ${proto} ${hostPort}: bind: ${why}`;
}

export function listen(spec: ListenerSpec): Promise<ListenResult> {
  return spec.protocol === 'UDP' ? listenUdp(spec) : listenTcp(spec);
}

function listenTcp(spec: ListenerSpec): Promise<ListenResult> {
  const conns = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const target = spec.pick();
    if (!target) {
      // no ready endpoint: refuse, as kube-proxy's REJECT rule does
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect({ host: target.host, port: target.port });
    conns.add(client).add(upstream);
    const done = () => {
      conns.delete(client);
      conns.delete(upstream);
    };
    client.once('close', done);
    upstream.once('close', done);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve) => {
    server.once('error', (e) => resolve({ ok: false, error: listenError(spec, e as NodeJS.ErrnoException) }));
    server.listen({ host: spec.address, port: spec.port, exclusive: true }, () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      resolve({
        ok: true,
        listener: {
          spec,
          close: () =>
            new Promise<void>((res) => {
              for (const c of conns) c.destroy();
              server.close(() => res());
            }),
        },
      });
    });
  });
}

interface UdpSession {
  socket: dgram.Socket;
  timer: NodeJS.Timeout;
}

function listenUdp(spec: ListenerSpec): Promise<ListenResult> {
  const type = net.isIPv6(spec.address) ? 'udp6' : 'udp4';
  const server = dgram.createSocket({ type, reuseAddr: false });
  const sessions = new Map<string, UdpSession>();
  const idle = spec.udpIdleMs ?? 30_000;
  const endSession = (key: string) => {
    const s = sessions.get(key);
    if (!s) return;
    sessions.delete(key);
    clearTimeout(s.timer);
    s.socket.close();
  };
  server.on('message', (msg, rinfo) => {
    const key = `${rinfo.address}|${rinfo.port}`;
    let s = sessions.get(key);
    if (!s) {
      const target = spec.pick();
      if (!target) return;
      const socket = dgram.createSocket(net.isIPv6(target.host) ? 'udp6' : 'udp4');
      socket.on('message', (reply) => {
        server.send(reply, rinfo.port, rinfo.address);
        const cur = sessions.get(key);
        cur?.timer.refresh();
      });
      socket.on('error', () => endSession(key));
      socket.connect(target.port, target.host);
      s = { socket, timer: setTimeout(() => endSession(key), idle) };
      s.timer.unref();
      sessions.set(key, s);
    }
    s.timer.refresh();
    const sock = s.socket;
    // a fresh socket is not connected yet: send once it is
    try {
      sock.send(msg);
    } catch {
      sock.once('connect', () => sock.send(msg));
    }
  });
  return new Promise((resolve) => {
    server.once('error', (e) => {
      server.close();
      resolve({ ok: false, error: listenError(spec, e as NodeJS.ErrnoException) });
    });
    server.bind({ address: spec.address, port: spec.port, exclusive: true }, () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      resolve({
        ok: true,
        listener: {
          spec,
          close: () =>
            new Promise<void>((res) => {
              for (const k of [...sessions.keys()]) endSession(k);
              server.close(() => res());
            }),
        },
      });
    });
  });
}
