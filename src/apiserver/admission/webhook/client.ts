// Calling one admission webhook over HTTPS, as kube-apiserver's webhook ClientManager (k8s.io/apiserver/pkg/util/webhook)
// and client-go's rest client do, down to the texts of their errors: users and their tooling match on those texts.
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Agent, request, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import { connect, type TLSSocket } from 'node:tls';
import { WebhookCallError, jsonKind } from './review.js';
import { goJsonSyntaxError } from '../../../machinery/go-json.js';
import { goQuote } from '../../../machinery/errors.js';
import type { ServiceReference, Webhook } from './types.js';

export { WebhookCallError };

/** kube reads a webhook's answer whole; k1s refuses one larger than its own request-body limit (3 MiB). */
export const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;
const MAX_AGENTS = 200; // the size of kube's ClientManager LRU
const ERROR_TEXT_BYTES = 2048; // client-go's maxUnstructuredResponseTextBytes
const IDLE_MS = 90_000; // client-go's IdleConnTimeout

export interface PostOptions {
  timeoutMs: number;
  resolveService: (ref: ServiceReference) => Promise<{ host: string; port: number }>;
}

/** An error whose message already is Go's text (made while dialing, before Node's own errors could take over). */
class GoError extends Error {}

/** One call, as the agent's connection factory sees it. */
interface Call {
  done: boolean;
  sockets: Set<TLSSocket>;
  serverName: string;
  resolve?: () => Promise<{ host: string; port: number }>;
}
const CALL = Symbol('k1s.webhookCall');

interface Target {
  host: string;
  port: number;
  /** host[:port] as the URL shows it */
  authority: string;
  path: string;
  serverName: string;
  resolve?: () => Promise<{ host: string; port: number }>;
}

interface Answer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

// The agent hands a connection over only once it is verified, so no byte of a review reaches a server that fails
// the checks, and the checks run in Go's order (validity, then name, then chain), which decides the error text.
class HookAgent extends Agent {
  constructor(private readonly trust: string | undefined) {
    super({ keepAlive: true, timeout: IDLE_MS });
  }

