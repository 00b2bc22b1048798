// Proxying requests for a remote APIService's group version to its extension API server (kube-aggregator's
// proxyHandler with apimachinery's UpgradeAwareHandler): the authenticated user goes along as request headers,
// the client's credentials and identity headers do not; bodies and responses stream both ways (watches stay
// open, chunk by chunk), upgrade requests (exec-style) are piped once the backend answers. An APIService that
// is not Available answers 503 "service unavailable", as kube does.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { request } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import { isAvailable, type APIService } from '../../api/apiregistration/index.js';
import type { UserInfo } from '../context.js';
import type { Registry } from '../registry/registry.js';
import { proxyUpgrade, writeRawResponse } from '../streams/upgrade-proxy.js';
import type { APIServiceCache } from './apiservice-cache.js';
import { authProxyHeaders, goNetError, isIdentityHeader, tlsOptions, type ProxyClientCert } from './backend.js';
import { authority, resolveService } from './service-resolver.js';

// hop-by-hop headers (RFC 7230) and the client's own credentials stay here
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization']);

/** Go's http.Error: the text and a newline, as text/plain. */
function httpError(res: ServerResponse, code: number, text: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(`${text}\n`);
}

/** The path and query sent on: the same path, the query re-encoded with sorted keys (Go's url.Values.Encode). */
function backendPath(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  params.sort();
  const s = params.toString();
  return s ? `${url.slice(0, q)}?${s}` : url.slice(0, q);
}

function forwardedHeaders(req: IncomingMessage, user: UserInfo, host: string): OutgoingHttpHeaders {
  const h: OutgoingHttpHeaders = {};
  const connectionTokens = new Set(String(req.headers.connection ?? '').toLowerCase().split(',').map((t) => t.trim()));
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || HOP.has(k) || connectionTokens.has(k) || isIdentityHeader(k)) continue;
    h[k] = v;
  }
  const prior = req.headers['x-forwarded-for'];
  const client = req.socket.remoteAddress ?? '';
  h['x-forwarded-for'] = prior ? `${prior}, ${client}` : client;
  h.host = host;
  return { ...h, ...authProxyHeaders(user) };
}

export class AggregatorProxy {
  constructor(
    private readonly registry: Registry,
    private readonly cache: APIServiceCache,
    private readonly clientCert: ProxyClientCert | undefined,
    /** told when a backend cannot be reached, so its availability is checked again */
    private readonly onBackendFailure: (apiService: string) => void = () => {},
  ) {}

  /** The remote APIService a request path belongs to: /apis/<group>/<version> and everything below it. */
  match(url: string): APIService | undefined {
    const m = /^\/apis\/([^/?]+)\/([^/?]+)(?:[/?]|$)/.exec(url);
    return m ? this.cache.remote(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!)) : undefined;
  }

  async serve(req: IncomingMessage, res: ServerResponse, o: APIService, user: UserInfo): Promise<void> {
    if (!isAvailable(o)) return httpError(res, 503, 'service unavailable');
    const r = await resolveService(this.registry, o.spec!.service!).catch(() => undefined);
    if (!r?.ok) return httpError(res, 503, 'service unavailable');
    const name = o.metadata.name ?? '';
    const backend = request({
      ...tlsOptions(o, this.clientCert),
      host: r.host,
      port: r.port,
      method: req.method,
      path: backendPath(req.url ?? '/'),
      headers: forwardedHeaders(req, user, authority(r.host, r.port)),
      agent: false,
    });
    backend.on('response', (bres) => {
      const headers = { ...bres.headers };
      for (const k of ['connection', 'keep-alive', 'transfer-encoding']) delete headers[k];
      res.writeHead(bres.statusCode ?? 502, headers);
      res.flushHeaders();
      bres.pipe(res);
      bres.on('error', () => res.destroy());
    });
    backend.on('error', (e) => {
      this.onBackendFailure(name);
      httpError(res, 503, `error trying to reach service: ${goNetError(e, r.host, r.port)}`);
    });
    // a client going away ends the backend request (a watch, a long list)
    res.on('close', () => backend.destroy());
    req.pipe(backend);
  }

  /** An upgrade (Connection: Upgrade) for the APIService: the backend's answer and the stream after it are piped. */
  async serveUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, o: APIService, user: UserInfo): Promise<void> {
    const fail = (code: number, text: string) => writeRawResponse(socket, code, `${text}\n`);
    if (!isAvailable(o)) return fail(503, 'service unavailable');
    const r = await resolveService(this.registry, o.spec!.service!).catch(() => undefined);
    if (!r?.ok) return fail(503, 'service unavailable');
    const tls = tlsOptions(o, this.clientCert);
    const backend = connect({ ...(tls as object), host: r.host, port: r.port, ALPNProtocols: ['http/1.1'] });
    backend.once('error', (e) => {
      this.onBackendFailure(o.metadata.name ?? '');
      fail(503, `error trying to reach service: ${goNetError(e, r.host, r.port)}`);
    });
    backend.once('secureConnect', () => {
      const headers = authProxyHeaders(user);
      proxyUpgrade({ client: socket, head, req: withoutIdentity(req), backend, path: backendPath(req.url ?? '/'), host: authority(r.host, r.port), headers });
    });
  }
}

/** The request with the client's identity headers removed, for the raw upgrade head. */
function withoutIdentity(req: IncomingMessage): IncomingMessage {
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (!isIdentityHeader(req.rawHeaders[i]!)) raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  return Object.assign(Object.create(req) as IncomingMessage, { rawHeaders: raw });
}
