// The HTTPS client: the same Client interface as the in-process one, for the CLI and remote agents.
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { KObject } from '../api/types.js';
import type { DeleteOptions, ListParams, PatchType, WatchParams } from '../apiserver/context.js';
import { StatusError, type Status } from '../machinery/errors.js';
import { YAML } from '../machinery/yaml.js';
import type { ClientConfig } from './kubeconfig.js';
import type { Client, ClientWatchEvent, ObjectList, ResourceClient, WriteOptions } from './types.js';
import type { RestClientMetrics } from '../metrics/rest-client.js';

const patchTypes: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export class HttpClient implements Client {
  private readonly agent: Agent;

  constructor(
    private readonly config: ClientConfig,
    private readonly userAgent = 'k1s',
    /** rest_client_requests_total and rest_client_request_duration_seconds of this client's requests */
    private readonly metrics?: RestClientMetrics,
  ) {
    this.agent = new Agent({
      keepAlive: true,
      ca: config.caPem,
      cert: config.certPem,
      key: config.keyPem,
      rejectUnauthorized: !config.insecure,
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private send(method: string, path: string, body?: string, contentType = 'application/json'): Promise<IncomingMessage> {
    const url = new URL(path, this.config.server);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
      if (body !== undefined) {
        headers['content-type'] = contentType;
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      if (this.config.token) headers.authorization = `Bearer ${this.config.token}`;
      const t0 = this.metrics ? performance.now() : 0;
      const done = (code: number | '<error>') => this.metrics?.record(url.host, method, code, (performance.now() - t0) / 1000);
      const req = request(url, { method, agent: this.agent, headers }, (res) => {
        done(res.statusCode ?? 0);
        resolve(res);
      });
      req.on('error', (e) => {
        done('<error>');
        reject(e);
      });
      req.end(body);
    });
  }

  private async call(method: string, path: string, body?: string, contentType?: string): Promise<unknown> {
    const res = await this.send(method, path, body, contentType);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const parsed = text ? JSON.parse(text) : {};
    if ((res.statusCode ?? 500) >= 400) throw statusErrorOf(res.statusCode ?? 500, parsed);
    return parsed;
  }

  resource(apiVersion: string, plural: string): ResourceClient {
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const path = (ns: string, name = '', sub = '', q?: URLSearchParams) =>
      `${base}${ns ? `/namespaces/${encodeURIComponent(ns)}` : ''}/${plural}${name ? `/${encodeURIComponent(name)}` : ''}${sub ? `/${sub}` : ''}${q && [...q].length ? `?${q}` : ''}`;
    const wq = (o?: WriteOptions, extra: Record<string, string | undefined> = {}) => {
      const q = new URLSearchParams();
      if (o?.dryRun) q.set('dryRun', 'All');
      if (o?.fieldManager) q.set('fieldManager', o.fieldManager);
      if (o?.force !== undefined) q.set('force', String(o.force));
      for (const [k, v] of Object.entries(extra)) if (v !== undefined) q.set(k, v);
      return q;
    };
    const lq = (p: WatchParams = {}, watch = false) => {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(p)) if (v !== undefined) q.set(k, String(v));
      if (watch) q.set('watch', 'true');
      return q;
    };
    return {
      get: async (ns, name, o) => (await this.call('GET', path(ns, name, o?.subresource))) as KObject,
      list: async (ns, params?: ListParams) => (await this.call('GET', path(ns, '', '', lq(params)))) as ObjectList,
      create: async (ns, obj, o) =>
        (await this.call('POST', o?.subresource ? path(ns, obj.metadata.name, o.subresource, wq(o)) : path(ns, '', '', wq(o)), JSON.stringify(obj))) as KObject,
      update: async (ns, obj, o) => (await this.call('PUT', path(ns, obj.metadata.name, o?.subresource, wq(o)), JSON.stringify(obj))) as KObject,
      patch: async (ns, name, type, patch, o) =>
        (await this.call(
          'PATCH',
          path(ns, name, o?.subresource, wq(o, { fieldManager: o?.fieldManager ?? (type === 'apply' ? this.userAgent : undefined) })),
          type === 'apply' ? YAML.stringify(patch) : JSON.stringify(patch),
          patchTypes[type],
        )) as KObject,
      delete: async (ns, name, opts?: DeleteOptions) => {
        const res = (await this.call('DELETE', path(ns, name), JSON.stringify(opts ?? {}))) as KObject;
        return res.kind === 'Status' ? undefined : res.metadata?.deletionTimestamp ? res : undefined;
      },
      deleteCollection: async (ns, params, opts) => {
        await this.call('DELETE', path(ns, '', '', lq(params)), JSON.stringify(opts ?? {}));
      },
      watch: async (ns, params, onEvent: (ev: ClientWatchEvent) => void) => {
        const res = await this.send('GET', path(ns, '', '', lq(params, true)));
        if ((res.statusCode ?? 500) >= 400) {
          const chunks: Buffer[] = [];
          for await (const c of res) chunks.push(c as Buffer);
          throw statusErrorOf(res.statusCode ?? 500, JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'));
        }
        let buf = '';
        let stopped = false;
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buf += d;
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim() && !stopped) onEvent(JSON.parse(line) as ClientWatchEvent);
          }
        });
        // A watch the server ends is reported like a failed one, so informers relist; so is a connection that breaks
        // (a server restarting: 'close' without 'end'), once.
        let reported = false;
        const ended = (message: string) => {
          if (stopped || reported) return;
          reported = true;
          onEvent({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', metadata: {}, message } as unknown as KObject });
        };
        res.on('end', () => ended('watch closed by the server'));
        res.on('error', (e) => ended(`watch connection failed: ${e.message}`));
        res.on('close', () => ended('watch connection closed'));
        return {
          stop() {
            stopped = true;
            res.destroy();
          },
        };
      },
    };
  }
}

function statusErrorOf(code: number, body: unknown): StatusError {
  const st = body as Status;
  return new StatusError(st.code ?? code, (st.reason ?? 'Unknown') as never, st.message ?? `HTTP ${code}`, st.details);
}
