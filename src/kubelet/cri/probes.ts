// Probe handlers of a real node (pkg/kubelet/prober): exec through CRI ExecSync inside the container, httpGet and
// tcpSocket from the host against the pod IP (or probe.host), grpc through grpc.health.v1.Health/Check. Every
// handler has the probe's timeoutSeconds (default 1 s); a timeout is a failure.
import * as grpc from '@grpc/grpc-js';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Container, Handler } from '../../api/core/pod/types.js';
import { CriError, type CriClient } from '../../runtime/cri-client.js';

export interface ProbeOutcome {
  ok: boolean;
  /** what kube puts after "Liveness probe failed: " */
  output: string;
}

export interface ProbeTarget {
  cri: CriClient;
  /** CRI container id of the running instance */
  containerId: string;
  container: Container;
  /** the pod's first IP (the node's for hostNetwork pods) */
  podIP: string;
  timeoutSeconds: number;
}

/** A port by number or by the name of one of the container's ports. */
export function resolvePort(port: number | string | undefined, c: Container): number | undefined {
  if (typeof port === 'number') return port > 0 && port < 65536 ? port : undefined;
  if (port === undefined || port === '') return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  return c.ports?.find((p) => p.name === port)?.containerPort;
}

export async function execProbe(t: ProbeTarget, command: string[]): Promise<ProbeOutcome> {
  try {
    const r = await t.cri.execSync({ container_id: t.containerId, cmd: command, timeout: t.timeoutSeconds });
    const output = Buffer.concat([r.stdout ?? Buffer.alloc(0), r.stderr ?? Buffer.alloc(0)]).toString();
    return { ok: r.exit_code === 0, output: r.exit_code === 0 ? output : output || `command ${JSON.stringify(command.join(' '))} exited with ${r.exit_code}` };
  } catch (e) {
    const msg = e instanceof CriError ? e.details : (e as Error).message;
    if (/timeout|deadline/i.test(msg)) return { ok: false, output: `command ${JSON.stringify(command.join(' '))} timed out` };
    return { ok: false, output: msg };
  }
}

export function httpGetProbe(t: ProbeTarget, action: NonNullable<Handler['httpGet']>, userAgent = 'kube-probe/1.33'): Promise<ProbeOutcome> {
  const port = resolvePort(action.port, t.container);
  if (!port) return Promise.resolve({ ok: false, output: `invalid port ${JSON.stringify(action.port)}` });
  const scheme = (action.scheme ?? 'HTTP').toUpperCase();
  const host = action.host || t.podIP;
  let reqPath = action.path ?? '/';
  if (!reqPath.startsWith('/')) reqPath = `/${reqPath}`;
  const headers: Record<string, string> = { 'User-Agent': userAgent, Accept: '*/*' };
  for (const h of action.httpHeaders ?? []) if (h.name) headers[h.name] = h.value ?? '';
  const mod = scheme === 'HTTPS' ? https : http;
  const url = `${scheme.toLowerCase()}://${host.includes(':') ? `[${host}]` : host}:${port}${reqPath}`;
  return new Promise((resolve) => {
    const req = mod.get(url, { headers, timeout: t.timeoutSeconds * 1000, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        if (body.length < 10 * 1024) body += d;
      });
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 400) resolve({ ok: true, output: body });
        else resolve({ ok: false, output: `HTTP probe failed with statuscode: ${code}` });
      });
      res.on('error', (e) => resolve({ ok: false, output: e.message }));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve({ ok: false, output: `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
    });
    req.on('error', (e) => resolve({ ok: false, output: `Get "${url}": ${e.message}` }));
  });
}

export function tcpProbe(t: ProbeTarget, action: NonNullable<Handler['tcpSocket']>): Promise<ProbeOutcome> {
  const port = resolvePort(action.port, t.container);
  if (!port) return Promise.resolve({ ok: false, output: `invalid port ${JSON.stringify(action.port)}` });
  const host = action.host || t.podIP;
  return new Promise((resolve) => {
    const sock = net.connect({ host, port, timeout: t.timeoutSeconds * 1000 });
    sock.once('connect', () => {
      sock.destroy();
      resolve({ ok: true, output: '' });
    });
    sock.once('timeout', () => {
      sock.destroy();
      resolve({ ok: false, output: `dial tcp ${host}:${port}: i/o timeout` });
    });
    sock.once('error', (e) => resolve({ ok: false, output: `dial tcp ${host}:${port}: ${e.message}` }));
  });
}

/** grpc.health.v1.HealthCheckRequest { string service = 1; } */
function encodeHealthRequest(service: string): Buffer {
  const s = Buffer.from(service);
  if (!s.length) return Buffer.alloc(0);
  return Buffer.concat([Buffer.from([0x0a, s.length]), s]);
}

/** grpc.health.v1.HealthCheckResponse { ServingStatus status = 1; } → the status number (SERVING = 1). */
function decodeHealthResponse(b: Buffer): number {
  return b.length >= 2 && b[0] === 0x08 ? b[1] : 0;
}

export function grpcProbe(t: ProbeTarget, action: NonNullable<Handler['grpc']>): Promise<ProbeOutcome> {
  const port = action.port;
  const target = `${t.podIP.includes(':') ? `[${t.podIP}]` : t.podIP}:${port}`;
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  return new Promise<ProbeOutcome>((resolve) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      (s: string) => encodeHealthRequest(s),
      (b: Buffer) => decodeHealthResponse(b),
      action.service ?? '',
      new grpc.Metadata(),
      { deadline: Date.now() + t.timeoutSeconds * 1000 },
      (err, status) => {
        if (err) {
          const timeout = err.code === grpc.status.DEADLINE_EXCEEDED;
          resolve({ ok: false, output: timeout ? `timeout: health rpc did not complete within ${t.timeoutSeconds}s` : `error: health rpc probe failed: ${err.details || err.message}` });
        } else if (status === 1) resolve({ ok: true, output: '' });
        else resolve({ ok: false, output: `service unhealthy (responded with "${['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'][status ?? 0] ?? status}")` });
      },
    );
  }).finally(() => client.close());
}

/** Runs one probe (exec, httpGet, tcpSocket or grpc). */
export async function runProbe(t: ProbeTarget, handler: Handler): Promise<ProbeOutcome> {
  if (handler.exec) return execProbe(t, handler.exec.command ?? []);
  if (handler.httpGet) return httpGetProbe(t, handler.httpGet);
  if (handler.tcpSocket) return tcpProbe(t, handler.tcpSocket);
  if (handler.grpc) return grpcProbe(t, handler.grpc);
  return { ok: false, output: 'missing probe handler' };
}
