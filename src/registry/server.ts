// An OCI distribution registry (pull and push) over containerd's own content and image store, on loopback, plain
// HTTP: what `k1s image load` imported can be pulled, and what is pushed is an image the node runs. containerd uses
// it as a mirror of the public registries (see runtime/registry-hosts.ts).
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import type { ContainerdStore } from '../runtime/containerd-store.js';
import { checkPushedManifest, gcLabels, parseManifest } from './manifests.js';
import { DIGEST, imageNames, isDigest, NS, parseRoute, RegistryError, TAG, type Route } from './routes.js';
import { contentRangeStart, uploadRange, Uploads, type Upload } from './uploads.js';
import { json, listCatalog, listTags } from './listing.js';

export interface RegistryOptions {
  store: ContainerdStore;
  /** where upload sessions keep their bytes */
  uploadDir: string;
  /** 127.0.0.1 unless told otherwise: the registry has no authentication */
  host?: string;
  port: number;
  log?: (line: string) => void;
  /** K1S_TRACE=registry: one line per request */
  trace?: boolean;
}

const MAX_MANIFEST_BYTES = 4 << 20;

export class ImageRegistry {
  private server: Server | undefined;
  private readonly uploads: Uploads;
  /** host:port clients address this registry by; its own repositories are stored under this name */
  self = '';

  constructor(private readonly opts: RegistryOptions) {
    this.uploads = new Uploads(opts.uploadDir);
  }

  /** Listens; rejects with EADDRINUSE etc. like net.Server. Returns the port. */
  async start(): Promise<number> {
    await this.uploads.start();
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    this.self = `localhost:${port}`;
    return port;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
    await this.uploads.stop();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    res.setHeader('Docker-Distribution-API-Version', 'registry/2.0');
    const url = new URL(req.url ?? '/', 'http://registry');
    try {
      const route = parseRoute(url.pathname);
      if (!route) throw new RegistryError('NAME_INVALID', 'invalid repository name', url.pathname, 404);
      await this.serve(route, req, res, url);
    } catch (e) {
      const err = e instanceof RegistryError ? e : undefined;
      if (!err) this.opts.log?.(`registry: ${req.method} ${url.pathname}: ${(e as Error).message}`);
      if (!res.headersSent) {
        const body = err ? err.body() : JSON.stringify({ errors: [{ code: 'UNKNOWN', message: (e as Error).message, detail: null }] });
        res.writeHead(err?.status ?? 500, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      } else res.destroy();
      req.resume();
    } finally {
      if (this.opts.trace) this.opts.log?.(`registry: ${req.method} ${req.url} ${res.statusCode} ${Math.round(performance.now() - started)} ms`);
    }
  }

  private async serve(route: Route, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const q = url.searchParams;
    const nsParam = q.get('ns') ?? undefined;
    // containerd names the host it asked for; this registry's own names are no upstream
    const own = nsParam === this.self || nsParam === `127.0.0.1:${this.self.split(':')[1]}`;
    const ns = nsParam && NS.test(nsParam) && !own ? nsParam : undefined;
    const allow = (...methods: string[]) => {
      if (!methods.includes(method)) throw new RegistryError('UNSUPPORTED', 'The operation is unsupported.', { method }, 405);
    };
    switch (route.kind) {
      case 'ping':
        allow('GET', 'HEAD');
        return json(res, 200, {}, method);
      case 'catalog':
        allow('GET');
        return listCatalog(this.opts.store, this.self, q, res);
      case 'tags':
        allow('GET');
        return listTags(this.opts.store, imageNames(route.name, ns, this.self), route.name, q, res);
      case 'blob':
        allow('GET', 'HEAD', 'DELETE');
        if (method === 'DELETE') throw new RegistryError('UNSUPPORTED', 'blobs are content of the node\'s containerd: remove images with k1s image rm', undefined, 405);
        return this.getBlob(route.digest, req, res, method);
      case 'manifest':
        allow('GET', 'HEAD', 'PUT', 'DELETE');
        if (method === 'PUT') return this.putManifest(route.name, route.reference, ns, req, res);
        if (method === 'DELETE') return this.deleteManifest(route.name, route.reference, ns, res);
        return this.getManifest(route.name, route.reference, ns, res, method);
      case 'uploads':
        allow('POST');
        return this.startUpload(route.name, req, res, q);
      case 'upload': {
        allow('GET', 'PATCH', 'PUT', 'DELETE');
        const u = this.uploads.get(route.name, route.uuid);
        if (method === 'GET') return uploadStatus(res, u, 204);
        if (method === 'DELETE') {
          await this.uploads.remove(u);
          res.writeHead(204).end();
          return;
        }
        if (method === 'PATCH') {
          await this.uploads.append(u, req, contentRangeStart(req.headers['content-range']));
          return uploadStatus(res, u, 202);
        }
        const digest = q.get('digest');
        if (!digest) throw new RegistryError('DIGEST_INVALID', 'provided digest did not match uploaded content', 'the digest query parameter is required');
        await this.uploads.append(u, req);
        return this.finishUpload(u, digest, res);
      }
    }
  }

  private async getBlob(digest: string, req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    if (!DIGEST.test(digest)) throw new RegistryError('DIGEST_INVALID', 'provided digest did not match uploaded content', { digest });
    const info = await this.opts.store.info(digest);
    if (!info) throw new RegistryError('BLOB_UNKNOWN', 'blob unknown to registry', { digest });
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/octet-stream',
      'Docker-Content-Digest': digest,
      'Accept-Ranges': 'bytes',
      ETag: `"${digest}"`,
    };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    let start = 0;
    let end = info.size - 1;
    let status = 200;
    if (range) {
      start = Number(range[1]);
      end = range[2] ? Math.min(Number(range[2]), info.size - 1) : info.size - 1;
      if (start > end) {
        res.writeHead(416, { 'Content-Range': `bytes */${info.size}` }).end();
        return;
      }
      status = 206;
      headers['Content-Range'] = `bytes ${start}-${end}/${info.size}`;
    }
    headers['Content-Length'] = end - start + 1;
    res.writeHead(status, headers);
    if (method === 'HEAD' || info.size === 0) {
      res.end();
      return;
    }
    await pipe(createReadStream(this.opts.store.blobPath(digest), { start, end }), res);
  }

