// The streaming pod subresources kube-apiserver proxies to the node's kubelet (pkg/registry/core/pod/rest/log.go,
// subresources.go and strategy.go's LogLocation/streamLocation): pods/log as a plain GET, pods/exec, pods/attach and
// pods/portforward as HTTP upgrades: SPDY/3.1 is piped byte for byte to the kubelet; WebSocket (kubectl ≥ 1.30)
// is translated to SPDY toward the kubelet (stream-translator.ts).
import { goParseBool } from '../handlers/query-params.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Container, Pod } from '../../api/core/pod/types.js';
import { errors, FieldError, StatusError } from '../../machinery/errors.js';
import { newContext, type UserInfo } from '../context.js';
import { kubeletEndpoint, KubeletConnection, type KubeletClientTls, type KubeletEndpoint } from './kubelet-connection.js';
import type { Registry } from '../registry/registry.js';
import { TUNNEL_PROTOCOL, translateToSpdy, websocketProtocol } from './stream-translator.js';
import { proxyUpgrade, writeRawResponse } from './upgrade-proxy.js';

export interface PodStreamsOptions {
  registry: Registry;
  /** the API server's kubelet-client certificate; without it the subresources answer 503 */
  kubeletClient?: KubeletClientTls;
  /**
   * authentication, impersonation and authorization of an upgrade request: the user it runs as, or undefined
   * when the request was answered (401, 403) on the socket
   */
  admit: (req: IncomingMessage, socket: Socket) => Promise<UserInfo | undefined>;
  /** upgrades for other paths (an aggregated API's): true when it took the connection */
  otherUpgrade?: (req: IncomingMessage, socket: Socket, head: Buffer, user: UserInfo) => Promise<boolean>;
}

type Verb = 'exec' | 'attach' | 'portforward';

/** validateContainer: the named container must exist (any kind); unnamed means the only regular container. */
export function resolveContainer(pod: Pod, container: string): string {
  const name = pod.metadata.name ?? '';
  const spec = pod.spec ?? {};
  const all: Container[] = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
  if (container) {
    if (!all.some((c) => c.name === container)) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
    return container;
  }
  const regular = spec.containers ?? [];
  if (regular.length === 1) return regular[0].name ?? '';
  if (regular.length === 0) throw errors.badRequest(`a container name must be specified for pod ${name}`);
  throw errors.badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.map((c) => c.name).join(' ')}]`);
}

/** Go's strconv.ParseBool, which the query parameter codec uses. */
function parseBool(v: string | null): boolean | undefined {
  if (v === null) return undefined;
  if (v === '') return false;
  const b = goParseBool(v);
  if (b !== undefined) return b;
  throw errors.badRequest(`strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

/** a stream flag that is set (`?stdin=1`, `=true`, …); bad values are refused by streamQuery */
function flagSet(q: URLSearchParams, name: string): boolean {
  return goParseBool(q.get(name) ?? '') === true;
}

