// Client helpers for the ingress tests: HTTP(S) requests with a chosen Host / SNI name, a raw Upgrade exchange.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { KObject } from '../../../../src/api/types.js';
import type { Client } from '../../../../src/client/types.js';

export interface Reply {
  status: number;
  body: string;
  json?: { backend: string; url: string; headers: Record<string, string> };
  cert?: tls.PeerCertificate;
}

export function get(port: number, host: string, path: string, opts: { https?: boolean; headers?: Record<string, string>; agent?: http.Agent } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const mod = opts.https ? https : http;
    const req = mod.request(
      {
        host: '127.0.0.1',
        port,
        path,
        headers: { host, ...opts.headers },
        agent: opts.agent ?? false,
        ...(opts.https ? { servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          let json: Reply['json'];
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          const cert = opts.https ? (res.socket as tls.TLSSocket).getPeerCertificate?.() : undefined;
          resolve({ status: res.statusCode ?? 0, body, json, cert });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Sends an Upgrade request, then `payload`; resolves with the response head and the first echoed bytes. */
export function upgrade(port: number, host: string, path: string, payload: string): Promise<{ head: string; echo: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port });
    let buf = '';
    let head = '';
    const t = setTimeout(() => {
      s.destroy();
      reject(new Error(`upgrade timed out; got ${JSON.stringify(buf)}`));
    }, 3000);
    s.on('error', reject);
    s.on('connect', () => s.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`));
    s.on('data', (d) => {
      buf += d;
      if (!head) {
        const i = buf.indexOf('\r\n\r\n');
        if (i < 0) return;
        head = buf.slice(0, i);
        buf = buf.slice(i + 4);
        if (!head.startsWith('HTTP/1.1 101')) {
          clearTimeout(t);
          s.destroy();
          resolve({ head, echo: '' });
          return;
        }
        s.write(payload);
      }
      if (buf.length >= payload.length) {
        clearTimeout(t);
        s.destroy();
        resolve({ head, echo: buf });
      }
    });
  });
}

export interface PathSpec {
  path: string;
  pathType?: string;
  service: string;
  port: number | string;
}

export function ingress(name: string, rules: { host?: string; paths: PathSpec[] }[], extra: { className?: string; tls?: { hosts?: string[]; secretName: string }[] } = {}): KObject {
  const backend = (p: PathSpec) => ({ service: { name: p.service, port: typeof p.port === 'number' ? { number: p.port } : { name: p.port } } });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: 'default' },
    spec: {
      ...(extra.className ? { ingressClassName: extra.className } : {}),
      ...(extra.tls ? { tls: extra.tls } : {}),
      rules: rules.map((r) => ({ ...(r.host ? { host: r.host } : {}), http: { paths: r.paths.map((p) => ({ path: p.path, pathType: p.pathType ?? 'Prefix', backend: backend(p) })) } })),
    },
  } as KObject;
}

export function tlsSecret(name: string, certPem: string, keyPem: string): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'default' },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(certPem).toString('base64'), 'tls.key': Buffer.from(keyPem).toString('base64') },
  } as KObject;
}

export async function createIngress(client: Client, obj: KObject): Promise<KObject> {
  return client.resource('networking.k8s.io/v1', 'ingresses').create('default', obj);
}