  /** the image a tag names in the first candidate repository that has it */
  private async resolveTag(repo: string, tag: string, ns: string | undefined) {
    for (const name of imageNames(repo, ns, this.self)) {
      const img = await this.opts.store.getImage(`${name}:${tag}`);
      if (img) return img;
    }
    return undefined;
  }

  private async getManifest(repo: string, reference: string, ns: string | undefined, res: ServerResponse, method: string): Promise<void> {
    const unknown = () => new RegistryError('MANIFEST_UNKNOWN', 'manifest unknown', { name: repo, reference });
    let digest = reference;
    let mediaType: string | undefined;
    if (!isDigest(reference)) {
      if (!TAG.test(reference)) throw new RegistryError('MANIFEST_INVALID', 'manifest invalid', { reference });
      const img = await this.resolveTag(repo, reference, ns);
      if (!img) throw unknown();
      digest = img.target.digest;
      mediaType = img.target.mediaType;
    } else if (!DIGEST.test(reference)) throw new RegistryError('DIGEST_INVALID', 'provided digest did not match uploaded content', { digest: reference });
    const info = await this.opts.store.info(digest);
    if (!info || info.size > MAX_MANIFEST_BYTES) throw unknown();
    const body = await this.opts.store.readBlob(digest);
    const parsed = parseManifest(body);
    if (!parsed) throw unknown();
    res.writeHead(200, {
      'Content-Type': mediaType || parsed.mediaType,
      'Content-Length': body.length,
      'Docker-Content-Digest': digest,
      ETag: `"${digest}"`,
    });
    res.end(method === 'HEAD' ? undefined : body);
  }

