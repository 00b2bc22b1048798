// The kubelet's HTTPS API (pkg/kubelet/server): /containerLogs, /exec, /attach and /portForward. Clients must present
// a certificate signed by the cluster CA (anonymous requests get 401). /stats/summary and /metrics/resource serve
// CPU and memory from a KubeletStatsSource (kubelet/stats/provider.ts), what metrics-server scrapes; /metrics/cadvisor
// cAdvisor's container families from the same samples, /metrics the kubelet's own. Logs are read from the CRI log files here;
// exec/attach/port-forward ask the runtime for a streaming URL (CRI Exec/Attach/PortForward) and proxy the upgraded
// connection to it byte for byte.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Container, Pod } from '../api/core/pod/types.js';
import { authenticatedPeer } from '../pki/client-auth.js';
import { createServingCert, type CertKeyPem } from '../pki/certs.js';
import { logOptions, readLogs, type LogQuery } from './logs/container-logs.js';
import { dialUrl, proxyUpgrade, writeRawResponse } from '../apiserver/streams/upgrade-proxy.js';
import type { KubeletStatsSource } from './stats/provider.js';
import { RESOURCE_METRICS_CONTENT_TYPE } from './stats/resource-metrics.js';
import { KubeletMetrics } from './stats/kubelet-metrics.js';
import { forbiddenMessage, kubeletAttributes, type KubeletAuthorizer } from './server-auth.js';

export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** An expected failure of the runtime, as the kubelet reports it (streaming.WriteError: gRPC code → HTTP status). */
export interface StreamFailure {
  code: number;
  message: string;
}

/** What the kubelet server needs from the kubelet and its runtime. */
export interface KubeletStreams {
  /** the pod bound to this node, with the kubelet's latest status (status manager, else the API's) */
  getPod(namespace: string, name: string): Pod | undefined;
  /** the log file of a container instance by its status containerID ("containerd://<id>") */
  containerLogPath(containerId: string): Promise<string | undefined>;
  /** CRI ContainerStatus state == RUNNING */
  isContainerRunning(containerId: string): Promise<boolean>;
  /** CRI Exec: the URL of the runtime's streaming server for this session */
  exec(pod: Pod, container: string, cmd: string[], opts: StreamOptions): Promise<string | StreamFailure>;
  /** CRI Attach */
  attach(pod: Pod, container: string, opts: StreamOptions): Promise<string | StreamFailure>;
  /** CRI PortForward */
  portForward(pod: Pod, ports: number[]): Promise<string | StreamFailure>;
}

export interface KubeletServerOptions {
  streams: KubeletStreams;
  /** serving certificate (see issueKubeletServingCert) and the CA client certificates must chain to */
  tls: { certPem: string; keyPem: string; caPem: string };
  /** /stats/summary and /metrics/resource (404 without) */
  stats?: KubeletStatsSource;
  /** authorization of authenticated clients (SubjectAccessReviews); none: any CA-signed client may do anything */
  authorize?: KubeletAuthorizer;
  log?: (line: string) => void;
}

/** A kubelet serving certificate from the cluster CA for the node's name and addresses. */
export function issueKubeletServingCert(ca: CertKeyPem, node: { name: string; ips: string[] }): Promise<CertKeyPem> {
  return createServingCert(ca, { commonName: `${node.name}@kubelet`, hostnames: [node.name, 'localhost'], ips: [...new Set([...node.ips, '127.0.0.1'])] });
}

type Failure = { code: number; message: string };

function allContainers(pod: Pod): Container[] {
  const s = pod.spec ?? {};
  return [...(s.initContainers ?? []), ...(s.containers ?? []), ...(s.ephemeralContainers ?? [])];
}

interface StatusLike {
  name?: string;
  containerID?: string;
  state?: { waiting?: { reason?: string }; running?: unknown; terminated?: { containerID?: string } };
  lastState?: { terminated?: { containerID?: string } };
}

/**
 * validateContainerLogStatus: which instance's logs to read (previous → the last terminated one; else the running,
 * else the terminated one), or the kubelet's sentence for why there is none.
 */
