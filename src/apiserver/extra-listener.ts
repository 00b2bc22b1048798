// One more address for the API server (e.g. the pod network's gateway, so pods reach the `kubernetes` Service):
// a plain TCP listener handing each connection to the API server's own TLS server, so TLS, client certificates,
// authentication and RBAC are exactly those of the main listener, and the peer address stays the real one.
import net from 'node:net';
import type { Server } from 'node:net';

export interface ExtraListener {
  address: string;
  port: number;
  close(): Promise<void>;
}

/** Listens on `host:port` (port 0: any free port) and feeds connections to `server` (an https/tls server). */
export function listenAlso(server: Server, opts: { host: string; port: number }): Promise<ExtraListener> {
  const sockets = new Set<net.Socket>();
  const extra = net.createServer({ pauseOnConnect: false }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // tls.Server wraps a raw socket emitted as 'connection' and runs its handshake on it
    server.emit('connection', socket);
  });
  return new Promise((resolve, reject) => {
    extra.once('error', reject);
    extra.listen({ host: opts.host, port: opts.port }, () => {
      extra.off('error', reject);
      const addr = extra.address() as net.AddressInfo;
      resolve({
        address: addr.address,
        port: addr.port,
        close: () =>
          new Promise<void>((done) => {
            extra.close(() => done());
            // watches and exec streams would hold close() open forever
            for (const s of sockets) s.destroy();
          }),
      });
    });
  });
}
