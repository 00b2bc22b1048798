// Talking to an extension API server: the TLS settings of an APIService (its caBundle, or none verified with
// insecureSkipTLSVerify; server name <service>.<namespace>.svc) with the front-proxy client certificate, the
// request-header identity (client-go's SetAuthProxyHeaders) and Go's texts for failed connections.
import type { IncomingMessage } from 'node:http';
import { request, type RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { APIService } from '../../api/apiregistration/index.js';
import type { UserInfo } from '../context.js';

/** The front-proxy client certificate the aggregator presents (kube's --proxy-client-cert-file). */
export interface ProxyClientCert {
  certPem: string;
  keyPem: string;
}

export function tlsOptions(o: APIService, client: ProxyClientCert | undefined, verify = true): RequestOptions & ConnectionOptions {
  const spec = o.spec ?? {};
  const svc = spec.service ?? {};
  const out: RequestOptions & ConnectionOptions = {
    servername: `${svc.name ?? ''}.${svc.namespace ?? ''}.svc`,
    rejectUnauthorized: verify && !spec.insecureSkipTLSVerify,
    ALPNProtocols: ['http/1.1'],
  };
  if (spec.caBundle) out.ca = Buffer.from(spec.caBundle, 'base64').toString('latin1');
  if (client) Object.assign(out, { cert: client.certPem, key: client.keyPem });
  return out;
}

/** The characters Go's headerKeyEscape keeps in an X-Remote-Extra- key; the others are percent-encoded bytes. */
const KEEP = /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/;

export function escapeHeaderKey(key: string): string {
  let out = '';
  for (const ch of key) {
    if (KEEP.test(ch)) out += ch;
    else for (const b of Buffer.from(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** X-Remote-User, one X-Remote-Group per group and X-Remote-Extra-<key> per extra value. */
export function authProxyHeaders(user: UserInfo): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = { 'X-Remote-User': user.name };
  if (user.groups.length) h['X-Remote-Group'] = [...user.groups];
  for (const [k, vs] of Object.entries(user.extra ?? {})) if (vs.length) h[`X-Remote-Extra-${escapeHeaderKey(k)}`] = [...vs];
  return h;
}

/** Whatever identity headers the client sent are dropped: only the aggregator may assert one. */
export function isIdentityHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'x-remote-user' || n === 'x-remote-group' || n === 'x-remote-uid' || n.startsWith('x-remote-extra-') || n === 'impersonate-user' || n === 'impersonate-group' || n === 'impersonate-uid' || n.startsWith('impersonate-extra-');
}

const hostPort = (host: string, port: number | string) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);

/** A connection or TLS failure as Go's net, crypto/tls and x509 print it. */
export function goNetError(err: Error, host: string, port: number): string {
  const e = ((err as unknown as { errors?: Error[] }).errors?.[0] ?? err) as NodeJS.ErrnoException & { address?: string; port?: number };
  const at = e.address && e.port ? hostPort(e.address, e.port) : hostPort(host, port);
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${at}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${at}: connect: no route to host`;
    case 'ETIMEDOUT':
      return `dial tcp ${at}: i/o timeout`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ECONNRESET':
      return 'EOF';
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: ${e.message.replace(/^Hostname\/IP does not match certificate's altnames: /, '')}`;
  }
  return e.message;
}

export interface Fetched {
  status: number;
  contentType: string;
  body: Buffer;
}

/** One GET with a deadline over the whole exchange; the error is Go's http.Client text (`Get "<url>": …`). */
export function fetchBackend(url: string, host: string, port: number, opts: RequestOptions & { timeoutMs: number }): Promise<Fetched> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (e: string | undefined, f?: Fetched) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (e !== undefined) {
        req.destroy();
        reject(new Error(`Get "${url}": ${e}`));
      } else resolve(f!);
    };
    const timer = setTimeout(() => finish('context deadline exceeded (Client.Timeout exceeded while awaiting headers)'), opts.timeoutMs);
    const { timeoutMs: _t, ...rest } = opts;
    const req = request({ ...rest, host, port, path: u.pathname + u.search, method: 'GET', agent: false }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
      res.on('error', (e) => finish(goNetError(e, host, port)));
    });
    req.on('error', (e) => finish(goNetError(e, host, port)));
    req.end();
  });
}
