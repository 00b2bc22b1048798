// The HTTP side of the ingress controller: forwards a routed request to one endpoint with X-Forwarded-* headers over
// kept-alive connections, and passes Upgrade requests (WebSocket and others) through as raw byte streams.
// Error answers follow Traefik, k3s' ingress controller: 404 "404 page not found", 503 "no available server",
// 502 "Bad Gateway".
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Target } from '../service-lb/endpoints.js';

export type Resolution = { ok: true; target: Target } | { ok: false; status: 404 | 503 };

export interface ProxyOptions {
  /** routes a request (Host header and request target) to an endpoint */
  resolve(req: http.IncomingMessage): Resolution;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization']);
const ERROR_BODIES: Record<number, string> = { 404: '404 page not found\n', 502: 'Bad Gateway\n', 503: 'no available server\n' };

function clientIp(sock: net.Socket): string {
  const a = sock.remoteAddress ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

function isTls(sock: net.Socket): boolean {
  return (sock as net.Socket & { encrypted?: boolean }).encrypted === true;
}

/** The headers sent upstream: the client's minus hop-by-hop ones, plus X-Forwarded-For/Proto/Host/Port and X-Real-IP. */
export function forwardedHeaders(req: http.IncomingMessage, opts: { upgrade: boolean }): http.OutgoingHttpHeaders {
  const listed = new Set(
    String(req.headers.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || listed.has(k)) continue;
    out[k] = v;
  }
  const ip = clientIp(req.socket);
  const prior = req.headers['x-forwarded-for'];
  out['x-forwarded-for'] = prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${ip}` : ip;
  const proto = isTls(req.socket) ? 'https' : 'http';
  out['x-forwarded-proto'] = proto;
  if (req.headers.host) out['x-forwarded-host'] = req.headers.host;
  out['x-forwarded-port'] = String(req.socket.localPort ?? '');
  out['x-real-ip'] = ip;
  if (opts.upgrade) {
    out.connection = 'Upgrade';
    if (req.headers.upgrade) out.upgrade = req.headers.upgrade;
  }
  return out;
}

function sendError(res: http.ServerResponse, status: number): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = ERROR_BODIES[status] ?? `${http.STATUS_CODES[status]}\n`;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function rawError(socket: Duplex, status: number): void {
  const body = ERROR_BODIES[status] ?? `${http.STATUS_CODES[status]}\n`;
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

export interface IngressProxy {
  request(req: http.IncomingMessage, res: http.ServerResponse): void;
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  /** closes kept-alive upstream connections and open tunnels */
  close(): void;
}

export function createIngressProxy(opts: ProxyOptions): IngressProxy {
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 256 });
  const tunnels = new Set<Duplex>();

  function request(req: http.IncomingMessage, res: http.ServerResponse): void {
    const r = opts.resolve(req);
    if (!r.ok) {
      req.resume();
      sendError(res, r.status);
      return;
    }
    const up = http.request({
      host: r.target.host,
      port: r.target.port,
      method: req.method,
      path: req.url,
      headers: forwardedHeaders(req, { upgrade: false }),
      agent,
    });
    up.on('response', (ur) => {
      const headers: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(ur.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
      res.writeHead(ur.statusCode ?? 502, ur.statusMessage, headers);
      ur.pipe(res);
      ur.on('error', () => res.destroy());
    });
    up.on('error', () => sendError(res, 502));
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  }

  function upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const r = opts.resolve(req);
    if (!r.ok) {
      rawError(socket, r.status);
      return;
    }
    const upstream = net.connect({ host: r.target.host, port: r.target.port });
    tunnels.add(socket).add(upstream);
    const drop = () => {
      tunnels.delete(socket);
      tunnels.delete(upstream);
      socket.destroy();
      upstream.destroy();
    };
    let connected = false;
    upstream.on('error', () => (connected ? drop() : rawError(socket, 502)));
    socket.on('close', drop);
    upstream.on('close', () => {
      // before the connection, the 502 answer must be flushed rather than cut by a destroy
      if (connected) drop();
      else tunnels.delete(upstream);
    });
    upstream.on('connect', () => {
      connected = true;
      upstream.setNoDelay(true);
      const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
      for (const [k, v] of Object.entries(forwardedHeaders(req, { upgrade: true }))) {
        for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${one}`);
      }
      upstream.write(lines.join('\r\n') + '\r\n\r\n');
      if (head.length) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
  }

  return {
    request,
    upgrade,
    close() {
      agent.destroy();
      for (const t of tunnels) t.destroy();
      tunnels.clear();
    },
  };
}