export function containerLogStatus(pod: Pod, container: string, previous: boolean): { containerId: string } | Failure {
  const podName = pod.metadata.name ?? '';
  const st = pod.status as { containerStatuses?: StatusLike[]; initContainerStatuses?: StatusLike[]; ephemeralContainerStatuses?: StatusLike[] } | undefined;
  const cs = [...(st?.containerStatuses ?? []), ...(st?.initContainerStatuses ?? []), ...(st?.ephemeralContainerStatuses ?? [])].find((c) => c.name === container);
  const bad = (message: string): Failure => ({ code: 400, message });
  if (!cs) return bad(`container "${container}" in pod "${podName}" is not available`);
  const last = cs.lastState?.terminated;
  const { waiting, running, terminated } = cs.state ?? {};
  if (previous) {
    if (!last?.containerID) return bad(`previous terminated container "${container}" in pod "${podName}" not found`);
    return { containerId: last.containerID };
  }
  if (running) return { containerId: cs.containerID ?? '' };
  if (terminated) {
    if (terminated.containerID) return { containerId: terminated.containerID };
    if (last?.containerID) return { containerId: last.containerID };
    return bad(`container "${container}" in pod "${podName}" is terminated`);
  }
  if (last) {
    if (!last.containerID) return bad(`container "${container}" in pod "${podName}" is terminated`);
    return { containerId: last.containerID };
  }
  if (waiting) {
    const reason = waiting.reason ?? '';
    if (reason === 'ErrImagePull') return bad(`container "${container}" in pod "${podName}" is waiting to start: image can't be pulled`);
    if (reason === 'ImagePullBackOff') return bad(`container "${container}" in pod "${podName}" is waiting to start: trying and failing to pull image`);
    return bad(`container "${container}" in pod "${podName}" is waiting to start: ${reason}`);
  }
  return bad(`container "${container}" in pod "${podName}" is not available`);
}

