// The HTTPS front: fastify with client-certificate authentication, Status errors, and the routes kube-apiserver
// serves (health, version, discovery, OpenAPI, resources, watch).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { DEFAULT_CIPHERS } from 'node:tls';
import type { Socket } from 'node:net';
import type FastifyFactory from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { YAML } from '../machinery/yaml.js';
import { goJsonBody, goJsonPretty } from '../machinery/go-json.js';
import { goParseBool } from './handlers/query-params.js';
import { errors, StatusError } from '../machinery/errors.js';
import type { UserInfo } from './context.js';
import { handleResource, type ApiRequest } from './handlers/rest.js';
import { HealthChecks } from './health.js';
import type { Registry } from './registry/registry.js';
import { parseRequestInfo, type RequestInfo } from './handlers/request-info.js';
import { serveWatch, type WatchStreamOptions } from './handlers/watch-stream.js';
import { registerDiscoveryRoutes } from './discovery/routes.js';
import { registerPodStreams } from './streams/pod-streams.js';
import type { KubeletClientTls } from './streams/kubelet-connection.js';
import type { Authorizer } from './auth/rbac-authorizer.js';
import { requestAttributes } from './auth/request-attributes.js';
import { forbiddenStatus } from '../api/rbac/rules.js';
import { jsonOf } from './registry/stored-json.js';
import type { Aggregator } from './aggregator/aggregator.js';
import { writeRawResponse } from './streams/upgrade-proxy.js';
import { auditIdOf, type Auditor } from './audit/auditor.js';
import { Authenticator } from './auth/authentication.js';
import { impersonate, internalErrorText } from './auth/impersonation.js';
import type { Metrics } from '../metrics/metrics.js';
import { recordRequest, requestKind } from './request-metrics.js';
import { registerMetricsRoute } from './metrics-route.js';

// require() rather than import: the ESM loader scans a CommonJS package for named exports first (~15 ms here).
const Fastify = createRequire(import.meta.url)('fastify') as typeof FastifyFactory;

export const maxBodyBytes = 3 * 1024 * 1024;

/**
 * Node's cipher list at OpenSSL security level 0. Small TLS 1.2 clients (busybox wget in pods, embedded devices)
 * send no signature_algorithms extension, so RFC 5246 has the server sign its key exchange with SHA-1, which OpenSSL
 * 3 forbids from level 1 on: such clients got alert 40. Go's TLS, and so kube-apiserver 1.33, allows it; TLS 1.2 stays
 * the minimum and the cipher list is unchanged.
 */
export const tlsCiphers = `${DEFAULT_CIPHERS}:@SECLEVEL=0`;

export interface ApiServerOptions {
  registry: Registry;
  tls: { key: string; cert: string; ca: string };
  health: HealthChecks;
  watch?: WatchStreamOptions;
  /** bearer-token authentication (service account tokens) */
  authenticateToken?: (token: string) => Promise<UserInfo | undefined>;
  /**
   * --anonymous-auth: requests without credentials run as system:anonymous (system:unauthenticated) and are
   * authorized like any other; off (the default here, for servers built without an authorizer): they get 401
   */
  anonymousAuth?: boolean;
  version: Record<string, string>;
  /** the kubelet-client certificate for pods/log, exec, attach, portforward (issueKubeletClientCert) */
  kubeletClient?: KubeletClientTls;
  /** authorization of authenticated requests (RBAC); none: every authenticated request is allowed */
  authorizer?: Authorizer;
  /** the aggregation layer: requests for remote APIServices' group versions are proxied, discovery merged */
  aggregator?: Aggregator;
  /** audit logging (--audit-policy-file); none: no events, and nothing on the request path but the Audit-Id header */
  audit?: Auditor;
  /** /metrics and the recording of every request; none: no /metrics (404) and nothing recorded */
  metrics?: Metrics;
}

/**
 * Go's http.Server reads at most MaxHeaderBytes (1 MiB) plus 4 KiB of request head: kubectl's large tokens and
 * long Impersonate-Group lists fit, as with kube; node's own default is 16 KiB.
 */
export const maxHeaderBytes = (1 << 20) + 4096;

declare module 'fastify' {
  interface FastifyRequest {
    k1sUser?: UserInfo;
    /** the request's path, query and RequestInfo, parsed once (by authorization, else by the resource handler) */
    k1sInfo?: ParsedRequest;
    /** performance.now() when the request came in (recorded requests only) */
    k1sStart?: number;
    /** counted in apiserver_current_inflight_requests (not long-running) */
    k1sInflight?: 'readOnly' | 'mutating';
  }
}