function parseInt64(v: string | null, _field: string): number | undefined {
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

/** PodLogOptions from the query, checked by ValidatePodLogOptions; returns the kubelet's query string. */
export function podLogQuery(q: URLSearchParams, podName: string): { container: string; kubeletQuery: string } {
  const follow = parseBool(q.get('follow'));
  const previous = parseBool(q.get('previous'));
  const timestamps = parseBool(q.get('timestamps'));
  const tailLines = parseInt64(q.get('tailLines'), 'tailLines');
  const limitBytes = parseInt64(q.get('limitBytes'), 'limitBytes');
  const sinceSeconds = parseInt64(q.get('sinceSeconds'), 'sinceSeconds');
  const sinceTimeRaw = q.get('sinceTime');
  let sinceTime: string | undefined;
  if (sinceTimeRaw) {
    const t = Date.parse(sinceTimeRaw);
    if (Number.isNaN(t)) throw errors.badRequest(`parsing time ${JSON.stringify(sinceTimeRaw)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTimeRaw)} as "2006"`);
    sinceTime = new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  }
  const errs: FieldError[] = [];
  if (tailLines != null && tailLines < 0) errs.push(FieldError.invalid('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes != null && limitBytes < 1) errs.push(FieldError.invalid('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds != null && sinceTime) errs.push(FieldError.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (sinceSeconds != null && sinceSeconds < 1) errs.push(FieldError.invalid('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  if (errs.length) throw errors.invalid('PodLogOptions', '', podName, errs);
  const out = new URLSearchParams();
  if (follow) out.set('follow', 'true');
  if (previous) out.set('previous', 'true');
  if (timestamps) out.set('timestamps', 'true');
  if (sinceSeconds != null) out.set('sinceSeconds', String(sinceSeconds));
  if (sinceTime) out.set('sinceTime', sinceTime);
  if (tailLines != null) out.set('tailLines', String(tailLines));
  if (limitBytes != null) out.set('limitBytes', String(limitBytes));
  return { container: q.get('container') ?? '', kubeletQuery: out.toString() };
}

/** streamParams: PodExecOptions/PodAttachOptions/PodPortForwardOptions → the kubelet's query. */
/** `?ports=80,443&ports=8080` as a list */
function forwardedPorts(q: URLSearchParams): string[] {
  return q.getAll('ports').flatMap((p) => p.split(',')).filter(Boolean);
}

export function streamQuery(verb: Verb, q: URLSearchParams): string {
  const out = new URLSearchParams();
  if (verb === 'portforward') {
    const ports = forwardedPorts(q);
    for (const p of ports) {
      const n = Number(p);
      if (!/^\d+$/.test(p) || n < 1 || n > 65535) throw errors.badRequest(`invalid port ${JSON.stringify(p)}`);
    }
    if (ports.length) out.set('port', ports.join(','));
    return out.toString();
  }
  if (parseBool(q.get('stdin'))) out.append('input', '1');
  if (parseBool(q.get('stdout'))) out.append('output', '1');
  if (parseBool(q.get('stderr'))) out.append('error', '1');
  if (parseBool(q.get('tty'))) out.append('tty', '1');
  if (verb === 'exec') for (const c of q.getAll('command')) out.append('command', c);
  return out.toString();
}

/** GenericHttpResponseChecker: a kubelet error becomes the Status kubectl prints. */
export function kubeletError(code: number, body: string, podName: string): StatusError {
  if (code === 400) return errors.badRequest(body);
  if (code === 500) return errors.internal(body);
  const generic: Record<number, [StatusError['reason'], string]> = {
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', body],
    404: ['NotFound', 'the server could not find the requested resource'],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  };
  const [reason, msg] = generic[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  return new StatusError(code, reason, `${msg} ( pods/log ${podName})`, { name: podName, kind: 'pods/log' });
}

export class PodStreams {
  private readonly kubelet: KubeletConnection | undefined;

  constructor(private readonly opts: PodStreamsOptions) {
    this.kubelet = opts.kubeletClient ? new KubeletConnection(opts.kubeletClient) : undefined;
  }

  private async getPod(namespace: string, name: string): Promise<Pod> {
    return (await this.opts.registry.mustLookup('', 'v1', 'pods').get(namespace, name)) as Pod;
  }

  /** The kubelet of the pod's node, or the reason there is none. */
  private async endpointFor(pod: Pod): Promise<KubeletEndpoint> {
    if (!this.kubelet) throw errors.serviceUnavailable('the API server has no kubelet client credentials');
    const node = await this.opts.registry.mustLookup('', 'v1', 'nodes').get('', pod.spec?.nodeName ?? '');
    return kubeletEndpoint(node);
  }

  /** GET pods/{name}/log: validated here, then the kubelet's /containerLogs answer is streamed through. */
  async serveLog(namespace: string, name: string, query: URLSearchParams, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const { container: requested, kubeletQuery } = podLogQuery(query, name);
    const pod = await this.getPod(namespace, name);
    const container = resolveContainer(pod, requested);
    if (!pod.spec?.nodeName) {
      // LogLocation of an unscheduled pod is empty: an empty stream
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end();
      return;
    }
    const ep = await this.endpointFor(pod);
    const path = `/containerLogs/${enc(namespace)}/${enc(name)}/${enc(container)}${kubeletQuery ? `?${kubeletQuery}` : ''}`;
    const kres = await this.kubelet!.get(ep, path, signal);
    const code = kres.statusCode ?? 500;
    if (code < 200 || code > 206) {
      const chunks: Buffer[] = [];
      for await (const c of kres) chunks.push(c as Buffer);
      throw kubeletError(code, Buffer.concat(chunks).toString('utf8').slice(0, 4096), name);
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    kres.on('data', (c: Buffer) => {
      if (!res.write(c)) {
        kres.pause();
        res.once('drain', () => kres.resume());
      }
    });
    await new Promise<void>((resolve) => {
      kres.on('end', resolve);
      kres.on('error', () => resolve());
      kres.on('close', resolve);
    });
    res.end();
  }

  /** CONNECT admission (webhooks and policies) with the options object kube builds from the query. */
  private async admitConnect(user: UserInfo, namespace: string, name: string, verb: Verb, q: URLSearchParams): Promise<void> {
    const admission = this.opts.registry.connectAdmission;
    if (!admission.names().length) return;
    const kind = verb === 'exec' ? 'PodExecOptions' : verb === 'attach' ? 'PodAttachOptions' : 'PodPortForwardOptions';
    const object: Record<string, unknown> = { kind, apiVersion: 'v1' };
    if (verb === 'portforward') {
      const ports = forwardedPorts(q).map(Number);
      if (ports.length) object.ports = ports;
    } else {
      for (const f of ['stdin', 'stdout', 'stderr', 'tty'] as const) if (flagSet(q, f)) object[f] = true;
      if (q.get('container')) object.container = q.get('container');
      if (verb === 'exec') object.command = q.getAll('command');
    }
    await admission.admit({
      ctx: newContext(user), store: this.opts.registry.mustLookup('', 'v1', 'pods'), operation: 'CONNECT',
      object: object as never, namespace, subresource: verb, connect: { kind, name },
    });
  }

  /** An upgrade request on the API server: pods/exec, pods/attach, pods/portforward; anything else is refused. */
  async serveUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const fail = (e: StatusError) => writeRawResponse(socket, e.code, JSON.stringify(e.toStatus()), 'application/json');
    try {
      const user = await this.opts.admit(req, socket);
      if (!user) return;
      const url = new URL(req.url ?? '/', 'https://apiserver');
      const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)\/?$/.exec(url.pathname);
      if (!m && (await this.opts.otherUpgrade?.(req, socket, head, user))) return;
      if (!m || !['GET', 'POST'].includes(req.method ?? '')) {
        return fail(new StatusError(404, 'NotFound', 'the server could not find the requested resource', {}));
      }
      const [namespace, name, verb] = [decodeURIComponent(m[1]), decodeURIComponent(m[2]), m[3] as Verb];
      const isWebSocket = (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
      const wsProtocol = isWebSocket ? websocketProtocol(req, verb) : undefined;
      if (isWebSocket && !wsProtocol) {
        // a failed handshake makes kubectl retry over SPDY
        return fail(errors.badRequest(`unable to upgrade: none of the requested WebSocket subprotocols is supported for ${verb}`));
      }
      const pod = await this.getPod(namespace, name);
      await this.admitConnect(user, namespace, name, verb, url.searchParams);
      if (verb === 'portforward' && wsProtocol && wsProtocol !== TUNNEL_PROTOCOL && !forwardedPorts(url.searchParams).length) {
        // the kubelet's WebSocket port-forward refuses this with a plain-text 400, which kube passes on
        return writeRawResponse(socket, 400, 'query parameter "port" is required', 'text/plain; charset=utf-8');
      }
      let path: string;
      const query = streamQuery(verb, url.searchParams);
      if (verb === 'portforward') {
        if (!pod.spec?.nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
        path = `/portForward/${enc(namespace)}/${enc(name)}`;
      } else {
        const container = resolveContainer(pod, url.searchParams.get('container') ?? '');
        if (!pod.spec?.nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
        path = `/${verb}/${enc(namespace)}/${enc(name)}/${enc(container)}`;
      }
      const ep = await this.endpointFor(pod);
      const backend = await this.kubelet!.dial(ep);
      const target = { path: query ? `${path}?${query}` : path, host: `${ep.host}:${ep.port}` };
      if (!wsProtocol) return proxyUpgrade({ client: socket, head, req, backend, ...target });
      const q = url.searchParams;
      const streams = { stdin: flagSet(q, 'stdin'), stdout: flagSet(q, 'stdout'), stderr: flagSet(q, 'stderr'), tty: flagSet(q, 'tty') };
      const ports = forwardedPorts(q).map(Number);
      await translateToSpdy({ req, socket, head, verb, protocol: wsProtocol, kubelet: { socket: backend, ...target }, streams, ports });
    } catch (e) {
      fail(e instanceof StatusError ? e : errors.internal(String((e as Error)?.message ?? e)));
    }
  }
}

const enc = encodeURIComponent;

/** Adds pods/log to the fastify app and takes over its HTTP upgrades (exec, attach, portforward). */
export function registerPodStreams(app: FastifyInstance, opts: PodStreamsOptions): PodStreams {
  const streams = new PodStreams(opts);
  app.get('/api/v1/namespaces/:namespace/pods/:name/log', async (req: FastifyRequest, reply: FastifyReply) => {
    const { namespace, name } = req.params as { namespace: string; name: string };
    const query = new URLSearchParams(req.url.split(/\?(.*)/s)[1] ?? '');
    const abort = new AbortController();
    reply.raw.on('close', () => abort.abort());
    // validation and kubelet errors are thrown before anything is written, so fastify's error handler sends them
    const res = reply.raw;
    reply.hijack();
    try {
      await streams.serveLog(namespace, name, query, res, abort.signal);
    } catch (e) {
      const se = e instanceof StatusError ? e : errors.internal(String((e as Error)?.message ?? e));
      if (res.headersSent) res.end();
      else {
        res.writeHead(se.code, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(se.toStatus()));
      }
    }
  });
  // upgraded connections are no longer the HTTP server's: close them ourselves, or app.close() waits for them
  const upgraded = new Set<Socket>();
  app.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    void streams.serveUpgrade(req, socket, head);
  });
  app.addHook('preClose', (done) => {
    for (const s of upgraded) s.destroy();
    done();
  });
  return streams;
}