/** ValidatePodLogOptions, as the kubelet words it (422 "invalid request: [...]"). */
export function parseLogQuery(q: URLSearchParams): LogQuery | Failure {
  const errs: string[] = [];
  const int = (name: string): number | undefined => {
    const v = q.get(name);
    if (v === null || v === '') return undefined;
    if (!/^-?\d+$/.test(v)) errs.push(`${name}: Invalid value: "${v}": must be an integer`);
    return Number(v);
  };
  const bool = (name: string) => q.get(name) === 'true' || q.get(name) === '1';
  const out: LogQuery = {
    follow: bool('follow'),
    previous: bool('previous'),
    timestamps: bool('timestamps'),
    tailLines: int('tailLines'),
    limitBytes: int('limitBytes'),
    sinceSeconds: int('sinceSeconds'),
    sinceTime: q.get('sinceTime') || undefined,
  };
  if (out.tailLines != null && out.tailLines < 0) errs.push('tailLines: Invalid value: ' + out.tailLines + ': must be greater than or equal to 0');
  if (out.limitBytes != null && out.limitBytes < 1) errs.push('limitBytes: Invalid value: ' + out.limitBytes + ': must be greater than 0');
  if (out.sinceSeconds != null && out.sinceTime) errs.push('sinceSeconds: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified');
  if (out.sinceSeconds != null && out.sinceSeconds < 1) errs.push('sinceSeconds: Invalid value: ' + out.sinceSeconds + ': must be greater than 0');
  if (out.sinceTime && Number.isNaN(Date.parse(out.sinceTime))) errs.push(`sinceTime: Invalid value: "${out.sinceTime}": must be RFC 3339`);
  if (errs.length) return { code: 422, message: `invalid request: ${errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`}` };
  return out;
}

/** remotecommand NewOptions: the kubelet's query names (input/output/error/tty = "1"); tty drops stderr. */
export function parseStreamOptions(q: URLSearchParams): StreamOptions | Failure {
  const on = (n: string) => q.get(n) === '1';
  const tty = on('tty');
  const opts = { stdin: on('input'), stdout: on('output'), stderr: on('error') && !tty, tty };
  if (!opts.stdin && !opts.stdout && !opts.stderr) return { code: 400, message: 'you must specify at least 1 of stdin, stdout, stderr' };
  return opts;
}

export class KubeletServer {
  private server: Server | undefined;
  /** streaming sessions: no longer tracked by the HTTP server, so close() ends them itself */
  private readonly upgraded = new Set<Socket>();

  private stats: KubeletStatsSource | undefined;
  /** /metrics: the kubelet's own families (built at the first scrape) */
  private readonly metrics = new KubeletMetrics(() => this.stats);

  constructor(private readonly opts: KubeletServerOptions) {
    this.stats = opts.stats;
  }

  /** Serves stats from `source` from now on (for a server built before its stats provider). */
  setStats(source: KubeletStatsSource): void {
    this.stats = source;
  }

  /** Serves another certificate from now on (a rotated or newly issued one); open connections carry on. */
  setTls(pem: { certPem: string; keyPem: string }): void {
    this.opts.tls = { ...this.opts.tls, ...pem };
    this.server?.setSecureContext({ key: pem.keyPem, cert: pem.certPem, ca: this.opts.tls.caPem });
  }

  /** Listens (port 0 = any free port) and resolves to the bound port. */
  async listen(port: number, host = '0.0.0.0'): Promise<number> {
    const server = createServer({
      key: this.opts.tls.keyPem,
      cert: this.opts.tls.certPem,
      ca: this.opts.tls.caPem,
      requestCert: true,
      rejectUnauthorized: false,
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((e) => {
        this.opts.log?.(`kubelet server: ${req.url}: ${String(e)}`);
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(String((e as Error)?.message ?? e));
      });
    });
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      this.upgraded.add(socket);
      socket.once('close', () => this.upgraded.delete(socket));
      this.upgrade(req, socket, head).catch((e) => {
        this.opts.log?.(`kubelet server: ${req.url}: ${String(e)}`);
        writeRawResponse(socket, 500, String((e as Error)?.message ?? e));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    for (const u of this.upgraded) u.destroy();
    await new Promise<void>((r) => s.close(() => r()));
  }

  private authorized(req: IncomingMessage): boolean {
    return authenticatedPeer(req.socket as TLSSocket) !== null;
  }

  /** kube's 403 text for an authenticated client the authorizer denies, or undefined */
  private async forbidden(req: IncomingMessage, path: string): Promise<string | undefined> {
    const peer = this.opts.authorize && authenticatedPeer(req.socket as TLSSocket);
    if (!peer) return undefined;
    const attrs = kubeletAttributes(req.method ?? 'GET', path);
    return (await this.opts.authorize!(peer, attrs)) ? undefined : forbiddenMessage(peer, attrs);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fail = (f: Failure) => {
      res.writeHead(f.code, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(f.message);
    };
    if (!this.authorized(req)) return fail({ code: 401, message: 'Unauthorized' });
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const denied = await this.forbidden(req, url.pathname);
    if (denied) return fail({ code: 403, message: denied });
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'containerLogs' && req.method === 'GET') return this.containerLogs(parts.slice(1), url.searchParams, req, res, fail);
    if (['exec', 'attach', 'portForward'].includes(parts[0] ?? '')) return fail({ code: 400, message: 'Upgrade request required' });
    const stats = this.stats;
    if (stats && req.method === 'GET' && url.pathname === '/stats/summary') {
      const body = JSON.stringify(await stats.summary());
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(body);
    }
    if (stats && req.method === 'GET' && url.pathname === '/metrics/resource') {
      const body = await stats.resourceMetrics();
      res.writeHead(200, { 'Content-Type': RESOURCE_METRICS_CONTENT_TYPE });
      return void res.end(body);
    }
    if (req.method === 'GET' && url.pathname === '/metrics') {
      const { contentType, body } = await this.metrics.render(req.headers.accept);
      res.writeHead(200, { 'Content-Type': contentType });
      return void res.end(body);
    }
    if (stats?.cadvisorMetrics && req.method === 'GET' && url.pathname === '/metrics/cadvisor') {
      const body = await stats.cadvisorMetrics();
      res.writeHead(200, { 'Content-Type': RESOURCE_METRICS_CONTENT_TYPE });
      return void res.end(body);
    }
    return fail({ code: 404, message: '404 page not found' });
  }

  private async containerLogs(parts: string[], q: URLSearchParams, req: IncomingMessage, res: ServerResponse, fail: (f: Failure) => void): Promise<void> {
    const [ns, podName, container] = parts;
    if (!podName) return fail({ code: 400, message: 'Missing podID.' });
    if (!container) return fail({ code: 400, message: 'Missing container name.' });
    const query = parseLogQuery(q);
    if ('code' in query) return fail(query);
    const pod = this.opts.streams.getPod(ns ?? '', podName);
    if (!pod) return fail({ code: 404, message: `pod "${podName}" does not exist\n` });
    if (!allContainers(pod).some((c) => c.name === container)) return fail({ code: 404, message: `container "${container}" not found in pod "${podName}"\n` });
    const which = containerLogStatus(pod, container, query.previous ?? false);
    if ('code' in which) return fail(which);
    const path = await this.opts.streams.containerLogPath(which.containerId);
    if (!path) return fail({ code: 400, message: `failed to get container status "${which.containerId}"` });
    const abort = new AbortController();
    req.on('close', () => abort.abort());
    res.on('close', () => abort.abort());
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    try {
      await readLogs(path, logOptions(query), {
        write: (_stream, data) => {
          if (res.destroyed) return false;
          return res.write(data) || new Promise<boolean>((r) => res.once('drain', () => r(!res.destroyed)));
        },
      }, { isRunning: () => this.opts.streams.isContainerRunning(which.containerId), signal: abort.signal });
    } catch (e) {
      // headers are sent: the error can only end the body (the kubelet logs it the same way)
      this.opts.log?.(`kubelet server: logs of ${ns}/${podName}/${container}: ${String(e)}`);
    }
    res.end();
  }

  private async upgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    if (!this.authorized(req)) return writeRawResponse(socket, 401, 'Unauthorized');
    const url = new URL(req.url ?? '/', 'https://kubelet');
    const denied = await this.forbidden(req, url.pathname);
    if (denied) return writeRawResponse(socket, 403, denied);
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const [kind, ns = '', podName = ''] = parts;
    // /exec/{ns}/{pod}/{container} or /exec/{ns}/{pod}/{uid}/{container}; /portForward/{ns}/{pod}[/{uid}]
    const pod = this.opts.streams.getPod(ns, podName);
    const uid = kind === 'portForward' ? parts[3] : parts.length > 4 ? parts[3] : undefined;
    if (!pod || (uid && pod.metadata.uid !== uid)) return writeRawResponse(socket, 404, 'pod does not exist');
    let target: string | StreamFailure;
    if (kind === 'exec' || kind === 'attach') {
      const container = parts[parts.length - 1] ?? '';
      const opts = parseStreamOptions(url.searchParams);
      if ('code' in opts) return writeRawResponse(socket, opts.code, opts.message);
      target = kind === 'exec'
        ? await this.opts.streams.exec(pod, container, url.searchParams.getAll('command'), opts)
        : await this.opts.streams.attach(pod, container, opts);
    } else if (kind === 'portForward') {
      const ports = (url.searchParams.getAll('port')).flatMap((p) => p.split(',')).filter(Boolean).map(Number);
      target = await this.opts.streams.portForward(pod, ports);
    } else {
      return writeRawResponse(socket, 404, '404 page not found');
    }
    if (typeof target !== 'string') return writeRawResponse(socket, target.code, target.message);
    const backend = new URL(target);
    const conn = await dialUrl(backend);
    proxyUpgrade({ client: socket, head, req, backend: conn, path: backend.pathname + backend.search, host: backend.host });
  }
}
