// Proxying an HTTP/1.1 Upgrade (SPDY/3.1 or WebSocket) byte for byte, as UpgradeAwareHandler does: the request is
// re-sent to the backend with a new path and Host, and from then on both directions are piped unchanged, the
// backend's own response (101 Switching Protocols, or an error) included. Used by the API server toward the kubelet
// and by the kubelet toward the runtime's streaming server; it depends on nothing else of k1s.
import type { IncomingMessage } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Writes a complete HTTP/1.1 response on a socket that was handed over by the 'upgrade' event, and closes it. */
export function writeRawResponse(socket: Duplex, code: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  if (socket.destroyed) return;
  const b = Buffer.from(body);
  socket.end(
    `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}\r\nContent-Type: ${contentType}\r\nContent-Length: ${b.length}\r\nConnection: close\r\n\r\n` +
      b.toString('latin1'),
    'latin1',
  );
}

/** Connects to an http:// or https:// URL's host and port; TLS options apply to https. */
export function dialUrl(url: URL, tls: ConnectionOptions = {}, timeoutMs = 10_000): Promise<Socket> {
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (secure ? 443 : 80));
  return new Promise((resolve, reject) => {
    const sock: Socket = secure ? tlsConnect({ ...tls, host, port, servername: undefined }) : netConnect({ host, port });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`dial ${url.host}: timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const ready = () => {
      clearTimeout(timer);
      sock.off('error', fail);
      resolve(sock);
    };
    const fail = (e: Error) => {
      clearTimeout(timer);
      reject(e);
    };
    sock.once(secure ? 'secureConnect' : 'connect', ready);
    sock.once('error', fail);
  });
}

// hop-by-hop or credential headers that must not reach the backend (the upgrade pair is re-added explicitly)
const dropped = new Set(['host', 'authorization', 'proxy-authorization', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding']);

export interface ProxyUpgradeOptions {
  /** the client's socket from the 'upgrade' event */
  client: Duplex;
  /** bytes the client sent after the request head */
  head: Buffer;
  req: IncomingMessage;
  backend: Duplex;
  /** path and query on the backend */
  path: string;
  /** Host header for the backend */
  host: string;
  /** extra headers for the backend (e.g. X-Remote-User); a list is sent as one header line per value */
  headers?: Record<string, string | string[]>;
}

/** Sends the request head to the backend and pipes both ways until either side closes. */
export function proxyUpgrade(o: ProxyUpgradeOptions): void {
  const lines = [`${o.req.method ?? 'GET'} ${o.path} HTTP/1.1`, `Host: ${o.host}`];
  const raw = o.req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!dropped.has(raw[i].toLowerCase())) lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  for (const [k, v] of Object.entries(o.headers ?? {})) for (const x of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${x}`);
  o.backend.write(lines.join('\r\n') + '\r\n\r\n', 'latin1');
  if (o.head.length) o.backend.write(o.head);
  pipeBoth(o.client, o.backend);
}

/** Pipes a↔b; an end or error on either side ends the other, so no half-dead connection is left behind. */
export function pipeBoth(a: Duplex, b: Duplex): void {
  const setNoDelay = (s: Duplex) => (s as Socket).setNoDelay?.(true);
  setNoDelay(a);
  setNoDelay(b);
  a.pipe(b);
  b.pipe(a);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    a.destroy();
    b.destroy();
  };
  for (const s of [a, b]) {
    s.on('error', close);
    s.on('close', close);
  }
}
