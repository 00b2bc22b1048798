// The cluster DNS server's sockets: UDP and TCP listeners (RFC 7766 framing, several queries per connection,
// answered as they complete) in front of a DnsHandler. They run in the DNS worker thread (worker.ts).
import dgram from 'node:dgram';
import net from 'node:net';
import type { DnsHandler } from './handler.js';

export interface ListenAddress {
  address: string;
  /** 0 picks a free port (the same one for UDP and TCP) */
  port: number;
}

export interface DnsListenerOptions {
  /** TCP connections idle this long are closed (default 10 s) */
  tcpIdleMs?: number;
  log?: (line: string) => void;
}

export class DnsListeners {
  /** the bound addresses (ports resolved) */
  readonly bound: ListenAddress[] = [];
  private readonly udpSockets: dgram.Socket[] = [];
  private readonly tcpServers: net.Server[] = [];
  private readonly connections = new Set<net.Socket>();
  private stopped = false;

  constructor(
    private readonly handler: DnsHandler,
    private readonly opts: DnsListenerOptions = {},
  ) {}

  /** Binds every address in turn; the first failure rejects (what is bound stays until close). */
  async bind(addresses: ListenAddress[]): Promise<void> {
    for (const l of addresses) await this.bindOne(l);
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const s of this.udpSockets) s.close();
    for (const c of this.connections) c.destroy();
    await Promise.all(this.tcpServers.map((s) => new Promise<void>((res) => s.close(() => res()))));
  }

  private onUdp(sock: dgram.Socket) {
    return (msg: Buffer, rinfo: dgram.RemoteInfo) => {
      this.handler.handle(msg, 'udp').then(
        (reply) => {
          if (reply && !this.stopped) sock.send(reply, rinfo.port, rinfo.address);
        },
        (e) => this.opts.log?.(`k1s: cluster DNS: ${(e as Error).message}`),
      );
    };
  }

  private readonly onTcp = (conn: net.Socket): void => {
    if (this.stopped) {
      conn.destroy();
      return;
    }
    this.connections.add(conn);
    conn.setTimeout(this.opts.tcpIdleMs ?? 10_000, () => conn.destroy());
    conn.on('close', () => this.connections.delete(conn));
    conn.on('error', () => conn.destroy());
    let buf = Buffer.alloc(0);
    conn.on('data', (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + msg.length);
        this.handler.handle(msg, 'tcp').then(
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

  private async bindOne(l: ListenAddress): Promise<void> {
    const family = net.isIP(l.address) === 6 ? 'udp6' : 'udp4';
    // with port 0 the TCP listener must get the UDP port; another process may hold it for TCP: try again
    for (let attempt = 0; ; attempt++) {
      const udp = dgram.createSocket({ type: family, ipv6Only: family === 'udp6' });
      udp.on('error', (e) => this.opts.log?.(`k1s: cluster DNS udp ${l.address}: ${e.message}`));
      await new Promise<void>((res, rej) => {
        udp.once('error', rej);
        udp.bind(l.port, l.address, () => {
          udp.off('error', rej);
          res();
        });
      });
      const port = udp.address().port;
      const tcp = net.createServer(this.onTcp);
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
      if (this.stopped) {
        // close() came while binding: do not leave listeners behind
        udp.close();
        tcp.close();
        return;
      }
      udp.on('message', this.onUdp(udp));
      this.udpSockets.push(udp);
      this.tcpServers.push(tcp);
      this.bound.push({ address: l.address, port });
      return;
    }
  }
}