  override createConnection(options: RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): undefined {
    const call = (options as Record<symbol, Call>)[CALL]!;
    dial(call, String(options.host), Number(options.port), this.trust).then(
      (s) => callback!(null, s),
      (e: Error) => callback!(e, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

/** Clients for the webhooks in force: one keep-alive agent per (caBundle, server name). */
export class WebhookClients {
  private readonly agents = new Map<string, HookAgent>();

  /** Drops every cached agent and its connections (the configurations changed). */
  clear(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  /** POSTs body to the webhook and returns the JSON it answered, or throws WebhookCallError. */
  async post(hook: Webhook, body: unknown, opts: PostOptions): Promise<unknown> {
    const t = target(hook, opts);
    const agent = this.agentFor(hook.clientConfig.caBundle, t.serverName);
    // kube rounds the time left up to whole seconds for the ?timeout= it sends
    const query = opts.timeoutMs > 0 ? `?timeout=${goSeconds(Math.ceil(opts.timeoutMs / 1000))}` : '';
    const url = `https://${t.authority}${t.path}${query}`;
    const answer = await exchange(agent, t, t.path + query, Buffer.from(JSON.stringify(body)), opts.timeoutMs, url);
    return decode(answer);
  }

  private agentFor(caBundle: string | undefined, serverName: string): HookAgent {
    const key = `${caBundle ?? ''}\n${serverName}`;
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key); // most recently used last
    } else {
      agent = new HookAgent(caBundle ? loadCa(caBundle) : undefined);
      // the evicted agent is only forgotten: calls in flight finish, its idle sockets time out
      if (this.agents.size >= MAX_AGENTS) this.agents.delete(this.agents.keys().next().value!);
    }
    this.agents.set(key, agent);
    return agent;
  }
}

function target(hook: Webhook, opts: PostOptions): Target {
  const cc = hook.clientConfig;
  if (cc.service) {
    const svc = cc.service;
    const port = svc.port || 443;
    const serverName = `${svc.name}.${svc.namespace}.svc`;
    return { host: serverName, port, authority: `${serverName}:${port}`, path: goPath(svc.path ?? ''), serverName, resolve: () => opts.resolveService(svc) };
  }
  const noClient = (reason: string) => new WebhookCallError(`could not get REST client: failed calling webhook ${goQuote(hook.name)}: ${reason}`);
  if (!cc.url) throw noClient('webhook configuration must have either service or URL');
  let u: URL;
  try {
    u = new URL(cc.url);
  } catch {
    throw noClient(`Unparsable URL: parse ${goQuote(cc.url)}: invalid URL`);
  }
  const hostname = u.hostname.replace(/^\[(.*)\]$/, '$1');
  // Go prints the host as written (Node's URL would drop a default :443)
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(cc.url)?.[1] ?? u.host;
  return { host: hostname, port: u.port ? Number(u.port) : 443, authority, path: goPath(u.pathname), serverName: hostname };
}

/** client-go's path.Join("/", apiPath): cleaned, no trailing slash. */
function goPath(p: string): string {
  const clean = posix.normalize(`/${p}`);
  return clean.length > 1 ? clean.replace(/\/+$/, '') : clean;
}

/** Go's time.Duration.String for whole seconds. */
function goSeconds(s: number): string {
  if (s < 60) return `${s}s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h > 0 ? `${h}h` : ''}${m}m${s % 60}s`;
}

/** The CA bundle as client-go's rootCertPool takes it, failing with createErrorParsingCAData's texts. */
function loadCa(b64: string): string {
  const pem = Buffer.from(b64, 'base64').toString('latin1');
  const blocks = [...pem.matchAll(/-----BEGIN ([^\r\n-]+)-----[\s\S]*?-----END \1-----/g)];
  const certs = blocks.filter((b) => b[1] === 'CERTIFICATE').map((b) => b[0]);
  const valid = certs.filter((c) => {
    try {
      return new X509Certificate(c) !== undefined;
    } catch {
      return false;
    }
  });
  if (valid.length > 0) return valid.join('\n');
  const why = blocks.length === 0 ? 'unable to parse bytes as PEM block' : certs.length > 0 ? 'failed to parse certificate: x509: malformed certificate' : 'no valid certificate authority data seen';
  throw new WebhookCallError(`could not get REST client: unable to load root certificates: ${why}`);
}

async function dial(call: Call, host: string, port: number, trust: string | undefined): Promise<TLSSocket> {
  if (call.resolve) {
    try {
      ({ host, port } = await call.resolve());
    } catch (e) {
      throw new GoError(e instanceof Error ? e.message : String(e));
    }
  }
  if (call.done) throw new GoError('context deadline exceeded');
  const addr = hostPort(host, port);
  return new Promise((resolve, reject) => {
    const sock = connect({
      host,
      port,
      ...(trust ? { ca: trust } : {}),
      ...(isIP(call.serverName) ? {} : { servername: call.serverName }),
      rejectUnauthorized: false, // verified below, in Go's order
      checkServerIdentity: () => undefined,
      ALPNProtocols: ['http/1.1'], // kube forces HTTP/1.1 so calls spread over a service's endpoints
    });
    call.sockets.add(sock);
    sock.once('secureConnect', () => {
      const problem = verifyPeer(sock, call.serverName);
      if (!problem) return resolve(sock);
      sock.destroy();
      reject(new GoError(`tls: failed to verify certificate: ${problem}`));
    });
    sock.on('error', (e) => reject(new GoError(dialText(e, addr, host, sock))));
    sock.once('close', () => reject(new GoError('EOF')));
  });
}

const hostPort = (host: string, port: number | string) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d+Z$/, 'Z');
const canonicalIp = (ip: string) => (isIP(ip) === 6 ? new URL(`http://[${ip}]`).hostname.slice(1, -1) : ip);

/** crypto/x509's Certificate.Verify order and texts: the leaf's validity, the host name, the chain. */
function verifyPeer(sock: TLSSocket, name: string): string | undefined {
  const cert = sock.getPeerX509Certificate();
  if (!cert) return 'x509: certificate signed by unknown authority';
  const now = new Date();
  const from = new Date(cert.validFrom);
  const to = new Date(cert.validTo);
  const invalid = 'x509: certificate has expired or is not yet valid';
  if (now < from) return `${invalid}: current time ${rfc3339(now)} is before ${rfc3339(from)}`;
  if (now > to) return `${invalid}: current time ${rfc3339(now)} is after ${rfc3339(to)}`;
  const wrongName = hostnameError(cert, name);
  if (wrongName) return wrongName;
  if (sock.authorized) return undefined;
  const code = String(sock.authorizationError ?? '');
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return invalid;
  if (code === 'INVALID_PURPOSE') return 'x509: certificate specifies an incompatible key usage';
  return 'x509: certificate signed by unknown authority';
}

function matchHost(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, '').split('.');
  const h = host.toLowerCase().replace(/\.$/, '').split('.');
  return p.length === h.length && p.every((part, i) => (i === 0 && part === '*') || part === h[i]);
}

/** VerifyHostname and HostnameError.Error() of crypto/x509. */
function hostnameError(cert: X509Certificate, host: string): string | undefined {
  const sans = (cert.subjectAltName ?? '').split(', ').filter(Boolean);
  const dns = sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4));
  const ips = sans.filter((s) => s.startsWith('IP Address:')).map((s) => canonicalIp(s.slice(11)));
  const ip = isIP(host) ? canonicalIp(host) : undefined;
  if (ip ? ips.includes(ip) : dns.some((p) => matchHost(p, host))) return undefined;
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
  if (cert.subjectAltName === undefined && cn !== undefined && matchHost(cn, host)) return 'x509: certificate relies on legacy Common Name field, use SANs instead';
  if (ip) {
    if (ips.length === 0) return `x509: cannot validate certificate for ${ip} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.join(', ')}, not ${ip}`;
  }
  if (dns.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${dns.join(', ')}, not ${host}`;
}

/** A dial or handshake failure as Go's net and crypto/tls print it. */
function dialText(err: Error, addr: string, host: string, sock: TLSSocket): string {
  const e = ((err as unknown as { errors?: Error[] }).errors?.[0] ?? err) as NodeJS.ErrnoException & { address?: string; port?: number };
  const at = e.address && e.port ? hostPort(e.address, e.port) : addr;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${at}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${at}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${at}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `dial tcp ${at}: connect: connection timed out`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${host}: no such host`;
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${host}: server misbehaving`;
    case 'ECONNRESET':
      return /before secure TLS/.test(e.message) ? 'EOF' : resetText(sock, addr);
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'ERR_SSL_PACKET_LENGTH_TOO_LONG':
      return 'http: server gave HTTP response to HTTPS client';
  }
  const alert = /^ERR_SSL_(?:SSLV3|TLSV1)_ALERT_(.+)$/.exec(e.code ?? '');
  return alert ? `remote error: tls: ${alert[1]!.toLowerCase().replace(/_/g, ' ')}` : e.message;
}

function resetText(sock: { localAddress?: string; localPort?: number } | null | undefined, addr: string): string {
  const local = sock?.localAddress && sock.localPort ? `${hostPort(sock.localAddress, sock.localPort)}->` : '';
  return `read tcp ${local}${addr}: read: connection reset by peer`;
}

/** One request and its whole answer; the deadline covers the service lookup, the dial, the headers and the body. */
function exchange(agent: HookAgent, t: Target, path: string, payload: Buffer, timeoutMs: number, url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const call: Call = { done: false, sockets: new Set(), serverName: t.serverName, ...(t.resolve ? { resolve: t.resolve } : {}) };
    let reading = false; // past the headers: client-go's transformResponse words read failures
    const finish = (err: Error | undefined, answer?: Answer) => {
      if (call.done) return;
      call.done = true;
      clearTimeout(timer);
      if (!err) return resolve(answer!);
      req.destroy();
      for (const s of call.sockets) s.destroy();
      reject(err);
    };
    const failPost = (inner: string) => finish(new WebhookCallError(`failed to call webhook: Post ${goQuote(url)}: ${inner}`));
    const failRead = (inner: string) =>
      finish(new WebhookCallError(`failed to call webhook: unexpected error when reading response body. Please retry. Original error: ${inner}`));
    const tooLarge = () => finish(new WebhookCallError(`failed to call webhook: response body too large: limit is ${MAX_RESPONSE_BYTES} bytes`));
    const timer = timeoutMs > 0 ? setTimeout(() => (reading ? failRead : failPost)('context deadline exceeded'), timeoutMs) : undefined;
    let req = send();
    function send() {
      const r = request({
        host: t.host,
        port: t.port,
        path,
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'User-Agent': 'kube-apiserver-admission', 'Content-Length': payload.length },
        [CALL]: call,
      } as RequestOptions);
      r.on('error', (e: NodeJS.ErrnoException) => {
        if (reading) return failRead('unexpected EOF');
        if (e instanceof GoError) return failPost(e.message);
        // a kept-alive connection the server had closed: Go's transport sends the request again on a new one
        if (r.reusedSocket && e.code === 'ECONNRESET' && !call.done) return void (req = send());
        if (e.code === 'ECONNRESET') return failPost(e.message === 'socket hang up' ? 'EOF' : resetText(r.socket, hostPort(t.host, t.port)));
        failPost(e.message);
      });
      r.on('response', onResponse);
      r.end(payload);
      return r;
    }
    function onResponse(res: IncomingMessage) {
      reading = true;
      if (Number(res.headers['content-length']) > MAX_RESPONSE_BYTES) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) tooLarge();
        else chunks.push(c);
      });
      res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, contentType: res.headers['content-type'], body: Buffer.concat(chunks) }));
      res.on('error', () => failRead('unexpected EOF'));
      res.on('close', () => {
        if (!res.complete) failRead('unexpected EOF');
      });
    }
  });
}

// client-go's meta.Interpret decodes the answer into this first, whatever its content type
const FIND_KIND = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** client-go's transformResponse and Result.Into: the answer as JSON, or its error. */
function decode(a: Answer): unknown {
  const fail = (inner: string) => new WebhookCallError(`failed to call webhook: ${inner}`);
  const asObject = (): Record<string, unknown> | undefined => {
    try {
      const v: unknown = JSON.parse(a.body.toString());
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  if (a.status < 200 || a.status > 206) {
    // a Status with status Failure in the body is preferred over the generic text (Result.Error)
    const st = asObject();
    if (st?.kind === 'Status' && st.status === 'Failure') throw fail(typeof st.message === 'string' ? st.message : '');
    const media = (a.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const text = !a.contentType || media.startsWith('text/') ? a.body.subarray(0, ERROR_TEXT_BYTES).toString().trim() : 'unknown';
    throw fail(genericServerResponse(a.status, text));
  }
  if (a.body.length === 0) throw fail(`0-length response with status code: ${a.status} and content type: ${a.contentType || 'application/json'}`);
  let value: unknown;
  try {
    value = JSON.parse(a.body.toString());
  } catch (e) {
    throw fail(`couldn't get version/kind; json parse error: ${goJsonSyntaxError(a.body) ?? (e as Error).message}`);
  }
  if (value !== null && (typeof value !== 'object' || Array.isArray(value))) {
    throw fail(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(value)} into Go value of type ${FIND_KIND}`);
  }
  const o = (value ?? {}) as Record<string, unknown>;
  for (const f of ['apiVersion', 'kind']) {
    if (o[f] != null && typeof o[f] !== 'string') throw fail(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(o[f])} into Go struct field .${f} of type string`);
  }
  if (typeof o.apiVersion === 'string' && o.apiVersion.split('/').length > 2) throw fail(`unexpected GroupVersion string: ${o.apiVersion}`);
  // Status is an unversioned kind: it decodes under any apiVersion, and anything but Success is an error
  if (o.kind === 'Status' && o.status !== 'Success') throw fail(typeof o.message === 'string' ? o.message : '');
  return o;
}

/** apimachinery's NewGenericServerResponse for a POST without a resource. */
function genericServerResponse(code: number, serverMessage: string): string {
  const fixed: Record<number, string> = {
    409: 'the server reported a conflict',
    404: 'the server could not find the requested resource',
    400: 'the server rejected our request for an unknown reason',
    401: 'the server has asked for the client to provide credentials',
    405: 'the server does not allow this method on the requested resource',
    422: 'the server rejected our request due to an error in our request',
    503: 'the server is currently unable to handle the request',
    504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
    429: 'the server has received too many requests and has asked us to try again later',
  };
  if (fixed[code]) return fixed[code];
  if (code === 403 || code === 415) return serverMessage;
  if (code === 406) return serverMessage === '' || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage;
  if (code >= 500) return `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}