  private async putManifest(repo: string, reference: string, ns: string | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const byDigest = isDigest(reference);
    if (!byDigest && !TAG.test(reference)) throw new RegistryError('MANIFEST_INVALID', 'manifest invalid', { reference });
    const body = await readBody(req, MAX_MANIFEST_BYTES);
    const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    if (byDigest && reference !== digest) throw new RegistryError('DIGEST_INVALID', 'provided digest did not match uploaded content', { expected: reference, computed: digest });
    const m = checkPushedManifest(body, req.headers['content-type']);
    const store = this.opts.store;
    for (const d of m.blobs) {
      if (!(await store.info(d.digest!))) throw new RegistryError('MANIFEST_BLOB_UNKNOWN', 'blob unknown to registry', { digest: d.digest });
    }
    for (const d of m.manifests) {
      if (!(await store.info(d.digest!))) throw new RegistryError('MANIFEST_UNKNOWN', 'manifest unknown', { digest: d.digest });
    }
    await store.writeBlob({ digest, size: body.length }, body, gcLabels(m));
    const name = imageNames(repo, ns, this.self)[0]!;
    if (!byDigest) await store.putImage(`${name}:${reference}`, { mediaType: m.mediaType, digest, size: body.length });
    res.writeHead(201, { Location: `/v2/${repo}/manifests/${digest}`, 'Docker-Content-Digest': digest, 'Content-Length': 0 }).end();
  }

  private async deleteManifest(repo: string, reference: string, ns: string | undefined, res: ServerResponse): Promise<void> {
    const names = imageNames(repo, ns, this.self);
    const store = this.opts.store;
    let deleted = 0;
    if (isDigest(reference)) {
      for (const img of await store.listImages()) {
        const at = img.name.lastIndexOf(':');
        if (img.target.digest === reference && names.includes(img.name.slice(0, at))) {
          await store.deleteImage(img.name);
          deleted++;
        }
      }
    } else {
      const img = await this.resolveTag(repo, reference, ns);
      if (img) {
        await store.deleteImage(img.name);
        deleted++;
      }
    }
    if (!deleted) throw new RegistryError('MANIFEST_UNKNOWN', 'manifest unknown', { name: repo, reference });
    res.writeHead(202, { 'Content-Length': 0 }).end();
  }

  private async startUpload(repo: string, req: IncomingMessage, res: ServerResponse, q: URLSearchParams): Promise<void> {
    const mount = q.get('mount');
    if (mount && DIGEST.test(mount) && (await this.opts.store.info(mount))) {
      req.resume();
      res.writeHead(201, { Location: `/v2/${repo}/blobs/${mount}`, 'Docker-Content-Digest': mount, 'Content-Length': 0 }).end();
      return;
    }
    const u = await this.uploads.create(repo);
    const digest = q.get('digest');
    if (digest) {
      // monolithic: the whole blob in this one POST
      await this.uploads.append(u, req);
      return this.finishUpload(u, digest, res);
    }
    req.resume();
    return uploadStatus(res, u, 202);
  }

  private async finishUpload(u: Upload, digest: string, res: ServerResponse): Promise<void> {
    try {
      if (!DIGEST.test(digest)) throw new RegistryError('DIGEST_INVALID', 'provided digest did not match uploaded content', { digest });
      const computed = this.uploads.digest(u);
      if (computed !== digest) throw new RegistryError('DIGEST_INVALID', 'provided digest did not match uploaded content', { expected: digest, computed });
      await this.opts.store.writeBlob({ digest, size: u.size }, u.size ? u.file : Buffer.alloc(0));
    } finally {
      await this.uploads.remove(u);
    }
    res.writeHead(201, { Location: `/v2/${u.name}/blobs/${digest}`, 'Docker-Content-Digest': digest, 'Content-Length': 0 }).end();
  }
}

function uploadStatus(res: ServerResponse, u: Upload, status: number): void {
  res.writeHead(status, {
    Location: `/v2/${u.name}/blobs/uploads/${u.uuid}`,
    Range: uploadRange(u.size),
    'Docker-Upload-UUID': u.uuid,
    'Content-Length': 0,
  }).end();
}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) throw new RegistryError('SIZE_INVALID', 'manifest too large', { max }, 413);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

function pipe(from: Readable, to: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    from.on('error', () => to.destroy());
    to.on('close', () => {
      from.destroy();
      resolve();
    });
    from.pipe(to);
  });
}