interface ParsedRequest {
  query: URLSearchParams;
  info: RequestInfo;
}

function parseRequest(method: string, url: string): ParsedRequest {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  return { query, info: parseRequestInfo(method, path, query) };
}

export function sendStatus(reply: FastifyReply, e: StatusError): FastifyReply {
  return json(reply, e.toStatus(), e.code);
}

/**
 * Whether the answer is indented, as kube's content negotiation decides: `?pretty` (strconv.ParseBool, bad values are
 * false), else the user agents of browsers and command-line HTTP tools.
 */
function isPretty(req: FastifyRequest): boolean {
  const q = req.url.indexOf('?');
  if (q >= 0 && req.url.includes('pretty', q)) {
    const v = new URLSearchParams(req.url.slice(q + 1)).get('pretty');
    if (v) return goParseBool(v) ?? false;
  }
  const ua = req.headers['user-agent'] ?? '';
  return ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0');
}

function toStatusError(e: unknown): StatusError {
  if (e instanceof StatusError) return e;
  const fe = e as { code?: string; statusCode?: number; message?: string };
  if (fe?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.tooLarge(`Request entity too large: limit is ${maxBodyBytes}`);
  if (fe?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`);
  }
  if (fe?.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return errors.badRequest(fe.message ?? 'bad request');
  return errors.internal(fe?.message ?? String(e));
}

/**
 * Fastify's default schema compilers (ajv, fast-json-stringify: ~70 ms of module loading), built only when a
 * route with a schema needs them; k1s routes have none, so start-up never loads them.
 */
function lazySchemaCompilers(): SchemaCompilers {
  const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
  let validator: ((...a: unknown[]) => unknown) | undefined;
  let serializer: ((...a: unknown[]) => unknown) | undefined;
  return {
    buildValidator: (...a: unknown[]) => (validator ??= fastifyRequire('@fastify/ajv-compiler')())(...a),
    buildSerializer: (...a: unknown[]) => (serializer ??= fastifyRequire('@fastify/fast-json-stringify-compiler')())(...a),
  } as SchemaCompilers;
}
type SchemaCompilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

export async function buildApiServer(opts: ApiServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    https: { key: opts.tls.key, cert: opts.tls.cert, ca: opts.tls.ca, requestCert: true, rejectUnauthorized: false, maxHeaderSize: maxHeaderBytes, ciphers: tlsCiphers } as never,
    clientErrorHandler: answerMalformedRequest,
    bodyLimit: maxBodyBytes,
    logger: false,
    schemaController: { compilersFactory: lazySchemaCompilers() },
    return503OnClosing: false,
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // a path the router cannot decode (`%zz`) is answered with a Status and Go's url error, not fastify's own JSON
    frameworkErrors: (err, req, reply) => {
      const bad = /%(?![0-9a-fA-F]{2})(.{0,2})/.exec(req.url);
      const msg = err.code === 'FST_ERR_BAD_URL' && bad ? `invalid URL escape ${JSON.stringify(bad[0])}` : err.message;
      void sendStatus(reply, errors.badRequest(msg));
    },
  });
  // node drops headers after the 2000th; Go keeps all that fit in the head's byte limit, and so does k1s
  app.server.maxHeadersCount = 0;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBodyBytes }, (_req, body, done) => done(null, body));

  app.setErrorHandler((err, req, reply) => {
    const se = toStatusError(err);
    if (se.code >= 500) console.error('k1s: request failed:', err);
    if (se.code >= 500 && !(err instanceof StatusError)) req.k1sAudit?.panicked(err);
    void sendStatus(reply, se);
  });
  app.setNotFoundHandler((_req, reply) => {
    void sendStatus(reply, new StatusError(404, 'NotFound', 'the server could not find the requested resource', {}));
  });

  const authenticator = new Authenticator({ authenticateToken: opts.authenticateToken, anonymous: opts.anonymousAuth ?? false });
  const audit = opts.audit;
  const metrics = opts.metrics?.apiserver;
  if (metrics) {
    app.addHook('onResponse', (req, reply, done) => {
      if (req.k1sInflight) metrics.finished(req.k1sInflight);
      const { info, query } = req.k1sInfo!;
      // a path nobody serves is not a series of its own
      const shown = info.isResourceRequest || reply.statusCode !== 404 ? info : { ...info, path: '' };
      recordRequest(metrics, req.method, shown, query, req.headers['content-type'], reply.statusCode, (performance.now() - req.k1sStart!) / 1000);
      done();
    });
  }
  // Callback style, not async: a client certificate is checked without a promise on every request.
  // kube's order: authentication, audit, impersonation, authorization, then the handler (or the aggregator's proxy).
  app.addHook('onRequest', (req, reply, done) => {
    if (metrics) {
      // first, so the latency covers authentication and authorization as kube's does
      req.k1sStart = performance.now();
      const { info } = (req.k1sInfo ??= parseRequest(req.method, req.url));
      if (info.verb !== 'watch') metrics.started((req.k1sInflight = requestKind(req.method, info)));
    }
    const auditID = auditIdOf(req);
    reply.raw.setHeader('Audit-Id', auditID);
    const admit = (requestor: UserInfo | undefined): void => {
      if (!requestor) {
        audit?.begin(req, reply, auditID, attributesOf(req), undefined);
        void sendStatus(reply, errors.unauthorized());
        return;
      }
      if (audit) audit.begin(req, reply, auditID, attributesOf(req), requestor);
      const as = impersonate(requestor, req.raw.rawHeaders, opts.authorizer);
      if (as && 'forbidden' in as) return void sendStatus(reply, as.forbidden);
      if (as && 'internalError' in as) return void sendInternalError(reply, internalErrorText(req.url, as.internalError));
      if (as) req.k1sImpersonator = requestor;
      const user = as ? as.user : requestor;
      req.k1sUser = user;
      if (opts.authorizer) {
        req.k1sInfo ??= parseRequest(req.method, req.url);
        const denied = authorize(opts.authorizer, user, req.method, req.k1sInfo, req);
        if (denied) return void sendStatus(reply, denied);
      } else req.k1sAudit?.authorized(true, '');
      // the aggregator sits in front of every other handler: a remote group version's requests are proxied as they come
      const remote = opts.aggregator?.proxy?.match(req.url);
      if (remote) {
        reply.hijack();
        const kind = req.k1sInflight;
        if (kind) reply.raw.once('close', () => metrics!.finished(kind));
        void opts.aggregator!.proxy!.serve(req.raw, reply.raw, remote, user);
        return;
      }
      done();
    };
    const user = authenticator.authenticate(req.raw);
    if (user instanceof Promise) user.then(admit).catch(done);
    else admit(user);
  });
  if (audit) {
    app.addHook('onSend', (req, reply, payload, done) => {
      req.k1sAudit?.sent(reply.statusCode, reply.getHeader('content-type') as string | undefined, payload);
      done(null, payload);
    });
  }

  // WriteRawJSON: /version is always indented, whatever the client asks
  const version = Buffer.from(goJsonPretty(opts.version));
  app.get('/version', async (_req, reply) => reply.code(200).header('content-type', 'application/json').send(version));
  opts.health.register(app);
  if (opts.metrics) registerMetricsRoute(app, opts.registry, opts.metrics);
  registerDiscoveryRoutes(app, opts.registry, opts.aggregator);
  registerPodStreams(app, {
    registry: opts.registry,
    kubeletClient: opts.kubeletClient,
    // an upgrade (exec, attach, port-forward, an aggregated API's) passes the same chain as any other request
    admit: async (req: IncomingMessage, socket: Socket) => {
      const requestor = await authenticator.authenticate(req);
      const url = req.url ?? '/';
      const method = req.method ?? 'GET';
      let denied: StatusError | undefined = requestor ? undefined : errors.unauthorized();
      let user = requestor;
      if (requestor) {
        const as = impersonate(requestor, req.rawHeaders, opts.authorizer);
        if (as && 'internalError' in as) {
          writeRawResponse(socket, 500, internalErrorText(url, as.internalError));
          return undefined;
        }
        if (as && 'forbidden' in as) denied = as.forbidden;
        else if (as) user = as.user;
      }
      if (!denied && opts.authorizer) denied = authorize(opts.authorizer, user!, method, parseRequest(method, url), undefined);
      if (denied) {
        writeRawResponse(socket, denied.code, goJsonBody(JSON.stringify(denied.toStatus())), 'application/json');
        return undefined;
      }
      return user;
    },
    otherUpgrade: async (req, socket, head, user) => {
      const remote = opts.aggregator?.proxy?.match(req.url ?? '');
      if (!remote) return false;
      await opts.aggregator!.proxy!.serveUpgrade(req, socket, head, remote, user);
      return true;
    },
  });

  const resource = async (req: FastifyRequest, reply: FastifyReply) => {
    const { info, query } = req.k1sInfo ?? parseRequest(req.method, req.url);
    if (!info.isResourceRequest) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
    const apiReq: ApiRequest = {
      info,
      query,
      headers: req.headers,
      body: Buffer.isBuffer(req.body) && !isBinary(req.headers['content-type']) ? req.body.toString('utf8') : undefined,
      rawBody: Buffer.isBuffer(req.body) ? req.body : undefined,
      user: req.k1sUser!,
      serializesResponse: true,
      respondsWithJson: true,
      onDecoded: req.k1sAudit?.decoded,
    };
    if (info.verb === 'watch') {
      reply.hijack();
      // a hijacked reply has no onResponse: the watch is recorded when its stream ends
      if (metrics) reply.raw.once('close', () => recordRequest(metrics, 'GET', info, query, undefined, reply.raw.statusCode, (performance.now() - req.k1sStart!) / 1000));
      try {
        await serveWatch(opts.registry, apiReq, reply.raw, opts.watch);
      } catch (e) {
        writeRawStatus(reply.raw, toStatusError(e));
      }
      return;
    }
    const res = await handleResource(opts.registry, apiReq);
    // one header per warning (a repeated reply.header() would keep only the last), duplicates once, as kube's recorder
    if (res.warnings.length) reply.header('warning', [...new Set(res.warnings)].map((w) => `299 - ${JSON.stringify(w)}`));
    const wire = res.wire ?? ((b: unknown) => b);
    if (res.output.kind === 'yaml') {
      // kube writes YAML from its JSON through a map, so every object's keys come sorted
      return reply.code(res.code).header('content-type', 'application/yaml').send(Buffer.from(YAML.stringify(opts.registry.order.sorted(wire(res.body)))));
    }
    const text = isPretty(req) ? goJsonPretty(wire(res.body)) : goJsonBody(jsonOf(res.body, wire));
    return reply.code(res.code).header('content-type', 'application/json').send(Buffer.from(text));
  };
  for (const prefix of ['/api/*', '/apis/*']) {
    app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: prefix, handler: resource });
  }
  return app;
}

/** the request's authorization attributes (what the audit policy matches too), parsing the request once */
function attributesOf(req: FastifyRequest) {
  return requestAttributes(req.method, (req.k1sInfo ??= parseRequest(req.method, req.url)).info);
}

/** The 403 for a request the authorizer denies, or undefined; the decision goes to the request's audit event. */
function authorize(authorizer: Authorizer, user: UserInfo, method: string, parsed: ParsedRequest, req: FastifyRequest | undefined): StatusError | undefined {
  const attrs = requestAttributes(method, parsed.info, parsed.query);
  const decision = authorizer.authorize(user, attrs);
  req?.k1sAudit?.authorized(decision.allowed, decision.reason);
  if (decision.allowed) return undefined;
  const { message, details } = forbiddenStatus(user.name, attrs, decision.reason);
  return new StatusError(403, 'Forbidden', message, details);
}

function isBinary(contentType: string | undefined): boolean {
  return (contentType ?? '').toLowerCase().startsWith('application/vnd.kubernetes.protobuf');
}

function json(reply: FastifyReply, body: unknown, code = 200): FastifyReply {
  const text = isPretty(reply.request) ? goJsonPretty(body) : goJsonBody(JSON.stringify(body));
  return reply.code(code).header('content-type', 'application/json').send(Buffer.from(text));
}

function writeRawStatus(res: ServerResponse, e: StatusError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(e.code, { 'Content-Type': 'application/json' });
  res.end(goJsonBody(JSON.stringify(e.toStatus())));
}

/** kube's responsewriters.InternalError: text, not a Status */
function sendInternalError(reply: FastifyReply, text: string): FastifyReply {
  return reply.code(500).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(text);
}

/**
 * A request node cannot parse, answered as Go's http.Server answers it: 431 for a head over the limit, else 400;
 * text, then the connection is closed (nothing of it reached a handler).
 */
function answerMalformedRequest(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = err.code === 'HPE_INVALID_HEADER_TOKEN' && /value/i.test(err.message) ? `${status}: invalid header value` : status;
  if (!socket.writable) return void socket.destroy();
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  // Go's closeWriteAndWait: a moment for the client to read the answer before the rest of its request is refused
  setTimeout(() => socket.destroy(), 500).unref();
}
